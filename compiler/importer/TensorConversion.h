//===- TensorConversion.h - ONNX tensors and types to MLIR ------*- C++ -*-===//
#ifndef AUTOGLM_COMPILER_IMPORTER_TENSORCONVERSION_H
#define AUTOGLM_COMPILER_IMPORTER_TENSORCONVERSION_H

#include "compiler/importer/OnnxModel.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

namespace autoglm {

/// TensorProto.DataType codes newer than the ONNX schema AutoGLM builds
/// against (the fields holding them are plain int32s, so they parse).
enum NarrowDataType : int32_t {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

/// The ONNX name of a TensorProto.DataType ("float32", "complex64", ...).
std::string onnxTypeName(int32_t dataType);

/// The MLIR element type of an ONNX data type, or null where unsupported.
/// Unsigned integers keep their signedness (ui8); `i1` is bool.
mlir::Type convertElementType(int32_t dataType, mlir::MLIRContext *context);

/// An initializer or Constant value as an attribute: small tensors as dense
/// elements, large ones as resource blobs pointing into `model`'s memory.
mlir::FailureOr<mlir::ElementsAttr>
convertTensor(const onnx::TensorProto &tensor, OnnxModel &model,
              mlir::MLIRContext *context, mlir::Location loc);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_TENSORCONVERSION_H
