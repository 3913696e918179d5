//===- FuseElementwise.cpp - fuse chains of elementwise generics ----------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
    // A transpose that feeds a contraction becomes a generic, so that it
    // can fuse into the contraction's indexing map instead of being copied.
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](linalg::TransposeOp transpose) {
      if (!transpose->hasOneUse() ||
          isElementwise(*transpose->getUsers().begin()) ||
          !isa<linalg::GenericOp>(*transpose->getUsers().begin()))
        return;
      rewriter.setInsertionPoint(transpose);
      (void)linalg::generalizeNamedOp(rewriter, transpose);
    });

    RewritePatternSet patterns(&getContext());
    // The upstream set brings the folding patterns that go with fusion;
    // ours, tried first, does the fusing itself.
    patterns.add<FuseKeepingLocations>(&getContext(), /*benefit=*/2);
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, shouldCollapseThroughExpand);
    patterns.add<DimOfExpandShape>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
