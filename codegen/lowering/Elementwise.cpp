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

/// `Fn` computed in f32 for 16-bit floats: a formula of several steps then
/// rounds once instead of after every step.
template <ScalarFn Fn>
Value inF32(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  auto type = dyn_cast<FloatType>(i.input);
  if (!type || type.getWidth() >= 32)
    return Fn(b, l, a, i);
  Type f32 = b.getF32Type();
  SmallVector<Value> wide;
  for (Value v : a)
    wide.push_back(arith::ExtFOp::create(b, l, f32, v));
  Value result = Fn(b, l, wide, ElementInfo{f32, f32});
  return arith::TruncFOp::create(b, l, type, result);
}

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
Value signFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  Value x = a[0], zero0 = zero(b, l, x), one1 = one(b, l, x);
  if (i.isUnsigned()) {
    Value nonzero =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x, zero0);
    return arith::SelectOp::create(b, l, nonzero, one1, zero0);
  }
  Value minusOne = scalarConstant(b, l, x.getType(), -1.0);
  Value positive, negative;
  if (i.isFloat()) {
    positive = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, zero0);
    negative = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, zero0);
  } else {
    positive = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x, zero0);
    negative = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, x, zero0);
  }
  // Zero (and NaN) map to themselves.
  Value rest = arith::SelectOp::create(b, l, negative, minusOne, x);
  return arith::SelectOp::create(b, l, positive, one1, rest);
}

template <typename MathOp>
Value mathFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return MathOp::create(b, l, a[0]);
}

// LLVM lowers math.expm1 and math.log1p to exp(x) - 1 and log(1 + x), which
// lose all digits near 0. Kahan's corrections recover them with one more
// division: the rounding error of u = exp(x) (or 1 + x) cancels out.
Value expm1Fn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  using P = arith::CmpFPredicate;
  Type type = a[0].getType();
  Value x = a[0], one1 = one(b, l, x);
  Value minusOne = scalarConstant(b, l, type, -1.0);
  Value inf = arith::ConstantOp::create(b, l, highestValue(type, false));
  Value u = math::ExpOp::create(b, l, x);
  Value um1 = arith::SubFOp::create(b, l, u, one1);
  // (u - 1) * (x / log(u)): x / log(u) is near 1, so nothing overflows.
  Value log = math::LogOp::create(b, l, u);
  Value scaled =
      arith::MulFOp::create(b, l, um1, arith::DivFOp::create(b, l, x, log));
  // u - 1 == -1 and u == inf are exact; u == 1 means x is the answer.
  Value saturated = arith::CmpFOp::create(b, l, P::OEQ, um1, minusOne);
  Value overflow = arith::CmpFOp::create(b, l, P::OEQ, u, inf);
  Value exact = arith::OrIOp::create(b, l, saturated, overflow);
  Value result = arith::SelectOp::create(b, l, exact, um1, scaled);
  Value tiny = arith::CmpFOp::create(b, l, P::OEQ, u, one1);
  return arith::SelectOp::create(b, l, tiny, x, result);
}

Value log1pFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  using P = arith::CmpFPredicate;
  Type type = a[0].getType();
  Value x = a[0], one1 = one(b, l, x);
  Value inf = arith::ConstantOp::create(b, l, highestValue(type, false));
  Value u = arith::AddFOp::create(b, l, one1, x);
  // log(u) * (x / (u - 1)): the second factor is near 1.
  Value log = math::LogOp::create(b, l, u);
  Value um1 = arith::SubFOp::create(b, l, u, one1);
  Value scaled =
      arith::MulFOp::create(b, l, log, arith::DivFOp::create(b, l, x, um1));
  // u == inf: the answer is inf; u == 1 means x is the answer.
  Value overflow = arith::CmpFOp::create(b, l, P::OEQ, u, inf);
  Value result = arith::SelectOp::create(b, l, overflow, u, scaled);
  Value tiny = arith::CmpFOp::create(b, l, P::OEQ, u, one1);
  return arith::SelectOp::create(b, l, tiny, x, result);
}

Value allOnes(OpBuilder &b, Location l, Value like) {
  auto type = cast<IntegerType>(like.getType());
  return arith::ConstantOp::create(
      b, l, b.getIntegerAttr(type, APInt::getAllOnes(type.getWidth())));
}

Value notFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return arith::XOrIOp::create(b, l, a[0], allOnes(b, l, a[0]));
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

template <typename IntOp>
Value bitwiseFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return IntOp::create(b, l, a[0], a[1]);
}

/// Shift amounts outside [0, width) give what the fill alone produces. A
/// negative signed amount is a huge unsigned one, so one unsigned compare
/// checks both ends.
Value inShiftRange(OpBuilder &b, Location l, Value amount) {
  Value width = scalarConstant(b, l, amount.getType(),
                               amount.getType().getIntOrFloatBitWidth());
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, amount, width);
}

Value shiftLeftFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  Value shifted = arith::ShLIOp::create(b, l, a[0], a[1]);
  Value inRange = inShiftRange(b, l, a[1]);
  return arith::SelectOp::create(b, l, inRange, shifted, zero(b, l, a[0]));
}

Value shiftRightFn(OpBuilder &b, Location l, ValueRange a,
                   const ElementInfo &i) {
  Value inRange = inShiftRange(b, l, a[1]);
  if (i.isUnsigned()) {
    Value shifted = arith::ShRUIOp::create(b, l, a[0], a[1]);
    return arith::SelectOp::create(b, l, inRange, shifted, zero(b, l, a[0]));
  }
  Value top = scalarConstant(b, l, a[0].getType(),
                             a[0].getType().getIntOrFloatBitWidth() - 1);
  Value amount = arith::SelectOp::create(b, l, inRange, a[1], top);
  return arith::ShRSIOp::create(b, l, a[0], amount);
}

/// Remainder of truncated division (fmod) or of floored division (Python).
Value modFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i,
            bool fmod) {
  Value x = a[0], y = a[1];
  if (i.isUnsigned())
    return arith::RemUIOp::create(b, l, x, y);
  if (!i.isFloat()) {
    Value r = arith::RemSIOp::create(b, l, x, y);
    if (fmod)
      return r;
    // A nonzero remainder whose sign differs from y's moves by y.
    using P = arith::CmpIPredicate;
    Value zero0 = zero(b, l, x);
    Value nonzero = arith::CmpIOp::create(b, l, P::ne, r, zero0);
    Value rNegative = arith::CmpIOp::create(b, l, P::slt, r, zero0);
    Value yNegative = arith::CmpIOp::create(b, l, P::slt, y, zero0);
    Value differ = arith::XOrIOp::create(b, l, rNegative, yNegative);
    Value adjust = arith::AndIOp::create(b, l, nonzero, differ);
    return arith::SelectOp::create(b, l, adjust,
                                   arith::AddIOp::create(b, l, r, y), r);
  }
  Value r = arith::RemFOp::create(b, l, x, y);
  if (fmod)
    return r;
  // As above; NaN stays NaN, and a zero result takes the sign of y.
  using P = arith::CmpFPredicate;
  Value zero0 = zero(b, l, x);
  Value nonzero = arith::CmpFOp::create(b, l, P::ONE, r, zero0);
  Value rNegative = arith::CmpFOp::create(b, l, P::OLT, r, zero0);
  Value yNegative = arith::CmpFOp::create(b, l, P::OLT, y, zero0);
  Value differ = arith::XOrIOp::create(b, l, rNegative, yNegative);
  Value adjust = arith::AndIOp::create(b, l, nonzero, differ);
  Value moved = arith::SelectOp::create(
      b, l, adjust, arith::AddFOp::create(b, l, r, y), r);
  Value isZero = arith::CmpFOp::create(b, l, P::OEQ, r, zero0);
  return arith::SelectOp::create(b, l, isZero,
                                 math::CopySignOp::create(b, l, r, y), moved);
}

struct ModLowering : OpConversionPattern<ModOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ModOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    ElementInfo info{element, element};
    bool fmod = op.getFmod();
    Value result = buildElementwise(
        rewriter, op.getLoc(), signless(op.getType()), adaptor.getOperands(),
        [&](OpBuilder &b, Location l, ValueRange a) {
          return modFn(b, l, a, info, fmod);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value whereFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &) {
  return arith::SelectOp::create(b, l, a[0], a[1], a[2]);
}

Value bitcastFn(OpBuilder &b, Location l, ValueRange a, const ElementInfo &i) {
  if (i.input.isInteger(1) || i.result.isInteger(1)) // bool <-> its byte
    return emitConvert(b, l, a[0], i.input, i.result);
  Type to = i.result;
  if (auto integer = dyn_cast<IntegerType>(to))
    to = b.getIntegerType(integer.getWidth()); // signless at this level
  return arith::BitcastOp::create(b, l, to, a[0]);
}
struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = getElementTypeOrSelf(op.getInput().getType());
    Type to = op.getType().getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), signless(op.getType()), adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange a) {
          return emitConvert(b, l, a[0], from, to, op.getSaturate(),
                             op.getRoundMode());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

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
               ElementwiseLowering<SigmoidOp, inF32<sigmoidFn>>,
               ElementwiseLowering<ExpOp, expFn>,
               ElementwiseLowering<LogOp, logFn>,
               ElementwiseLowering<RoundOp, roundFn>,
               ElementwiseLowering<ReluOp, reluFn>,
               ElementwiseLowering<NegOp, negFn>,
               ElementwiseLowering<AbsOp, absFn>,
               ElementwiseLowering<NotOp, notFn>,
               ElementwiseLowering<SignOp, signFn>,
               ElementwiseLowering<CeilOp, mathFn<math::CeilOp>>,
               ElementwiseLowering<FloorOp, mathFn<math::FloorOp>>,
               ElementwiseLowering<SinOp, mathFn<math::SinOp>>,
               ElementwiseLowering<CosOp, mathFn<math::CosOp>>,
               ElementwiseLowering<TanOp, mathFn<math::TanOp>>,
               ElementwiseLowering<AsinOp, mathFn<math::AsinOp>>,
               ElementwiseLowering<AcosOp, mathFn<math::AcosOp>>,
               ElementwiseLowering<AtanOp, mathFn<math::AtanOp>>,
               ElementwiseLowering<SinhOp, mathFn<math::SinhOp>>,
               ElementwiseLowering<CoshOp, mathFn<math::CoshOp>>,
               ElementwiseLowering<AsinhOp, mathFn<math::AsinhOp>>,
               ElementwiseLowering<AcoshOp, mathFn<math::AcoshOp>>,
               ElementwiseLowering<AtanhOp, mathFn<math::AtanhOp>>,
               ElementwiseLowering<Expm1Op, inF32<expm1Fn>>,
               ElementwiseLowering<Log1pOp, inF32<log1pFn>>,
               ElementwiseLowering<AndOp, bitwiseFn<arith::AndIOp>>,
               ElementwiseLowering<OrOp, bitwiseFn<arith::OrIOp>>,
               ElementwiseLowering<XorOp, bitwiseFn<arith::XOrIOp>>,
               ElementwiseLowering<ShiftLeftOp, shiftLeftFn>,
               ElementwiseLowering<ShiftRightOp, shiftRightFn>,
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
               ElementwiseLowering<LessEqualOp,
                                   compareFn<P::OLE, I::sle, I::ule>>,
               ElementwiseLowering<GreaterEqualOp,
                                   compareFn<P::OGE, I::sge, I::uge>>,
               ElementwiseLowering<WhereOp, whereFn>,
               ElementwiseLowering<BitcastOp, bitcastFn>, CastLowering,
               PowLowering, ClipLowering,
               ModLowering>(
      converter, ctx);
}
