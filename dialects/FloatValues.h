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

/// A constant of `type` (elements `T`, as they lie in memory) computed by
/// `fill`. From 64 KiB on it is held in a heap resource blob (64-byte
/// aligned): unlike a dense attribute, whose storage the context keeps for
/// good, its bytes go when the blob does (dropOwnedBlob), and they are
/// written into the object or the weights file as they lie. Smaller ones
/// are dense attributes, whose values IR dumps show.
template <typename T>
mlir::ElementsAttr
newConstant(mlir::ShapedType type, llvm::StringRef name,
            llvm::function_ref<void(llvm::MutableArrayRef<T>)> fill) {
  constexpr size_t kBlobBytes = 64 << 10;
  const size_t count = type.getNumElements();
  if (count * sizeof(T) < kBlobBytes) {
    llvm::SmallVector<T> values(count);
    fill(values);
    // Raw bytes: T may be the bits of a float type without a C++ one (f16).
    return mlir::DenseElementsAttr::getFromRawBuffer(
        type,
        llvm::ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                             count * sizeof(T)));
  }
  mlir::AsmResourceBlob blob = mlir::HeapAsmResourceBlob::allocate(
      count * sizeof(T), /*align=*/64, /*dataIsMutable=*/true);
  fill(llvm::MutableArrayRef<T>(
      reinterpret_cast<T *>(blob.getMutableData().data()), count));
  return mlir::DenseResourceElementsAttr::get(type, name, std::move(blob));
}

/// Tells the system that the bytes of constant `attr` will not be read
/// again soon: where they are pages of a mapped file (a large model's
/// external data, which the importer maps), those pages leave this
/// process's memory; they are read back from the file if they are read
/// again. Once a weight has been packed, its original would otherwise stay
/// resident next to the packed copy. Memory of other kinds keeps its data.
void releaseConstantPages(mlir::Attribute attr);

/// Frees the bytes of `attr` where it is a resource blob that owns them (a
/// heap blob such as newConstant's), for a constant that nothing will read
/// again: a packed copy that a quantized one replaced. A blob of borrowed
/// bytes (the importer's, in the model's file) is left as it is.
void dropOwnedBlob(mlir::Attribute attr);

} // namespace autoglm

#endif // AUTOGLM_DIALECTS_FLOATVALUES_H
