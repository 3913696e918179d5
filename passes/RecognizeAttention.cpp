//===- RecognizeAttention.cpp - attention from primitive ops --------------===//
//
// Exporters write scaled dot-product attention out in primitive ops:
//   MatMul(Q, Transpose(K)) -> Mul or Div by a constant scale
//     -> Add a mask, or Where(constant boolean mask, scores, -1e9)
//     -> Softmax over the keys -> MatMul with V
// (the ONNX Attention importer spells it the same way, with the scale split
// between Q and K, grouped-query heads repeated by Reshape, Expand, Reshape,
// and a Where that zeroes the rows its mask leaves with no key, which
// autoglm.attention does too). Lowered op by op, it stores the Sq x Sk scores, twice; as
// autoglm.attention it runs as one streaming kernel.
//
// A Where with a constant condition leaves keys out by giving them a very
// negative score; taken as leaving them out exactly (-inf), which differs
// only when every key of a row is left out, which is checked. The condition
// becomes the causal flag when it is the causal pattern, nothing when it
// keeps every key, and else a 0 / -inf additive mask.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "passes/Passes.h"
#include "passes/RecognizePatterns.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace autoglm {
#define GEN_PASS_DEF_RECOGNIZEATTENTION
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// A Where fill at or below this leaves its key out in practice: e^-10000
/// is 0 in f32 against any score near the row's maximum.
constexpr float kExcludingFill = -1.0e4f;

RankedTensorType rankedF32(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isF32() ? type : nullptr;
}

/// A [B, H, S, D] f32 tensor whose heads H and size D are static (batch and
/// sequence may be symbolic, as in a decoder compiled for any length).
RankedTensorType headsF32(Value value) {
  auto type = rankedF32(value);
  if (!type || type.getRank() != 4 || type.isDynamicDim(1) ||
      type.isDynamicDim(3))
    return nullptr;
  return type;
}

/// The values of a boolean constant in row-major order, or nothing.
std::optional<SmallVector<bool>> boolValues(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || !constant.getType().getElementType().isInteger(1))
    return std::nullopt;
  auto attr = constant.getValue();
  if (auto blob = dyn_cast<DenseResourceElementsAttr>(attr)) {
    ArrayRef<char> data = blob.getData();
    if (int64_t(data.size()) != attr.getNumElements())
      return std::nullopt;
    return llvm::map_to_vector(data, [](char c) { return c != 0; });
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  if (dense.isSplat())
    return SmallVector<bool>(dense.getNumElements(),
                             dense.getSplatValue<bool>());
  return llvm::to_vector(dense.getValues<bool>());
}

/// `value` times a scalar constant (either order), or divided by one:
/// returns the other operand and multiplies `scale` by the factor.
Value stripScale(Value value, double &scale) {
  if (auto mul = value.getDefiningOp<MulOp>())
    for (auto [x, factor] : operandOrders(mul))
      if (auto c = scalarConstant(factor);
          c && x.getType() == value.getType()) {
        scale *= *c;
        return x;
      }
  if (auto div = value.getDefiningOp<DivOp>())
    if (auto c = scalarConstant(div.getRhs());
        c && *c != 0 && div.getLhs().getType() == value.getType()) {
      scale /= *c;
      return div.getLhs();
    }
  return value;
}

/// `value` is a MatMul, maybe scaled, of the given type.
bool isScaledProduct(Value value, Type type) {
  double unused = 1.0;
  return value.getType() == type &&
         stripScale(value, unused).getDefiningOp<MatMulOp>();
}

/// A [B, H, S, D] tensor whose heads repeat those of a [B, Hkv, S, D] one
/// in groups (Reshape to [B, Hkv, 1, S, D], Expand to [B, Hkv, G, S, D],
/// Reshape back): that one; else `value` itself. A symbolic S is the same
/// length throughout: the reshapes keep the element count, and all other
/// extents are static.
Value unrepeatHeads(Value value) {
  auto merge = value.getDefiningOp<ReshapeOp>();
  auto expand = merge ? merge.getInput().getDefiningOp<ExpandOp>() : nullptr;
  auto split = expand ? expand.getInput().getDefiningOp<ReshapeOp>() : nullptr;
  if (!split)
    return value;
  auto full = cast<RankedTensorType>(value.getType());
  auto wide = cast<RankedTensorType>(expand.getType());
  auto narrow = cast<RankedTensorType>(split.getType());
  auto source = headsF32(split.getInput());
  auto staticBut = [](RankedTensorType type, int64_t axis) {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis && type.isDynamicDim(d))
        return false;
    return true;
  };
  if (!source || wide.getRank() != 5 || !staticBut(source, 2) ||
      !staticBut(wide, 3) || !staticBut(narrow, 3) || !staticBut(full, 2) ||
      narrow.getShape() != ArrayRef<int64_t>{source.getDimSize(0),
                                             source.getDimSize(1), 1,
                                             source.getDimSize(2),
                                             source.getDimSize(3)} ||
      wide.getShape() != ArrayRef<int64_t>{source.getDimSize(0),
                                           source.getDimSize(1),
                                           wide.getDimSize(2),
                                           source.getDimSize(2),
                                           source.getDimSize(3)} ||
      full.getDimSize(1) != source.getDimSize(1) * wide.getDimSize(2))
    return value;
  return split.getInput();
}

/// `test` is max(mask over its last axis) == -inf: returns the mask.
Value maskOfEmptyRowTest(Value test) {
  auto equal = test.getDefiningOp<EqualOp>();
  if (!equal ||
      scalarConstant(equal.getRhs()) != -std::numeric_limits<float>::infinity())
    return nullptr;
  auto rowMax = equal.getLhs().getDefiningOp<ReduceMaxOp>();
  if (!rowMax || !rowMax.getKeepdims())
    return nullptr;
  int64_t rank = cast<ShapedType>(rowMax.getInput().getType()).getRank();
  if (rowMax.getAxes() != ArrayRef<int64_t>{rank - 1})
    return nullptr;
  return rowMax.getInput();
}

/// What masks the scores: an additive mask and/or the causal flag.
struct Masking {
  Value mask;
  bool causal = false;
};

/// The masking a constant Where condition `keep` of shape `shape` means
/// (broadcast to the scores [.., Sq, Sk]), or nothing when a row keeps no
/// key.
std::optional<Masking> maskingOf(PatternRewriter &rewriter, Location loc,
                                 Value keep, int64_t qLen, int64_t kvLen) {
  auto values = boolValues(keep);
  if (!values)
    return std::nullopt;
  auto type = cast<RankedTensorType>(keep.getType());
  int64_t rank = type.getRank();
  int64_t rows = rank >= 2 ? type.getDimSize(rank - 2) : 1;
  int64_t cols = rank >= 1 ? type.getDimSize(rank - 1) : 1;
  int64_t matrices = type.getNumElements() / std::max<int64_t>(rows * cols, 1);
  bool all = true, causal = matrices == 1;
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i) {
      bool any = false;
      for (int64_t j = 0; j < cols; ++j) {
        bool kept = (*values)[(m * rows + i) * cols + j];
        any |= kept;
        all &= kept;
        // Causal: key j kept iff j <= i + kvLen - qLen, on the full grid.
        causal &= rows == qLen && cols == kvLen &&
                  kept == (j <= i + kvLen - qLen);
      }
      if (!any && cols > 0)
        return std::nullopt;
    }
  Masking masking;
  if (all)
    return masking;
  if (causal) {
    masking.causal = true;
    return masking;
  }
  const float inf = std::numeric_limits<float>::infinity();
  SmallVector<float> bias = llvm::map_to_vector(
      *values, [&](bool kept) { return kept ? 0.0f : -inf; });
  auto biasType = RankedTensorType::get(type.getShape(), rewriter.getF32Type());
  masking.mask = ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(biasType, ArrayRef<float>(bias)));
  return masking;
}

/// MatMul(Softmax(mask(scale * MatMul(Q, Transpose(K)))), V) -> attention.
struct RecognizeScaledDotProduct : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp root,
                                PatternRewriter &rewriter) const override {
    // The ONNX Attention importer zeroes rows that its mask leaves with no
    // key, as autoglm.attention does: Where(max(mask) == -inf, 0, probs).
    Value probs = root.getLhs(), guardedMask;
    if (auto guard = probs.getDefiningOp<WhereOp>()) {
      guardedMask = maskOfEmptyRowTest(guard.getCondition());
      if (!guardedMask || scalarConstant(guard.getX()) != 0.0f)
        return rewriter.notifyMatchFailure(root, "Where that is no row guard");
      probs = guard.getY();
    }
    auto softmax = probs.getDefiningOp<SoftmaxOp>();
    auto probsType = softmax ? rankedF32(softmax) : nullptr;
    if (!probsType || probsType.getRank() != 4 || softmax.getAxis() != 3 ||
        !headsF32(root) || !headsF32(root.getRhs()))
      return rewriter.notifyMatchFailure(root, "not softmax(4-D) x V");
    int64_t qLen = probsType.getDimSize(2), kvLen = probsType.getDimSize(3);

    // The masking, outermost.
    Value scores = softmax.getInput();
    Value mask, condition;
    if (auto add = scores.getDefiningOp<AddOp>()) {
      for (auto [x, m] : operandOrders(add))
        if (isScaledProduct(x, scores.getType())) {
          scores = x;
          mask = m;
          break;
        }
      if (!mask || !rankedF32(mask))
        return rewriter.notifyMatchFailure(root, "Add of no f32 mask");
    } else if (auto where = scores.getDefiningOp<WhereOp>()) {
      auto fill = scalarConstant(where.getY());
      if (!fill || *fill > kExcludingFill ||
          where.getX().getType() != scores.getType())
        return rewriter.notifyMatchFailure(root, "Where that is no mask");
      condition = where.getCondition();
      scores = where.getX();
    }

    if (guardedMask && guardedMask != mask)
      return rewriter.notifyMatchFailure(root, "row guard of another mask");

    double scale = 1.0;
    scores = stripScale(scores, scale);
    auto product = scores.getDefiningOp<MatMulOp>();
    auto transpose =
        product ? product.getRhs().getDefiningOp<TransposeOp>() : nullptr;
    if (!transpose ||
        transpose.getPerm() != ArrayRef<int64_t>{0, 1, 3, 2})
      return rewriter.notifyMatchFailure(root, "no MatMul(Q, Transpose(K))");
    Value q = stripScale(product.getLhs(), scale);
    Value k = unrepeatHeads(stripScale(transpose.getInput(), scale));
    Value v = unrepeatHeads(root.getRhs());
    if (!headsF32(q) || !headsF32(k) || !headsF32(v))
      return rewriter.notifyMatchFailure(root, "Q, K or V not 4-D f32 with "
                                               "static heads");

    Location loc = locationOfPattern(
        rewriter, root, {q, k, v, mask, condition});
    Masking masking;
    masking.mask = mask;
    if (condition) {
      auto fromCondition = maskingOf(rewriter, loc, condition, qLen, kvLen);
      if (!fromCondition)
        return rewriter.notifyMatchFailure(root, "mask keeps a row empty");
      masking = *fromCondition;
    }
    // The shapes must agree (heads, broadcasting) before the op is built.
    auto shaped = [](Value x) {
      return x ? cast<ShapedType>(x.getType()) : ShapedType();
    };
    auto shape = attentionShape(std::nullopt, shaped(q), shaped(k), shaped(v),
                                shaped(masking.mask));
    if (failed(shape) ||
        RankedTensorType::get(*shape, rewriter.getF32Type()) !=
            root.getType()) {
      if (masking.mask && masking.mask != mask)
        rewriter.eraseOp(masking.mask.getDefiningOp());
      return rewriter.notifyMatchFailure(root, "shapes do not agree");
    }
    auto attention = AttentionOp::create(
        rewriter, loc, q, k, v, masking.mask,
        rewriter.getF32FloatAttr(float(scale)),
        rewriter.getBoolAttr(masking.causal));
    rewriter.replaceOp(root, attention);
    return success();
  }
};

struct RecognizeAttentionPass
    : autoglm::impl::RecognizeAttentionBase<RecognizeAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeScaledDotProduct>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
