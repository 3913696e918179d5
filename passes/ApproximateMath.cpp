//===- ApproximateMath.cpp - vectorizable f32 exp, tanh and erf -----------===//
//
// libm's expf and friends are scalar calls that stop loops from
// vectorizing; the polynomial forms are plain arithmetic that vectorizes,
// with errors of a few ulp.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

struct ApproximateMathPass
    : autoglm::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          return name == math::ExpOp::getOperationName() ||
                 name == math::TanhOp::getOperationName() ||
                 name == math::ErfOp::getOperationName();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
