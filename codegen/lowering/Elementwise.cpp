//===- Elementwise.cpp - elementwise autoglm ops to linalg.generic --------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// What a scalar body needs to know beyond the signless values it gets.
struct ElementInfo {
  Type input;  // element type of the first operand, as autoglm typed it
  Type result; // element type of the result, as autoglm typed it
  bool isUnsigned() const { return input.isUnsignedInteger(); }
  bool isFloat() const { return isa<FloatType>(input); }
};

using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange,
                           const ElementInfo &);

template <typename OpTy, ScalarFn Fn>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ElementInfo info{getElementTypeOrSelf(op->getOperand(0).getType()),
                     getElementTypeOrSelf(op.getType())};
    auto resultType = signless(cast<RankedTensorType>(op.getType()));
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return Fn(b, loc, args, info);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value one(OpBuilder &b, Location loc, Value like) {
  return scalarConstant(b, loc, like.getType(), 1.0);
}

Value zero(OpBuilder &b, Location loc, Value like) {
  return scalarConstant(b, loc, like.getType(), 0.0);
}

// ---- unary ----
Value sqrtFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return math::SqrtOp::create(b, l, a[0]);
}
Value reciprocalFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return arith::DivFOp::create(b, l, one(b, l, a[0]), a[0]);
}
Value erfFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return math::ErfOp::create(b, l, a[0]);
}
Value tanhFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return math::TanhOp::create(b, l, a[0]);
}
Value sigmoidFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, a[0]));
  Value denom = arith::AddFOp::create(b, l, one(b, l, a[0]), e);
  return arith::DivFOp::create(b, l, one(b, l, a[0]), denom);
}
Value expFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return math::ExpOp::create(b, l, a[0]);
}
Value roundFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return math::RoundEvenOp::create(b, l, a[0]);
}
Value logFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return math::LogOp::create(b, l, a[0]);
}
Value reluFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  return emitMax(b, l, a[0], zero(b, l, a[0]), i.isUnsigned());
}
Value negFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  if (i.isFloat())
    return arith::NegFOp::create(b, l, a[0]);
  return arith::SubIOp::create(b, l, zero(b, l, a[0]), a[0]);
}
Value absFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  if (i.isFloat())
    return math::AbsFOp::create(b, l, a[0]);
  if (i.isUnsigned())
    return a[0];
  return math::AbsIOp::create(b, l, a[0]);
}
Value notFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return arith::XOrIOp::create(b, l, a[0], one(b, l, a[0]));
}

// ---- binary ----
Value addFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return emitAdd(b, l, a[0], a[1]);
}
Value subFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  if (i.isFloat())
    return arith::SubFOp::create(b, l, a[0], a[1]);
  return arith::SubIOp::create(b, l, a[0], a[1]);
}
Value mulFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return emitMul(b, l, a[0], a[1]);
}
Value divFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  if (i.isFloat())
    return arith::DivFOp::create(b, l, a[0], a[1]);
  if (i.isUnsigned())
    return arith::DivUIOp::create(b, l, a[0], a[1]);
  return arith::DivSIOp::create(b, l, a[0], a[1]);
}
Value minFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  return emitMin(b, l, a[0], a[1], i.isUnsigned());
}
Value maxFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  return emitMax(b, l, a[0], a[1], i.isUnsigned());
}

template <arith::CmpFPredicate F, arith::CmpIPredicate S, arith::CmpIPredicate U>
Value compareFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  if (i.isFloat())
    return arith::CmpFOp::create(b, l, F, a[0], a[1]);
  return arith::CmpIOp::create(b, l, i.isUnsigned() ? U : S, a[0], a[1]);
}

Value whereFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
}

Value castFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  return emitConvert(b, l, a[0], i.input, i.result);
}

/// x ^ y; the exponents exporters use most (2 and 0.5) become exact and fast
/// multiplies and square roots.
struct PowLowering : OpConversionPattern<PowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type base = getElementTypeOrSelf(op.getLhs().getType());
    Type exponent = getElementTypeOrSelf(op.getRhs().getType());
    std::optional<double> constant;
    DenseElementsAttr attr;
    if (matchPattern(op.getRhs(), m_Constant(&attr)) && attr.isSplat())
      constant = isa<FloatType>(exponent)
                     ? attr.getSplatValue<APFloat>().convertToDouble()
                     : (double)attr.getSplatValue<APInt>().getSExtValue();
    Value result = buildElementwise(
        rewriter, op.getLoc(), signless(op.getType()), adaptor.getOperands(),
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          if (constant == 2.0)
            return emitMul(b, l, a[0], a[0]);
          if (constant == 1.0)
            return a[0];
          if (constant == 0.5 && isa<FloatType>(base))
            return math::SqrtOp::create(b, l, a[0]);
          if (isa<FloatType>(base))
            return math::PowFOp::create(b, l, a[0],
                                        emitConvert(b, l, a[1], exponent, base));
          // Integer powers: exact in double precision for every result
          // that fits the integer type.
          Type f64 = b.getF64Type();
          Value x = emitConvert(b, l, a[0], base, f64);
          Value y = emitConvert(b, l, a[1], exponent, f64);
          return emitConvert(b, l, math::PowFOp::create(b, l, x, y), f64, base);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ClipLowering : OpConversionPattern<ClipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool isUnsigned = getElementTypeOrSelf(op.getType()).isUnsignedInteger();
    auto resultType = signless(op.getType());
    auto lo = op.getMin(), hi = op.getMax();
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = a[0];
          if (lo)
            x = emitMax(b, l, x,
                        scalarConstant(b, l, x.getType(), lo->convertToDouble()),
                        isUnsigned);
          if (hi)
            x = emitMin(b, l, x,
                        scalarConstant(b, l, x.getType(), hi->convertToDouble()),
                        isUnsigned);
          return x;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void autoglm::populateElementwiseLowering(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseLowering<SqrtOp, sqrtFn>,
               ElementwiseLowering<ReciprocalOp, reciprocalFn>,
               ElementwiseLowering<ErfOp, erfFn>,
               ElementwiseLowering<TanhOp, tanhFn>,
               ElementwiseLowering<SigmoidOp, sigmoidFn>,
               ElementwiseLowering<ExpOp, expFn>,
               ElementwiseLowering<LogOp, logFn>,
               ElementwiseLowering<RoundOp, roundFn>,
               ElementwiseLowering<ReluOp, reluFn>,
               ElementwiseLowering<NegOp, negFn>,
               ElementwiseLowering<AbsOp, absFn>,
               ElementwiseLowering<NotOp, notFn>,
               ElementwiseLowering<AddOp, addFn>,
               ElementwiseLowering<SubOp, subFn>,
               ElementwiseLowering<MulOp, mulFn>,
               ElementwiseLowering<DivOp, divFn>,
               ElementwiseLowering<MinOp, minFn>,
               ElementwiseLowering<MaxOp, maxFn>,
               ElementwiseLowering<EqualOp, compareFn<P::OEQ, I::eq, I::eq>>,
               ElementwiseLowering<LessOp, compareFn<P::OLT, I::slt, I::ult>>,
               ElementwiseLowering<GreaterOp,
                                   compareFn<P::OGT, I::sgt, I::ugt>>,
               ElementwiseLowering<WhereOp, whereFn>,
               ElementwiseLowering<CastOp, castFn>, PowLowering, ClipLowering>(
      converter, ctx);
}
