//===- LowerGpuReductions.cpp - block-wide reductions to shuffles ---------===//
//
// The row reductions of autoglm-map-loops-to-gpu combine their threads'
// partial results with gpu.all_reduce. Upstream's lowering of it (warp
// shuffles, then one value per warp through shared memory) works on an
// outlined gpu.func; no upstream pass applies it, so this one does.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_LOWERGPUREDUCTIONS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

struct LowerGpuReductionsPass
    : autoglm::impl::LowerGpuReductionsBase<LowerGpuReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuAllReducePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](gpu::AllReduceOp reduce) {
      reduce.emitError("a block-wide reduction that is not uniform (run by "
                       "all of the block's threads or by none) cannot be "
                       "lowered");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
