//===- ExpandBFloat16.cpp - bfloat16 conversions as integer arithmetic ----===//
//
// LLVM turns an f32 -> bf16 truncation into a call of the compiler runtime's
// __truncsfbf2 wherever the target CPU has no bfloat16 conversion
// instructions (AVX512_BF16, AVX-NE-CONVERT): one call per element, even in
// a vector loop (libautoglm_rt provides the function, for what LLVM still
// rounds that way). This pass writes the conversions (both ways) as the
// integer arithmetic of upstream's arith expansion instead: round to
// nearest even, NaN kept quiet, which vectorizes like any other integer op.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_EXPANDBFLOAT16
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

struct ExpandBFloat16Pass
    : autoglm::impl::ExpandBFloat16Base<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
