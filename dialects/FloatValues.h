//===- FloatValues.h - the values of a constant weight ---------*- C++ -*-===//
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

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

namespace autoglm {

/// The values of a constant whose elements are `T`s (f32 for float, any
/// 8-bit integer type for int8_t) in row-major order, or nothing if `attr`
/// is not one (or its blob is missing).
template <typename T>
std::optional<llvm::SmallVector<T>> constantValues(mlir::Attribute attr) {
  auto value = llvm::dyn_cast_or_null<mlir::ElementsAttr>(attr);
  if (!value)
    return std::nullopt;
  mlir::Type element = value.getElementType();
  if (std::is_floating_point_v<T> ? !element.isF32()
                                  : !element.isInteger(sizeof(T) * 8))
    return std::nullopt;
  if (auto blob = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(value)) {
    llvm::ArrayRef<char> data = blob.getData();
    if ((int64_t)data.size() != value.getNumElements() * (int64_t)sizeof(T))
      return std::nullopt;
    llvm::SmallVector<T> values(value.getNumElements());
    std::memcpy(values.data(), data.data(), data.size());
    return values;
  }
  auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(value);
  if (!dense)
    return std::nullopt;
  // The stored bytes: the same for signed, unsigned and signless integers.
  llvm::ArrayRef<char> raw = dense.getRawData();
  if ((int64_t)raw.size() != (dense.isSplat() ? 1 : value.getNumElements()) *
                                 (int64_t)sizeof(T))
    return std::nullopt;
  llvm::SmallVector<T> values(dense.isSplat() ? 1 : value.getNumElements());
  std::memcpy(values.data(), raw.data(), raw.size());
  if (dense.isSplat())
    values.assign(value.getNumElements(), values.front());
  return values;
}

/// The values of an f32 constant (see constantValues).
inline std::optional<llvm::SmallVector<float>>
floatValues(mlir::Attribute attr) {
  return constantValues<float>(attr);
}

} // namespace autoglm

#endif // AUTOGLM_DIALECTS_FLOATVALUES_H
