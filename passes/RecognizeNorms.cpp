//===- RecognizeNorms.cpp - RMSNorm and LayerNorm from primitive ops ------===//
//
// Exporters often write the normalizations of transformer layers out in
// primitive ops: RMSNorm as Pow, ReduceMean, Add, Sqrt, Reciprocal (or Div)
// and two Muls; LayerNorm as ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt,
// Div, Mul, Add. Lowered op by op they are six or more loop nests with a
// buffer each. Recognized as autoglm.rms_norm / autoglm.layer_norm, they
// lower to a statistics pass and one normalizing pass.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "passes/Passes.h"
#include "passes/RecognizePatterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_RECOGNIZENORMS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// `value` is x * x or x ^ 2.
bool isSquareOf(Value value, Value x) {
  if (auto mul = value.getDefiningOp<MulOp>())
    return mul.getLhs() == x && mul.getRhs() == x;
  auto pow = value.getDefiningOp<PowOp>();
  return pow && pow.getLhs() == x && scalarConstant(pow.getRhs()) == 2.0f;
}

/// The first axis of a mean over the trailing axes of x, kept as extent 1.
std::optional<int64_t> trailingMeanOf(Value mean, Value *input) {
  auto reduce = mean.getDefiningOp<ReduceMeanOp>();
  if (!reduce || !reduce.getKeepdims())
    return std::nullopt;
  int64_t rank = cast<ShapedType>(reduce.getInput().getType()).getRank();
  ArrayRef<int64_t> axes = reduce.getAxes();
  if (axes.empty() || axes.back() != rank - 1 ||
      int64_t(axes.size()) != rank - axes.front() ||
      !llvm::is_sorted(axes))
    return std::nullopt;
  *input = reduce.getInput();
  return axes.front();
}

/// s = mean(d^2 over trailing axes) + eps, for the given d.
struct MeanSquare {
  int64_t axis;
  float epsilon;
};
std::optional<MeanSquare> meanSquarePlusEpsilon(Value s, Value d) {
  auto add = s.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [mean, eps] : operandOrders(add)) {
    Value squared;
    std::optional<int64_t> axis = trailingMeanOf(mean, &squared);
    std::optional<float> epsilon = scalarConstant(eps);
    if (axis && epsilon && isSquareOf(squared, d))
      return MeanSquare{*axis, *epsilon};
  }
  return std::nullopt;
}

/// `value` is d / sqrt(s) or d * (1 / sqrt(s)) (as Reciprocal or Div);
/// returns d and s.
std::optional<std::pair<Value, Value>> dividedByRoot(Value value) {
  if (auto div = value.getDefiningOp<DivOp>())
    if (auto root = div.getRhs().getDefiningOp<SqrtOp>())
      return std::pair{div.getLhs(), root.getInput()};
  auto mul = value.getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  for (auto [d, inverse] : operandOrders(mul)) {
    Value root;
    if (auto reciprocal = inverse.getDefiningOp<ReciprocalOp>())
      root = reciprocal.getInput();
    else if (auto div = inverse.getDefiningOp<DivOp>();
             div && scalarConstant(div.getLhs()) == 1.0f)
      root = div.getRhs();
    if (auto sqrt = root ? root.getDefiningOp<SqrtOp>() : SqrtOp())
      return std::pair{d, sqrt.getInput()};
  }
  return std::nullopt;
}

/// Whether `scale` (or a bias) applies per element of the normalized axes.
/// Those must be static (the mean divides by their count); the leading
/// axes may be symbolic, as the token axis of a decoder is.
bool perNormalizedElement(Value scale, Value x, int64_t axis) {
  auto xType = cast<ShapedType>(x.getType());
  auto sType = cast<ShapedType>(scale.getType());
  ArrayRef<int64_t> normalized = xType.getShape().drop_front(axis);
  return !ShapedType::isDynamicShape(normalized) && sType.hasStaticShape() &&
         sType.getRank() <= xType.getRank() - axis &&
         inference::broadcastsTo(sType.getShape(), normalized);
}

bool isF32(Value value) {
  return cast<ShapedType>(value.getType()).getElementType().isF32();
}

/// x / sqrt(mean(x^2) + eps) * scale  ->  rms_norm(x, scale).
struct RecognizeRMSNorm : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp root,
                                PatternRewriter &rewriter) const override {
    if (!isF32(root))
      return failure();
    for (auto [normalized, scale] : operandOrders(root)) {
      auto parts = dividedByRoot(normalized);
      if (!parts)
        continue;
      auto [x, s] = *parts;
      auto stats = meanSquarePlusEpsilon(s, x);
      if (!stats || x.getType() != root.getType() ||
          !perNormalizedElement(scale, x, stats->axis))
        continue;
      auto norm = RMSNormOp::create(
          rewriter, locationOfPattern(rewriter, root, {x, scale}), x, scale,
          uint64_t(stats->axis), APFloat(stats->epsilon));
      rewriter.replaceOp(root, norm);
      return success();
    }
    return failure();
  }
};

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * scale + bias
///   ->  layer_norm(x, scale, bias).
struct RecognizeLayerNorm : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp root,
                                PatternRewriter &rewriter) const override {
    if (!isF32(root))
      return failure();
    for (auto [scaled, bias] : operandOrders(root)) {
      auto mul = scaled.getDefiningOp<MulOp>();
      if (!mul)
        continue;
      for (auto [normalized, scale] : operandOrders(mul)) {
        auto parts = dividedByRoot(normalized);
        if (!parts)
          continue;
        auto [centered, s] = *parts;
        auto sub = centered.getDefiningOp<SubOp>();
        auto stats = meanSquarePlusEpsilon(s, centered);
        if (!sub || !stats)
          continue;
        Value x = sub.getLhs(), meanInput;
        std::optional<int64_t> axis = trailingMeanOf(sub.getRhs(), &meanInput);
        if (!axis || *axis != stats->axis || meanInput != x ||
            x.getType() != root.getType() ||
            !perNormalizedElement(scale, x, *axis) ||
            !perNormalizedElement(bias, x, *axis))
          continue;
        auto norm = LayerNormOp::create(
            rewriter, locationOfPattern(rewriter, root, {x, scale, bias}), x,
            scale, bias, uint64_t(*axis), APFloat(stats->epsilon));
        rewriter.replaceOp(root, norm);
        return success();
      }
    }
    return failure();
  }
};

struct RecognizeNormsPass
    : autoglm::impl::RecognizeNormsBase<RecognizeNormsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeRMSNorm, RecognizeLayerNorm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
