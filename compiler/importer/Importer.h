//===- Importer.h - ONNX graph to an autoglm function -----------*- C++ -*-===//
#ifndef AUTOGLM_COMPILER_IMPORTER_IMPORTER_H
#define AUTOGLM_COMPILER_IMPORTER_IMPORTER_H

#include "compiler/importer/OnnxModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <map>

namespace autoglm {

struct ImportOptions {
  /// Values of symbolic input dimensions (`--dim NAME=N` pins one value,
  /// `--dim NAME=MIN..MAX` keeps the dimension symbolic within the range).
  struct DimRange {
    int64_t min, max;
  };
  llvm::StringMap<DimRange> dims;
  /// Graph inputs fixed to a value at compile time (`--bind NAME=FILE`):
  /// they become constants and leave the compiled model's signature.
  std::map<std::string, onnx::TensorProto> boundInputs;
  /// Name of the function that holds the graph.
  std::string functionName = "main";
};

/// Lowest and highest default-domain opset the importer understands.
constexpr int64_t kMinOpset = 7, kMaxOpset = 28;

/// Imports the main graph as one func.func on tensors whose arguments and
/// results carry their ONNX names (`autoglm.name`). Dimensions declared with
/// a range are `?` in the types; the function lists those symbols
/// (`autoglm.symbols`, {name, min, max} each) and every argument with one
/// says which dimension is which symbol (`autoglm.dim_symbols`, -1 static). Diagnostics go to the
/// context's handler; failure means at least one was emitted.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(OnnxModel &model, mlir::MLIRContext &context,
                const ImportOptions &options);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_IMPORTER_H
