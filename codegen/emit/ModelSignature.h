//===- ModelSignature.h - names, dtypes and shapes of a model ---*- C++ -*-===//
#ifndef AUTOGLM_CODEGEN_EMIT_MODELSIGNATURE_H
#define AUTOGLM_CODEGEN_EMIT_MODELSIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace autoglm {

/// What the artifact tells its callers about one input or output.
struct TensorSignature {
  std::string name;
  int32_t dtype; // ONNX TensorProto.DataType code, as in runtime.h
  std::vector<int64_t> shape;
  int64_t numBytes() const;
};

struct ModelSignature {
  std::string name; // C identifier prefix of every exported symbol
  std::vector<TensorSignature> inputs, outputs;
  uint64_t arenaSize = 0;
  uint64_t weightsSize = 0;
  /// Name of the weights file next to the artifact; empty when embedded.
  std::string weightsFile;
};

/// Reads the signature of an imported (tensor-level) function, before
/// lowering erases unsignedness from the element types.
ModelSignature readSignature(mlir::func::FuncOp func, llvm::StringRef name);

/// `name` made into a C identifier ("my-model.v2" -> "my_model_v2").
std::string toCIdentifier(llvm::StringRef name);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_EMIT_MODELSIGNATURE_H
