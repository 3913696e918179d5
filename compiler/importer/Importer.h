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
  /// Values for symbolic input dimensions (`--dim NAME=VALUE`).
  llvm::StringMap<int64_t> dims;
  /// Graph inputs fixed to a value at compile time (`--bind NAME=FILE`):
  /// they become constants and leave the compiled model's signature.
  std::map<std::string, onnx::TensorProto> boundInputs;
  /// Name of the function that holds the graph.
  std::string functionName = "main";
};

/// Lowest and highest default-domain opset the importer understands.
constexpr int64_t kMinOpset = 7, kMaxOpset = 28;

/// Imports the main graph as one func.func on tensors whose arguments and
/// results carry their ONNX names (`autoglm.name`). Diagnostics go to the
/// context's handler; failure means at least one was emitted.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(OnnxModel &model, mlir::MLIRContext &context,
                const ImportOptions &options);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_IMPORTER_H
