//===- AutoGLMFolders.cpp - constant folding ------------------------------===//
//
// Exporters compute reshape targets, slice bounds and masks with small
// subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape). With static
// shapes these fold to constants, which the importer then reads as
// attributes. Folding is limited to small tensors: weights are never copied.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/ShapeUtils.h"
#include "dialects/StorageTypes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace autoglm;

namespace {

constexpr int64_t kMaxFoldedElements = 1 << 16;

DenseElementsAttr smallConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldedElements)
    return {};
  return dense;
}

SmallVector<int64_t> strides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Calls `fn(flatIndex, multiIndex)` for every element of `shape` in order.
void forEachIndex(ArrayRef<int64_t> shape,
                  function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  int64_t n = product(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(flat, index);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Flat source index of every result element under numpy broadcasting.
SmallVector<int64_t> broadcastSources(ArrayRef<int64_t> result,
                                      ArrayRef<int64_t> source) {
  SmallVector<int64_t> srcStrides = strides(source), out;
  int64_t offset = result.size() - source.size();
  forEachIndex(result, [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (size_t d = 0; d < source.size(); ++d)
      if (source[d] != 1)
        flat += idx[d + offset] * srcStrides[d];
    out.push_back(flat);
  });
  return out;
}

/// The result whose i-th element is `source`'s element `sources[i]`.
DenseElementsAttr pick(DenseElementsAttr source, ShapedType type,
                       ArrayRef<int64_t> sources) {
  if (source.isSplat())
    return DenseElementsAttr::get(type, source.getSplatValue<Attribute>());
  if (isa<FloatType>(source.getElementType())) {
    SmallVector<APFloat> values(source.getValues<APFloat>());
    SmallVector<APFloat> out;
    for (int64_t s : sources)
      out.push_back(values[s]);
    return DenseElementsAttr::get(type, out);
  }
  SmallVector<APInt> values(source.getValues<APInt>());
  SmallVector<APInt> out;
  for (int64_t s : sources)
    out.push_back(values[s]);
  return DenseElementsAttr::get(type, out);
}

bool isUnsigned(Type t) { return t.isUnsignedInteger(); }

/// Elementwise fold of two broadcast constants. `intFn`/`floatFn` return
/// std::nullopt where the result is undefined (division by zero).
template <typename ResultT>
DenseElementsAttr foldBroadcast(
    Attribute lhsAttr, Attribute rhsAttr, ShapedType resultType,
    function_ref<std::optional<ResultT>(const APInt &, const APInt &, bool)>
        intFn,
    function_ref<std::optional<ResultT>(const APFloat &, const APFloat &)>
        floatFn) {
  DenseElementsAttr lhs = smallConstant(lhsAttr), rhs = smallConstant(rhsAttr);
  if (!lhs || !rhs || !resultType.hasStaticShape() ||
      resultType.getNumElements() > kMaxFoldedElements)
    return {};
  auto shape = resultType.getShape();
  auto lhsIdx = broadcastSources(shape, lhs.getType().getShape());
  auto rhsIdx = broadcastSources(shape, rhs.getType().getShape());
  SmallVector<ResultT> out;
  Type elementType = lhs.getElementType();
  if (isa<FloatType>(elementType)) {
    if (!floatFn)
      return {};
    SmallVector<APFloat> a(lhs.getValues<APFloat>()), b(rhs.getValues<APFloat>());
    for (size_t i = 0; i < lhsIdx.size(); ++i) {
      auto v = floatFn(a[lhsIdx[i]], b[rhsIdx[i]]);
      if (!v)
        return {};
      out.push_back(*v);
    }
  } else {
    if (!intFn || !isa<IntegerType>(rhs.getElementType()))
      return {};
    SmallVector<APInt> a(lhs.getValues<APInt>()), b(rhs.getValues<APInt>());
    for (size_t i = 0; i < lhsIdx.size(); ++i) {
      auto v = intFn(a[lhsIdx[i]], b[rhsIdx[i]], isUnsigned(elementType));
      if (!v)
        return {};
      out.push_back(*v);
    }
  }
  if constexpr (std::is_same_v<ResultT, bool>) {
    SmallVector<bool> flags(out.begin(), out.end());
    return DenseElementsAttr::get(resultType, ArrayRef<bool>(flags));
  } else {
    return DenseElementsAttr::get(resultType, ArrayRef<ResultT>(out));
  }
}

using IntFn = std::optional<APInt>(const APInt &, const APInt &, bool);
using FloatFn = std::optional<APFloat>(const APFloat &, const APFloat &);

OpFoldResult foldArith(Attribute lhs, Attribute rhs, ShapedType type,
                       function_ref<IntFn> intFn,
                       function_ref<FloatFn> floatFn) {
  if (isa<FloatType>(type.getElementType()))
    return foldBroadcast<APFloat>(lhs, rhs, type, nullptr, floatFn);
  return foldBroadcast<APInt>(lhs, rhs, type, intFn, nullptr);
}

OpFoldResult foldCompare(Attribute lhs, Attribute rhs, ShapedType type,
                         function_ref<bool(int)> accept) {
  auto intCmp = [&](const APInt &a, const APInt &b,
                    bool isUnsigned) -> std::optional<bool> {
    int c = isUnsigned ? (a.ult(b) ? -1 : a == b ? 0 : 1)
                       : (a.slt(b) ? -1 : a == b ? 0 : 1);
    return accept(c);
  };
  auto floatCmp = [&](const APFloat &a, const APFloat &b) -> std::optional<bool> {
    APFloat::cmpResult r = a.compare(b);
    if (r == APFloat::cmpUnordered)
      return false;
    return accept(r == APFloat::cmpLessThan ? -1 : r == APFloat::cmpEqual ? 0 : 1);
  };
  return foldBroadcast<bool>(lhs, rhs, type, intCmp, floatCmp);
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x + y; },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x + y; });
}

OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x - y; },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x - y; });
}

OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x * y; },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x * y; });
}

OpFoldResult DivOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt;
        return u ? x.udiv(y) : x.sdiv(y);
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> { return x / y; });
}

OpFoldResult PowOp::fold(FoldAdaptor) { return {}; }

OpFoldResult MinOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        return (u ? x.ult(y) : x.slt(y)) ? x : y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return llvm::minimum(x, y);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        return (u ? x.ugt(y) : x.sgt(y)) ? x : y;
      },
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return llvm::maximum(x, y);
      });
}

OpFoldResult EqualOp::fold(FoldAdaptor a) {
  return foldCompare(a.getLhs(), a.getRhs(), getType(),
                     [](int c) { return c == 0; });
}

OpFoldResult LessOp::fold(FoldAdaptor a) {
  return foldCompare(a.getLhs(), a.getRhs(), getType(),
                     [](int c) { return c < 0; });
}

OpFoldResult GreaterOp::fold(FoldAdaptor a) {
  return foldCompare(a.getLhs(), a.getRhs(), getType(),
                     [](int c) { return c > 0; });
}

OpFoldResult WhereOp::fold(FoldAdaptor a) {
  DenseElementsAttr cond = smallConstant(a.getCondition()),
                    x = smallConstant(a.getX()), y = smallConstant(a.getY());
  if (!cond || !x || !y || getType().getNumElements() > kMaxFoldedElements)
    return {};
  auto shape = getType().getShape();
  auto ci = broadcastSources(shape, cond.getType().getShape());
  auto xi = broadcastSources(shape, x.getType().getShape());
  auto yi = broadcastSources(shape, y.getType().getShape());
  SmallVector<bool> c(cond.getValues<bool>());
  SmallVector<Attribute> xs(x.getValues<Attribute>()), ys(y.getValues<Attribute>());
  SmallVector<Attribute> out;
  for (size_t i = 0; i < ci.size(); ++i)
    out.push_back(c[ci[i]] ? xs[xi[i]] : ys[yi[i]]);
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr input = smallConstant(a.getInput());
  if (!input)
    return {};
  Type from = input.getElementType(), to = getType().getElementType();
  // APFloat knows neither `saturate` nor the wrapping of 4-bit integers.
  if (isStorageOnlyType(from) || isStorageOnlyType(to))
    return {};
  SmallVector<Attribute> out;
  for (Attribute v : input.getValues<Attribute>()) {
    if (auto i = dyn_cast<IntegerAttr>(v)) {
      APInt x = i.getValue();
      bool fromUnsigned = isUnsigned(from) || from.isInteger(1);
      if (auto ft = dyn_cast<FloatType>(to)) {
        APFloat f(ft.getFloatSemantics());
        f.convertFromAPInt(x, !fromUnsigned, APFloat::rmNearestTiesToEven);
        out.push_back(FloatAttr::get(to, f));
      } else if (to.isInteger(1)) {
        out.push_back(IntegerAttr::get(to, APInt(1, !x.isZero())));
      } else {
        unsigned width = to.getIntOrFloatBitWidth();
        out.push_back(IntegerAttr::get(
            to, fromUnsigned ? x.zextOrTrunc(width) : x.sextOrTrunc(width)));
      }
    } else {
      APFloat x = cast<FloatAttr>(v).getValue();
      bool lost;
      if (auto ft = dyn_cast<FloatType>(to)) {
        x.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        out.push_back(FloatAttr::get(to, x));
      } else if (to.isInteger(1)) {
        out.push_back(IntegerAttr::get(to, APInt(1, !x.isZero())));
      } else {
        APSInt r(to.getIntOrFloatBitWidth(), isUnsigned(to));
        x.convertToInteger(r, APFloat::rmTowardZero, &lost);
        out.push_back(IntegerAttr::get(to, r));
      }
    }
  }
  return DenseElementsAttr::get(getType(), out);
}

// Rounding, remainders and bitwise logic also show up in shape arithmetic
// (output sizes of Resize, padding to a multiple), so they fold too.

static OpFoldResult foldRound(Attribute input, ShapedType type,
                              APFloat::roundingMode mode) {
  DenseElementsAttr dense = smallConstant(input);
  if (!dense)
    return {};
  SmallVector<APFloat> out;
  for (APFloat v : dense.getValues<APFloat>()) {
    v.roundToIntegral(mode);
    out.push_back(v);
  }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult FloorOp::fold(FoldAdaptor a) {
  return foldRound(a.getInput(), getType(), APFloat::rmTowardNegative);
}

OpFoldResult CeilOp::fold(FoldAdaptor a) {
  return foldRound(a.getInput(), getType(), APFloat::rmTowardPositive);
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  DenseElementsAttr dense = smallConstant(a.getInput());
  if (!dense)
    return {};
  if (isa<FloatType>(dense.getElementType())) {
    SmallVector<APFloat> out;
    for (APFloat v : dense.getValues<APFloat>())
      out.push_back(neg(v));
    return DenseElementsAttr::get(getType(), out);
  }
  SmallVector<APInt> out;
  for (const APInt &v : dense.getValues<APInt>())
    out.push_back(-v);
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult NotOp::fold(FoldAdaptor a) {
  DenseElementsAttr dense = smallConstant(a.getInput());
  if (!dense)
    return {};
  SmallVector<APInt> out;
  for (const APInt &v : dense.getValues<APInt>())
    out.push_back(~v);
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult AndOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x & y; },
      nullptr);
}

OpFoldResult OrOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x | y; },
      nullptr);
}

OpFoldResult XorOp::fold(FoldAdaptor a) {
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [](const APInt &x, const APInt &y, bool) -> std::optional<APInt> { return x ^ y; },
      nullptr);
}

OpFoldResult ModOp::fold(FoldAdaptor a) {
  bool fmod = getFmod();
  return foldArith(
      a.getLhs(), a.getRhs(), getType(),
      [&](const APInt &x, const APInt &y, bool u) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt;
        if (u)
          return x.urem(y);
        APInt r = x.srem(y);
        // Floored: a nonzero remainder takes the sign of y.
        if (!fmod && !r.isZero() && r.isNegative() != y.isNegative())
          r += y;
        return r;
      },
      [&](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        APFloat r = x;
        r.mod(y);
        if (fmod || r.isNaN())
          return r;
        if (r.isZero())
          r.copySign(y);
        else if (r.isNegative() != y.isNegative())
          r = r + y;
        return r;
      });
}

OpFoldResult LessEqualOp::fold(FoldAdaptor a) {
  return foldCompare(a.getLhs(), a.getRhs(), getType(),
                     [](int c) { return c <= 0; });
}

OpFoldResult GreaterEqualOp::fold(FoldAdaptor a) {
  return foldCompare(a.getLhs(), a.getRhs(), getType(),
                     [](int c) { return c >= 0; });
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (!input.hasStaticShape())
    return {};
  auto dims = input.getShape().slice(getStart(), getEnd() - getStart());
  return DenseElementsAttr::get(getType(), dims);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  // Equal types with at most one symbolic extent: that one must match too.
  if (getInput().getType() == getType() && getType().getNumDynamicDims() <= 1)
    return getInput();
  if (DenseElementsAttr input = smallConstant(a.getInput()))
    return input.reshape(getType());
  // reshape(reshape(x)) == reshape(x): only the final shape matters.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  return {};
}

static OpFoldResult foldReshapeLike(Operation *op, Attribute input) {
  auto type = cast<ShapedType>(op->getResult(0).getType());
  if (op->getOperand(0).getType() == type)
    return op->getOperand(0);
  if (DenseElementsAttr dense = smallConstant(input))
    return dense.reshape(type);
  return {};
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(*this, a.getInput());
}
OpFoldResult SqueezeOp::fold(FoldAdaptor a) {
  return foldReshapeLike(*this, a.getInput());
}
OpFoldResult FlattenOp::fold(FoldAdaptor a) {
  return foldReshapeLike(*this, a.getInput());
}

OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  if (llvm::equal(getPerm(), llvm::seq<int64_t>(0, getPerm().size())))
    return getInput();
  DenseElementsAttr input = smallConstant(a.getInput());
  if (!input)
    return {};
  auto inStrides = strides(input.getType().getShape());
  SmallVector<int64_t> sources;
  forEachIndex(getType().getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (auto [d, p] : llvm::enumerate(getPerm()))
      flat += idx[d] * inStrides[p];
    sources.push_back(flat);
  });
  return pick(input, getType(), sources);
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  if (getInputs().size() == 1)
    return getInputs().front();
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute attr : a.getInputs()) {
    inputs.push_back(smallConstant(attr));
    if (!inputs.back())
      return {};
  }
  int64_t axis = getAxis();
  auto shape = getType().getShape();
  int64_t outer = product(shape.take_front(axis));
  SmallVector<Attribute> out;
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr in : inputs)
    values.emplace_back(in.getValues<Attribute>());
  for (int64_t o = 0; o < outer; ++o)
    for (auto [in, vals] : llvm::zip(inputs, values)) {
      int64_t chunk = product(in.getType().getShape().drop_front(axis));
      out.append(vals.begin() + o * chunk, vals.begin() + (o + 1) * chunk);
    }
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  if (!getBounds().empty())
    return {};
  if (getInput().getType() == getType() &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  DenseElementsAttr input = smallConstant(a.getInput());
  if (!input)
    return {};
  auto inStrides = strides(input.getType().getShape());
  SmallVector<int64_t> sources;
  forEachIndex(getType().getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      flat += (getStarts()[d] + idx[d] * getSteps()[d]) * inStrides[d];
    sources.push_back(flat);
  });
  return pick(input, getType(), sources);
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  DenseElementsAttr data = smallConstant(a.getData()),
                    indices = smallConstant(a.getIndices());
  if (!data || !indices)
    return {};
  auto dataShape = data.getType().getShape();
  int64_t axis = getAxis(), extent = dataShape[axis];
  int64_t inner = product(dataShape.drop_front(axis + 1));
  int64_t outer = product(dataShape.take_front(axis));
  SmallVector<int64_t> sources;
  for (int64_t o = 0; o < outer; ++o)
    for (APInt idx : indices.getValues<APInt>()) {
      int64_t i = idx.getSExtValue();
      if (i < 0)
        i += extent;
      if (i < 0 || i >= extent)
        return {};
      for (int64_t k = 0; k < inner; ++k)
        sources.push_back((o * extent + i) * inner + k);
    }
  return pick(data, getType(), sources);
}

OpFoldResult ExpandOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType() && getSizes().empty())
    return getInput();
  DenseElementsAttr input = smallConstant(a.getInput());
  if (!input || !getType().hasStaticShape() ||
      getType().getNumElements() > kMaxFoldedElements)
    return {};
  return pick(input, getType(),
              broadcastSources(getType().getShape(),
                               input.getType().getShape()));
}
