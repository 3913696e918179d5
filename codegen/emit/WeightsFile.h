//===- WeightsFile.h - the weights file of a compiled model -----*- C++ -*-===//
#ifndef AUTOGLM_CODEGEN_EMIT_WEIGHTSFILE_H
#define AUTOGLM_CODEGEN_EMIT_WEIGHTSFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace autoglm {

/// Writes the constants that autoglm-externalize-weights moved out of the
/// code to `path` (atomically, streaming from the blobs: nothing is copied in
/// memory), removes their record from `module` and returns the file's size.
/// Returns 0 and writes nothing when the module embeds its weights.
llvm::Expected<uint64_t> writeWeightsFile(mlir::ModuleOp module,
                                          llvm::StringRef path);

/// The same bytes in memory, for weights embedded in the artifact as data
/// that the runtime hands to the code (a GPU model's, which it uploads);
/// removes their record. Empty when the module embeds its weights in code.
std::string takeWeightsBlob(mlir::ModuleOp module);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_WEIGHTSFILE_H
