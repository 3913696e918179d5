//===- VectorizeLoops.cpp - elementwise and reduction loops as vectors ----===//
//
// Loops over buffers that LLVM would have to vectorize on its own often stay
// scalar: every buffer is a view of the same arena, so it cannot rule out
// aliasing, and float sums are not reassociated. Here each linalg.generic
// whose innermost loop walks contiguous memory is tiled to one vector of its
// innermost loop (scalar loops outside) and vectorized with upstream linalg
// vectorization, so the loops become explicit 512-bit vector code.
// Reads that step by one along the innermost loop plus a window offset
// (a convolution's gather, `o + k`) qualify too. Where no width divides the
// innermost extent (CNN maps 14 or 7 wide), whole vectors take what they
// can and a second innermost loop runs the rest one iteration at a time
// (int8 resnet224, one thread: 4.05 -> 3.83 ms).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Tuning.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace autoglm {
#define GEN_PASS_DEF_VECTORIZELOOPS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// Whether `e` is `d<dim>`, plus terms that do not depend on it.
bool stepsByOne(AffineExpr e, unsigned dim) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition() == dim;
  auto sum = dyn_cast<AffineBinaryOpExpr>(e);
  if (!sum || sum.getKind() != AffineExprKind::Add)
    return false;
  return (stepsByOne(sum.getLHS(), dim) && !sum.getRHS().isFunctionOfDim(dim)) ||
         (stepsByOne(sum.getRHS(), dim) && !sum.getLHS().isFunctionOfDim(dim));
}

/// Whether `op` can be tiled to `width` lanes of its innermost loop, each
/// operand read or written contiguously along it (or not at all): into
/// whole vectors, or with `tail` whole vectors and a scalar rest.
bool vectorizable(linalg::GenericOp op, int64_t width, bool tail = false) {
  if (!op.hasPureBufferSemantics())
    return false;

  // The outer loops may have symbolic extents; the innermost one is tiled
  // into whole vectors.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamic(ranges.back()) ||
      (tail ? ranges.back() < width : ranges.back() % width != 0))
    return false;
  unsigned inner = ranges.size() - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    // A scalar (a fill's value) is broadcast to every lane.
    if (operand.get().getType().isIntOrFloat() &&
        op.isDpsInput(&operand))
      continue;
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
    // The innermost loop steps the last dimension by one (a window's
    // offset may be added: convolution gathers read `o + k`).
    if (!stepsByOne(map.getResults().back(), inner))
      return false;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(inner))
        return false;
    auto [strides, offset] = type.getStridesAndOffset();
    if (strides.back() != 1)
      return false;
  }
  // Inside a tile, compound accesses are rewritten (see tileInnermost), so
  // every other loop must still be the plain index of some operand, which
  // gives the tile its extent of 1.
  for (unsigned d = 0; d < inner; ++d) {
    bool plain = llvm::any_of(op.getIndexingMapsArray(), [&](AffineMap map) {
      return llvm::any_of(map.getResults(), [&](AffineExpr e) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        return dim && dim.getPosition() == d;
      });
    });
    if (!plain)
      return false;
  }
  // Index-dependent bodies (iota-like generics) are left to the loops.
  bool usesIndex = false;
  op.getBody()->walk([&](linalg::IndexOp) { usesIndex = true; });
  return !usesIndex;
}

/// Whether all loops of `op` can fold into one: every loop parallel, every
/// operand a whole static buffer indexed by all loops in order (or a
/// scalar), its elements contiguous.
bool collapsible(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (operand.get().getType().isIntOrFloat() && op.isDpsInput(&operand))
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.hasStaticShape() ||
        !op.getMatchingIndexingMap(&operand).isIdentity() ||
        !type.areTrailingDimsContiguous(type.getRank()))
      return false;
  }
  bool usesIndex = false;
  op.getBody()->walk([&](linalg::IndexOp) { usesIndex = true; });
  return !usesIndex;
}

/// The generic cloned, at the rewriter's insertion point, on static views of
/// the tile at `ivs`: `width` iterations of the innermost loop. Every access
/// of a linalg op stays inside its operands, so a tile's view has a fixed
/// size (`width` along the dimension the innermost loop steps, 1 elsewhere)
/// and needs no clamping; window reads such as `k + o` become plain `o` on
/// a view that starts at `k`.
Operation *cloneOnTile(RewriterBase &rewriter, linalg::GenericOp op,
                       ArrayRef<Value> ivs, int64_t width) {
  Location loc = op.getLoc();
  const unsigned inner = ivs.size() - 1;
  SmallVector<Value> views;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) { // a scalar
      views.push_back(operand.get());
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<OpFoldResult> offsets, sizes,
        strides(type.getRank(), rewriter.getIndexAttr(1));
    for (AffineExpr e : map.getResults()) {
      offsets.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, AffineMap::get(map.getNumDims(), 0, e),
          getAsOpFoldResult(ivs)));
      sizes.push_back(rewriter.getIndexAttr(
          e.isFunctionOfDim(inner) ? width : 1));
    }
    views.push_back(memref::SubViewOp::create(rewriter, loc, operand.get(),
                                              offsets, sizes, strides));
  }
  // Inside a tile the outer loops run once, at 0, and each view starts at
  // its access's offset: a compound access (a window's `o + k`) is the
  // innermost index, or the view's single element; plain loop indices stay.
  MLIRContext *ctx = op.getContext();
  SmallVector<Attribute> maps;
  for (AffineMap map : op.getIndexingMapsArray()) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults())
      results.push_back(isa<AffineDimExpr>(e) ? e
                        : e.isFunctionOfDim(inner)
                            ? getAffineDimExpr(inner, ctx)
                            : getAffineConstantExpr(0, ctx));
    maps.push_back(AffineMapAttr::get(
        AffineMap::get(map.getNumDims(), 0, results, ctx)));
  }
  auto tile = cast<linalg::GenericOp>(rewriter.clone(*op));
  tile->setOperands(views);
  tile.setIndexingMapsAttr(rewriter.getArrayAttr(maps));
  return tile;
}

/// Loops over the generic's iteration space, `width` iterations of the
/// innermost loop at a time, with the generic cloned on static views of one
/// tile (cloneOnTile), which is returned. Where `width` does not divide the
/// innermost extent, a second innermost loop runs the rest one iteration at
/// a time (its one-element generics stay loops).
Operation *tileInnermost(RewriterBase &rewriter, linalg::GenericOp op,
                         int64_t width) {
  Location loc = op.getLoc();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  const unsigned inner = ranges.size() - 1;
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < inner; ++d) {
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = getValueOrCreateConstantIndexOp(rewriter, loc, ranges[d].size);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(rewriter, loc, lb, ub, one);
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    ivs.push_back(loop.getInductionVar());
  }
  // The innermost extent is static (vectorizable).
  const int64_t extent = op.getStaticLoopRanges().back();
  const int64_t whole = extent - extent % width;
  auto innerLoop = [&](int64_t from, int64_t to, int64_t step) {
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, from),
        arith::ConstantIndexOp::create(rewriter, loc, to),
        arith::ConstantIndexOp::create(rewriter, loc, step));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<Value> at(ivs);
    at.push_back(loop.getInductionVar());
    return cloneOnTile(rewriter, op, at, step);
  };
  Operation *main = innerLoop(0, whole, width);
  if (whole < extent)
    innerLoop(whole, extent, 1);
  return main;
}

struct VectorizeLoopsPass
    : autoglm::impl::VectorizeLoopsBase<VectorizeLoopsPass> {
  using VectorizeLoopsBase::VectorizeLoopsBase;

  void runOnOperation() override {
    // Fills, copies and maps (an output's initial value, a padded copy of
    // an input) are elementwise too: as generics they vectorize the same way.
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::FillOp, linalg::CopyOp, linalg::MapOp>(op))
        named.push_back(cast<linalg::LinalgOp>(op));
    });
    // Each op keeps its tuning key through the rewrites that reshape it.
    auto keep = [&](StringRef key, Operation *op) {
      op->setAttr(autoglm::kTuningKeyAttrName, rewriter.getStringAttr(key));
    };
    for (linalg::LinalgOp op : named) {
      std::string key = autoglm::loopTuningKey(op);
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (succeeded(generic))
        keep(key, *generic);
    }
    auto widest = [&](linalg::GenericOp op) {
      return autoglm::loopVectorWidth(op, width);
    };

    // An elementwise nest over whole contiguous buffers whose innermost
    // extent takes no full vector (a 114-wide padded feature map) runs as
    // one loop over all its elements instead.
    SmallVector<linalg::GenericOp> narrow;
    getOperation().walk([&](linalg::GenericOp op) {
      int64_t lanes = widest(op);
      if (lanes > 1 && autoglm::vectorLanesFor(op, lanes) < lanes &&
          collapsible(op))
        narrow.push_back(op);
    });
    for (linalg::GenericOp op : narrow) {
      std::string key = autoglm::loopTuningKey(op);
      rewriter.setInsertionPoint(op);
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, op.getNumLoops()));
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, {all}, rewriter);
      if (succeeded(collapsed)) {
        keep(key, collapsed->collapsedOp);
        rewriter.eraseOp(op);
      }
    }

    SmallVector<std::pair<linalg::GenericOp, int64_t>> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (int64_t lanes = autoglm::vectorLanesWithTail(op, widest(op));
          lanes > 1)
        candidates.emplace_back(op, lanes);
    });
    for (auto [op, lanes] : candidates) {
      rewriter.setInsertionPoint(op);
      Operation *tile = tileInnermost(rewriter, op, lanes);
      rewriter.eraseOp(op);
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tile);
      if (succeeded(vectorized))
        rewriter.eraseOp(tile);
    }
  }
};

} // namespace

int64_t autoglm::vectorLanesFor(linalg::GenericOp op, int64_t widest) {
  // The widest vector (halving down to 4 lanes) that divides the innermost
  // extent: CNN feature maps are 56, 28 or 14 wide.
  for (int64_t lanes = widest; lanes >= 4; lanes /= 2)
    if (vectorizable(op, lanes))
      return lanes;
  return 1;
}

int64_t autoglm::vectorLanesWithTail(linalg::GenericOp op, int64_t widest) {
  if (int64_t lanes = vectorLanesFor(op, widest); lanes > 1)
    return lanes;
  // No width divides the innermost extent (a 14- or 7-wide map): the one
  // that leaves the fewest vector and scalar iterations, if fewer than the
  // extent.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || ShapedType::isDynamic(ranges.back()))
    return 1;
  const int64_t extent = ranges.back();
  int64_t best = 1, cost = extent;
  for (int64_t lanes = widest; lanes >= 4; lanes /= 2) {
    int64_t iterations = extent / lanes + extent % lanes;
    if (iterations < cost && vectorizable(op, lanes, /*tail=*/true)) {
      best = lanes;
      cost = iterations;
    }
  }
  return best;
}

int64_t autoglm::vectorLanesAfterFolding(linalg::GenericOp op, int64_t widest) {
  int64_t lanes = vectorLanesFor(op, widest);
  if (lanes >= widest)
    return lanes;
  if (collapsible(op)) {
    int64_t elements = computeProduct(op.getStaticLoopRanges());
    for (int64_t folded = widest; folded > lanes && folded >= 4; folded /= 2)
      if (elements % folded == 0)
        return folded;
  }
  return vectorLanesWithTail(op, widest);
}
