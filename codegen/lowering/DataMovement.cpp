//===- DataMovement.cpp - constants, shapes and copies to linalg/tensor ---===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"
#include "dialects/ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"

#include <variant>

using namespace mlir;
using namespace autoglm;

namespace {

/// Sub-byte elements as the bytes that hold them below the dialect: float4
/// encodings zero-extended, integers extended by their signedness.
DenseElementsAttr widenToBytes(DenseElementsAttr dense, RankedTensorType type) {
  Type element = dense.getElementType();
  SmallVector<APInt> bytes;
  if (isa<FloatType>(element)) {
    for (const APFloat &v : dense.getValues<APFloat>())
      bytes.push_back(v.bitcastToAPInt().zext(8));
  } else {
    for (const APInt &v : dense.getValues<APInt>())
      bytes.push_back(element.isUnsignedInteger() ? v.zext(8) : v.sext(8));
  }
  return DenseElementsAttr::get(type, bytes);
}

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(cast<RankedTensorType>(op.getType()));
    TypedAttr value;
    Type element = getElementTypeOrSelf(op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (dense && element.getIntOrFloatBitWidth() < 8 && !element.isInteger(1))
      value = widenToBytes(dense, type); // float4 and 2-/4-bit integers
    else if (dense)
      value = dense.bitcast(type.getElementType());
    else if (auto blob = dyn_cast<DenseResourceElementsAttr>(op.getValue()))
      value = DenseResourceElementsAttr::get(type, blob.getRawHandle());
    else
      return rewriter.notifyMatchFailure(op, "unsupported constant storage");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct ShapeLowering : OpConversionPattern<ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    auto dims = type.getShape().slice(op.getStart(), op.getEnd() - op.getStart());
    if (!ShapedType::isDynamicShape(dims)) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(op.getType(), dims));
      return success();
    }
    // Symbolic extents are read at run time.
    Location loc = op.getLoc();
    SmallVector<Value> elements;
    for (int64_t d = op.getStart(); d < op.getEnd(); ++d) {
      Value extent =
          type.isDynamicDim(d)
              ? Value(tensor::DimOp::create(rewriter, loc, adaptor.getInput(), d))
              : Value(arith::ConstantIndexOp::create(rewriter, loc,
                                                     type.getDimSize(d)));
      elements.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(), extent));
    }
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(),
                                                        elements);
    return success();
  }
};

/// Reshape and the ops that are reshapes in disguise.
template <typename OpTy>
struct ReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<OpTy, ReshapeOp>) {
      if (!adaptor.getSizes().empty()) {
        SmallVector<OpFoldResult> shape = getMixedValues(
            op.getType().getShape(), adaptor.getSizes(), rewriter);
        rewriter.replaceOp(op, reshapeToExtents(rewriter, op.getLoc(),
                                                adaptor.getInput(), shape));
        return success();
      }
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getInput(),
                                         op.getType().getShape()));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(op.getType());
    SmallVector<Value> sizes;
    for (auto [d, from] : llvm::enumerate(op.getPerm()))
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, op.getLoc(),
                                              adaptor.getInput(), from));
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type, sizes);
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPerm());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signless(op.getType());
    int64_t rank = type.getRank(), axis = op.getAxis();
    // Symbolic extents: the concatenated axis adds up, the others are the
    // first input's.
    auto extent = [&](Value in, int64_t d) {
      return tensor::getMixedSize(rewriter, loc, in, d);
    };
    auto add = [&](OpFoldResult x, OpFoldResult y) -> OpFoldResult {
      auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
      if (cx && cy)
        return rewriter.getIndexAttr(*cx + *cy);
      return arith::AddIOp::create(rewriter, loc,
                                   getValueOrCreateConstantIndexOp(rewriter, loc, x),
                                   getValueOrCreateConstantIndexOp(rewriter, loc, y))
          .getResult();
    };
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      OpFoldResult size = extent(adaptor.getInputs().front(), d);
      if (d == axis)
        for (Value in : adaptor.getInputs().drop_front())
          size = add(size, extent(in, d));
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    }
    Value result = tensor::EmptyOp::create(rewriter, loc, type, sizes);
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value in : adaptor.getInputs()) {
      auto inType = cast<RankedTensorType>(in.getType());
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
          strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      offset = add(offset, extent(in, axis));
      if (inType.hasStaticShape() && inType.getNumElements() == 0)
        continue;
      result = tensor::InsertSliceOp::create(
          rewriter, loc, in, result, offsets,
          tensor::getMixedSizes(rewriter, loc, in), strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// An ONNX index (any integer type) as an `index` into an axis of extent
/// `n` (a constant, or a value for a symbolic extent): negative indices
/// count from the end; out-of-range ones are clamped, so a bad index can
/// never read or write outside the tensor.
Value normalizedIndex(OpBuilder &b, Location loc, Value index,
                      std::variant<int64_t, Value> extent) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value n, last, zero;
  if (auto *c = std::get_if<int64_t>(&extent)) {
    n = indexConstant(b, loc, *c);
    zero = indexConstant(b, loc, 0);
    last = indexConstant(b, loc, std::max<int64_t>(*c - 1, 0));
  } else {
    n = std::get<Value>(extent);
    zero = indexConstant(b, loc, 0);
    last = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, n, indexConstant(b, loc, 1)), zero);
  }
  Value isNeg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, isNeg,
                              arith::AddIOp::create(b, loc, i, n), i);
  return arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, i, last),
                                zero);
}

/// Builds out[i...] = input[f(i...)] where `sourceIndex` computes the input
/// indices from the output indices (used where views cannot express it).
/// `sizes` are those of the symbolic extents of `outType`, as for
/// tensor.empty.
Value buildIndexedCopy(
    OpBuilder &b, Location loc, RankedTensorType outType, Value input,
    ValueRange extraInputs, ArrayRef<AffineMap> extraMaps,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value>,
                                    ValueRange)>
        sourceIndex,
    ValueRange sizes = {}) {
  int64_t rank = outType.getRank();
  SmallVector<AffineMap> maps(extraMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, outType, sizes);
  auto generic = linalg::GenericOp::create(
      b, loc, outType, extraInputs, init, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> outIdx;
        for (int64_t d = 0; d < rank; ++d)
          outIdx.push_back(linalg::IndexOp::create(nb, l, d));
        SmallVector<Value> src = sourceIndex(nb, l, outIdx, args.drop_back());
        linalg::YieldOp::create(nb, l,
                                (Value)tensor::ExtractOp::create(nb, l, input, src));
      });
  return generic.getResult(0);
}

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(op.getType());
    auto steps = op.getSteps();
    // An empty axis reads nothing; offset 0 is in bounds for any extent.
    SmallVector<int64_t> starts(op.getStarts());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) == 0)
        starts[d] = 0;
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      Location loc = op.getLoc();
      SmallVector<OpFoldResult> offsets =
          getAsIndexOpFoldResult(rewriter.getContext(), starts);
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        sizes.push_back(type.isDynamicDim(d)
                            ? OpFoldResult(tensor::DimOp::create(
                                  rewriter, loc, adaptor.getInput(), d)
                                  .getResult())
                            : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(d))));
      // Bounds known at run time (normalized at import): [start, end).
      if (auto axes = op.getDynamicAxesAttr()) {
        for (auto [i, axis] : llvm::enumerate(axes.asArrayRef())) {
          Value start = adaptor.getBounds()[2 * i], end = adaptor.getBounds()[2 * i + 1];
          offsets[axis] = start;
          sizes[axis] = arith::MaxSIOp::create(
                            rewriter, loc, arith::SubIOp::create(rewriter, loc, end, start),
                            indexConstant(rewriter, loc, 0))
                            .getResult();
        }
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, adaptor.getInput(), offsets, sizes,
          getAsIndexOpFoldResult(rewriter.getContext(), steps));
      return success();
    }
    // Negative steps read backwards: index arithmetic in a generic.
    Value result = buildIndexedCopy(
        rewriter, op.getLoc(), type, adaptor.getInput(), {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          SmallVector<Value> src;
          for (auto [d, i] : llvm::enumerate(idx)) {
            Value step = arith::ConstantIndexOp::create(b, l, steps[d]);
            Value start = arith::ConstantIndexOp::create(b, l, starts[d]);
            src.push_back(arith::AddIOp::create(
                b, l, start, arith::MulIOp::create(b, l, i, step)));
          }
          return src;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signless(op.getType());
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t axis = op.getAxis(), q = indicesType.getRank();
    auto dataType = cast<RankedTensorType>(data.getType());
    Value extent = dataType.isDynamicDim(axis)
                       ? Value(tensor::DimOp::create(rewriter, loc, data, axis))
                       : Value();
    // Result extents: data's before the axis, the indices', data's after.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d >= axis && d < axis + q)
        sizes.push_back(tensor::DimOp::create(rewriter, loc, indices, d - axis));
      else
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, data, d < axis ? d : d - q + 1));
    }
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < q; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + d));
    auto indexMap =
        AffineMap::get(type.getRank(), 0, indexExprs, rewriter.getContext());
    Value result = buildIndexedCopy(
        rewriter, loc, type, data, indices, indexMap,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange args) {
          SmallVector<Value> src(idx.take_front(axis));
          src.push_back(normalizedIndex(
              b, l, args[0],
              extent ? std::variant<int64_t, Value>(extent)
                     : std::variant<int64_t, Value>(dataType.getDimSize(axis))));
          llvm::append_range(src, idx.drop_front(axis + q));
          return src;
        },
        sizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(op.getType());
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    if (inType.hasStaticShape()) {
      rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), type, input,
                                              [](OpBuilder &, Location, ValueRange a) {
                                                return a[0];
                                              },
                                              adaptor.getSizes()));
      return success();
    }
    // A symbolic input extent may be 1 at run time and broadcast: read
    // index 0 there.
    Location loc = op.getLoc();
    int64_t offset = type.getRank() - inType.getRank();
    SmallVector<Value> inExtents;
    for (int64_t d = 0; d < inType.getRank(); ++d)
      inExtents.push_back(inType.isDynamicDim(d)
                              ? Value(tensor::DimOp::create(rewriter, loc, input, d))
                              : Value());
    Value result = buildIndexedCopy(
        rewriter, loc, type, input, {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          SmallVector<Value> src;
          for (int64_t d = 0; d < inType.getRank(); ++d) {
            Value i = idx[d + offset];
            if (inExtents[d]) {
              Value one = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                inExtents[d], indexConstant(b, l, 1));
              i = arith::SelectOp::create(b, l, one, indexConstant(b, l, 0), i);
            } else if (inType.getDimSize(d) == 1) {
              i = indexConstant(b, l, 0);
            }
            src.push_back(i);
          }
          return src;
        },
        adaptor.getSizes());
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Edge, reflect and wrap padding of an (already cropped) input: each
/// result element reads the input at an index computed per axis.
Value buildModePad(OpBuilder &builder, Location loc, RankedTensorType type,
                   Value input, StringRef mode, ArrayRef<int64_t> pads) {
  auto inShape = cast<RankedTensorType>(input.getType()).getShape();
  int64_t rank = type.getRank();
  return buildIndexedCopy(
      builder, loc, type, input, {}, {},
      [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
        SmallVector<Value> src;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t lo = std::max<int64_t>(pads[d], 0), n = inShape[d];
          if (lo == 0 && pads[d + rank] <= 0) {
            src.push_back(idx[d]);
            continue;
          }
          Value i = arith::SubIOp::create(b, l, idx[d], indexConstant(b, l, lo));
          // i mod m, made non-negative.
          auto positiveMod = [&](Value x, int64_t m) -> Value {
            Value mv = indexConstant(b, l, m);
            Value r = arith::RemSIOp::create(b, l, x, mv);
            return arith::RemSIOp::create(
                b, l, arith::AddIOp::create(b, l, r, mv), mv);
          };
          if (mode == "edge" || (mode == "reflect" && n == 1)) {
            i = arith::MaxSIOp::create(
                b, l, arith::MinSIOp::create(b, l, i, indexConstant(b, l, n - 1)),
                indexConstant(b, l, 0));
          } else if (mode == "wrap") {
            i = positiveMod(i, n);
          } else {
            // Reflection is periodic with period 2 (n - 1).
            int64_t period = 2 * (n - 1);
            Value m = positiveMod(i, period);
            Value mirrored =
                arith::SubIOp::create(b, l, indexConstant(b, l, period), m);
            Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                                 m, indexConstant(b, l, n));
            i = arith::SelectOp::create(b, l, inside, m, mirrored);
          }
          src.push_back(i);
        }
        return src;
      });
}

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signless(op.getType());
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    auto pads = op.getPads();
    // Negative pads crop: take that slice first, then pad the rest.
    SmallVector<int64_t> offsets(rank, 0), sizes(inType.getShape()),
        strides(rank, 1);
    bool crops = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t lo = std::min<int64_t>(pads[d], 0), hi = std::min<int64_t>(pads[d + rank], 0);
      offsets[d] = -lo;
      sizes[d] += lo + hi;
      crops |= lo < 0 || hi < 0;
    }
    if (crops)
      input = tensor::ExtractSliceOp::create(
          rewriter, loc, inType.clone(sizes), input, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, strides);
    if (op.getMode() != "constant") {
      rewriter.replaceOp(op, buildModePad(rewriter, loc, type, input,
                                          op.getMode(), pads));
      return success();
    }
    SmallVector<OpFoldResult> low, high;
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(rewriter.getIndexAttr(std::max<int64_t>(pads[d], 0)));
      high.push_back(rewriter.getIndexAttr(std::max<int64_t>(pads[d + rank], 0)));
    }
    Value padValue = scalarConstant(rewriter, loc, type.getElementType(),
                                    op.getValue().convertToDouble());
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, input, low, high,
                                               padValue);
    return success();
  }
};

struct GatherElementsLowering : OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(op.getType());
    int64_t axis = op.getAxis();
    int64_t extent =
        cast<RankedTensorType>(op.getData().getType()).getDimSize(axis);
    Value result = buildIndexedCopy(
        rewriter, op.getLoc(), type, adaptor.getData(), adaptor.getIndices(),
        rewriter.getMultiDimIdentityMap(type.getRank()),
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange args) {
          SmallVector<Value> src(idx);
          src[axis] = normalizedIndex(b, l, args[0], extent);
          return src;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// out[i.., s..] = data[i[:b].., indices[i.., 0], .., indices[i.., k-1], s..]
/// where i walks indices.shape[:-1] and s the trailing data axes.
struct GatherNDLowering : OpConversionPattern<GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(op.getType());
    auto dataShape = cast<RankedTensorType>(op.getData().getType()).getShape();
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t q = indicesType.getRank(), k = indicesType.getDimSize(q - 1);
    int64_t batch = op.getBatchDims();
    Value indices = adaptor.getIndices();
    Value result = buildIndexedCopy(
        rewriter, op.getLoc(), type, adaptor.getData(), {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          SmallVector<Value> src(idx.take_front(batch));
          SmallVector<Value> at(idx.take_front(q - 1));
          at.push_back(Value());
          for (int64_t j = 0; j < k; ++j) {
            at.back() = indexConstant(b, l, j);
            Value i = tensor::ExtractOp::create(b, l, indices, at);
            src.push_back(normalizedIndex(b, l, i, dataShape[batch + j]));
          }
          llvm::append_range(src, idx.drop_front(q - 1));
          return src;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `acc` combined with `update` by a scatter reduction.
Value combineScatter(OpBuilder &b, Location loc, StringRef reduction,
                     Value acc, Value update, bool isUnsigned) {
  if (reduction == "add")
    return emitAdd(b, loc, acc, update);
  if (reduction == "mul")
    return emitMul(b, loc, acc, update);
  if (reduction == "max")
    return emitMax(b, loc, acc, update, isUnsigned);
  if (reduction == "min")
    return emitMin(b, loc, acc, update, isUnsigned);
  return update;
}

/// A scatter as one generic: the result loops are parallel and an inner
/// reduction loop walks the candidate updates of each element, applying
/// those that target it in order. `driver` is an operand whose map gives
/// the reduction loop its extent; `update` returns (targets this element?,
/// update value) for the current iteration.
Value buildScatter(
    OpBuilder &b, Location loc, Value data, Value driver, AffineMap driverMap,
    StringRef reduction, bool isUnsigned,
    function_ref<std::pair<Value, Value>(OpBuilder &, Location, ArrayRef<Value>,
                                         Value)>
        update) {
  auto type = cast<RankedTensorType>(data.getType());
  int64_t rank = type.getRank();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(b.getAffineDimExpr(d));
  SmallVector<AffineMap> maps = {
      driverMap, AffineMap::get(rank + 1, 0, outExprs, b.getContext())};
  auto generic = linalg::GenericOp::create(
      b, loc, type, driver, data, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> idx;
        for (int64_t d = 0; d <= rank; ++d)
          idx.push_back(linalg::IndexOp::create(nb, l, d));
        auto [hit, value] = update(nb, l, idx, args[0]);
        Value acc = args[1];
        Value next = combineScatter(nb, l, reduction, acc, value, isUnsigned);
        linalg::YieldOp::create(
            nb, l, (Value)arith::SelectOp::create(nb, l, hit, next, acc));
      });
  return generic.getResult(0);
}

Value indexEquals(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}

struct ScatterElementsLowering : OpConversionPattern<ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto dataShape = op.getType().getShape();
    auto updShape = cast<RankedTensorType>(op.getUpdates().getType()).getShape();
    int64_t rank = dataShape.size(), axis = op.getAxis();
    if (product(updShape) == 0) {
      rewriter.replaceOp(op, adaptor.getData());
      return success();
    }
    // The reduction loop walks updates along `axis`; the driver is the
    // indices read at 0 elsewhere.
    SmallVector<AffineExpr> driverExprs;
    for (int64_t d = 0; d < rank; ++d)
      driverExprs.push_back(d == axis ? rewriter.getAffineDimExpr(rank)
                                      : rewriter.getAffineConstantExpr(0));
    auto driverMap =
        AffineMap::get(rank + 1, 0, driverExprs, rewriter.getContext());
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    Value result = buildScatter(
        rewriter, loc, adaptor.getData(), indices, driverMap,
        op.getReduction(), op.getType().getElementType().isUnsignedInteger(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, Value) {
          // Update position: this element's coordinates, with the reduction
          // loop along the axis. Updates smaller than the data leave some
          // elements without candidates.
          SmallVector<Value> at(idx.take_front(rank));
          at[axis] = idx[rank];
          Value valid = arith::ConstantIntOp::create(b, l, 1, 1);
          for (int64_t d = 0; d < rank; ++d) {
            if (d == axis || updShape[d] == dataShape[d])
              continue;
            Value bound = indexConstant(b, l, updShape[d]);
            valid = arith::AndIOp::create(
                b, l, valid,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, at[d],
                                      bound));
            at[d] = arith::MinSIOp::create(b, l, at[d],
                                           indexConstant(b, l, updShape[d] - 1));
          }
          Value target = normalizedIndex(
              b, l, tensor::ExtractOp::create(b, l, indices, at),
              dataShape[axis]);
          Value hit = arith::AndIOp::create(b, l, valid,
                                            indexEquals(b, l, target, idx[axis]));
          Value value = tensor::ExtractOp::create(b, l, updates, at);
          return std::make_pair(hit, value);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterNDLowering : OpConversionPattern<ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto dataShape = op.getType().getShape();
    auto indicesShape =
        cast<RankedTensorType>(op.getIndices().getType()).getShape();
    int64_t rank = dataShape.size(), k = indicesShape.back();
    int64_t count = product(indicesShape.drop_back());
    if (count == 0) {
      rewriter.replaceOp(op, adaptor.getData());
      return success();
    }
    // Index tuples as [count, k], updates as [count, trailing data axes...].
    Value indices =
        reshapeTensor(rewriter, loc, adaptor.getIndices(), {count, k});
    SmallVector<int64_t> updShape = {count};
    llvm::append_range(updShape, dataShape.drop_front(k));
    Value updates = reshapeTensor(rewriter, loc, adaptor.getUpdates(), updShape);
    auto driverMap = AffineMap::get(
        rank + 1, 0,
        {rewriter.getAffineDimExpr(rank), rewriter.getAffineConstantExpr(0)},
        rewriter.getContext());
    Value result = buildScatter(
        rewriter, loc, adaptor.getData(), indices, driverMap, op.getReduction(),
        op.getType().getElementType().isUnsignedInteger(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, Value first) {
          Value u = idx[rank];
          Value hit = indexEquals(
              b, l, normalizedIndex(b, l, first, dataShape[0]), idx[0]);
          for (int64_t j = 1; j < k; ++j) {
            Value i = tensor::ExtractOp::create(
                b, l, indices, ValueRange{u, indexConstant(b, l, j)});
            Value target = normalizedIndex(b, l, i, dataShape[j]);
            hit = arith::AndIOp::create(b, l, hit,
                                        indexEquals(b, l, target, idx[j]));
          }
          SmallVector<Value> at = {u};
          llvm::append_range(at, idx.slice(k, rank - k));
          Value value = tensor::ExtractOp::create(b, l, updates, at);
          return std::make_pair(hit, value);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct OneHotLowering : OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signless(op.getType());
    int64_t rank = type.getRank(), axis = op.getAxis(), depth = op.getDepth();
    Type indexType = cast<RankedTensorType>(op.getIndices().getType())
                         .getElementType();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        indexExprs.push_back(rewriter.getAffineDimExpr(d));
    auto indexMap = AffineMap::get(rank, 0, indexExprs, rewriter.getContext());
    Value values = adaptor.getValues();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<AffineMap> maps = {indexMap,
                                   rewriter.getMultiDimIdentityMap(rank)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, adaptor.getIndices(), init, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          // The index as i64 (floats truncate); negative ones count from
          // the end. Out-of-range ones match no position.
          Type i64 = b.getI64Type();
          Value i = emitConvert(b, l, args[0], indexType, i64);
          Value d = arith::ConstantIntOp::create(b, l, i64, depth);
          Value zero = arith::ConstantIntOp::create(b, l, i64, 0);
          Value isNeg =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
          i = arith::SelectOp::create(b, l, isNeg,
                                      arith::AddIOp::create(b, l, i, d), i);
          Value position = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i,
                                            position);
          Value off = tensor::ExtractOp::create(b, l, values,
                                                indexConstant(b, l, 0));
          Value on = tensor::ExtractOp::create(b, l, values,
                                               indexConstant(b, l, 1));
          linalg::YieldOp::create(
              b, l, (Value)arith::SelectOp::create(b, l, hit, on, off));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// output[i] = start + i * delta: one generic over linalg.index.
struct RangeLowering : OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = signless(cast<RankedTensorType>(op.getType()));
    Type element = type.getElementType();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         element, ValueRange{adaptor.getCount()});
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(1)},
        SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = arith::IndexCastOp::create(b, l, element,
                                               linalg::IndexOp::create(b, l, 0));
          auto attr = [&](TypedAttr a) {
            return arith::ConstantOp::create(
                b, l, b.getIntegerAttr(element, cast<IntegerAttr>(a).getInt()));
          };
          Value v = arith::AddIOp::create(
              b, l, attr(op.getStart()),
              arith::MulIOp::create(b, l, i, attr(op.getDelta())));
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// One multiply-accumulate generic with a loop per einsum letter. For
/// products of several operands the summed loops sit just outside the last
/// result loop (as for matmul), so the innermost loop walks the result
/// contiguously.
struct EinsumLowering : OpConversionPattern<EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto loops = EinsumOp::parseEquation(op.getEquation(),
                                         op.getInputs().getTypes(), loc);
    if (failed(loops))
      return failure();
    int64_t numLoops = loops->extents.size();
    int64_t numOut = loops->output.size();
    auto order = llvm::to_vector(llvm::seq<int64_t>(0, numLoops));
    if (op.getInputs().size() > 1 && numOut > 0 && numOut < numLoops)
      std::rotate(order.begin() + numOut - 1, order.begin() + numOut,
                  order.end());
    SmallVector<int64_t> position(numLoops);
    for (auto [p, loop] : llvm::enumerate(order))
      position[loop] = p;

    SmallVector<AffineMap> maps;
    for (auto [in, dims] : llvm::zip(adaptor.getInputs(), loops->inputs)) {
      auto shape = cast<RankedTensorType>(in.getType()).getShape();
      SmallVector<AffineExpr> exprs;
      for (auto [extent, loop] : llvm::zip(shape, dims))
        exprs.push_back(extent == 1 && loops->extents[loop] != 1
                            ? rewriter.getAffineConstantExpr(0)
                            : rewriter.getAffineDimExpr(position[loop]));
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t loop : loops->output)
      outExprs.push_back(rewriter.getAffineDimExpr(position[loop]));
    maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));
    SmallVector<utils::IteratorType> iterators;
    for (int64_t p = 0; p < numLoops; ++p)
      iterators.push_back(order[p] < numOut ? utils::IteratorType::parallel
                                            : utils::IteratorType::reduction);

    // Half-precision floats accumulate in f32.
    auto type = signless(op.getType());
    Type element = type.getElementType(), accType = element;
    if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
      accType = rewriter.getF32Type();
    auto accTensor = type.clone(accType);
    Value acc = filledTensor(rewriter, loc, accTensor,
                             cast<TypedAttr>(rewriter.getZeroAttr(accType)));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, accTensor, adaptor.getInputs(), acc, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product = emitConvert(b, l, args[0], element, accType);
          for (Value x : args.drop_front().drop_back())
            product = emitMul(b, l, product,
                              emitConvert(b, l, x, element, accType));
          linalg::YieldOp::create(b, l, emitAdd(b, l, args.back(), product));
        });
    Value result = generic.getResult(0);
    if (accType != element)
      result = buildElementwise(rewriter, loc, type, result,
                                [&](OpBuilder &b, Location l, ValueRange a) {
                                  return emitConvert(b, l, a[0], accType, element);
                                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void autoglm::populateDataMovementLowering(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ShapeLowering, ReshapeLowering<ReshapeOp>,
               ReshapeLowering<UnsqueezeOp>, ReshapeLowering<SqueezeOp>,
               ReshapeLowering<FlattenOp>, TransposeLowering, ConcatLowering,
               SliceLowering, GatherLowering, ExpandLowering, PadLowering,
               GatherElementsLowering, GatherNDLowering,
               ScatterElementsLowering, ScatterNDLowering, OneHotLowering,
               EinsumLowering, RangeLowering>(converter, patterns.getContext());
}
