//===- AutoGLMCanonicalize.cpp - canonicalization patterns ----------------===//
//
// Unsqueeze, Squeeze and Flatten only re-shape; rewriting them to
// autoglm.reshape leaves one op for later passes and lowerings to handle.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace autoglm;

namespace {
template <typename OpTy>
struct ToReshape : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};
} // namespace

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<ToReshape<UnsqueezeOp>>(context);
}

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ToReshape<SqueezeOp>>(context);
}

void FlattenOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ToReshape<FlattenOp>>(context);
}
