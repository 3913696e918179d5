//===- Contractions.h - matrix products among the linalg loops -*- C++ -*-===//
//
// Which linalg.generic ops on buffers are (batched) matrix products, and
// which of their loops is which: the CPU kernels, the cuBLAS calls and the
// GPU's weight-only kernel all start from this.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_CONTRACTIONS_H
#define AUTOGLM_PASSES_CONTRACTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace autoglm {

/// Which loop of the generic each role of the contraction is.
struct ContractionLoops {
  int64_t m, n, k;
  llvm::SmallVector<int64_t> batch; // outermost first
  /// The output is (batch.., n, m): C transposed, its columns contiguous.
  bool transposedOutput = false;
};

/// Whether `map` has loop `dim` among its results.
bool mentions(mlir::AffineMap map, int64_t dim);

/// The loops of a (batched) matrix product on memrefs, given that `op`'s
/// first two inputs are its operands, whose output rows are contiguous.
std::optional<ContractionLoops>
matchContractionLoops(mlir::linalg::GenericOp op,
                      bool allowTransposedOutput = false);

/// The loops of a plain (batched) f32 matmul on memrefs whose output rows
/// are contiguous, or nothing.
std::optional<ContractionLoops> matchContraction(mlir::linalg::GenericOp op);

/// The largest extent of each loop of `op` when its symbols stay within
/// their ranges (SizeBounds.h); kDynamic where nothing bounds it.
llvm::SmallVector<int64_t> maxLoopRanges(mlir::linalg::GenericOp op);

} // namespace autoglm

#endif // AUTOGLM_PASSES_CONTRACTIONS_H
