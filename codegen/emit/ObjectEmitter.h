//===- ObjectEmitter.h - LLVM dialect to native artifacts -------*- C++ -*-===//
#ifndef AUTOGLM_CODEGEN_EMIT_OBJECTEMITTER_H
#define AUTOGLM_CODEGEN_EMIT_OBJECTEMITTER_H

#include "codegen/emit/ModelSignature.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace autoglm {

enum class ArtifactKind { LLVMIR, Assembly, Object, SharedLibrary };

struct EmitOptions {
  /// LLVM CPU name, or "native" for the host CPU and its features.
  std::string cpu = "native";
  /// LLVM optimization level 0-3.
  unsigned optLevel = 3;
  /// Where the weights go when the pipeline moved them out of the code.
  std::string weightsPath;
  /// Those weights go into the artifact instead, as data the descriptor
  /// points to (a GPU model compiled with --weights=embed).
  bool embedWeights = false;
};

/// Translates an LLVM-dialect module to LLVM IR, adds the C entry points of
/// `signature`, optimizes for the target CPU and writes `path` atomically
/// (a temporary file renamed into place, so a failure leaves no output).
/// Writes the weights file too if the weights were moved out of the code
/// (or, with `embedWeights`, adds them as data). Fills
/// `signature.weightsSize` and `signature.weightsFile` (or
/// `signature.weightsData`).
llvm::Error emitArtifact(mlir::ModuleOp module, ModelSignature &signature,
                         ArtifactKind kind, llvm::StringRef path,
                         const EmitOptions &options);

/// Writes `contents` to `path` atomically ("-" is standard output).
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_OBJECTEMITTER_H
