//===- FuseElementwise.cpp - fuse chains of elementwise generics ----------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return producer && producer->hasOneUse() &&
                 (isElementwise(operand->getOwner()) ||
                  isPermutedCopy(producer));
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
