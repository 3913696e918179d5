//===- FuseElementwise.cpp - fuse chains of elementwise generics ----------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
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
      return signalPassFailure();

    // An elementwise result may overwrite an input of its type that nothing
    // else reads: the op then runs in place once bufferized, so it needs no
    // buffer of its own and rewrites memory it has just read.
    getOperation().walk([](linalg::GenericOp op) {
      if (!isElementwise(op.getOperation()) || op.getNumDpsInits() != 1 ||
          !op.hasPureTensorSemantics())
        return;
      OpOperand *init = op.getDpsInitOperand(0);
      if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
          op.payloadUsesValueFromOperand(init))
        return;
      AffineMap outMap = op.getMatchingIndexingMap(init);
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        Operation *producer = value.getDefiningOp();
        if (value.getType() != init->get().getType() ||
            op.getMatchingIndexingMap(input) != outMap || !value.hasOneUse() ||
            !producer || matchPattern(value, m_Constant()))
          continue;
        init->set(value);
        return;
      }
    });
  }
};

} // namespace
