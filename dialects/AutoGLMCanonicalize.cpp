//===- AutoGLMCanonicalize.cpp - canonicalization patterns ----------------===//
//
// Unsqueeze, Squeeze and Flatten only re-shape; rewriting them to
// autoglm.reshape leaves one op for later passes and lowerings to handle.
// BatchNorm after a convolution with constant weights folds into them.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/FloatValues.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

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

/// The f32 values of `value` if a constant defines it.
std::optional<SmallVector<float>> constantFloats(Value value) {
  auto constant = value ? value.getDefiningOp<ConstantOp>() : nullptr;
  return constant ? floatValues(constant.getValue()) : std::nullopt;
}

/// A new constant of `type` holding `values`, as a resource blob named
/// after `hint` (so that IR dumps elide it like any weight).
Value blobConstant(PatternRewriter &rewriter, Location loc,
                   RankedTensorType type, ArrayRef<float> values,
                   StringRef hint) {
  auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(values);
  auto attr = DenseResourceElementsAttr::get(type, hint, std::move(blob));
  return ConstantOp::create(rewriter, loc, type, cast<ElementsAttr>(attr));
}

/// Inference-mode BatchNorm of a convolution's output is a per-filter scale
/// and shift, which the convolution can apply itself:
///   w'[f] = w[f] * s[f],  b'[f] = (b[f] - mean[f]) * s[f] + beta[f],
///   s[f] = gamma[f] / sqrt(var[f] + epsilon).
/// Needs f32 constants for the filter, the bias (if any) and the four
/// BatchNorm operands, and a convolution used by the BatchNorm alone.
struct FoldBatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<ConvOp>();
    if (!conv || !conv->hasOneUse())
      return failure();
    auto filterType = cast<RankedTensorType>(conv.getFilter().getType());
    auto outType = cast<RankedTensorType>(bn.getType());
    if (!filterType.getElementType().isF32() ||
        !outType.getElementType().isF32() || !filterType.hasStaticShape())
      return failure();
    int64_t filters = filterType.getDimSize(0);
    auto filter = constantFloats(conv.getFilter());
    auto gamma = constantFloats(bn.getScale());
    auto beta = constantFloats(bn.getBias());
    auto mean = constantFloats(bn.getMean());
    auto variance = constantFloats(bn.getVariance());
    std::optional<SmallVector<float>> bias =
        conv.getBias() ? constantFloats(conv.getBias())
                       : SmallVector<float>(filters, 0.0f);
    if (!filter || !gamma || !beta || !mean || !variance || !bias)
      return failure();
    for (auto *perFilter : {&*gamma, &*beta, &*mean, &*variance, &*bias})
      if ((int64_t)perFilter->size() != filters)
        return failure();

    int64_t perFilterWeights = filterType.getNumElements() / filters;
    double epsilon = bn.getEpsilon().convertToFloat();
    SmallVector<float> newFilter(*filter), newBias(filters);
    for (int64_t f = 0; f < filters; ++f) {
      double s = (*gamma)[f] / std::sqrt((double)(*variance)[f] + epsilon);
      for (int64_t i = 0; i < perFilterWeights; ++i)
        newFilter[f * perFilterWeights + i] =
            (float)((*filter)[f * perFilterWeights + i] * s);
      newBias[f] = (float)(((*bias)[f] - (*mean)[f]) * s + (*beta)[f]);
    }
    Location loc = bn.getLoc();
    Value foldedFilter = blobConstant(rewriter, loc, filterType, newFilter,
                                      "batch_norm_folded_filter");
    Value foldedBias = blobConstant(
        rewriter, loc, RankedTensorType::get({filters}, rewriter.getF32Type()),
        newBias, "batch_norm_folded_bias");
    // Named after both nodes: profiles and dumps show the Conv.
    auto folded = ConvOp::create(
        rewriter, rewriter.getFusedLoc({conv.getLoc(), bn.getLoc()}), outType,
        conv.getInput(), foldedFilter, foldedBias, conv.getStridesAttr(),
        conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupAttr());
    rewriter.replaceOp(bn, folded);
    rewriter.eraseOp(conv);
    return success();
  }
};

} // namespace

void BatchNormOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<FoldBatchNormIntoConv>(context);
}

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
