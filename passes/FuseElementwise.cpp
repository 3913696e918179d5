//===- FuseElementwise.cpp - fuse chains of elementwise generics ----------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

bool isElementwise(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

/// A generic that only moves its one input's elements (a transpose):
/// fused into any consumer it costs nothing but a different indexing map.
bool isPermutedCopy(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !isElementwise(op) || generic.getNumDpsInputs() != 1 ||
      !generic.getIndexingMapsArray()[0].isPermutation())
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getValues().size() == 1 &&
         yield.getValues()[0] == generic.getBody()->getArgument(0);
}

bool shouldFuse(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  return producer && producer->hasOneUse() &&
         (isElementwise(operand->getOwner()) || isPermutedCopy(producer));
}

/// Whether an elementwise generic should take in, by running over fewer
/// dimensions, the expand_shape of another elementwise generic's result
/// that it reads (`x = A B + bias; y = expand(x) + residual`, a Gemm's
/// bias and the residual add after a view): the two then fuse, and the
/// product's call can take both as its epilogue.
bool shouldCollapseThroughExpand(OpOperand *operand) {
  auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
  auto producer =
      expand ? expand.getSrc().getDefiningOp<linalg::GenericOp>() : nullptr;
  return expand && producer && isElementwise(operand->getOwner()) &&
         isa<linalg::GenericOp>(operand->getOwner()) &&
         isElementwise(producer.getOperation()) && producer->hasOneUse() &&
         expand->hasOneUse();
}

/// `tensor.dim` of an expand_shape is its output shape's extent: the view
/// then has no other user than the loop that reads it, which can then run
/// over its source's dimensions (shouldCollapseThroughExpand).
struct DimOfExpandShape : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp dim,
                                PatternRewriter &rewriter) const override {
    auto expand = dim.getSource().getDefiningOp<tensor::ExpandShapeOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!expand || !index)
      return failure();
    OpFoldResult extent = expand.getMixedOutputShape()[*index];
    rewriter.replaceOp(
        dim, getValueOrCreateConstantIndexOp(rewriter, dim.getLoc(), extent));
    return success();
  }
};

/// A Reshape of symbolic extents is a collapse_shape to one dimension and
/// an expand_shape to the new shape, which no loop sees through. Where the
/// extents pair up, in order, into groups of equal element counts (a
/// symbolic extent alone, proven equal to its counterpart by value bounds;
/// constants with equal products), the pair becomes a collapse and an
/// expand along those groups instead: upstream folds the identities among
/// them, and a reshape that only splits or merges dimensions (attention's
/// heads) becomes one the loops fuse with. Upstream composes the pair only
/// with at most one symbolic extent.
struct RegroupFlatteningReshape : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    auto collapse = expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || collapse.getResultType().getRank() != 1)
      return failure();
    Value source = collapse.getSrc();
    ArrayRef<int64_t> from = collapse.getSrcType().getShape();
    ArrayRef<int64_t> to = expand.getResultType().getShape();
    SmallVector<OpFoldResult> outputShape = expand.getMixedOutputShape();
    SmallVector<ReassociationIndices> sourceGroups, resultGroups;
    size_t i = 0, j = 0;
    while (i < from.size() && j < to.size()) {
      ReassociationIndices sourceGroup{int64_t(i)}, resultGroup{int64_t(j)};
      if (ShapedType::isDynamic(from[i]) || ShapedType::isDynamic(to[j])) {
        FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
            outputShape[j], ValueBoundsConstraintSet::Variable(source, i));
        if (ShapedType::isDynamic(from[i]) != ShapedType::isDynamic(to[j]) ||
            failed(equal) || !*equal)
          return rewriter.notifyMatchFailure(expand, "extents not paired");
      } else {
        int64_t fromCount = from[i], toCount = to[j];
        while (fromCount != toCount) {
          size_t &next = fromCount < toCount ? i : j;
          ArrayRef<int64_t> shape = fromCount < toCount ? from : to;
          if (++next == shape.size() || ShapedType::isDynamic(shape[next]))
            return rewriter.notifyMatchFailure(expand, "counts not paired");
          (fromCount < toCount ? sourceGroup : resultGroup).push_back(next);
          (fromCount < toCount ? fromCount : toCount) *= shape[next];
        }
      }
      sourceGroups.push_back(sourceGroup);
      resultGroups.push_back(resultGroup);
      ++i;
      ++j;
    }
    // Trailing extents of 1 join the last group.
    for (; i < from.size(); ++i)
      if (from[i] != 1 || sourceGroups.empty())
        return failure();
      else
        sourceGroups.back().push_back(i);
    for (; j < to.size(); ++j)
      if (to[j] != 1 || resultGroups.empty())
        return failure();
      else
        resultGroups.back().push_back(j);
    if (sourceGroups.size() <= 1)
      return failure(); // nothing finer than the pair itself
    Value grouped = tensor::CollapseShapeOp::create(rewriter, collapse.getLoc(),
                                                    source, sourceGroups);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        expand, expand.getResultType(), grouped, resultGroups, outputShape);
    return success();
  }
};

/// A transpose that feeds a contraction becomes a generic, so that it can
/// fuse into the contraction's indexing map instead of being copied.
struct GeneralizeTransposeOfContraction
    : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    if (!transpose->hasOneUse() ||
        isElementwise(*transpose->getUsers().begin()) ||
        !isa<linalg::GenericOp>(*transpose->getUsers().begin()))
      return failure();
    return linalg::generalizeNamedOp(rewriter, transpose);
  }
};

/// Fuses a generic's producer into it, like upstream's elementwise fusion
/// pattern, but the fused op keeps the locations of both: every ONNX node
/// a fused loop nest came from stays visible in IR dumps and reports.
struct FuseKeepingLocations : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!linalg::areElementwiseOpsFusable(&operand) || !shouldFuse(&operand))
        continue;
      Location fusedLoc = rewriter.getFusedLoc(
          {operand.get().getDefiningOp()->getLoc(), consumer.getLoc()});
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        return rewriter.notifyMatchFailure(consumer, "fusion failed");
      fused->fusedOp->setLoc(fusedLoc);
      // Only the consumer's results move to the fused op; the producer
      // stays for any other user it has and dies otherwise.
      for (auto [original, replacement] : fused->replacements)
        if (original.getDefiningOp() == consumer)
          rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }
};

struct FuseElementwisePass
    : autoglm::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The upstream set brings the folding patterns that go with fusion;
    // ours, tried first, does the fusing itself.
    patterns.add<FuseKeepingLocations>(&getContext(), /*benefit=*/2);
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, shouldCollapseThroughExpand);
    patterns.add<DimOfExpandShape, RegroupFlatteningReshape,
                 GeneralizeTransposeOfContraction>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
