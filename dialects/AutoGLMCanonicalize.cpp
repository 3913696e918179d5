//===- AutoGLMCanonicalize.cpp - canonicalization patterns ----------------===//
//
// Unsqueeze, Squeeze and Flatten only re-shape; rewriting them to
// autoglm.reshape leaves one op for later passes and lowerings to handle.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace autoglm;

namespace {
template <typename OpTy>
struct ToReshape : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    // Unsqueeze and Squeeze keep the symbolic extents, in order; Flatten
    // would multiply them.
    auto in = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (in.isDynamicDim(d))
        sizes.push_back(
            tensor::DimOp::create(rewriter, op.getLoc(), op.getInput(), d));
    if ((int64_t)sizes.size() != op.getType().getNumDynamicDims())
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput(),
                                           sizes);
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
