//===- IntegerMatMuls.cpp - products of quantized operands in int8 --------===//
//
// A quantized model (QDQ, as onnxruntime's quantize_static writes it, or
// the one --precision int8 makes) says "int8" with DequantizeLinear ops in
// front of a float MatMul:
//   y = matmul(dequantize(a_q, s_a, z_a), dequantize(b_q, s_b, z_b))
// Run as written, that is a float product of float copies. Since
// dequantize(q) = (q - z) * s and the scales are per tensor (a) and per
// tensor or per column (b), the same y is
//   y = float(matmul_integer(a_q, b_q, z_a, z_b)) * (s_a * s_b)
// an exact integer product (int32 sums of 8-bit products), then one scale
// per column. The integer product runs on the runtime's int8 GEMM, and the
// scaling joins the elementwise ops that follow it.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/FloatValues.h"
#include "dialects/InferenceUtils.h"
#include "passes/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_INTEGERMATMULS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

bool isPerTensor(Value value) {
  auto type = cast<ShapedType>(value.getType());
  return type.getRank() <= 1 && type.getNumElements() == 1;
}

/// A dequantized operand: its 8-bit values, its scales, and its zero point:
/// a per-tensor one, or the common entry of a per-column constant.
struct Dequantized {
  Value values, scale, zeroPoint;
  std::optional<int8_t> commonZeroPoint;

  Value scalarZeroPoint(PatternRewriter &rewriter, Location loc) const {
    if (!commonZeroPoint)
      return zeroPoint;
    auto type = RankedTensorType::get({}, getElementTypeOrSelf(zeroPoint));
    return ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(type, APInt(8, uint8_t(*commonZeroPoint))));
  }
};

std::optional<Dequantized> dequantized(Value value, bool perColumnScale) {
  auto dq = value.getDefiningOp<DequantizeLinearOp>();
  if (!dq || !getElementTypeOrSelf(dq.getInput()).isInteger(8) ||
      !getElementTypeOrSelf(dq.getType()).isF32())
    return std::nullopt;
  auto type = cast<ShapedType>(dq.getInput().getType());
  // Per-column parameters run along the last axis of a matrix operand.
  bool alongColumns = type.getRank() >= 2 && dq.getAxis() == type.getRank() - 1;
  Dequantized d{dq.getInput(), dq.getScale(), dq.getZeroPoint(), std::nullopt};
  if (!isPerTensor(d.scale) &&
      !(perColumnScale && alongColumns &&
        cast<ShapedType>(d.scale.getType()).getRank() == 1))
    return std::nullopt;
  if (!isPerTensor(d.zeroPoint)) {
    auto constant = d.zeroPoint.getDefiningOp<ConstantOp>();
    auto values = constant ? constantValues<int8_t>(constant.getValue())
                           : std::nullopt;
    if (!alongColumns || !values ||
        llvm::any_of(*values, [&](int8_t v) { return v != values->front(); }))
      return std::nullopt;
    d.commonZeroPoint = values->front();
  }
  return d;
}

struct MatMulOfDequantized : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    if (cast<ShapedType>(op.getRhs().getType()).getRank() < 2)
      return failure();
    auto lhs = dequantized(op.getLhs(), /*perColumnScale=*/false);
    auto rhs = dequantized(op.getRhs(), /*perColumnScale=*/true);
    if (!lhs || !rhs)
      return rewriter.notifyMatchFailure(op, "operands are not dequantized "
                                             "8-bit tensors");
    Location loc = op.getLoc();
    Value product = MatMulIntegerOp::create(
        rewriter, loc, lhs->values, rhs->values,
        lhs->scalarZeroPoint(rewriter, loc),
        rhs->scalarZeroPoint(rewriter, loc));
    Value wide =
        CastOp::create(rewriter, loc, product, rewriter.getF32Type());
    Value scale = MulOp::create(rewriter, loc, lhs->scale, rhs->scale);
    rewriter.replaceOpWithNewOp<MulOp>(op, wide, scale);
    return success();
  }
};

struct IntegerMatMulsPass
    : autoglm::impl::IntegerMatMulsBase<IntegerMatMulsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MatMulOfDequantized>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
