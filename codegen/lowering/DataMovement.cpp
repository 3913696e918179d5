//===- DataMovement.cpp - constants, shapes and copies to linalg/tensor ---===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = signless(cast<RankedTensorType>(op.getType()));
    TypedAttr value;
    if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()))
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
  matchAndRewrite(ShapeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dims = cast<RankedTensorType>(op.getInput().getType())
                    .getShape()
                    .slice(op.getStart(), op.getEnd() - op.getStart());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(op.getType(), dims));
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
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
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
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
    int64_t rank = type.getRank(), axis = op.getAxis(), offset = 0;
    for (Value in : adaptor.getInputs()) {
      auto inType = cast<RankedTensorType>(in.getType());
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[axis] = offset;
      offset += inType.getDimSize(axis);
      if (inType.getNumElements() == 0)
        continue;
      result = tensor::InsertSliceOp::create(rewriter, loc, in, result,
                                             ValueRange{}, ValueRange{},
                                             ValueRange{}, offsets,
                                             inType.getShape(), strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Builds out[i...] = input[f(i...)] where `sourceIndex` computes the input
/// indices from the output indices (used where views cannot express it).
Value buildIndexedCopy(
    OpBuilder &b, Location loc, RankedTensorType outType, Value input,
    ValueRange extraInputs, ArrayRef<AffineMap> extraMaps,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value>,
                                    ValueRange)>
        sourceIndex) {
  int64_t rank = outType.getRank();
  SmallVector<AffineMap> maps(extraMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, outType.getShape(),
                                       outType.getElementType());
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
    auto starts = op.getStarts(), steps = op.getSteps();
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, adaptor.getInput(), ValueRange{}, ValueRange{},
          ValueRange{}, starts, type.getShape(), steps);
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
    auto type = signless(op.getType());
    auto indicesType = cast<RankedTensorType>(adaptor.getIndices().getType());
    int64_t axis = op.getAxis(), q = indicesType.getRank();
    int64_t extent =
        cast<RankedTensorType>(op.getData().getType()).getDimSize(axis);
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < q; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + d));
    auto indexMap =
        AffineMap::get(type.getRank(), 0, indexExprs, rewriter.getContext());
    Value result = buildIndexedCopy(
        rewriter, op.getLoc(), type, adaptor.getData(), adaptor.getIndices(),
        indexMap,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange args) {
          // Negative indices count from the end; out-of-range ones are
          // clamped so a bad index can never read outside the tensor.
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value n = arith::ConstantIndexOp::create(b, l, extent);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value last = arith::ConstantIndexOp::create(b, l, extent - 1);
          Value isNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
          i = arith::SelectOp::create(b, l, isNeg, arith::AddIOp::create(b, l, i, n), i);
          i = arith::MaxSIOp::create(b, l, arith::MinSIOp::create(b, l, i, last), zero);
          SmallVector<Value> src(idx.take_front(axis));
          src.push_back(i);
          llvm::append_range(src, idx.drop_front(axis + q));
          return src;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(),
                                            signless(op.getType()),
                                            adaptor.getInput(),
                                            [](OpBuilder &, Location, ValueRange a) {
                                              return a[0];
                                            }));
    return success();
  }
};

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

} // namespace

void autoglm::populateDataMovementLowering(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ShapeLowering, ReshapeLowering<ReshapeOp>,
               ReshapeLowering<UnsqueezeOp>, ReshapeLowering<SqueezeOp>,
               ReshapeLowering<FlattenOp>, TransposeLowering, ConcatLowering,
               SliceLowering, GatherLowering, ExpandLowering, PadLowering>(
      converter, patterns.getContext());
}
