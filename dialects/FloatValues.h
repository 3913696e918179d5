//===- FloatValues.h - the f32 values of a constant ------------*- C++ -*-===//
//
// Rewrites that compute new weights from old ones (folding BatchNorm into a
// convolution, packing a matmul's weight) read constants that are either
// dense attributes or resource blobs.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_DIALECTS_FLOATVALUES_H
#define AUTOGLM_DIALECTS_FLOATVALUES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>
#include <optional>

namespace autoglm {

/// The values of an f32 constant in row-major order, or nothing if `value`
/// is not one (or its blob is missing).
inline std::optional<llvm::SmallVector<float>>
floatValues(mlir::Attribute attr) {
  auto value = llvm::dyn_cast_or_null<mlir::ElementsAttr>(attr);
  if (!value || !value.getElementType().isF32())
    return std::nullopt;
  if (auto blob = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(value)) {
    llvm::ArrayRef<char> data = blob.getData();
    if ((int64_t)data.size() != value.getNumElements() * 4)
      return std::nullopt;
    llvm::SmallVector<float> values(value.getNumElements());
    std::memcpy(values.data(), data.data(), data.size());
    return values;
  }
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value);
  if (!dense)
    return std::nullopt;
  if (dense.isSplat())
    return llvm::SmallVector<float>(dense.getNumElements(),
                                    dense.getSplatValue<float>());
  return llvm::to_vector(dense.getValues<float>());
}

} // namespace autoglm

#endif // AUTOGLM_DIALECTS_FLOATVALUES_H
