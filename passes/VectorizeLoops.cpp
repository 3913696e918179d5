//===- VectorizeLoops.cpp - elementwise and reduction loops as vectors ----===//
//
// Loops over buffers that LLVM would have to vectorize on its own often stay
// scalar: every buffer is a view of the same arena, so it cannot rule out
// aliasing, and float sums are not reassociated. Here each linalg.generic
// whose innermost loop walks contiguous memory is tiled to one vector of its
// innermost loop (scalar loops outside) and vectorized with upstream linalg
// vectorization, so the loops become explicit 512-bit vector code.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace autoglm {
#define GEN_PASS_DEF_VECTORIZELOOPS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// Whether `op` can be tiled to `width` lanes of its innermost loop, each
/// operand read or written contiguously along it (or not at all).
bool vectorizable(linalg::GenericOp op, int64_t width) {
  if (!op.hasPureBufferSemantics())
    return false;

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamic(ranges.back()) ||
      ranges.back() % width != 0 ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  unsigned inner = ranges.size() - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return false;
    // Bytes only: LLVM packs a vector of i1 into bits, while a buffer of
    // i1 holds one byte per element.
    Type element = type.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool usesInner = map.isFunctionOfDim(inner);
    if (!usesInner)
      continue;
    // The innermost loop indexes the last dimension alone, unit stride.
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last || last.getPosition() != inner)
      return false;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(inner))
        return false;
    auto [strides, offset] = type.getStridesAndOffset();
    if (strides.back() != 1)
      return false;
  }
  // Index-dependent bodies (iota-like generics) are left to the loops.
  bool usesIndex = false;
  op.getBody()->walk([&](linalg::IndexOp) { usesIndex = true; });
  return !usesIndex;
}

struct VectorizeLoopsPass
    : autoglm::impl::VectorizeLoopsBase<VectorizeLoopsPass> {
  using VectorizeLoopsBase::VectorizeLoopsBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (vectorizable(op, width))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      SmallVector<int64_t> tiles(op.getNumLoops(), 1);
      tiles.back() = width;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(
          rewriter, op, linalg::LinalgTilingOptions().setTileSizes(tiles));
      if (failed(tiled))
        continue;
      rewriter.eraseOp(op);
      rewriter.setInsertionPoint(tiled->op);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tiled->op);
      if (succeeded(vectorized))
        rewriter.eraseOp(tiled->op);
    }
  }
};

} // namespace
