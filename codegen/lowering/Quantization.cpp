//===- Quantization.cpp - (de)quantization to linalg.generic --------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"
#include "dialects/StorageTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

/// Per-channel parameters [C] viewed as [1, .., C, .., 1] (C at `axis`) so
/// they broadcast against the input; per-tensor ones stay scalars and
/// per-element ones (blocked quantization) as they are.
Value alongAxis(OpBuilder &b, Location loc, Value param, int64_t axis,
                int64_t rank) {
  auto type = cast<RankedTensorType>(param.getType());
  if (type.getNumElements() == 1)
    return reshapeTensor(b, loc, param, {});
  if (type.getRank() == rank)
    return param;
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = type.getDimSize(0);
  return reshapeTensor(b, loc, param, shape);
}

struct QuantizeLinearLowering : OpConversionPattern<QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type quantized = op.getType().getElementType();
    bool isUnsigned = quantized.isUnsignedInteger();
    int64_t rank = op.getType().getRank();
    Value scale = alongAxis(rewriter, loc, adaptor.getScale(), op.getAxis(), rank);
    Value zp = alongAxis(rewriter, loc, adaptor.getZeroPoint(), op.getAxis(), rank);
    unsigned width = quantized.getIntOrFloatBitWidth();
    double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
    bool saturate = op.getSaturate();
    Value result = buildElementwise(
        rewriter, loc, signless(op.getType()), {adaptor.getInput(), scale, zp},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type f = a[0].getType();
          Value q = arith::DivFOp::create(b, l, a[0], a[1]);
          // To float8 the zero point is 0 and, as in ONNX's reference, not
          // added (which keeps -0); float4 adds it. Both round on conversion.
          if (isNarrowFloat(quantized)) {
            if (isa<Float4E2M1FNType>(quantized))
              q = arith::AddFOp::create(
                  b, l, q, emitConvert(b, l, a[2], quantized, f));
            return emitConvert(b, l, q, f, quantized, saturate);
          }
          q = math::RoundEvenOp::create(b, l, q);
          q = arith::AddFOp::create(b, l, q, emitConvert(b, l, a[2], quantized, f));
          q = emitMax(b, l, q, scalarConstant(b, l, f, lo));
          q = emitMin(b, l, q, scalarConstant(b, l, f, hi));
          return emitConvert(b, l, q, f, quantized);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DequantizeLinearLowering : OpConversionPattern<DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type quantized = getElementTypeOrSelf(op.getInput().getType());
    int64_t rank = op.getType().getRank();
    Value scale = alongAxis(rewriter, loc, adaptor.getScale(), op.getAxis(), rank);
    Value zp = alongAxis(rewriter, loc, adaptor.getZeroPoint(), op.getAxis(), rank);
    Type f = op.getType().getElementType();
    Value result = buildElementwise(
        rewriter, loc, op.getType(), {adaptor.getInput(), scale, zp},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = emitConvert(b, l, a[0], quantized, f);
          Value z = emitConvert(b, l, a[2], quantized, f);
          return (Value)arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, x, z), a[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void autoglm::populateQuantizationLowering(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering>(
      converter, patterns.getContext());
}
