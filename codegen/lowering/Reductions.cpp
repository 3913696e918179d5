//===- Reductions.cpp - reductions and normalizations to linalg -----------===//
//
// Every reduction is one linalg.generic over the input with accumulators of
// the kept axes; statistics of an earlier pass (a maximum, a mean) are read
// next to each element as extra inputs, so no full-size temporary is built.
// Floating-point sums of f16/bf16 data are accumulated in f32 and rounded
// once at the end.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// The type sums of `type` are accumulated in: f32 for 16-bit floats.
Type accumulatorType(Type type) {
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(type.getContext());
  return type;
}

/// Booleans compare as unsigned (true > false), like unsigned integers.
bool comparesUnsigned(Type autoglmElement) {
  return autoglmElement.isUnsignedInteger() || autoglmElement.isInteger(1);
}

Value convert(OpBuilder &b, Location loc, Value x, Type to) {
  return emitConvert(b, loc, x, x.getType(), to);
}

Value isNaN(OpBuilder &b, Location loc, Value x) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}

Value index64(OpBuilder &b, Location loc, int64_t dim) {
  Value i = linalg::IndexOp::create(b, loc, dim);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
}

SmallVector<int64_t> allAxes(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

int64_t countAlong(RankedTensorType type, ArrayRef<int64_t> axes) {
  int64_t count = 1;
  for (int64_t a : axes)
    count *= type.getDimSize(a);
  return count;
}

using AccumulateFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange accumulators, ValueRange elements)>;
using ScalarFn = function_ref<Value(OpBuilder &, Location, Value)>;

/// An elementwise generic over `inputs` (broadcast) whose body computes in
/// `compute` (each input converted to it) and is rounded to `resultType`.
Value mapIn(OpBuilder &b, Location loc, RankedTensorType resultType,
            ValueRange inputs, Type compute,
            function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body) {
  return buildElementwise(
      b, loc, resultType, inputs, [&](OpBuilder &nb, Location l, ValueRange a) {
        SmallVector<Value> wide;
        for (Value v : a)
          wide.push_back(convert(nb, l, v, compute));
        return convert(nb, l, body(nb, l, wide), resultType.getElementType());
      });
}

/// `type`'s shape with the `axes` as extent 1.
SmallVector<int64_t> keptShape(RankedTensorType type, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  return shape;
}

/// Reduces `input` over `axes` in one linalg.generic with one accumulator
/// per entry of `inits`. `extras` have the input's shape with the reduced
/// axes as extent 1 and are read next to each element; `step` gets the
/// accumulators and {element, extras...} and returns the new accumulators.
/// The results are left without the reduced axes.
SmallVector<Value> reduceAlong(OpBuilder &b, Location loc, Value input,
                               ArrayRef<int64_t> axes, ValueRange extras,
                               ArrayRef<TypedAttr> inits, AccumulateFn step) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> reducedShape;
  SmallVector<AffineExpr> accExprs, extraExprs;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<Value> sizes; // of the symbolic kept extents
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    extraExprs.push_back(reduced ? b.getAffineConstantExpr(0)
                                 : b.getAffineDimExpr(d));
    if (!reduced) {
      reducedShape.push_back(type.getDimSize(d));
      accExprs.push_back(b.getAffineDimExpr(d));
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(b, loc, input, d));
    }
  }
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  maps.append(extras.size(),
              AffineMap::get(rank, 0, extraExprs, b.getContext()));
  maps.append(inits.size(), AffineMap::get(rank, 0, accExprs, b.getContext()));
  SmallVector<Value> accs;
  SmallVector<Type> accTypes;
  for (TypedAttr init : inits) {
    auto accType = RankedTensorType::get(reducedShape, init.getType());
    accs.push_back(filledTensor(b, loc, accType, init, sizes));
    accTypes.push_back(accType);
  }
  SmallVector<Value> inputs = {input};
  inputs.append(extras.begin(), extras.end());
  auto generic = linalg::GenericOp::create(
      b, loc, accTypes, inputs, accs, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l,
            step(nb, l, args.take_back(inits.size()),
                 args.take_front(inputs.size())));
      });
  return generic.getResults();
}

/// A reduction with one accumulator (see reduceAlong) whose result keeps the
/// reduced axes as extent 1. `finish`, if given, maps the result to
/// `finishType` first, while the reduced axes are still absent: the reshape
/// that re-inserts them keeps the fusion pass from copying this per-row work
/// into every element of a full-size consumer.
Value reduceOne(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
                ValueRange extras, TypedAttr init,
                function_ref<Value(OpBuilder &, Location, Value, ValueRange)>
                    step,
                Type finishType = {}, ScalarFn finish = nullptr) {
  Value result =
      reduceAlong(b, loc, input, axes, extras, init,
                  [&](OpBuilder &nb, Location l, ValueRange accs,
                      ValueRange elements) -> SmallVector<Value> {
                    return {step(nb, l, accs[0], elements)};
                  })
          .front();
  if (finish) {
    auto resultType = cast<RankedTensorType>(result.getType());
    result = buildElementwise(b, loc, resultType.clone(finishType), result,
                              [&](OpBuilder &nb, Location l, ValueRange a) {
                                return finish(nb, l, a[0]);
                              });
  }
  auto type = cast<RankedTensorType>(input.getType());
  return reshapeTensor(b, loc, result, keptShape(type, axes));
}

/// Maximum of `x` over `axes`, in its own type.
Value maxAlong(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
               bool isUnsigned = false) {
  return reduceOne(b, loc, x, axes, {},
                   lowestValue(getElementTypeOrSelf(x.getType()), isUnsigned),
                   [&](OpBuilder &nb, Location l, Value acc, ValueRange e) {
                     return emitMax(nb, l, acc, e[0], isUnsigned);
                   });
}

/// x > y (x < y unless `descending`); NaN beats every number if `nanWins`,
/// else every number beats NaN.
Value beats(OpBuilder &b, Location loc, Value x, Value y, bool descending,
            bool nanWins, bool isUnsigned) {
  if (!isa<FloatType>(x.getType())) {
    using P = arith::CmpIPredicate;
    P pred = isUnsigned ? (descending ? P::ugt : P::ult)
                        : (descending ? P::sgt : P::slt);
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value ordered = arith::CmpFOp::create(
      b, loc,
      descending ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, y);
  Value nan = nanWins ? x : y, number = nanWins ? y : x;
  Value notNaN =
      arith::XOrIOp::create(b, loc, isNaN(b, loc, number),
                            arith::ConstantIntOp::create(b, loc, 1, 1));
  return arith::OrIOp::create(
      b, loc, ordered,
      arith::AndIOp::create(b, loc, isNaN(b, loc, nan), notNaN));
}

Value equal(OpBuilder &b, Location loc, Value x, Value y) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  Value eq = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  Value bothNaN = arith::AndIOp::create(b, loc, isNaN(b, loc, x),
                                        isNaN(b, loc, y));
  return arith::OrIOp::create(b, loc, eq, bothNaN);
}

/// How (value, position) pairs are ordered by the arg and top-k reductions.
struct Order {
  bool descending, nanWins, lastFirst, isUnsigned;
};

/// True if (v, i) comes before (w, j): by value, equal values by position
/// (ascending, or descending with `lastFirst`). Comparing positions keeps
/// the result independent of the order the elements are visited in.
Value precedes(OpBuilder &b, Location loc, Value v, Value i, Value w, Value j,
               Order order) {
  Value wins = beats(b, loc, v, w, order.descending, order.nanWins,
                     order.isUnsigned);
  Value earlier = arith::CmpIOp::create(
      b, loc, order.lastFirst ? arith::CmpIPredicate::sgt
                              : arith::CmpIPredicate::slt,
      i, j);
  Value tie = arith::AndIOp::create(b, loc, equal(b, loc, v, w), earlier);
  return arith::OrIOp::create(b, loc, wins, tie);
}

/// Position of the first pair in `order` along `axis`, as i64 with the axis
/// kept as extent 1.
Value argAlong(OpBuilder &b, Location loc, Value x, int64_t axis,
               Order order) {
  Type element = getElementTypeOrSelf(x.getType());
  // No element yet: position -1, which every element precedes.
  TypedAttr start = order.descending ? lowestValue(element, order.isUnsigned)
                                     : highestValue(element, order.isUnsigned);
  Value arg = reduceAlong(
                  b, loc, x, axis, {}, {start, b.getI64IntegerAttr(-1)},
                  [&](OpBuilder &nb, Location l, ValueRange acc,
                      ValueRange e) -> SmallVector<Value> {
                    Value i = index64(nb, l, axis);
                    Value none = arith::CmpIOp::create(
                        nb, l, arith::CmpIPredicate::slt, acc[1],
                        arith::ConstantIntOp::create(nb, l, nb.getI64Type(),
                                                     0));
                    Value take = arith::OrIOp::create(
                        nb, l, none,
                        precedes(nb, l, e[0], i, acc[0], acc[1], order));
                    return {arith::SelectOp::create(nb, l, take, e[0], acc[0]),
                            arith::SelectOp::create(nb, l, take, i, acc[1])};
                  })
                  .back();
  auto type = cast<RankedTensorType>(x.getType());
  return reshapeTensor(b, loc, arg, keptShape(type, axis));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class Kind {
  Sum,
  Mean,
  Prod,
  Max,
  Min,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp
};

/// `kind` of `x` over `axes`, keeping them as extent 1, in `x`'s type.
Value reduce(OpBuilder &b, Location loc, Kind kind, Value x,
             ArrayRef<int64_t> axes, bool isUnsigned) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType(), acc = accumulatorType(element);
  if (kind == Kind::Max || kind == Kind::Min) {
    bool max = kind == Kind::Max;
    return reduceOne(b, loc, x, axes, {},
                     max ? lowestValue(element, isUnsigned)
                         : highestValue(element, isUnsigned),
                     [&](OpBuilder &nb, Location l, Value m, ValueRange e) {
                       return max ? emitMax(nb, l, m, e[0], isUnsigned)
                                  : emitMin(nb, l, m, e[0], isUnsigned);
                     });
  }
  if (kind == Kind::LogSumExp) {
    // log(sum(exp(x - m))) + m with m the maximum, so exp cannot overflow;
    // an infinite maximum shifts by 0 instead (no inf - inf).
    Value max = maxAlong(b, loc, x, axes);
    auto shiftOf = [&](OpBuilder &nb, Location l, Value m) -> Value {
      Value inf = scalarConstant(nb, l, acc, INFINITY);
      Value isInf = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                          math::AbsFOp::create(nb, l, m), inf);
      return arith::SelectOp::create(nb, l, isInf,
                                     scalarConstant(nb, l, acc, 0.0), m);
    };
    Value sum = reduceOne(
        b, loc, x, axes, max, cast<TypedAttr>(b.getZeroAttr(acc)),
        [&](OpBuilder &nb, Location l, Value s, ValueRange e) -> Value {
          Value shift = shiftOf(nb, l, convert(nb, l, e[1], acc));
          Value d = arith::SubFOp::create(nb, l, convert(nb, l, e[0], acc),
                                          shift);
          return arith::AddFOp::create(nb, l, s, math::ExpOp::create(nb, l, d));
        });
    return mapIn(b, loc, type.clone(keptShape(type, axes)), {sum, max}, acc,
                 [&](OpBuilder &nb, Location l, ArrayRef<Value> a) -> Value {
                   return arith::AddFOp::create(
                       nb, l, math::LogOp::create(nb, l, a[0]),
                       shiftOf(nb, l, a[1]));
                 });
  }

  bool isFloat = isa<FloatType>(element);
  auto step = [&](OpBuilder &nb, Location l, Value s, ValueRange e) -> Value {
    Value v = convert(nb, l, e[0], acc);
    switch (kind) {
    case Kind::Prod:
      return emitMul(nb, l, s, v);
    case Kind::L1:
      if (isFloat)
        v = math::AbsFOp::create(nb, l, v);
      else if (!isUnsigned)
        v = math::AbsIOp::create(nb, l, v);
      break;
    case Kind::L2:
    case Kind::SumSquare:
      v = emitMul(nb, l, v, v);
      break;
    default:
      break;
    }
    return emitAdd(nb, l, s, v);
  };
  double count = countAlong(type, axes);
  auto finish = [&](OpBuilder &nb, Location l, Value r) -> Value {
    switch (kind) {
    case Kind::Mean: {
      Value n = scalarConstant(nb, l, acc, count);
      if (isFloat)
        r = arith::DivFOp::create(nb, l, r, n);
      else if (isUnsigned)
        r = arith::DivUIOp::create(nb, l, r, n);
      else
        r = arith::DivSIOp::create(nb, l, r, n);
      break;
    }
    case Kind::L2:
      r = math::SqrtOp::create(nb, l, r);
      break;
    case Kind::LogSum:
      r = math::LogOp::create(nb, l, r);
      break;
    default:
      break;
    }
    return convert(nb, l, r, element);
  };
  bool finished = kind == Kind::Mean || kind == Kind::L2 ||
                  kind == Kind::LogSum || acc != element;
  TypedAttr init = cast<TypedAttr>(kind == Kind::Prod ? b.getOneAttr(acc)
                                                      : b.getZeroAttr(acc));
  if (!finished)
    return reduceOne(b, loc, x, axes, {}, init, step);
  return reduceOne(b, loc, x, axes, {}, init, step, element, finish);
}

template <typename OpTy, Kind kind>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    SmallVector<int64_t> axes(op.getAxes());
    if (axes.empty())
      axes = allAxes(cast<RankedTensorType>(input.getType()).getRank());
    bool isUnsigned =
        comparesUnsigned(getElementTypeOrSelf(op.getInput().getType()));
    Value kept = reduce(rewriter, op.getLoc(), kind, input, axes, isUnsigned);
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), kept,
                                         op.getType().getShape()));
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
    rewriter.replaceOp(op, reduce(rewriter, op.getLoc(), Kind::Mean,
                                  adaptor.getInput(), spatial, false));
    return success();
  }
};

template <typename OpTy>
struct ArgLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool isUnsigned =
        comparesUnsigned(getElementTypeOrSelf(op.getInput().getType()));
    // numpy's argmax and argmin both return the (first) NaN.
    Order order = {std::is_same_v<OpTy, ArgMaxOp>, /*nanWins=*/true,
                   op.getSelectLastIndex(), isUnsigned};
    Value kept = argAlong(rewriter, op.getLoc(), adaptor.getInput(),
                          op.getAxis(), order);
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), kept,
                                         op.getType().getShape()));
    return success();
  }
};

/// The k best elements, found one after another: pass t picks the best
/// element that comes after pick t-1 in the order (value, then position),
/// so every pass is one reduction over the axis. The input is viewed as
/// [outer, n, inner] so the picks are slices [outer, 1, inner].
struct TopKLowering : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    Type element = type.getElementType();
    int64_t axis = op.getAxis(), k = op.getK();
    bool largest = op.getLargest();
    bool isUnsigned =
        comparesUnsigned(getElementTypeOrSelf(op.getInput().getType()));
    auto dims = type.getShape();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= dims[d];
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= dims[d];
    Value x = reshapeTensor(rewriter, loc, adaptor.getInput(),
                            {outer, dims[axis], inner});

    SmallVector<int64_t> picked = {outer, k, inner};
    Value values = tensor::EmptyOp::create(rewriter, loc, picked, element);
    Value indices = tensor::EmptyOp::create(rewriter, loc, picked,
                                            rewriter.getI64Type());
    // NaN counts as larger than any number, as in a sort.
    Order order = {largest, /*nanWins=*/largest, /*lastFirst=*/false,
                   isUnsigned};
    TypedAttr worst = largest ? lowestValue(element, isUnsigned)
                              : highestValue(element, isUnsigned);
    SmallVector<Value> previous;
    for (int64_t t = 0; t < k; ++t) {
      SmallVector<Value> pick = reduceAlong(
          rewriter, loc, x, {1}, previous,
          {worst, rewriter.getI64IntegerAttr(-1)},
          [&](OpBuilder &b, Location l, ValueRange acc,
              ValueRange e) -> SmallVector<Value> {
            Value v = e[0], i = index64(b, l, 1);
            Value none = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, acc[1],
                arith::ConstantIntOp::create(b, l, b.getI64Type(), 0));
            Value take = arith::OrIOp::create(
                b, l, none, precedes(b, l, v, i, acc[0], acc[1], order));
            if (e.size() == 3) // only elements after the previous pick
              take = arith::AndIOp::create(
                  b, l, take, precedes(b, l, e[1], e[2], v, i, order));
            return {arith::SelectOp::create(b, l, take, v, acc[0]),
                    arith::SelectOp::create(b, l, take, i, acc[1])};
          });
      for (Value &p : pick)
        p = reshapeTensor(rewriter, loc, p, {outer, 1, inner});
      SmallVector<int64_t> offsets = {0, t, 0}, sizes = {outer, 1, inner},
                           strides = {1, 1, 1};
      values = tensor::InsertSliceOp::create(
          rewriter, loc, pick[0], values, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, strides);
      indices = tensor::InsertSliceOp::create(
          rewriter, loc, pick[1], indices, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, strides);
      previous = pick;
    }
    auto shape = op.getValues().getType().getShape();
    rewriter.replaceOp(op, {reshapeTensor(rewriter, loc, values, shape),
                            reshapeTensor(rewriter, loc, indices, shape)});
    return success();
  }
};

/// out[i] = sum (or product) of x[j] for j <= i (j < i exclusive; j >= i,
/// j > i in reverse) as one generic with the source position j as an extra
/// reduction loop: quadratic in the axis extent, but a plain loop nest.
template <typename OpTy>
struct CumulativeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isProduct = std::is_same_v<OpTy, CumProdOp>;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    Type element = type.getElementType(), acc = accumulatorType(element);
    int64_t rank = type.getRank(), axis = op.getAxis();
    bool exclusive = op.getExclusive(), reverse = op.getReverse();

    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t d = 0; d < rank; ++d) {
      outExprs.push_back(rewriter.getAffineDimExpr(d));
      inExprs.push_back(rewriter.getAffineDimExpr(d == axis ? rank : d));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, inExprs, rewriter.getContext()),
        AffineMap::get(rank + 1, 0, outExprs, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto accType = type.clone(acc);
    double identity = isProduct ? 1.0 : 0.0;
    Value init = filledTensor(
        rewriter, loc, accType,
        cast<TypedAttr>(isa<FloatType>(acc)
                            ? (Attribute)rewriter.getFloatAttr(acc, identity)
                            : (Attribute)rewriter.getIntegerAttr(acc, (int64_t)identity)));
    using P = arith::CmpIPredicate;
    P pred = reverse ? (exclusive ? P::sgt : P::sge)
                     : (exclusive ? P::slt : P::sle);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, accType, adaptor.getInput(), init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = linalg::IndexOp::create(b, l, axis);
          Value j = linalg::IndexOp::create(b, l, rank);
          Value inRange = arith::CmpIOp::create(b, l, pred, j, i);
          Value v = arith::SelectOp::create(
              b, l, inRange, convert(b, l, args[0], acc),
              scalarConstant(b, l, acc, identity));
          linalg::YieldOp::create(b, l, isProduct ? emitMul(b, l, args[1], v)
                                                  : emitAdd(b, l, args[1], v));
        });
    Value sum = generic.getResult(0);
    if (acc != element)
      sum =
          mapIn(rewriter, loc, type, sum, acc,
                [](OpBuilder &, Location, ArrayRef<Value> a) { return a[0]; });
    rewriter.replaceOp(op, sum);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax, Hardmax
//===----------------------------------------------------------------------===//

/// softmax = exp(x - max) / sum, log_softmax = (x - max) - log(sum), with
/// sum = sum(exp(x - max)) along the axis: a max pass, a sum pass and the
/// output pass, each reading x.
template <typename OpTy>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool isLog = std::is_same_v<OpTy, LogSoftmaxOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type acc = accumulatorType(type.getElementType());
    int64_t axis = op.getAxis();
    Value max = maxAlong(rewriter, loc, x, axis);
    auto expSum = [&](OpBuilder &b, Location l, Value s,
                      ValueRange e) -> Value {
      Value d = arith::SubFOp::create(b, l, convert(b, l, e[0], acc),
                                      convert(b, l, e[1], acc));
      return arith::AddFOp::create(b, l, s, math::ExpOp::create(b, l, d));
    };
    TypedAttr zero = cast<TypedAttr>(rewriter.getZeroAttr(acc));
    Value sum =
        isLog ? reduceOne(rewriter, loc, x, axis, max, zero, expSum, acc,
                          [](OpBuilder &b, Location l, Value s) -> Value {
                            return math::LogOp::create(b, l, s);
                          })
              : reduceOne(rewriter, loc, x, axis, max, zero, expSum);
    rewriter.replaceOp(
        op, mapIn(rewriter, loc, type, {x, max, sum}, acc,
                  [](OpBuilder &b, Location l, ArrayRef<Value> a) -> Value {
                    Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                    if (isLog)
                      return arith::SubFOp::create(b, l, d, a[2]);
                    return arith::DivFOp::create(
                        b, l, math::ExpOp::create(b, l, d), a[2]);
                  }));
    return success();
  }
};

/// 1 where the position along the axis is the (first) arg max, else 0.
struct HardmaxLowering : OpConversionPattern<HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HardmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    auto type = op.getType();
    Value arg = argAlong(rewriter, loc, adaptor.getInput(), axis,
                         {/*descending=*/true, /*nanWins=*/true,
                          /*lastFirst=*/false, /*isUnsigned=*/false});
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type, arg,
                [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                  Value hit =
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            index64(b, l, axis), a[0]);
                  Type t = type.getElementType();
                  return arith::SelectOp::create(b, l, hit,
                                                 scalarConstant(b, l, t, 1.0),
                                                 scalarConstant(b, l, t, 0.0));
                }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// 1 / sqrt(v + eps).
Value inverseRoot(OpBuilder &b, Location loc, Value v, double eps) {
  Type t = v.getType();
  Value root = math::SqrtOp::create(
      b, loc, arith::AddFOp::create(b, loc, v, scalarConstant(b, loc, t, eps)));
  return arith::DivFOp::create(b, loc, scalarConstant(b, loc, t, 1.0), root);
}

/// The mean of `x` over `axes` and 1 / sqrt(var + eps), in `acc` with the
/// axes kept as extent 1: a mean pass, then a variance pass that reads the
/// mean. Both sum in f64: the outputs (x - mean) * inv are small where
/// x is close to the mean, and would show an error of the statistics there.
std::pair<Value, Value> moments(OpBuilder &b, Location loc, Value x,
                                ArrayRef<int64_t> axes, Type acc, double eps) {
  double count = countAlong(cast<RankedTensorType>(x.getType()), axes);
  Type f64 = b.getF64Type();
  TypedAttr zero = b.getF64FloatAttr(0.0);
  auto averaged = [&](OpBuilder &nb, Location l, Value sum) -> Value {
    return arith::DivFOp::create(nb, l, sum, scalarConstant(nb, l, f64, count));
  };
  Value mean = reduceOne(
      b, loc, x, axes, {}, zero,
      [&](OpBuilder &nb, Location l, Value s, ValueRange e) -> Value {
        return arith::AddFOp::create(nb, l, s, convert(nb, l, e[0], f64));
      },
      acc, [&](OpBuilder &nb, Location l, Value s) {
        return convert(nb, l, averaged(nb, l, s), acc);
      });
  Value inv = reduceOne(
      b, loc, x, axes, mean, zero,
      [&](OpBuilder &nb, Location l, Value s, ValueRange e) -> Value {
        Value d = arith::SubFOp::create(nb, l, convert(nb, l, e[0], f64),
                                        convert(nb, l, e[1], f64));
        return arith::AddFOp::create(nb, l, s,
                                     arith::MulFOp::create(nb, l, d, d));
      },
      acc, [&](OpBuilder &nb, Location l, Value s) {
        return convert(nb, l, inverseRoot(nb, l, averaged(nb, l, s), eps), acc);
      });
  return {mean, inv};
}

/// (x - mean) / sqrt(var + eps) * scale + bias over the trailing axes, with
/// the statistics of `moments`.
struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type acc = accumulatorType(type.getElementType());
    auto axes =
        llvm::to_vector(llvm::seq<int64_t>(op.getAxis(), type.getRank()));
    double eps = op.getEpsilon().convertToDouble();
    Value x = adaptor.getInput();
    auto [mean, inv] = moments(rewriter, loc, x, axes, acc, eps);
    SmallVector<Value> inputs = {x, mean, inv, adaptor.getScale()};
    if (adaptor.getBias())
      inputs.push_back(adaptor.getBias());
    rewriter.replaceOp(
        op, mapIn(rewriter, loc, type, inputs, acc,
                  [&](OpBuilder &b, Location l, ArrayRef<Value> a) -> Value {
                    Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                    Value y = arith::MulFOp::create(
                        b, l, arith::MulFOp::create(b, l, d, a[2]), a[3]);
                    if (a.size() == 5)
                      y = arith::AddFOp::create(b, l, y, a[4]);
                    return y;
                  }));
    return success();
  }
};

/// x * (1 / sqrt(mean(x^2) + eps)) * scale over the trailing axes.
struct RMSNormLowering : OpConversionPattern<RMSNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RMSNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type acc = accumulatorType(type.getElementType());
    auto axes =
        llvm::to_vector(llvm::seq<int64_t>(op.getAxis(), type.getRank()));
    double count = countAlong(type, axes);
    double eps = op.getEpsilon().convertToDouble();
    Value x = adaptor.getInput();
    Value inv = reduceOne(
        rewriter, loc, x, axes, {}, cast<TypedAttr>(rewriter.getZeroAttr(acc)),
        [&](OpBuilder &b, Location l, Value s, ValueRange e) -> Value {
          Value v = convert(b, l, e[0], acc);
          return arith::AddFOp::create(b, l, s,
                                       arith::MulFOp::create(b, l, v, v));
        },
        acc, [&](OpBuilder &b, Location l, Value s) {
          Value meanSquare =
              arith::DivFOp::create(b, l, s, scalarConstant(b, l, acc, count));
          return inverseRoot(b, l, meanSquare, eps);
        });
    rewriter.replaceOp(
        op, mapIn(rewriter, loc, type, {x, inv, adaptor.getScale()}, acc,
                  [&](OpBuilder &b, Location l, ArrayRef<Value> a) -> Value {
                    Value y = arith::MulFOp::create(b, l, a[0], a[1]);
                    return arith::MulFOp::create(b, l, y, a[2]);
                  }));
    return success();
  }
};

/// Group norm on the [N, G, C/G, rest] view of the input: the statistics of
/// `moments` over the last two axes, then (x - mean) * inv * scale + bias
/// with the per-channel parameters viewed as [G, C/G, 1].
struct GroupNormLowering : OpConversionPattern<GroupNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type acc = accumulatorType(type.getElementType());
    int64_t batch = type.getDimSize(0), channels = type.getDimSize(1);
    int64_t groups = op.getNumGroups(), perGroup = channels / groups;
    int64_t rest = type.getNumElements() / (batch * channels);
    SmallVector<int64_t> grouped = {batch, groups, perGroup, rest};
    double eps = op.getEpsilon().convertToDouble();
    Value x = reshapeTensor(rewriter, loc, adaptor.getInput(), grouped);
    auto [mean, inv] = moments(rewriter, loc, x, {2, 3}, acc, eps);
    SmallVector<int64_t> paramShape = {groups, perGroup, 1};
    Value scale = reshapeTensor(rewriter, loc, adaptor.getScale(), paramShape);
    Value bias = reshapeTensor(rewriter, loc, adaptor.getBias(), paramShape);
    Value y = mapIn(rewriter, loc, type.clone(grouped),
                    {x, mean, inv, scale, bias}, acc,
                    [](OpBuilder &b, Location l, ArrayRef<Value> a) -> Value {
                      Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                      Value n = arith::MulFOp::create(b, l, d, a[2]);
                      return arith::AddFOp::create(
                          b, l, arith::MulFOp::create(b, l, n, a[3]), a[4]);
                    });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, y, type.getShape()));
    return success();
  }
};

/// Inference batch norm: (x - mean) * (scale / sqrt(var + eps)) + bias, the
/// factor computed once per channel; per-channel values are viewed as
/// [C, 1, ...] so they broadcast against [N, C, spatial...].
struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Type acc = accumulatorType(type.getElementType());
    int64_t channels = type.getDimSize(1);
    double eps = op.getEpsilon().convertToDouble();
    Value factor =
        mapIn(rewriter, loc, RankedTensorType::get({channels}, acc),
              {adaptor.getScale(), adaptor.getVariance()}, acc,
              [&](OpBuilder &b, Location l, ArrayRef<Value> a) -> Value {
                return arith::MulFOp::create(b, l, a[0],
                                             inverseRoot(b, l, a[1], eps));
              });
    SmallVector<int64_t> paramShape = {channels};
    paramShape.append(type.getRank() - 2, 1);
    SmallVector<Value> inputs = {adaptor.getInput()};
    for (Value p : {adaptor.getMean(), factor, adaptor.getBias()})
      inputs.push_back(reshapeTensor(rewriter, loc, p, paramShape));
    rewriter.replaceOp(
        op, mapIn(rewriter, loc, type, inputs, acc,
                  [&](OpBuilder &b, Location l, ArrayRef<Value> a) -> Value {
                    Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                    return arith::AddFOp::create(
                        b, l, arith::MulFOp::create(b, l, d, a[2]), a[3]);
                  }));
    return success();
  }
};

} // namespace

void autoglm::populateReductionLowering(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp, Kind::Sum>,
               ReduceLowering<ReduceMeanOp, Kind::Mean>,
               ReduceLowering<ReduceMaxOp, Kind::Max>,
               ReduceLowering<ReduceMinOp, Kind::Min>,
               ReduceLowering<ReduceProdOp, Kind::Prod>,
               ReduceLowering<ReduceL1Op, Kind::L1>,
               ReduceLowering<ReduceL2Op, Kind::L2>,
               ReduceLowering<ReduceSumSquareOp, Kind::SumSquare>,
               ReduceLowering<ReduceLogSumOp, Kind::LogSum>,
               ReduceLowering<ReduceLogSumExpOp, Kind::LogSumExp>,
               ArgLowering<ArgMaxOp>, ArgLowering<ArgMinOp>, TopKLowering,
               CumulativeLowering<CumSumOp>, CumulativeLowering<CumProdOp>,
               GlobalAveragePoolLowering,
               SoftmaxLowering<SoftmaxOp>, SoftmaxLowering<LogSoftmaxOp>,
               HardmaxLowering, LayerNormLowering, RMSNormLowering,
               GroupNormLowering, BatchNormLowering>(converter,
                                                     patterns.getContext());
}
