//===- LinearAlgebra.cpp - MatMul and Gemm to linalg ----------------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"
#include "dialects/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Dialect/Traits.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// The body of a multiply-accumulate generic: the accumulator plus the
/// product of the operands' elements, given the block's arguments (the
/// operands', any extra inputs', then the accumulator).
using ProductBody =
    function_ref<Value(OpBuilder &, Location, ValueRange arguments)>;

/// One multiply-accumulate generic over loops (batch..., m, k, n): the
/// reduction k sits outside n, so the innermost loop walks rows of the rhs
/// and the output contiguously and vectorizes without reassociation.
/// `extra` inputs (scalars) follow the operands. The result has `accType`.
Value buildContraction(OpBuilder &b, Location loc, RankedTensorType accType,
                       ValueRange inputs, ArrayRef<AffineMap> maps,
                       ValueRange sizes, ProductBody body) {
  int64_t loops = maps.front().getNumDims();
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators[loops - 2] = utils::IteratorType::reduction;
  Type accElement = accType.getElementType();
  Value acc = filledTensor(b, loc, accType,
                           cast<TypedAttr>(b.getZeroAttr(accElement)), sizes);
  auto generic = linalg::GenericOp::create(
      b, loc, accType, inputs, acc, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        linalg::YieldOp::create(nb, l, body(nb, l, a));
      });
  return generic.getResult(0);
}

/// The product body of a float contraction: `element` operands multiplied
/// and accumulated in `accElement` (f32 for 16-bit floats).
auto floatProduct(Type element, Type accElement) {
  return [=](OpBuilder &b, Location l, ValueRange a) {
    Value product = emitMul(b, l, emitConvert(b, l, a[0], element, accElement),
                            emitConvert(b, l, a[1], element, accElement));
    return emitAdd(b, l, a[2], product);
  };
}

/// The accumulator type of a contraction with `element` results.
Type accumulatorType(Type element) {
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

/// `value` converted elementwise to the element type of `type`, if needed.
Value convertTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type) {
  Type from = cast<RankedTensorType>(value.getType()).getElementType();
  Type to = type.getElementType();
  if (from == to)
    return value;
  return buildElementwise(b, loc, type, value,
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            return emitConvert(nb, l, a[0], from, to);
                          });
}

/// numpy's matmul of `lhs` and `rhs` as a contraction whose element result
/// `body` computes, into an accumulator of `accElement`; `scalars` are
/// extra rank-0 inputs of the generic. The result has the op's shape, or
/// with `transposedResult` its last two dimensions swapped (batch.., n, m).
Value lowerMatMul(OpBuilder &rewriter, Location loc, Value lhsOperand,
                  Value rhsOperand, ValueRange scalars, Type accElement,
                  ArrayRef<int64_t> resultShape, ProductBody body,
                  bool transposedResult = false) {
  auto lhsType = cast<RankedTensorType>(lhsOperand.getType());
  auto rhsType = cast<RankedTensorType>(rhsOperand.getType());
  MatMulShape s = getMatMulShape(lhsType.getShape(), rhsType.getShape());
  SmallVector<int64_t> batch;
  (void)OpTrait::util::getBroadcastedShape(s.lhsBatch, s.rhsBatch, batch);

  // Vectors become 1-row / 1-column matrices.
  SmallVector<int64_t> lhsShape(s.lhsBatch), rhsShape(s.rhsBatch);
  lhsShape.append({s.m, s.lhsK});
  rhsShape.append({s.rhsK, s.n});
  Value lhs = reshapeTensor(rewriter, loc, lhsOperand, lhsShape);
  Value rhs = reshapeTensor(rewriter, loc, rhsOperand, rhsShape);

  int64_t nb = batch.size(), loops = nb + 3;
  AffineExpr m = rewriter.getAffineDimExpr(nb),
             k = rewriter.getAffineDimExpr(nb + 1),
             n = rewriter.getAffineDimExpr(nb + 2);
  auto batchExprs = [&](ArrayRef<int64_t> operandBatch) {
    SmallVector<AffineExpr> exprs;
    int64_t offset = nb - operandBatch.size();
    for (auto [d, extent] : llvm::enumerate(operandBatch))
      exprs.push_back(extent == 1 && batch[d + offset] != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d + offset));
    return exprs;
  };
  auto lhsExprs = batchExprs(s.lhsBatch);
  lhsExprs.append({m, k});
  auto rhsExprs = batchExprs(s.rhsBatch);
  rhsExprs.append({k, n});
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < nb; ++d)
    outExprs.push_back(rewriter.getAffineDimExpr(d));
  if (transposedResult)
    outExprs.append({n, m});
  else
    outExprs.append({m, n});
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, lhsExprs, ctx),
                                 AffineMap::get(loops, 0, rhsExprs, ctx)};
  maps.append(scalars.size(), AffineMap::get(loops, 0, {}, ctx));
  maps.push_back(AffineMap::get(loops, 0, outExprs, ctx));
  SmallVector<int64_t> outShape(batch);
  if (transposedResult)
    outShape.append({s.n, s.m});
  else
    outShape.append({s.m, s.n});
  // Symbolic extents: batch ones from whichever operand has them, m from
  // the lhs, n from the rhs.
  SmallVector<Value> sizes;
  auto lhsView = cast<RankedTensorType>(lhs.getType());
  auto rhsView = cast<RankedTensorType>(rhs.getType());
  for (int64_t d = 0; d < nb; ++d) {
    if (!ShapedType::isDynamic(batch[d]))
      continue;
    int64_t l = d - (nb - (int64_t)s.lhsBatch.size());
    int64_t r = d - (nb - (int64_t)s.rhsBatch.size());
    if (l >= 0 && lhsView.isDynamicDim(l))
      sizes.push_back(tensor::DimOp::create(rewriter, loc, lhs, l));
    else
      sizes.push_back(tensor::DimOp::create(rewriter, loc, rhs, r));
  }
  SmallVector<Value> mn;
  if (ShapedType::isDynamic(s.m))
    mn.push_back(tensor::DimOp::create(rewriter, loc, lhs, s.lhsBatch.size()));
  if (ShapedType::isDynamic(s.n))
    mn.push_back(
        tensor::DimOp::create(rewriter, loc, rhs, rhsView.getRank() - 1));
  if (transposedResult)
    std::reverse(mn.begin(), mn.end());
  llvm::append_range(sizes, mn);
  SmallVector<Value> inputs = {lhs, rhs};
  llvm::append_range(inputs, scalars);
  Value out = buildContraction(rewriter, loc,
                               RankedTensorType::get(outShape, accElement),
                               inputs, maps, sizes, body);
  return out;
}

struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = signless(op.getType());
    Type element = resultType.getElementType();
    Type accElement = accumulatorType(element);
    Value out = lowerMatMul(rewriter, loc, adaptor.getLhs(), adaptor.getRhs(),
                            {}, accElement, resultType.getShape(),
                            floatProduct(element, accElement));
    auto outType = cast<RankedTensorType>(out.getType());
    out = convertTensor(rewriter, loc, out, outType.clone(element));
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, out,
                                         resultType.getShape()));
    return success();
  }
};

/// acc + (lhs - lhs_zp) * (rhs - rhs_zp), the 8-bit values widened to i32
/// as their autoglm types say (unsigned or signed). A zero point known to
/// be 0 is left out, which is the form the int8 GEMM kernel takes.
struct MatMulIntegerLowering : OpConversionPattern<MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto zeroPoint = [](Value original, Value converted) {
      return matchPattern(original, m_Zero()) ? Value() : converted;
    };
    auto resultType = signless(op.getType());
    Value out = lowerIntegerMatMul(
        rewriter, op.getLoc(), adaptor.getLhs(), adaptor.getRhs(),
        getElementTypeOrSelf(op.getLhs()), getElementTypeOrSelf(op.getRhs()),
        zeroPoint(op.getLhsZeroPoint(), adaptor.getLhsZeroPoint()),
        zeroPoint(op.getRhsZeroPoint(), adaptor.getRhsZeroPoint()),
        resultType.getShape());
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, op.getLoc(), out, resultType.getShape()));
    return success();
  }
};

struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr m = rewriter.getAffineDimExpr(0), k = rewriter.getAffineDimExpr(1),
               n = rewriter.getAffineDimExpr(2);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0, op.getTransA() ? ArrayRef<AffineExpr>{k, m}
                                            : ArrayRef<AffineExpr>{m, k}, ctx),
        AffineMap::get(3, 0, op.getTransB() ? ArrayRef<AffineExpr>{n, k}
                                            : ArrayRef<AffineExpr>{k, n}, ctx),
        AffineMap::get(3, 0, {m, n}, ctx)};
    auto resultType = signless(op.getType());
    // Symbolic extents: m from A, n from B.
    SmallVector<Value> sizes;
    if (resultType.isDynamicDim(0))
      sizes.push_back(tensor::DimOp::create(rewriter, loc, adaptor.getA(),
                                            op.getTransA() ? 1 : 0));
    if (resultType.isDynamicDim(1))
      sizes.push_back(tensor::DimOp::create(rewriter, loc, adaptor.getB(),
                                            op.getTransB() ? 0 : 1));
    Type element = resultType.getElementType();
    Type accElement = accumulatorType(element);
    Value out = buildContraction(rewriter, loc, resultType.clone(accElement),
                                 ValueRange{adaptor.getA(), adaptor.getB()},
                                 maps, sizes, floatProduct(element, accElement));
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    if (alpha == 1.0 && (!c || beta == 0.0)) {
      rewriter.replaceOp(op, convertTensor(rewriter, loc, out, resultType));
      return success();
    }
    SmallVector<Value> inputs = {out};
    if (c && beta != 0.0)
      inputs.push_back(c);
    // Integer gemms have integral alpha and beta (checked at import).
    Value result = buildElementwise(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type t = a[0].getType(), element = resultType.getElementType();
          Value acc = a[0];
          if (alpha != 1.0)
            acc = emitMul(b, l, acc, scalarConstant(b, l, t, alpha));
          if (a.size() > 1) {
            Value bias = emitConvert(b, l, a[1], element, t);
            if (beta != 1.0)
              bias = emitMul(b, l, bias, scalarConstant(b, l, t, beta));
            acc = emitAdd(b, l, acc, bias);
          }
          return emitConvert(b, l, acc, t, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

Value autoglm::lowerIntegerMatMul(OpBuilder &b, Location loc, Value lhs,
                                  Value rhs, Type lhsElement, Type rhsElement,
                                  Value lhsZeroPoint, Value rhsZeroPoint,
                                  ArrayRef<int64_t> resultShape,
                                  bool transposedResult) {
  Type i32 = b.getI32Type();
  SmallVector<Value> scalars;
  auto scalarAt = [&](Value zeroPoint) -> int {
    if (!zeroPoint)
      return -1;
    scalars.push_back(reshapeTensor(b, loc, zeroPoint, {}));
    return scalars.size() - 1;
  };
  int lhsZp = scalarAt(lhsZeroPoint), rhsZp = scalarAt(rhsZeroPoint);
  return lowerMatMul(
      b, loc, lhs, rhs, scalars, i32, resultShape,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto widen = [&](Value x, Type type, int zp) -> Value {
          Value wide = emitConvert(nb, l, x, type, i32);
          if (zp < 0)
            return wide;
          return arith::SubIOp::create(
              nb, l, wide, emitConvert(nb, l, a[2 + zp], type, i32));
        };
        Value product =
            arith::MulIOp::create(nb, l, widen(a[0], lhsElement, lhsZp),
                                  widen(a[1], rhsElement, rhsZp));
        return arith::AddIOp::create(nb, l, a.back(), product);
      },
      transposedResult);
}

void autoglm::populateLinearAlgebraLowering(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, MatMulIntegerLowering, GemmLowering>(converter, patterns.getContext());
}
