//===- ConvPool.cpp - convolution and pooling to linalg.generic -----------===//
//
// Both are windowed loops over a padded input. Convolution views tensors with
// an explicit group axis ([N, G, C/G, ...], [G, F/G, C/G, ...]) so grouped
// and depthwise convolutions are the same single generic.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// Pads the spatial axes (2..) of an NC... tensor with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                 TypedAttr value) {
  if (llvm::all_of(begin, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(end, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)), high(2, b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape().take_front(2));
  for (size_t i = 0; i < begin.size(); ++i) {
    low.push_back(b.getIndexAttr(begin[i]));
    high.push_back(b.getIndexAttr(end[i]));
    shape.push_back(type.getDimSize(i + 2) + begin[i] + end[i]);
  }
  Value padValue = arith::ConstantOp::create(b, loc, value);
  return tensor::PadOp::create(b, loc, type.clone(shape), input, low, high,
                               padValue);
}

struct ConvLowering : OpConversionPattern<ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getFilter().getType());
    auto outType = op.getType();
    int64_t s = inType.getRank() - 2, g = op.getGroup();
    int64_t n = inType.getDimSize(0), f = wType.getDimSize(0);
    int64_t cg = wType.getDimSize(1), fg = f / g;
    auto pads = op.getPads();

    Value input = padSpatial(rewriter, loc, adaptor.getInput(), pads.take_front(s),
                             pads.drop_front(s),
                             cast<TypedAttr>(rewriter.getZeroAttr(inType.getElementType())));
    auto padded = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> in5 = {n, g, cg}, w5 = {g, fg, cg}, out5 = {n, g, fg};
    llvm::append_range(in5, padded.getShape().drop_front(2));
    llvm::append_range(w5, wType.getShape().drop_front(2));
    llvm::append_range(out5, outType.getShape().drop_front(2));
    input = reshapeTensor(rewriter, loc, input, in5);
    Value filter = reshapeTensor(rewriter, loc, adaptor.getFilter(), w5);

    // Loops: n, g, fg | c, kernel (s) | out spatial (s). Reductions sit
    // outside the output's spatial loops, so the innermost loop walks an
    // output row contiguously and vectorizes.
    int64_t loops = 4 + 2 * s;
    auto d = [&](int64_t i) { return rewriter.getAffineDimExpr(i); };
    auto kDim = [&](int64_t i) { return d(4 + i); };
    auto oDim = [&](int64_t i) { return d(4 + s + i); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1), d(3)};
    SmallVector<AffineExpr> wExprs = {d(1), d(2), d(3)};
    SmallVector<AffineExpr> outExprs = {d(0), d(1), d(2)};
    for (int64_t i = 0; i < s; ++i) {
      inExprs.push_back(oDim(i) * op.getStrides()[i] +
                        kDim(i) * op.getDilations()[i]);
      wExprs.push_back(kDim(i));
      outExprs.push_back(oDim(i));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, wExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
    iterators.append(1 + s, utils::IteratorType::reduction);
    iterators.append(s, utils::IteratorType::parallel);

    // The accumulator starts as the bias (or zero).
    auto acc5Type = outType.clone(out5);
    Value acc;
    if (Value bias = adaptor.getBias()) {
      SmallVector<int64_t> biasShape = {1, g, fg};
      biasShape.append(s, 1);
      acc = buildElementwise(rewriter, loc, acc5Type,
                             reshapeTensor(rewriter, loc, bias, biasShape),
                             [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    } else {
      acc = filledTensor(rewriter, loc, acc5Type,
                         cast<TypedAttr>(rewriter.getZeroAttr(outType.getElementType())));
    }
    auto conv = linalg::GenericOp::create(
        rewriter, loc, acc5Type, ValueRange{input, filter}, acc, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange a) {
          Value p = arith::MulFOp::create(b, l, a[0], a[1]);
          linalg::YieldOp::create(b, l, (Value)arith::AddFOp::create(b, l, a[2], p));
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, conv.getResult(0),
                                         outType.getShape()));
    return success();
  }
};

template <typename OpTy>
struct PoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto outType = signless(op.getType());
    Type element = outType.getElementType();
    bool isUnsigned = op.getType().getElementType().isUnsignedInteger();
    int64_t s = inType.getRank() - 2;
    auto kernel = op.getKernelShape(), strides = op.getStrides(),
         dilations = op.getDilations(), pads = op.getPads();

    // With ceil_mode a last window may reach past the end padding; pad that
    // far too (never counted, and -inf never wins a max).
    SmallVector<int64_t> begin(pads.take_front(s)), end(pads.drop_front(s));
    for (int64_t i = 0; i < s; ++i) {
      int64_t need = (outType.getDimSize(i + 2) - 1) * strides[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
      int64_t have = inType.getDimSize(i + 2) + begin[i] + end[i];
      end[i] += std::max<int64_t>(0, need - have);
    }
    TypedAttr padValue = isMax ? lowestValue(element, isUnsigned)
                               : cast<TypedAttr>(rewriter.getZeroAttr(element));
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), begin, end, padValue);

    // Loops: n, c | kernel (s) | out spatial (s), the innermost walking an
    // output row. The kernel extents come from a shape-only operand, as in
    // linalg's pooling ops.
    int64_t loops = 2 + 2 * s;
    auto d = [&](int64_t i) { return rewriter.getAffineDimExpr(i); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1)}, kExprs, outExprs = {d(0), d(1)};
    for (int64_t i = 0; i < s; ++i) {
      inExprs.push_back(d(2 + s + i) * strides[i] + d(2 + i) * dilations[i]);
      kExprs.push_back(d(2 + i));
      outExprs.push_back(d(2 + s + i));
    }
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, kExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
    iterators.append(s, utils::IteratorType::reduction);
    iterators.append(s, utils::IteratorType::parallel);
    Value acc = filledTensor(rewriter, loc, outType, padValue);
    auto pool = linalg::GenericOp::create(
        rewriter, loc, outType, ValueRange{input, window}, acc, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, isMax ? emitMax(b, l, a[2], a[0], isUnsigned)
                                              : emitAdd(b, l, a[2], a[0]));
        });
    Value result = pool.getResult(0);
    if constexpr (!isMax)
      result = divideByWindowCount(rewriter, loc, op, inType, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Average pooling divides each sum by how many positions its window
  /// covered: inside the input, or inside the padding too with
  /// count_include_pad. Known at compile time, so it is a constant.
  static Value divideByWindowCount(OpBuilder &b, Location loc, OpTy op,
                                   RankedTensorType inType, Value sums) {
    auto outType = op.getType();
    int64_t s = inType.getRank() - 2;
    auto kernel = op.getKernelShape(), strides = op.getStrides(),
         dilations = op.getDilations(), pads = op.getPads();
    SmallVector<int64_t> outSpatial(outType.getShape().drop_front(2));
    SmallVector<float> counts;
    SmallVector<int64_t> idx(s, 0);
    int64_t total = 1;
    for (int64_t e : outSpatial)
      total *= e;
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t count = 1;
      for (int64_t i = 0; i < s; ++i) {
        int64_t lo = op.getCountIncludePad() ? -pads[i] : 0;
        int64_t hi = inType.getDimSize(i + 2) +
                     (op.getCountIncludePad() ? pads[i + s] : 0);
        int64_t inside = 0;
        for (int64_t k = 0; k < kernel[i]; ++k) {
          int64_t pos = idx[i] * strides[i] - pads[i] + k * dilations[i];
          inside += pos >= lo && pos < hi;
        }
        count *= inside;
      }
      counts.push_back((float)std::max<int64_t>(count, 1));
      for (int64_t i = s - 1; i >= 0 && ++idx[i] == outSpatial[i]; --i)
        idx[i] = 0;
    }
    SmallVector<int64_t> countShape = {1, 1};
    llvm::append_range(countShape, outSpatial);
    auto f32Counts = RankedTensorType::get(countShape, b.getF32Type());
    Value scale = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(f32Counts, ArrayRef<float>(counts)));
    Type element = outType.getElementType();
    return buildElementwise(b, loc, outType, {sums, scale},
                            [&](OpBuilder &nb, Location l, ValueRange a) {
                              Value f = emitConvert(nb, l, a[1], nb.getF32Type(),
                                                    element);
                              return (Value)arith::DivFOp::create(nb, l, a[0], f);
                            });
  }
};

} // namespace

void autoglm::populateConvPoolLowering(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ConvLowering, PoolLowering<MaxPoolOp>,
               PoolLowering<AveragePoolOp>>(converter, patterns.getContext());
}
