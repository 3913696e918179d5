//===- ConvPool.cpp - convolution, pooling and resize to linalg.generic ---===//
//
// Convolutions and pooling are windowed loops over a padded input.
// Convolution views tensors with an explicit group axis ([N, G, C/G, ...],
// [G, F/G, C/G, ...]) so grouped and depthwise convolutions are the same
// single generic. Resize is a gather: its per-axis neighbours and weights are
// known at compile time and become constant tables.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"
#include "dialects/FloatValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

bool allZero(ArrayRef<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v == 0; });
}

/// Pads the spatial axes (2..) of an NC... tensor with the scalar `value`
/// that `padValue` creates (called only when there is padding).
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                 function_ref<Value()> padValue) {
  if (allZero(begin) && allZero(end))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)), high(2, b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape().take_front(2));
  for (size_t i = 0; i < begin.size(); ++i) {
    low.push_back(b.getIndexAttr(begin[i]));
    high.push_back(b.getIndexAttr(end[i]));
    shape.push_back(type.getDimSize(i + 2) + begin[i] + end[i]);
  }
  return tensor::PadOp::create(b, loc, type.clone(shape), input, low, high,
                               padValue());
}

/// The same with the value of the rank-0 tensor `value`, known only at run
/// time (a ConvInteger's zero point): a loop that fills the padded tensor
/// from it, the input inserted in the middle. (A tensor.pad would need the
/// scalar in host code, which a GPU target's device data is not.)
Value padSpatialWith(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                     Value value) {
  if (allZero(begin) && allZero(end))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  for (size_t i = 0; i < begin.size(); ++i) {
    shape[i + 2] += begin[i] + end[i];
    offsets[i + 2] = b.getIndexAttr(begin[i]);
  }
  auto paddedType = type.clone(shape);
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  const unsigned rank = type.getRank();
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, b.getContext()),
                                 b.getMultiDimIdentityMap(rank)};
  Value filled =
      linalg::GenericOp::create(
          b, loc, TypeRange{paddedType}, ValueRange{value}, ValueRange{empty},
          maps,
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [](OpBuilder &nested, Location at, ValueRange args) {
            linalg::YieldOp::create(nested, at, args[0]);
          })
          .getResult(0);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, input, filled, offsets, sizes,
                                       strides);
}

Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                 TypedAttr value) {
  return padSpatial(b, loc, input, begin, end, [&]() -> Value {
    return arith::ConstantOp::create(b, loc, value);
  });
}

TypedAttr zeroOf(OpBuilder &b, Type type) {
  return cast<TypedAttr>(b.getZeroAttr(type));
}

/// A new tensor of `shape` whose element at each index is `input`'s element
/// at `inputExprs` of that index (a gather: im2col, a transposition).
Value gatherCopy(OpBuilder &b, Location loc, Value input,
                 ArrayRef<AffineExpr> inputExprs, ArrayRef<int64_t> shape) {
  int64_t loops = shape.size();
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, inputExprs, b.getContext()),
      b.getMultiDimIdentityMap(loops)};
  return linalg::GenericOp::create(
             b, loc, empty.getType(), input, empty, maps,
             SmallVector<utils::IteratorType>(loops,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(nb, l, a[0]);
             })
      .getResult(0);
}

/// Sums of 16-bit floats accumulate in f32 (one rounding at the end, as
/// the reference computes them); everything else in its own type.
Type accumulatorType(Type element) {
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

/// `value` converted elementwise to the element type of `type` (a no-op if
/// it has it already).
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

/// The accumulator of a convolution viewed with a group axis: the bias
/// broadcast over [N, G, F/G, spatial...], or zero.
Value convAccumulator(OpBuilder &b, Location loc, RankedTensorType acc5Type,
                      Value bias) {
  Type accElement = acc5Type.getElementType();
  if (!bias)
    return filledTensor(b, loc, acc5Type, zeroOf(b, accElement));
  Type biasElement = cast<RankedTensorType>(bias.getType()).getElementType();
  SmallVector<int64_t> biasShape = {1, acc5Type.getDimSize(1),
                                    acc5Type.getDimSize(2)};
  biasShape.append(acc5Type.getRank() - 3, 1);
  return buildElementwise(b, loc, acc5Type, reshapeTensor(b, loc, bias, biasShape),
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            return emitConvert(nb, l, a[0], biasElement,
                                               accElement);
                          });
}

/// Multiply-accumulate of `input` and `filter` into `acc`; the caller gives
/// the maps over loops (n, g, f | c, kernel... | out spatial...).
Value buildGroupedConv(OpBuilder &b, Location loc, Value input, Value filter,
                       Value acc, int64_t spatial, ArrayRef<AffineMap> maps) {
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.append(1 + spatial, utils::IteratorType::reduction);
  iterators.append(spatial, utils::IteratorType::parallel);
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Type accElement = cast<RankedTensorType>(acc.getType()).getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, acc.getType(), ValueRange{input, filter}, acc, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value p = emitMul(nb, l, emitConvert(nb, l, a[0], element, accElement),
                          emitConvert(nb, l, a[1], element, accElement));
        linalg::YieldOp::create(nb, l, emitAdd(nb, l, a[2], p));
      });
  return generic.getResult(0);
}

/// An f32 convolution as a (batched) matrix product, the form the runtime's
/// GEMM runs:
///   out[n, g, f, o] = sum_r filter[g, f, r] * col[n, g, r, o]
/// where r runs over (c, kernel...) and o over the output positions. col
/// gathers each window (im2col); a 1x1 convolution with unit strides reads
/// the input as it is.
Value buildIm2colConv(OpBuilder &b, Location loc, ConvOp op, Value input5,
                      Value filter5, Value acc5) {
  MLIRContext *ctx = b.getContext();
  auto in5 = cast<RankedTensorType>(input5.getType());
  auto w5 = cast<RankedTensorType>(filter5.getType());
  auto out5 = cast<RankedTensorType>(acc5.getType());
  int64_t s = in5.getRank() - 3;
  int64_t n = in5.getDimSize(0), g = in5.getDimSize(1), cg = in5.getDimSize(2);
  int64_t fg = w5.getDimSize(1);
  ArrayRef<int64_t> kernel = w5.getShape().drop_front(3);
  ArrayRef<int64_t> outSpatial = out5.getShape().drop_front(3);
  int64_t window = cg, positions = 1;
  for (int64_t i = 0; i < s; ++i) {
    window *= kernel[i];
    positions *= outSpatial[i];
  }

  bool pointwise =
      llvm::all_of(kernel, [](int64_t k) { return k == 1; }) &&
      llvm::all_of(op.getStrides(), [](int64_t v) { return v == 1; }) &&
      in5.getShape().drop_front(3) == outSpatial;
  Value col;
  if (pointwise) {
    col = input5;
  } else {
    // col[n, g, c, k..., o...] = input[n, g, c, o * stride + k * dilation]
    SmallVector<int64_t> colShape = {n, g, cg};
    llvm::append_range(colShape, kernel);
    llvm::append_range(colShape, outSpatial);
    auto d = [&](int64_t i) { return b.getAffineDimExpr(i); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1), d(2)};
    for (int64_t i = 0; i < s; ++i)
      inExprs.push_back(d(3 + s + i) * op.getStrides()[i] +
                        d(3 + i) * op.getDilations()[i]);
    col = gatherCopy(b, loc, input5, inExprs, colShape);
  }
  col = reshapeTensor(b, loc, col, {n, g, window, positions});
  Value filter = reshapeTensor(b, loc, filter5, {g, fg, window});
  Value acc = reshapeTensor(b, loc, acc5, {n, g, fg, positions});

  // Loops (n, g, f, r, o): the reduction r sits outside o, as in every
  // matmul this lowering builds.
  auto d = [&](int64_t i) { return b.getAffineDimExpr(i); };
  SmallVector<AffineMap> maps = {
      AffineMap::get(5, 0, {d(1), d(2), d(3)}, ctx),
      AffineMap::get(5, 0, {d(0), d(1), d(3), d(4)}, ctx),
      AffineMap::get(5, 0, {d(0), d(1), d(2), d(4)}, ctx)};
  SmallVector<utils::IteratorType> iterators(5, utils::IteratorType::parallel);
  iterators[3] = utils::IteratorType::reduction;
  Value product =
      linalg::GenericOp::create(
          b, loc, acc.getType(), ValueRange{filter, col}, acc, maps, iterators,
          [](OpBuilder &nb, Location l, ValueRange a) {
            Value p = arith::MulFOp::create(nb, l, a[0], a[1]);
            linalg::YieldOp::create(nb, l,
                                    arith::AddFOp::create(nb, l, a[2], p)
                                        .getResult());
          })
          .getResult(0);
  return reshapeTensor(b, loc, product, out5.getShape());
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
    auto outType = signless(op.getType());
    int64_t s = inType.getRank() - 2, g = op.getGroup();
    int64_t n = inType.getDimSize(0), f = wType.getDimSize(0);
    int64_t cg = wType.getDimSize(1), fg = f / g;
    auto pads = op.getPads();

    Value input = padSpatial(rewriter, loc, adaptor.getInput(), pads.take_front(s),
                             pads.drop_front(s),
                             zeroOf(rewriter, inType.getElementType()));
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
    auto acc5Type = outType.clone(out5);
    Value acc = convAccumulator(
        rewriter, loc, acc5Type.clone(accumulatorType(outType.getElementType())),
        adaptor.getBias());
    // f32 convolutions with a few filters per group become matrix products
    // for the runtime's GEMM; depthwise-like ones (a vector per group) keep
    // the direct loops.
    bool asMatmul = outType.getElementType().isF32() &&
                    inType.getElementType().isF32() && fg >= 4;
    Value conv = asMatmul
                     ? buildIm2colConv(rewriter, loc, op, input, filter, acc)
                     : buildGroupedConv(rewriter, loc, input, filter, acc, s,
                                        maps);
    conv = convertTensor(rewriter, loc, conv, acc5Type);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, conv, outType.getShape()));
    return success();
  }
};

/// The exact integer convolution as the int8 GEMM takes it: the input,
/// padded with its zero point, gathered into rows of windows (im2col:
/// col[n, o, (c, k...)] = input[n, c, o * stride + k * dilation]), times
/// the filter as a [C * kernel, F] matrix. A constant filter is transposed
/// here, at compile time, so that the product's weight stays a constant the
/// kernel's packing reads, and the product is written [N, F, positions]
/// (the GEMM stores it transposed); otherwise the [N, positions, F] sums
/// are moved to [N, F, out...]. A signed input's zero point stays out of
/// the product of a constant filter (cuBLASLt's integer products take
/// none): its share is subtracted after it.
struct ConvIntegerLowering : OpConversionPattern<ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getFilter().getType());
    auto outType = signless(op.getType());
    if (!inType.hasStaticShape() || !wType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "symbolic extents");
    int64_t s = inType.getRank() - 2;
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
    int64_t f = wType.getDimSize(0);
    ArrayRef<int64_t> kernel = wType.getShape().drop_front(2);
    ArrayRef<int64_t> outSpatial = outType.getShape().drop_front(2);
    int64_t window = c, positions = 1;
    for (int64_t i = 0; i < s; ++i) {
      window *= kernel[i];
      positions *= outSpatial[i];
    }
    auto zeroPoint = [](Value original, Value converted) {
      return matchPattern(original, m_Zero()) ? Value() : converted;
    };
    Value inputZp =
        zeroPoint(op.getInputZeroPoint(), adaptor.getInputZeroPoint());
    Value filterZp =
        zeroPoint(op.getFilterZeroPoint(), adaptor.getFilterZeroPoint());

    auto pads = op.getPads();
    Value input =
        inputZp ? padSpatialWith(rewriter, loc, adaptor.getInput(),
                                 pads.take_front(s), pads.drop_front(s),
                                 reshapeTensor(rewriter, loc, inputZp, {}))
                : padSpatial(rewriter, loc, adaptor.getInput(),
                             pads.take_front(s), pads.drop_front(s),
                             zeroOf(rewriter, inType.getElementType()));

    // col[n, o..., c, k...]: loops in that order, each row contiguous.
    SmallVector<int64_t> colShape = {n};
    llvm::append_range(colShape, outSpatial);
    colShape.push_back(c);
    llvm::append_range(colShape, kernel);
    auto d = [&](int64_t i) { return rewriter.getAffineDimExpr(i); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1 + s)};
    for (int64_t i = 0; i < s; ++i)
      inExprs.push_back(d(1 + i) * op.getStrides()[i] +
                        d(2 + s + i) * op.getDilations()[i]);
    Value col = gatherCopy(rewriter, loc, input, inExprs, colShape);
    col = reshapeTensor(rewriter, loc, col, {n, positions, window});

    Value weight = filterColumns(rewriter, loc, op.getFilter(),
                                 adaptor.getFilter(), f, window);
    // A constant filter becomes the int8 GEMM's packed weight, and the GEMM
    // can store its sums transposed: [n, f, positions] is the output's
    // NCHW, and the elementwise ops that follow read it in order.
    if (weight.getDefiningOp<arith::ConstantOp>()) {
      // A signed input (the CUDA target's, for cuBLASLt's integer
      // products) leaves its zero point z out of the product: the padding
      // still holds z, so sum (x - z) w = sum x w - z * sum w per filter,
      // exactly.
      std::optional<SmallVector<int32_t>> filterSums;
      if (inputZp && !filterZp &&
          !getElementTypeOrSelf(op.getInput()).isUnsignedInteger())
        filterSums = sumsPerFilter(op.getFilter(), f, window);
      Value sums = lowerIntegerMatMul(
          rewriter, loc, col, weight, getElementTypeOrSelf(op.getInput()),
          getElementTypeOrSelf(op.getFilter()), filterSums ? Value() : inputZp,
          filterZp, {n, positions, f}, /*transposedResult=*/true);
      sums = reshapeTensor(rewriter, loc, sums, outType.getShape());
      if (filterSums)
        sums = lessZeroPointShare(rewriter, loc, sums,
                                  reshapeTensor(rewriter, loc, inputZp, {}),
                                  *filterSums);
      rewriter.replaceOp(op, sums);
      return success();
    }
    Value sums = lowerIntegerMatMul(rewriter, loc, col, weight,
                                    getElementTypeOrSelf(op.getInput()),
                                    getElementTypeOrSelf(op.getFilter()),
                                    inputZp, filterZp, {n, positions, f});

    // [n, out..., f] -> [n, f, out...], straight into the result's shape:
    // no reshape between this copy and the elementwise ops that follow
    // (the scaling), which it then fuses with.
    SmallVector<int64_t> nhwc = {n};
    llvm::append_range(nhwc, outSpatial);
    nhwc.push_back(f);
    sums = reshapeTensor(rewriter, loc, sums, nhwc);
    SmallVector<AffineExpr> fromNhwc = {d(0)};
    for (int64_t i = 0; i < s; ++i)
      fromNhwc.push_back(d(2 + i));
    fromNhwc.push_back(d(1));
    Value nchw = gatherCopy(rewriter, loc, sums, fromNhwc, outType.getShape());
    rewriter.replaceOp(op, nchw);
    return success();
  }

  /// The sum of each filter's entries, for a constant filter.
  static std::optional<SmallVector<int32_t>>
  sumsPerFilter(Value filter, int64_t f, int64_t window) {
    auto constant = filter.getDefiningOp<ConstantOp>();
    auto values =
        constant ? constantValues<int8_t>(constant.getValue()) : std::nullopt;
    if (!values)
      return std::nullopt;
    SmallVector<int32_t> sums(f, 0);
    for (int64_t j = 0; j < f; ++j)
      for (int64_t p = 0; p < window; ++p)
        sums[j] += (*values)[j * window + p];
    return sums;
  }

  /// sums[n, f, ...] - z * filterSums[f], z the int8 rank-0 `zeroPoint`.
  static Value lessZeroPointShare(OpBuilder &b, Location loc, Value sums,
                                  Value zeroPoint,
                                  ArrayRef<int32_t> filterSums) {
    auto type = cast<RankedTensorType>(sums.getType());
    const unsigned rank = type.getRank();
    Value perFilter = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({int64_t(filterSums.size())}, b.getI32Type()),
            filterSums));
    SmallVector<AffineMap> maps = {
        b.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, b.getContext()),
        AffineMap::get(rank, 0, b.getAffineDimExpr(1)),
        b.getMultiDimIdentityMap(rank)};
    Value empty =
        tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    return linalg::GenericOp::create(
               b, loc, TypeRange{type}, ValueRange{sums, zeroPoint, perFilter},
               ValueRange{empty}, maps,
               SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel),
               [](OpBuilder &nested, Location at, ValueRange args) {
                 Value z = arith::ExtSIOp::create(nested, at,
                                                  nested.getI32Type(), args[1]);
                 Value share = arith::MulIOp::create(nested, at, z, args[2]);
                 linalg::YieldOp::create(nested, at,
                                         ValueRange{arith::SubIOp::create(
                                             nested, at, args[0], share)});
               })
        .getResult(0);
  }

  /// The filter [F, C, kernel...] as a [C * kernel, F] matrix: a new
  /// constant when it is one, else a transposing copy.
  static Value filterColumns(OpBuilder &b, Location loc, Value original,
                             Value converted, int64_t f, int64_t window) {
    auto type = RankedTensorType::get({window, f}, b.getI8Type());
    auto constant = original.getDefiningOp<ConstantOp>();
    if (auto values = constant ? constantValues<int8_t>(constant.getValue())
                               : std::nullopt) {
      SmallVector<int8_t> rows(window * f);
      for (int64_t j = 0; j < f; ++j)
        for (int64_t p = 0; p < window; ++p)
          rows[p * f + j] = (*values)[j * window + p];
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(type, ArrayRef<int8_t>(rows)));
    }
    Value matrix = reshapeTensor(b, loc, converted, {f, window});
    Value empty =
        tensor::EmptyOp::create(b, loc, type.getShape(), b.getI8Type());
    return linalg::TransposeOp::create(b, loc, matrix, empty,
                                       ArrayRef<int64_t>{1, 0})
        .getResult()[0];
  }
};

/// Transposed convolution as a convolution: the input is spread out by the
/// stride (zeros between its elements) into a buffer P that also holds the
/// padding, so that
///   out[o] = sum_k P[o + (K - 1) * d - k * d] * filter[k]
/// along every spatial axis. P[t] is input[i] where t = i * stride + c with
/// c = (K - 1) * d - pad_begin; inputs that fall outside P (negative c or
/// cropping end pads) are sliced off first.
struct ConvTransposeLowering : OpConversionPattern<ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getFilter().getType());
    auto outType = op.getType();
    Type element = outType.getElementType();
    int64_t s = inType.getRank() - 2, g = op.getGroup();
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
    int64_t cg = c / g, fg = wType.getDimSize(1);
    auto strides = op.getStrides(), dilations = op.getDilations(),
         pads = op.getPads();

    SmallVector<int64_t> pShape = {n, c};
    SmallVector<OpFoldResult> sliceOffsets(2, rewriter.getIndexAttr(0)),
        sliceSizes = {rewriter.getIndexAttr(n), rewriter.getIndexAttr(c)},
        ones(2 + s, rewriter.getIndexAttr(1)),
        insertOffsets(2, rewriter.getIndexAttr(0)),
        insertStrides(2, rewriter.getIndexAttr(1));
    bool anyInput = true;
    for (int64_t i = 0; i < s; ++i) {
      int64_t span = (wType.getDimSize(i + 2) - 1) * dilations[i];
      int64_t extent = outType.getDimSize(i + 2) + span;
      int64_t offset = span - pads[i];
      int64_t first = std::max<int64_t>(
          0, llvm::divideCeilSigned(-offset, strides[i]));
      int64_t last = std::min<int64_t>(
          inType.getDimSize(i + 2) - 1,
          llvm::divideFloorSigned(extent - 1 - offset, strides[i]));
      anyInput &= first <= last;
      pShape.push_back(extent);
      sliceOffsets.push_back(rewriter.getIndexAttr(first));
      sliceSizes.push_back(rewriter.getIndexAttr(last - first + 1));
      insertOffsets.push_back(rewriter.getIndexAttr(first * strides[i] + offset));
      insertStrides.push_back(rewriter.getIndexAttr(strides[i]));
    }
    Value spread = filledTensor(rewriter, loc, inType.clone(pShape),
                                zeroOf(rewriter, element));
    if (anyInput) {
      Value part = tensor::ExtractSliceOp::create(
          rewriter, loc, adaptor.getInput(), sliceOffsets, sliceSizes, ones);
      spread = tensor::InsertSliceOp::create(rewriter, loc, part, spread,
                                             insertOffsets, sliceSizes,
                                             insertStrides);
    }

    SmallVector<int64_t> in5 = {n, g, cg}, w5 = {g, cg, fg}, out5 = {n, g, fg};
    llvm::append_range(in5, ArrayRef<int64_t>(pShape).drop_front(2));
    llvm::append_range(w5, wType.getShape().drop_front(2));
    llvm::append_range(out5, outType.getShape().drop_front(2));
    Value input = reshapeTensor(rewriter, loc, spread, in5);
    Value filter = reshapeTensor(rewriter, loc, adaptor.getFilter(), w5);

    // Loops: n, g, fg | c, kernel (s) | out spatial (s), as for conv.
    int64_t loops = 4 + 2 * s;
    auto d = [&](int64_t i) { return rewriter.getAffineDimExpr(i); };
    auto kDim = [&](int64_t i) { return d(4 + i); };
    auto oDim = [&](int64_t i) { return d(4 + s + i); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1), d(3)};
    SmallVector<AffineExpr> wExprs = {d(1), d(3), d(2)};
    SmallVector<AffineExpr> outExprs = {d(0), d(1), d(2)};
    for (int64_t i = 0; i < s; ++i) {
      int64_t span = (wType.getDimSize(i + 2) - 1) * dilations[i];
      inExprs.push_back(oDim(i) + span - kDim(i) * dilations[i]);
      wExprs.push_back(kDim(i));
      outExprs.push_back(oDim(i));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, wExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    auto acc5Type = outType.clone(out5);
    Value acc = convAccumulator(
        rewriter, loc, acc5Type.clone(accumulatorType(outType.getElementType())),
        adaptor.getBias());
    Value conv = buildGroupedConv(rewriter, loc, input, filter, acc, s, maps);
    conv = convertTensor(rewriter, loc, conv, acc5Type);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, conv, outType.getShape()));
    return success();
  }
};

/// The window attributes of a pooling op and the padded input its windows
/// read: with ceil_mode a last window may reach past the end padding, so the
/// input is padded that far too (with a value that never counts).
struct Windows {
  SmallVector<int64_t> kernel, strides, dilations, padBegin;
  Value padded;
};

Windows padForWindows(OpBuilder &b, Location loc, Value input,
                      RankedTensorType outType, ArrayRef<int64_t> kernel,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                      ArrayRef<int64_t> pads, TypedAttr padValue) {
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t s = inType.getRank() - 2;
  Windows w{SmallVector<int64_t>(kernel), SmallVector<int64_t>(strides),
            SmallVector<int64_t>(dilations),
            SmallVector<int64_t>(pads.take_front(s)), Value()};
  SmallVector<int64_t> end(pads.drop_front(s));
  for (int64_t i = 0; i < s; ++i) {
    int64_t need = (outType.getDimSize(i + 2) - 1) * strides[i] +
                   (kernel[i] - 1) * dilations[i] + 1;
    int64_t have = inType.getDimSize(i + 2) + w.padBegin[i] + end[i];
    end[i] += std::max<int64_t>(0, need - have);
  }
  w.padded = padSpatial(b, loc, input, w.padBegin, end, padValue);
  return w;
}

/// One generic over loops n, c | kernel (s) | out spatial (s), the innermost
/// walking an output row, that folds every window into `inits` with `body`
/// (block arguments: the input element, the window operand, then the
/// accumulators). The kernel extents come from a shape-only operand, as in
/// linalg's pooling ops.
linalg::GenericOp
buildWindowLoop(OpBuilder &b, Location loc, const Windows &w, ValueRange inits,
                function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t s = w.kernel.size(), loops = 2 + 2 * s;
  auto d = [&](int64_t i) { return b.getAffineDimExpr(i); };
  SmallVector<AffineExpr> inExprs = {d(0), d(1)}, kExprs, outExprs = {d(0), d(1)};
  for (int64_t i = 0; i < s; ++i) {
    inExprs.push_back(d(2 + s + i) * w.strides[i] + d(2 + i) * w.dilations[i]);
    kExprs.push_back(d(2 + i));
    outExprs.push_back(d(2 + s + i));
  }
  auto element = cast<RankedTensorType>(w.padded.getType()).getElementType();
  Value window = tensor::EmptyOp::create(b, loc, w.kernel, element);
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                 AffineMap::get(loops, 0, kExprs, ctx)};
  maps.append(inits.size(), AffineMap::get(loops, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  iterators.append(s, utils::IteratorType::reduction);
  iterators.append(s, utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, TypeRange(inits),
                                   ValueRange{w.padded, window}, inits, maps,
                                   iterators, body);
}

template <typename OpTy>
struct PoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto outType = signless(op.getType());
    Type element = outType.getElementType();
    bool isUnsigned = op.getType().getElementType().isUnsignedInteger();

    // Padding never wins a max and adds nothing to a sum.
    TypedAttr padValue = isMax ? lowestValue(element, isUnsigned)
                               : zeroOf(rewriter, element);
    Windows w = padForWindows(rewriter, loc, adaptor.getInput(), outType,
                              op.getKernelShape(), op.getStrides(),
                              op.getDilations(), op.getPads(), padValue);
    Type accElement = isMax ? element : accumulatorType(element);
    Value acc = filledTensor(rewriter, loc, outType.clone(accElement),
                             isMax ? padValue : zeroOf(rewriter, accElement));
    auto pool = buildWindowLoop(
        rewriter, loc, w, acc, [&](OpBuilder &b, Location l, ValueRange a) {
          if (isMax)
            linalg::YieldOp::create(b, l, emitMax(b, l, a[2], a[0], isUnsigned));
          else
            linalg::YieldOp::create(
                b, l, emitAdd(b, l, a[2], emitConvert(b, l, a[0], element, accElement)));
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
    Type accElement = cast<RankedTensorType>(sums.getType()).getElementType();
    return buildElementwise(b, loc, outType, {sums, scale},
                            [&](OpBuilder &nb, Location l, ValueRange a) {
                              Value f = emitConvert(nb, l, a[1], nb.getF32Type(),
                                                    accElement);
                              Value q = arith::DivFOp::create(nb, l, a[0], f);
                              return emitConvert(nb, l, q, accElement, element);
                            });
  }
};

/// x^p for a positive integer p: products for small p, powf otherwise.
Value emitIntPower(OpBuilder &b, Location loc, Value x, int64_t p) {
  if (p > 3)
    return math::PowFOp::create(b, loc, x,
                                scalarConstant(b, loc, x.getType(), (double)p));
  Value result = x;
  for (int64_t i = 1; i < p; ++i)
    result = arith::MulFOp::create(b, loc, result, x);
  return result;
}

struct LpPoolLowering : OpConversionPattern<LpPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LpPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto outType = op.getType();
    Type element = outType.getElementType();
    int64_t p = op.getP();
    Type accElement = accumulatorType(element);
    Windows w = padForWindows(rewriter, loc, adaptor.getInput(), outType,
                              op.getKernelShape(), op.getStrides(),
                              op.getDilations(), op.getPads(),
                              zeroOf(rewriter, element));
    Value acc = filledTensor(rewriter, loc, outType.clone(accElement),
                             zeroOf(rewriter, accElement));
    auto sums = buildWindowLoop(
        rewriter, loc, w, acc, [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = emitConvert(b, l, a[0], element, accElement);
          Value term = emitIntPower(b, l, math::AbsFOp::create(b, l, x), p);
          linalg::YieldOp::create(b, l, (Value)arith::AddFOp::create(b, l, a[2], term));
        });
    Value result = sums.getResult(0);
    if (p > 1 || accElement != element)
      result = buildElementwise(
        rewriter, loc, outType, result,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value root = a[0];
          if (p == 2)
            root = math::SqrtOp::create(b, l, a[0]);
          else if (p > 2)
            root = math::PowFOp::create(b, l, a[0],
                                        scalarConstant(b, l, accElement, 1.0 / p));
          return emitConvert(b, l, root, accElement, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Max pooling that also tracks the flat input index of the first maximum
/// of each window (row-major, or with the spatial axes reversed).
struct MaxPoolWithIndicesLowering : OpConversionPattern<MaxPoolWithIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolWithIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto outType = signless(op.getOutput().getType());
    auto idxType = cast<RankedTensorType>(op.getIndices().getType());
    Type element = outType.getElementType();
    bool isUnsigned = op.getOutput().getType().getElementType().isUnsignedInteger();
    int64_t s = inType.getRank() - 2;
    TypedAttr lowest = lowestValue(element, isUnsigned);
    Windows w = padForWindows(rewriter, loc, adaptor.getInput(), outType,
                              op.getKernelShape(), op.getStrides(),
                              op.getDilations(), op.getPads(), lowest);
    // Strides of the flat index per spatial axis.
    SmallVector<int64_t> extents(inType.getShape().drop_front(2));
    SmallVector<int64_t> flatStrides(s, 1);
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < s; ++j)
        if (op.getColumnMajor() ? j < i : j > i)
          flatStrides[i] *= extents[j];
    int64_t plane = 1;
    for (int64_t e : extents)
      plane *= e;
    int64_t channels = inType.getDimSize(1);

    Value values = filledTensor(rewriter, loc, outType, lowest);
    Value indices = filledTensor(rewriter, loc, idxType,
                                 rewriter.getI64IntegerAttr(-1));
    auto pool = buildWindowLoop(
        rewriter, loc, w, ValueRange{values, indices},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Type i64 = b.getI64Type();
          auto index = [&](int64_t dim) -> Value {
            Value v = linalg::IndexOp::create(b, l, (uint64_t)dim);
            return arith::IndexCastOp::create(b, l, i64, v);
          };
          auto cst = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          // flat = (n * C + c) * plane + sum(pos_i * stride_i), where
          // pos_i = o_i * stride + k_i * dilation - pad_begin.
          Value flat = arith::MulIOp::create(
              b, l,
              arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, index(0), cst(channels)),
                  index(1)),
              cst(plane));
          Value inside = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          for (int64_t i = 0; i < s; ++i) {
            Value pos = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, index(2 + s + i), cst(w.strides[i])),
                arith::MulIOp::create(b, l, index(2 + i), cst(w.dilations[i])));
            pos = arith::SubIOp::create(b, l, pos, cst(w.padBegin[i]));
            Value ge = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                             pos, cst(0));
            Value lt = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                             pos, cst(extents[i]));
            inside = arith::AndIOp::create(
                b, l, inside, arith::AndIOp::create(b, l, ge, lt));
            flat = arith::AddIOp::create(
                b, l, flat, arith::MulIOp::create(b, l, pos, cst(flatStrides[i])));
          }
          Value greater;
          if (isa<FloatType>(element))
            greater = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                            a[0], a[2]);
          else
            greater = arith::CmpIOp::create(
                b, l, isUnsigned ? arith::CmpIPredicate::ugt
                                 : arith::CmpIPredicate::sgt,
                a[0], a[2]);
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              a[3], cst(0));
          Value take = arith::AndIOp::create(
              b, l, inside, arith::OrIOp::create(b, l, first, greater));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, a[0], a[2]),
                         arith::SelectOp::create(b, l, take, flat, a[3])});
        });
    rewriter.replaceOp(op, pool.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

/// The neighbours (clamped input positions) and weights of every output
/// position along one axis; `taps` per position, unused ones weigh 0.
struct AxisTaps {
  int64_t taps = 0;
  SmallVector<int64_t> index;
  SmallVector<double> weight;
  SmallVector<bool> outside; // tf_crop_and_resize: extrapolated positions
  bool anyOutside = false;
};

bool isClose(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

SmallVector<double> nearestCoeffs(double ratio, StringRef mode) {
  // ratio lies in (0, 1]; 1 means the coordinate is a whole number.
  if (ratio == 1.0 || mode == "ceil")
    return {0, 1};
  if (mode == "floor")
    return {1, 0};
  bool up = mode == "round_prefer_ceil" ? ratio >= 0.5 : ratio > 0.5;
  return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
}

SmallVector<double> cubicCoeffs(double r, double a) {
  double q = 1 - r;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * q - (a + 3)) * q * q + 1,
          ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
}

SmallVector<double> normalized(SmallVector<double> coeffs) {
  double sum = 0;
  for (double c : coeffs)
    sum += c;
  for (double &c : coeffs)
    c /= sum;
  return coeffs;
}

/// Downsampling with antialias stretches the kernel by 1 / scale.
SmallVector<double> cubicCoeffsAntialias(double r, double scale, double a) {
  scale = std::min(scale, 1.0);
  auto kernel = [&](double x) {
    x = std::fabs(x);
    if (x <= 1)
      return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2)
      return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0.0;
  };
  int64_t start = (int64_t)std::floor(-2 / scale) + 1;
  SmallVector<double> coeffs;
  for (int64_t i = start; i < 2 - start; ++i)
    coeffs.push_back(kernel(scale * (i - r)));
  return normalized(coeffs);
}

SmallVector<double> linearCoeffsAntialias(double r, double scale) {
  scale = std::min(scale, 1.0);
  int64_t start = (int64_t)std::floor(-1 / scale) + 1;
  SmallVector<double> coeffs;
  for (int64_t i = start; i < 2 - start; ++i)
    coeffs.push_back(std::clamp(1 - std::fabs((i - r) * scale), 0.0, 1.0));
  return normalized(coeffs);
}

/// The input coordinate that output position `y` reads.
double sourceCoordinate(ResizeOp op, double y, int64_t in, int64_t out,
                        double scale, double roiStart, double roiEnd) {
  StringRef mode = op.getCoordinateTransformationMode();
  double outWidth = scale * in;
  if (mode == "align_corners")
    return outWidth == 1 ? 0.0 : y * (in - 1) / (outWidth - 1);
  if (mode == "asymmetric")
    return y / scale;
  if (mode == "tf_half_pixel_for_nn")
    return (y + 0.5) / scale;
  if (mode == "tf_crop_and_resize") {
    // The roi is float32 data; its own arithmetic stays in float32, as in
    // the reference implementation and the common runtimes, so that ties
    // of nearest rounding land the same way.
    float span = (float)roiEnd - (float)roiStart;
    float start = (float)roiStart * (float)(in - 1);
    double x = outWidth == 1 ? span * (float)(in - 1) / 2.0f
                             : y * span * (in - 1) / (outWidth - 1);
    return x + start;
  }
  if (mode == "pytorch_half_pixel")
    return outWidth == 1 ? -0.5 : (y + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    double offset = in / 2.0 * (1 - out / outWidth);
    return offset + (y + 0.5) / scale - 0.5;
  }
  return (y + 0.5) / scale - 0.5; // half_pixel
}

/// Neighbours and weights along `axis`, or nothing for an axis that is
/// copied unchanged.
std::optional<AxisTaps> computeTaps(ResizeOp op, int64_t axis, int64_t in,
                                    int64_t out) {
  double scale = op.getScales()[axis];
  int64_t rank = op.getType().getRank();
  bool crop = op.getCoordinateTransformationMode() == "tf_crop_and_resize";
  double roiStart = crop ? op.getRoi()[axis] : 0.0;
  double roiEnd = crop ? op.getRoi()[axis + rank] : 1.0;
  if (isClose(scale, 1.0) && in == out && isClose(roiStart, 0.0) &&
      isClose(roiEnd, 1.0))
    return std::nullopt;

  StringRef mode = op.getMode();
  double a = op.getCubicCoeffA().convertToDouble();
  AxisTaps taps;
  SmallVector<std::pair<int64_t, double>> rowTaps;
  SmallVector<SmallVector<std::pair<int64_t, double>>> rows;
  for (int64_t y = 0; y < out; ++y) {
    double x = sourceCoordinate(op, y, in, out, scale, roiStart, roiEnd);
    bool outside = crop && (x < 0 || x > in - 1);
    taps.outside.push_back(outside);
    taps.anyOutside |= outside;
    double ratio = x == std::floor(x) ? 1.0 : x - std::floor(x);
    SmallVector<double> coeffs;
    if (mode == "nearest")
      coeffs = nearestCoeffs(ratio, op.getNearestMode());
    else if (mode == "linear")
      coeffs = op.getAntialias() ? linearCoeffsAntialias(ratio, scale)
                                 : SmallVector<double>{1 - ratio, ratio};
    else
      coeffs = op.getAntialias()
                   ? cubicCoeffsAntialias(ratio, scale, a)
                   : cubicCoeffs(ratio, a);

    // The n neighbours nearest to x, ties going to the smaller index.
    int64_t n = coeffs.size(), pad = (n + 1) / 2;
    double shifted = x + pad;
    int64_t p = (int64_t)std::floor(shifted);
    double frac = shifted - p;
    int64_t offset = n % 2 == 0 ? (frac == 0 ? -(n / 2) : -(n / 2) + 1)
                                : -((n - 1) / 2) + (frac <= 0.5 ? 0 : 1);
    int64_t start = p + offset - pad;
    if (op.getExcludeOutside()) {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        if (start + t < 0 || start + t >= in)
          coeffs[t] = 0;
        sum += coeffs[t];
      }
      for (double &c : coeffs)
        c /= sum == 0 ? 1.0 : sum;
    }
    // Edge neighbours repeat the edge element; equal positions merge.
    rowTaps.clear();
    for (int64_t t = 0; t < n; ++t) {
      if (coeffs[t] == 0)
        continue;
      int64_t index = std::clamp<int64_t>(start + t, 0, in - 1);
      auto *same = llvm::find_if(rowTaps, [&](auto &tap) { return tap.first == index; });
      if (same != rowTaps.end())
        same->second += coeffs[t];
      else
        rowTaps.push_back({index, coeffs[t]});
    }
    taps.taps = std::max<int64_t>(taps.taps, rowTaps.size());
    rows.push_back(rowTaps);
  }
  taps.taps = std::max<int64_t>(taps.taps, 1);
  for (auto &row : rows)
    for (int64_t t = 0; t < taps.taps; ++t) {
      bool used = t < (int64_t)row.size();
      taps.index.push_back(used ? row[t].first : 0);
      taps.weight.push_back(used ? row[t].second : 0.0);
    }
  return taps;
}

/// Saturating conversion of a float to an integer type, rounding half to
/// even (how ONNX casts interpolated values back).
Value emitRoundSaturate(OpBuilder &b, Location loc, Value x, Type to) {
  bool isUnsigned = to.isUnsignedInteger();
  unsigned width = to.getIntOrFloatBitWidth();
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
  double hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
  Type f = x.getType();
  Value r = math::RoundEvenOp::create(b, loc, x);
  r = emitMax(b, loc, r, scalarConstant(b, loc, f, lo));
  r = emitMin(b, loc, r, scalarConstant(b, loc, f, hi));
  return emitConvert(b, loc, r, f, to);
}

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type origElement = op.getType().getElementType();
    auto outType = signless(op.getType());
    Type element = outType.getElementType();
    int64_t rank = inType.getRank();

    SmallVector<std::pair<int64_t, AxisTaps>> resized;
    for (int64_t d = 0; d < rank; ++d)
      if (auto taps = computeTaps(op, d, inType.getDimSize(d), outType.getDimSize(d)))
        resized.push_back({d, std::move(*taps)});
    bool gather = llvm::all_of(resized, [](auto &r) {
      return r.second.taps == 1 &&
             llvm::all_of(r.second.weight, [](double w) { return w == 1.0; });
    });

    // Loops: the output dims, then one tap loop per resized axis (none for
    // a gather). Each resized axis reads its index (and weight) tables.
    int64_t loops = rank + (gather ? 0 : resized.size());
    // Weighted sums accumulate in f64, like the reference, which keeps
    // the rounding of integer results exact.
    Type compute = gather ? element : rewriter.getF64Type();
    SmallVector<Value> tables;
    SmallVector<AffineMap> maps;
    for (auto [j, r] : llvm::enumerate(resized)) {
      auto &[axis, taps] = r;
      int64_t out = outType.getDimSize(axis);
      SmallVector<int64_t> shape = {out};
      SmallVector<AffineExpr> exprs = {rewriter.getAffineDimExpr(axis)};
      if (!gather) {
        shape.push_back(taps.taps);
        exprs.push_back(rewriter.getAffineDimExpr(rank + j));
      }
      auto map = AffineMap::get(loops, 0, exprs, ctx);
      auto idxType = RankedTensorType::get(shape, rewriter.getI64Type());
      tables.push_back(arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(taps.index))));
      maps.push_back(map);
      if (gather)
        continue;
      SmallVector<Attribute> weights;
      for (double w : taps.weight)
        weights.push_back(rewriter.getFloatAttr(compute, w));
      tables.push_back(arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(RankedTensorType::get(shape, compute), weights)));
      maps.push_back(map);
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(rewriter.getAffineDimExpr(d));
    maps.push_back(AffineMap::get(loops, 0, outExprs, ctx));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.append(loops - rank, utils::IteratorType::reduction);

    auto accType = outType.clone(compute);
    Value acc = gather ? (Value)tensor::EmptyOp::create(rewriter, loc,
                                                        outType.getShape(), element)
                       : filledTensor(rewriter, loc, accType, zeroOf(rewriter, compute));
    int64_t step = gather ? 1 : 2;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, acc.getType(), tables, acc, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> position;
          for (int64_t d = 0; d < rank; ++d)
            position.push_back(linalg::IndexOp::create(b, l, (uint64_t)d));
          for (auto [j, r] : llvm::enumerate(resized))
            position[r.first] = arith::IndexCastOp::create(
                b, l, b.getIndexType(), a[j * step]);
          Value x = tensor::ExtractOp::create(b, l, input, position);
          if (gather) {
            linalg::YieldOp::create(b, l, x);
            return;
          }
          Value v = emitConvert(b, l, x, origElement, compute);
          for (size_t j = 0; j < resized.size(); ++j)
            v = arith::MulFOp::create(b, l, v, a[j * step + 1]);
          linalg::YieldOp::create(b, l, (Value)arith::AddFOp::create(b, l, a.back(), v));
        });
    Value result = generic.getResult(0);
    if (compute != element)
      result = buildElementwise(
          rewriter, loc, outType, result,
          [&](OpBuilder &b, Location l, ValueRange a) {
            if (isa<FloatType>(element))
              return emitConvert(b, l, a[0], compute, element);
            return emitRoundSaturate(b, l, a[0], origElement);
          });
    result = extrapolate(rewriter, loc, op, resized, outType, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// tf_crop_and_resize: positions outside the input on any axis hold
  /// extrapolation_value.
  static Value extrapolate(OpBuilder &b, Location loc, ResizeOp op,
                           ArrayRef<std::pair<int64_t, AxisTaps>> resized,
                           RankedTensorType outType, Value result) {
    SmallVector<Value> masks = {result};
    for (auto &[axis, taps] : resized) {
      if (!taps.anyOutside)
        continue;
      SmallVector<int64_t> shape(outType.getRank(), 1);
      shape[axis] = outType.getDimSize(axis);
      auto maskType = RankedTensorType::get(shape, b.getI1Type());
      masks.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(taps.outside))));
    }
    if (masks.size() == 1)
      return result;
    Type element = outType.getElementType();
    Type origElement = op.getType().getElementType();
    double value = op.getExtrapolationValue().convertToDouble();
    return buildElementwise(
        b, loc, outType, masks, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value any = a[1];
          for (Value m : a.drop_front(2))
            any = arith::OrIOp::create(nb, l, any, m);
          Value fill =
              isa<FloatType>(element)
                  ? scalarConstant(nb, l, element, value)
                  : emitRoundSaturate(nb, l,
                                      scalarConstant(nb, l, nb.getF64Type(), value),
                                      origElement);
          return (Value)arith::SelectOp::create(nb, l, any, fill, a[0]);
        });
  }
};

} // namespace

void autoglm::populateConvPoolLowering(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ConvLowering, ConvIntegerLowering, ConvTransposeLowering,
               PoolLowering<MaxPoolOp>, PoolLowering<AveragePoolOp>,
               LpPoolLowering, MaxPoolWithIndicesLowering, ResizeLowering>(
      converter, patterns.getContext());
}
