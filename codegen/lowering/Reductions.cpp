//===- Reductions.cpp - reductions and normalizations to linalg -----------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

SmallVector<int64_t> allAxes(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

Value sumAlong(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes) {
  Type t = getElementTypeOrSelf(input.getType());
  return buildReduction(b, loc, input, axes, cast<TypedAttr>(b.getZeroAttr(t)),
                        [](OpBuilder &nb, Location l, ValueRange a) {
                          return emitAdd(nb, l, a[0], a[1]);
                        });
}

/// Mean over `axes` with the reduced axes kept as extent 1.
Value meanAlong(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t count = 1;
  for (int64_t a : axes)
    count *= type.getDimSize(a);
  Value sum = sumAlong(b, loc, input, axes);
  return buildElementwise(
      b, loc, cast<RankedTensorType>(sum.getType()), sum,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value n = scalarConstant(nb, l, a[0].getType(), (double)count);
        if (isa<FloatType>(a[0].getType()))
          return arith::DivFOp::create(nb, l, a[0], n);
        return arith::DivSIOp::create(nb, l, a[0], n);
      });
}

template <typename OpTy>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<int64_t> axes(op.getAxes());
    if (axes.empty())
      axes = allAxes(rank);
    Value kept;
    if constexpr (std::is_same_v<OpTy, ReduceMeanOp>) {
      kept = meanAlong(rewriter, loc, input, axes);
    } else if constexpr (std::is_same_v<OpTy, ReduceSumOp>) {
      kept = sumAlong(rewriter, loc, input, axes);
    } else {
      constexpr bool isMax = std::is_same_v<OpTy, ReduceMaxOp>;
      bool isUnsigned = getElementTypeOrSelf(op.getType()).isUnsignedInteger();
      Type element = getElementTypeOrSelf(input.getType());
      kept = buildReduction(
          rewriter, loc, input, axes,
          isMax ? lowestValue(element, isUnsigned)
                : highestValue(element, isUnsigned),
          [&](OpBuilder &b, Location l, ValueRange a) {
            return isMax ? emitMax(b, l, a[0], a[1], isUnsigned)
                         : emitMin(b, l, a[0], a[1], isUnsigned);
          });
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, kept,
                                         signless(op.getType()).getShape()));
    return success();
  }
};

struct GlobalAveragePoolLowering : OpConversionPattern<GlobalAveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rank = op.getType().getRank();
    auto spatial = llvm::to_vector(llvm::seq<int64_t>(2, rank));
    rewriter.replaceOp(op, meanAlong(rewriter, op.getLoc(), adaptor.getInput(),
                                     spatial));
    return success();
  }
};

/// exp(x - max) / sum(exp(x - max)) along one axis.
struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = op.getType();
    int64_t axis = op.getAxis();
    Value max = buildReduction(
        rewriter, loc, x, axis, lowestValue(type.getElementType(), false),
        [](OpBuilder &b, Location l, ValueRange a) {
          return emitMax(b, l, a[0], a[1]);
        });
    Value e = buildElementwise(rewriter, loc, type, {x, max},
                               [](OpBuilder &b, Location l, ValueRange a) {
                                 Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                                 return (Value)math::ExpOp::create(b, l, d);
                               });
    Value sum = sumAlong(rewriter, loc, e, axis);
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, type, {e, sum},
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return (Value)arith::DivFOp::create(b, l, a[0], a[1]);
                             }));
    return success();
  }
};

/// (x - mean) / sqrt(var + eps) * scale + bias over the trailing axes.
struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    auto axes = llvm::to_vector(llvm::seq<int64_t>(op.getAxis(), type.getRank()));
    Value x = adaptor.getInput();
    Value mean = meanAlong(rewriter, loc, x, axes);
    Value centered = buildElementwise(
        rewriter, loc, type, {x, mean}, [](OpBuilder &b, Location l, ValueRange a) {
          return (Value)arith::SubFOp::create(b, l, a[0], a[1]);
        });
    Value squares = buildElementwise(
        rewriter, loc, type, centered, [](OpBuilder &b, Location l, ValueRange a) {
          return (Value)arith::MulFOp::create(b, l, a[0], a[0]);
        });
    Value variance = meanAlong(rewriter, loc, squares, axes);
    double eps = op.getEpsilon().convertToDouble();
    SmallVector<Value> inputs = {centered, variance, adaptor.getScale()};
    if (adaptor.getBias())
      inputs.push_back(adaptor.getBias());
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type, inputs,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value v = arith::AddFOp::create(
                      b, l, a[1], scalarConstant(b, l, a[1].getType(), eps));
                  Value inv = arith::DivFOp::create(
                      b, l, scalarConstant(b, l, v.getType(), 1.0),
                      math::SqrtOp::create(b, l, v));
                  Value y = arith::MulFOp::create(
                      b, l, arith::MulFOp::create(b, l, a[0], inv), a[2]);
                  if (a.size() == 4)
                    y = arith::AddFOp::create(b, l, y, a[3]);
                  return y;
                }));
    return success();
  }
};

/// Inference batch norm: per-channel parameters viewed as [C, 1, ...] so they
/// broadcast against [N, C, spatial...].
struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    SmallVector<int64_t> paramShape = {type.getDimSize(1)};
    paramShape.append(type.getRank() - 2, 1);
    SmallVector<Value> inputs = {adaptor.getInput()};
    for (Value p : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                    adaptor.getVariance()})
      inputs.push_back(reshapeTensor(rewriter, loc, p, paramShape));
    double eps = op.getEpsilon().convertToDouble();
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type, inputs,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value v = arith::AddFOp::create(
                      b, l, a[4], scalarConstant(b, l, a[4].getType(), eps));
                  Value inv = arith::DivFOp::create(
                      b, l, scalarConstant(b, l, v.getType(), 1.0),
                      math::SqrtOp::create(b, l, v));
                  Value d = arith::SubFOp::create(b, l, a[0], a[3]);
                  Value y = arith::MulFOp::create(
                      b, l, arith::MulFOp::create(b, l, d, inv), a[1]);
                  return (Value)arith::AddFOp::create(b, l, y, a[2]);
                }));
    return success();
  }
};

} // namespace

void autoglm::populateReductionLowering(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceMeanOp>, ReduceLowering<ReduceSumOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               GlobalAveragePoolLowering,
               SoftmaxLowering, LayerNormLowering, BatchNormLowering>(
      converter, patterns.getContext());
}
