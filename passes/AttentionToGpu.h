//===- AttentionToGpu.h - what the GPU's attention kernel takes -*- C++ -*-===//
#ifndef AUTOGLM_PASSES_ATTENTIONTOGPU_H
#define AUTOGLM_PASSES_ATTENTIONTOGPU_H

#include "mlir/IR/BuiltinTypeInterfaces.h"

#include <cstdint>

namespace autoglm {

/// A warp's rows and depth in the tensor cores' products (mma.sync
/// m16n8k16): head sizes are multiples of it.
inline constexpr int64_t kFlashFragment = 16;
/// Query rows per block of the kernel (a warp per 16).
inline constexpr int64_t kFlashRowsPerBlock = 64;
/// The largest head size whose staged rows fit the kernel's shared memory.
inline constexpr int64_t kFlashMaxHeadDim = 128;

/// Whether autoglm-attention-to-gpu takes attention over these Q, K and V:
/// head sizes multiples of 16 up to 128, and at least 16 query rows, known
/// when compiling. A few query rows (a decode step, which a symbolic query
/// length may be) would leave each block streaming the whole cache for one
/// row, with as few blocks as heads: the products and the softmax row
/// kernel serve those better.
inline bool fitsFlashAttention(mlir::ShapedType query, mlir::ShapedType key,
                               mlir::ShapedType value) {
  auto headFits = [](int64_t size) {
    return !mlir::ShapedType::isDynamic(size) && size % kFlashFragment == 0 &&
           size <= kFlashMaxHeadDim;
  };
  int64_t rows = query.getDimSize(2);
  return headFits(query.getDimSize(3)) && headFits(key.getDimSize(3)) &&
         headFits(value.getDimSize(3)) && !mlir::ShapedType::isDynamic(rows) &&
         rows >= kFlashFragment;
}

} // namespace autoglm

#endif // AUTOGLM_PASSES_ATTENTIONTOGPU_H
