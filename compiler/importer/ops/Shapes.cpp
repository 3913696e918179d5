//===- Shapes.cpp - importers of shape and data-movement operators --------===//
//
// ONNX passes reshape targets, slice bounds, axes and pads as tensors. They
// must be compile-time constants (possibly after folding shape subgraphs);
// here they are read, normalized, and stored as attributes.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/NodeImporter.h"
#include "compiler/importer/ShapeValues.h"
#include "compiler/importer/OpChain.h"
#include "compiler/importer/TensorConversion.h"
#include "passes/SizeBounds.h"
#include "dialects/ShapeUtils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace autoglm;

namespace {

LogicalResult setResult(NodeImporter &n, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  n.setOutput(0, *value);
  return success();
}

/// Axes from the attribute (before `inputSince`) or from input `index`.
FailureOr<SmallVector<int64_t>> readAxes(NodeImporter &n, int64_t inputSince,
                                         size_t index) {
  if (n.opset() < inputSince)
    return n.intsAttr("axes");
  if (!n.input(index))
    return SmallVector<int64_t>();
  return n.constantInts(index, "axes");
}

LogicalResult normalizeAxes(NodeImporter &n, SmallVectorImpl<int64_t> &axes,
                            int64_t rank) {
  for (int64_t &axis : axes) {
    auto a = n.normalizeAxis(axis, rank);
    if (failed(a))
      return failure();
    axis = *a;
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return n.emitError() << "axes must not repeat";
  return success();
}

LogicalResult importConstant(NodeImporter &n) {
  Builder b(n.context());
  auto scalarOr1D = [&](Type type, auto values, bool scalar) {
    using T = typename decltype(values)::value_type;
    auto shape = scalar ? SmallVector<int64_t>{}
                        : SmallVector<int64_t>{(int64_t)values.size()};
    return DenseElementsAttr::get(RankedTensorType::get(shape, type),
                                  ArrayRef<T>(values));
  };
  if (const auto *attr = n.attribute("value")) {
    auto value = convertTensor(attr->t(), n.model(), n.context(), n.loc());
    if (failed(value))
      return failure();
    n.setOutput(0, n.createTyped<ConstantOp>(*value));
    return success();
  }
  DenseElementsAttr value;
  if (const auto *attr = n.attribute("value_float"))
    value = scalarOr1D(b.getF32Type(), SmallVector<float>{attr->f()}, true);
  else if (const auto *attr = n.attribute("value_floats"))
    value = scalarOr1D(b.getF32Type(),
                       SmallVector<float>(attr->floats().begin(),
                                          attr->floats().end()),
                       false);
  else if (const auto *attr = n.attribute("value_int"))
    value = scalarOr1D(b.getI64Type(), SmallVector<int64_t>{attr->i()}, true);
  else if (const auto *attr = n.attribute("value_ints"))
    value = scalarOr1D(b.getI64Type(),
                       SmallVector<int64_t>(attr->ints().begin(),
                                            attr->ints().end()),
                       false);
  else
    return n.unsupported("this kind of Constant value (sparse or string)");
  n.setOutput(0, n.constant(value));
  return success();
}

LogicalResult importShape(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(n.intAttr("start", 0));
  int64_t end = n.hasAttr("end") ? clampIndex(n.intAttr("end", rank)) : rank;
  return setResult(n, n.create<ShapeOp>(n.input(0), start, std::max(start, end)));
}

/// Reshape to a shape computed from symbolic extents: entries that are not
/// constants are extents themselves (0 and -1 keep their meaning only as
/// constants); the -1 entry is the element count over the other entries.
LogicalResult importSymbolicReshape(NodeImporter &n,
                                    SmallVector<OpFoldResult> target) {
  OpBuilder &b = n.builder();
  Location loc = n.loc();
  Value input = n.input(0);
  auto type = n.inputType(0);
  bool allowZero = n.intAttr("allowzero", 0) != 0;
  auto extent = [&](int64_t d) { return extentOf(b, loc, input, d); };
  std::optional<size_t> inferred;
  for (auto [i, entry] : llvm::enumerate(target)) {
    std::optional<int64_t> c = getConstantIntValue(entry);
    if (c == 0 && !allowZero) {
      if ((int64_t)i >= type.getRank())
        return n.emitError() << "shape entry " << i
                             << " copies a dimension the input lacks";
      entry = extent(i);
    } else if (c == -1) {
      if (inferred)
        return n.emitError() << "shape has more than one -1";
      inferred = i;
    } else if (c && *c < 0) {
      return n.emitError() << "shape entry " << *c << " is invalid";
    }
  }
  SmallVector<OpFoldResult> all, others;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(extent(d));
  for (auto [i, entry] : llvm::enumerate(target))
    if (!inferred || i != *inferred)
      others.push_back(entry);
  // The element count must be kept; where the extents cancel to constants
  // that is checked here.
  auto quotient = quotientOfProducts(b, loc, all, others);
  if (failed(quotient) ||
      (!inferred && getConstantIntValue(*quotient).value_or(1) != 1))
    return n.emitError() << "cannot reshape " << type
                         << " to the computed shape: the element counts differ";
  if (inferred)
    target[*inferred] = *quotient;
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  for (OpFoldResult entry : target) {
    std::optional<int64_t> c = getConstantIntValue(entry);
    shape.push_back(c ? *c : ShapedType::kDynamic);
    if (!c)
      sizes.push_back(cast<Value>(entry));
  }
  n.setOutput(0, n.createTyped<ReshapeOp>(type.clone(shape), input, sizes));
  return success();
}

LogicalResult importReshape(NodeImporter &n) {
  auto type = n.inputType(0);
  if (!type.hasStaticShape() || !n.constantInput(1))
    if (auto symbolic = shapeElements(n.builder(), n.loc(), n.input(1)))
      return importSymbolicReshape(n, *symbolic);
  auto target = n.constantInts(1, "shape");
  if (failed(target))
    return failure();
  bool allowZero = n.intAttr("allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= type.getRank())
        return n.emitError() << "shape entry " << i
                             << " copies a dimension the input lacks";
      d = type.getDimSize(i);
    }
    if (d == -1) {
      if (inferred >= 0)
        return n.emitError() << "shape has more than one -1";
      inferred = i;
      d = 1;
    } else if (d < 0) {
      return n.emitError() << "shape entry " << d << " is invalid";
    }
    shape.push_back(d);
    known *= d;
  }
  int64_t count = type.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || count % known != 0)
      return n.emitError() << "cannot reshape " << type << " with a -1 entry";
    shape[inferred] = count / known;
  } else if (known != count) {
    return n.emitError() << "cannot reshape " << count << " elements of "
                         << type << " to " << known;
  }
  n.setOutput(0, n.reshape(n.input(0), shape));
  return success();
}

LogicalResult importUnsqueeze(NodeImporter &n) {
  auto axes = readAxes(n, 13, 1);
  if (failed(axes))
    return failure();
  if (failed(normalizeAxes(n, *axes, n.inputType(0).getRank() + axes->size())))
    return failure();
  return setResult(n, n.create<UnsqueezeOp>(n.input(0), *axes));
}

LogicalResult importSqueeze(NodeImporter &n) {
  auto type = n.inputType(0);
  auto axes = readAxes(n, 13, 1);
  if (failed(axes))
    return failure();
  if (axes->empty()) {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) == 1)
        axes->push_back(d);
  } else if (failed(normalizeAxes(n, *axes, type.getRank()))) {
    return failure();
  }
  return setResult(n, n.create<SqueezeOp>(n.input(0), *axes));
}

LogicalResult importFlatten(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  int64_t axis = n.intAttr("axis", 1);
  if (axis < 0)
    axis += rank;
  return setResult(n, n.create<FlattenOp>(n.input(0), axis));
}

LogicalResult importTranspose(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> perm = n.intsAttr("perm");
  if (!n.hasAttr("perm"))
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  return setResult(n, n.create<TransposeOp>(n.input(0), perm));
}

LogicalResult importConcat(NodeImporter &n) {
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (Value v = n.input(i))
      inputs.push_back(v);
  auto axis = n.normalizeAxis(n.intAttr("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return setResult(n, n.create<ConcatOp>(inputs, *axis));
}

/// Full-rank, clamped slice bounds (ONNX Slice rules).
struct SliceBounds {
  SmallVector<int64_t> starts, ends, steps;
};

FailureOr<SliceBounds> readSliceBounds(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset() < 10) {
    starts = n.intsAttr("starts");
    ends = n.intsAttr("ends");
    axes = n.intsAttr("axes");
  } else {
    auto s = n.constantInts(1, "starts"), e = n.constantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s, ends = *e;
    if (n.input(3)) {
      auto a = n.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.input(4)) {
      auto st = n.constantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return n.emitError() << "starts, ends, axes and steps differ in length";
  SliceBounds b;
  b.starts.assign(rank, 0);
  b.ends.assign(type.getShape().begin(), type.getShape().end());
  b.steps.assign(rank, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = n.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return n.emitError() << "slice step must not be 0";
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    // An empty selection reads nothing: keep it at the front, where every
    // start is in bounds.
    if (sliceExtent(start, end, step) == 0)
      start = 0, end = 0, step = 1;
    b.starts[*axis] = start;
    b.ends[*axis] = end;
    b.steps[*axis] = step;
  }
  return b;
}

/// `bound` (an ONNX start or end, negative from the end) made an index in
/// [0, extent], at run time where either is symbolic.
OpFoldResult normalizedBound(OpBuilder &b, Location loc, OpFoldResult bound,
                             OpFoldResult extent) {
  auto c = getConstantIntValue(bound), n = getConstantIntValue(extent);
  if (c && n)
    return b.getIndexAttr(std::clamp<int64_t>(*c < 0 ? *c + *n : *c, 0, *n));
  Value dim = getValueOrCreateConstantIndexOp(b, loc, extent);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto fromEnd = [&](Value v) -> Value {
    return arith::MaxSIOp::create(b, loc, arith::AddIOp::create(b, loc, v, dim),
                                  zero);
  };
  if (c) // INT64_MAX ("to the end") and other large ends clamp to the extent
    return *c < 0 ? OpFoldResult(fromEnd(arith::ConstantIndexOp::create(b, loc, *c)))
                  : OpFoldResult(arith::MinSIOp::create(
                        b, loc, arith::ConstantIndexOp::create(
                                    b, loc, std::min<int64_t>(*c, int64_t(1) << 40)),
                        dim).getResult());
  Value v = cast<Value>(bound);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
  return arith::SelectOp::create(b, loc, negative, fromEnd(v),
                                 arith::MinSIOp::create(b, loc, v, dim))
      .getResult();
}

/// Slice with bounds computed from extents, or cutting a symbolic axis:
/// those axes get run-time bounds (`dynamic_axes`). Nullopt where the
/// bounds depend on data, for the constant path to report.
std::optional<LogicalResult> importSymbolicSlice(NodeImporter &n) {
  OpBuilder &b = n.builder();
  Location loc = n.loc();
  Value input = n.input(0);
  auto type = n.inputType(0);
  auto starts = shapeElements(b, loc, n.input(1));
  auto ends = starts ? shapeElements(b, loc, n.input(2)) : std::nullopt;
  if (!starts || !ends || (n.input(3) && !n.constantInput(3)) ||
      (n.input(4) && !n.constantInput(4)))
    return std::nullopt;
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes, steps(starts->size(), 1);
  if (n.input(3)) {
    auto a = n.constantInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    for (size_t i = 0; i < starts->size(); ++i)
      axes.push_back(i);
  }
  if (n.input(4)) {
    auto st = n.constantInts(4, "steps");
    if (failed(st))
      return failure();
    steps = *st;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return n.emitError() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> staticStarts(rank, 0), staticEnds(type.getShape()),
      staticSteps(rank, 1), dynamicAxes;
  SmallVector<std::pair<Value, Value>> bounds(rank);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = n.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    if (steps[i] != 1) {
      // A strided static axis with constant bounds (x[..., 0::2] of a
      // tensor whose other axes are symbolic): bounds as in the static path.
      auto cs = getConstantIntValue((*starts)[i]);
      auto ce = getConstantIntValue((*ends)[i]);
      if (steps[i] < 0 || type.isDynamicDim(*axis) || !cs || !ce)
        return n.unsupported("a slice with a step other than 1 on a symbolic "
                             "axis, with bounds known at run time or with a "
                             "negative step on a tensor with symbolic extents");
      int64_t dim = type.getDimSize(*axis), step = steps[i];
      int64_t start = std::clamp<int64_t>(*cs < 0 ? *cs + dim : *cs, 0, dim);
      int64_t end = std::clamp<int64_t>(*ce < 0 ? *ce + dim : *ce, 0, dim);
      if (sliceExtent(start, end, step) == 0)
        start = 0, end = 0, step = 1;
      staticStarts[*axis] = start;
      staticEnds[*axis] = end;
      staticSteps[*axis] = step;
      continue;
    }
    OpFoldResult extent = extentOf(b, loc, input, *axis);
    // A bound the symbol ranges fix to one value (min(batch, 1) with batch
    // >= 1) is that constant, which keeps the extent static.
    auto pinned = [&](OpFoldResult bound) -> OpFoldResult {
      if (auto v = dyn_cast<Value>(bound))
        if (auto range = boundsOf(v); range && range->lo == range->hi)
          return b.getIndexAttr(range->lo);
      return bound;
    };
    OpFoldResult start = pinned(normalizedBound(b, loc, (*starts)[i], extent));
    OpFoldResult end = pinned(normalizedBound(b, loc, (*ends)[i], extent));
    auto cs = getConstantIntValue(start), ce = getConstantIntValue(end);
    if (cs && ce && !type.isDynamicDim(*axis)) {
      int64_t last = std::max(*ce, *cs);
      staticStarts[*axis] = last == *cs ? 0 : *cs;
      staticEnds[*axis] = last == *cs ? 0 : *ce;
      continue;
    }
    bounds[*axis] = {getValueOrCreateConstantIndexOp(b, loc, start),
                     getValueOrCreateConstantIndexOp(b, loc, end)};
    dynamicAxes.push_back(*axis);
  }
  llvm::sort(dynamicAxes);
  SmallVector<Value> operands;
  for (int64_t axis : dynamicAxes) {
    operands.push_back(bounds[axis].first);
    operands.push_back(bounds[axis].second);
    staticStarts[axis] = 0;
    staticEnds[axis] = ShapedType::kDynamic;
  }
  return setResult(n, n.create<SliceOp>(
                          input, operands, b.getDenseI64ArrayAttr(staticStarts),
                          b.getDenseI64ArrayAttr(staticEnds),
                          b.getDenseI64ArrayAttr(staticSteps),
                          dynamicAxes.empty() ? DenseI64ArrayAttr()
                                              : b.getDenseI64ArrayAttr(dynamicAxes)));
}

LogicalResult importSlice(NodeImporter &n) {
  if (n.opset() >= 10 && (!n.inputType(0).hasStaticShape() ||
                          !n.constantInput(1) || !n.constantInput(2)))
    if (auto result = importSymbolicSlice(n))
      return *result;
  auto b = readSliceBounds(n);
  if (failed(b))
    return failure();
  return setResult(n, n.create<SliceOp>(n.input(0), b->starts, b->ends, b->steps));
}

LogicalResult importSplit(NodeImporter &n) {
  auto type = n.inputType(0);
  auto axis = n.normalizeAxis(n.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  int64_t dim = type.getDimSize(*axis);
  int64_t parts = n.numOutputs();
  SmallVector<int64_t> sizes;
  if (n.opset() < 13) {
    sizes = n.intsAttr("split");
  } else if (n.input(1)) {
    auto s = n.constantInts(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  }
  if (sizes.empty()) {
    // Equal parts; since opset 18 the last part may be smaller.
    int64_t chunk = (dim + parts - 1) / parts;
    if (n.opset() < 18 && dim % parts != 0)
      return n.emitError() << "cannot split extent " << dim << " into "
                           << parts << " equal parts";
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  if ((int64_t)sizes.size() != parts || product(sizes) < 0 ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return n.emitError() << "split sizes do not add up to extent " << dim
                         << " over " << parts << " outputs";
  int64_t offset = 0;
  for (int64_t i = 0; i < parts; ++i) {
    SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
    SmallVector<int64_t> ends(type.getShape());
    starts[*axis] = offset;
    ends[*axis] = offset + sizes[i];
    offset += sizes[i];
    auto part = n.create<SliceOp>(n.input(0), starts, ends, steps);
    if (failed(part))
      return failure();
    n.setOutput(i, *part);
  }
  return success();
}

LogicalResult importGather(NodeImporter &n) {
  auto axis = n.normalizeAxis(n.intAttr("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return setResult(n, n.create<GatherOp>(n.input(0), n.input(1), *axis));
}

/// Expand to a shape computed from extents: an entry that is not a constant
/// is the result's extent there (the input's being 1 or the same).
LogicalResult importSymbolicExpand(NodeImporter &n,
                                   ArrayRef<OpFoldResult> target) {
  OpBuilder &b = n.builder();
  Location loc = n.loc();
  Value input = n.input(0);
  auto type = n.inputType(0);
  SmallVector<int64_t> shape;
  for (OpFoldResult entry : target)
    shape.push_back(getConstantIntValue(entry).value_or(ShapedType::kDynamic));
  SmallVector<int64_t> result;
  if (!OpTrait::util::getBroadcastedShape(type.getShape(), shape, result))
    return n.emitError() << "cannot expand " << type << " to the computed shape";
  int64_t rank = result.size();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(result[d]))
      continue;
    int64_t t = d - (rank - (int64_t)target.size());
    int64_t i = d - (rank - type.getRank());
    if (t >= 0 && !getConstantIntValue(target[t]))
      sizes.push_back(cast<Value>(target[t]));
    else
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, extentOf(b, loc, input, i)));
  }
  return setResult(n, n.create<ExpandOp>(input, sizes, b.getDenseI64ArrayAttr(shape)));
}

LogicalResult importExpand(NodeImporter &n) {
  if (!n.constantInput(1) || !n.inputType(0).hasStaticShape())
    if (auto symbolic = shapeElements(n.builder(), n.loc(), n.input(1)))
      return importSymbolicExpand(n, *symbolic);
  auto shape = n.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  return setResult(n, n.create<ExpandOp>(n.input(0), *shape));
}

LogicalResult importPad(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  std::string mode = n.stringAttr("mode", "constant");
  if (!llvm::is_contained({"constant", "edge", "reflect", "wrap"}, mode) ||
      (mode == "wrap" && n.opset() < 19))
    return n.unsupported("Pad mode '" + mode + "'");
  SmallVector<int64_t> pads;
  double value = 0.0;
  if (n.opset() < 11) {
    pads = n.intsAttr("pads");
    value = n.floatAttr("value", 0.0f);
  } else {
    auto p = n.constantInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (n.input(2) && mode == "constant") {
      auto v = n.constantScalar(2, "constant_value");
      if (failed(v))
        return failure();
      value = *v;
    }
    if (n.input(3)) {
      // Pads given for some axes only: spread them to full rank.
      auto axes = n.constantInts(3, "axes");
      if (failed(axes))
        return failure();
      if (pads.size() != 2 * axes->size())
        return n.emitError() << "pads need two entries per axis";
      SmallVector<int64_t> full(2 * rank, 0);
      for (auto [i, axis] : llvm::enumerate(*axes)) {
        auto a = n.normalizeAxis(axis, rank);
        if (failed(a))
          return failure();
        full[*a] = pads[i];
        full[*a + rank] = pads[i + axes->size()];
      }
      pads = full;
    }
  }
  return setResult(n, n.create<PadOp>(n.input(0), pads, llvm::APFloat(value),
                                      mode));
}

//===----------------------------------------------------------------------===//
// Operators computed at compile time or built from other autoglm ops
//===----------------------------------------------------------------------===//

/// An i64 constant of the given shape.
Value i64Constant(NodeImporter &n, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, IntegerType::get(n.context(), 64));
  return n.constant(DenseElementsAttr::get(type, values));
}

/// `value` as an element of `element` type (0/1 for i1).
Attribute scalarAttr(Type element, double value) {
  if (auto f = dyn_cast<FloatType>(element)) {
    APFloat v(value);
    bool lost;
    v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(element, v);
  }
  return IntegerAttr::get(element,
                          APInt(element.getIntOrFloatBitWidth(),
                                (uint64_t)(int64_t)value, /*isSigned=*/false,
                                /*implicitTrunc=*/true));
}

LogicalResult importSize(NodeImporter &n) {
  n.setOutput(0, i64Constant(n, {}, {n.inputType(0).getNumElements()}));
  return success();
}

/// A splat of `value` expanded to `shape`: folds to a constant when small,
/// stays a broadcast (no large constant) otherwise.
FailureOr<Value> splat(NodeImporter &n, Attribute value,
                       ArrayRef<int64_t> shape) {
  auto one = RankedTensorType::get(SmallVector<int64_t>(shape.size(), 1),
                                   cast<TypedAttr>(value).getType());
  return n.create<ExpandOp>(n.constant(DenseElementsAttr::get(one, value)),
                            shape);
}

LogicalResult importConstantOfShape(NodeImporter &n) {
  auto shape = n.constantInts(0, "input");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return n.emitError() << "shape entries must not be negative";
  Attribute value = FloatAttr::get(Float32Type::get(n.context()), 0.0);
  if (const auto *attr = n.attribute("value")) {
    auto tensor = convertTensor(attr->t(), n.model(), n.context(), n.loc());
    if (failed(tensor))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(*tensor);
    if (!dense || dense.getNumElements() != 1)
      return n.emitError() << "'value' must hold exactly one element";
    value = *dense.getValues<Attribute>().begin();
  }
  return setResult(n, splat(n, value, *shape));
}

/// Range results are constants: a bound on their size keeps a mistaken
/// model from filling memory.
constexpr int64_t kMaxRangeElements = 1 << 24;

/// Range inputs must be constants, but for a limit computed from extents.
constexpr const char *kRangeNeedsConstants =
    "Range with inputs that are not compile-time scalar constants (its "
    "length depends on them) is not supported";

/// Range of constant bounds, as a constant (its length depends on the
/// values). Computed in double/int64 like the ONNX reference, then
/// converted to the element type.
LogicalResult importSymbolicRange(NodeImporter &n, DenseElementsAttr start,
                                  DenseElementsAttr delta);

LogicalResult importRange(NodeImporter &n) {
  DenseElementsAttr bounds[3];
  for (int i = 0; i < 3; ++i)
    bounds[i] = n.constantInput(i);
  // A limit computed from symbolic extents (torch.arange(seq)).
  if (bounds[0] && bounds[2] && !bounds[1] &&
      n.inputType(1).getNumElements() == 1)
    return importSymbolicRange(n, bounds[0], bounds[2]);
  for (int i = 0; i < 3; ++i) {
    if (!bounds[i] || bounds[i].getNumElements() != 1)
      return n.needsConstant(i, kRangeNeedsConstants);
  }
  Type element = bounds[0].getElementType();
  if (bounds[1].getElementType() != element ||
      bounds[2].getElementType() != element)
    return n.emitError() << "start, limit and delta must have the same type";
  auto type = [&](int64_t count) {
    return RankedTensorType::get({count}, element);
  };
  if (auto f = dyn_cast<FloatType>(element)) {
    double v[3];
    for (int i = 0; i < 3; ++i)
      v[i] = (*bounds[i].getValues<APFloat>().begin()).convertToDouble();
    if (v[2] == 0 || !std::isfinite(v[0] + v[1] + v[2]))
      return n.emitError() << "Range needs finite bounds and a non-zero delta";
    double count = std::max(std::ceil((v[1] - v[0]) / v[2]), 0.0);
    if (count > kMaxRangeElements)
      return n.unsupported("Range of more than 2^24 elements");
    SmallVector<APFloat> out;
    for (int64_t i = 0; i < (int64_t)count; ++i)
      out.push_back(cast<FloatAttr>(scalarAttr(f, v[0] + i * v[2])).getValue());
    n.setOutput(0, n.constant(DenseElementsAttr::get(type(count), out)));
    return success();
  }
  int64_t v[3];
  for (int i = 0; i < 3; ++i)
    v[i] = (*bounds[i].getValues<APInt>().begin()).getSExtValue();
  if (v[2] == 0)
    return n.emitError() << "Range needs a non-zero delta";
  int64_t span = v[1] - v[0];
  int64_t count = span / v[2] + (span % v[2] != 0 && (span < 0) == (v[2] < 0));
  count = std::max<int64_t>(count, 0);
  if (count > kMaxRangeElements)
    return n.unsupported("Range of more than 2^24 elements");
  unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  for (int64_t i = 0; i < count; ++i)
    out.push_back(APInt(width, v[0] + i * v[2], /*isSigned=*/true));
  n.setOutput(0, n.constant(DenseElementsAttr::get(type(count), out)));
  return success();
}

/// Range(start, limit, delta) with constant integer start and delta and a
/// limit read back from extents (Shape -> Squeeze -> Add ...): an
/// autoglm.range of count max(ceil((limit - start) / delta), 0), which is
/// the limit itself for arange(limit).
LogicalResult importSymbolicRange(NodeImporter &n, DenseElementsAttr startAttr,
                                  DenseElementsAttr deltaAttr) {
  Type element = n.inputType(1).getElementType();
  if (startAttr.getNumElements() != 1 || deltaAttr.getNumElements() != 1 ||
      startAttr.getElementType() != element ||
      deltaAttr.getElementType() != element)
    return n.emitError() << "start, limit and delta must be scalars of the "
                            "same type";
  if (!isa<IntegerType>(element))
    return n.unsupported("Range of floats whose limit is not a compile-time "
                         "constant");
  OpBuilder &b = n.builder();
  Location loc = n.loc();
  auto limit = shapeElements(b, loc, n.input(1));
  if (!limit || limit->size() != 1)
    return n.needsConstant(1, kRangeNeedsConstants);
  int64_t start = (*startAttr.getValues<APInt>().begin()).getSExtValue();
  int64_t delta = (*deltaAttr.getValues<APInt>().begin()).getSExtValue();
  if (delta == 0)
    return n.emitError() << "Range needs a non-zero delta";
  OpFoldResult count = limit->front();
  if (start != 0 || delta != 1) {
    // ceil((limit - start) / delta), clamped at 0, on index values.
    Value l = getValueOrCreateConstantIndexOp(b, loc, count);
    Value span = arith::SubIOp::create(b, loc, l,
                                       arith::ConstantIndexOp::create(b, loc, start));
    Value d = arith::ConstantIndexOp::create(b, loc, delta);
    Value q = delta > 0 ? Value(arith::CeilDivSIOp::create(b, loc, span, d))
                        : Value(arith::CeilDivSIOp::create(
                              b, loc, arith::SubIOp::create(
                                          b, loc, arith::ConstantIndexOp::create(b, loc, 0), span),
                              arith::ConstantIndexOp::create(b, loc, -delta)));
    count = arith::MaxSIOp::create(b, loc, q,
                                   arith::ConstantIndexOp::create(b, loc, 0))
                .getResult();
  }
  if (auto c = getConstantIntValue(count)) {
    // Extents that fold (pinned dimensions): a constant as before.
    if (*c > kMaxRangeElements)
      return n.unsupported("Range of more than 2^24 elements");
    unsigned width = element.getIntOrFloatBitWidth();
    SmallVector<APInt> out;
    for (int64_t i = 0; i < *c; ++i)
      out.push_back(APInt(width, start + i * delta, /*isSigned=*/true));
    n.setOutput(0, n.constant(DenseElementsAttr::get(
                       RankedTensorType::get({*c}, element), out)));
    return success();
  }
  auto type = RankedTensorType::get({ShapedType::kDynamic}, element);
  n.setOutput(0, n.createTyped<RangeOp>(
                     type, getValueOrCreateConstantIndexOp(b, loc, count),
                     b.getIntegerAttr(element, start),
                     b.getIntegerAttr(element, delta)));
  return success();
}

/// The coordinates of the non-zero elements of a constant input.
LogicalResult importNonZero(NodeImporter &n) {
  DenseElementsAttr input = n.constantInput(0);
  if (!input)
    return n.unsupported("NonZero of an input that is not a compile-time "
                         "constant (its result shape depends on the values)");
  auto shape = input.getType().getShape();
  SmallVector<int64_t> flat;
  int64_t i = 0;
  for (Attribute v : input.getValues<Attribute>()) {
    bool nonZero = isa<FloatAttr>(v) ? !cast<FloatAttr>(v).getValue().isZero()
                                     : !cast<IntegerAttr>(v).getValue().isZero();
    if (nonZero)
      flat.push_back(i);
    ++i;
  }
  int64_t rank = shape.size(), count = flat.size();
  SmallVector<int64_t> coords(rank * count);
  for (auto [j, f] : llvm::enumerate(flat))
    for (int64_t d = rank - 1; d >= 0; --d) {
      coords[d * count + j] = f % shape[d];
      f /= shape[d];
    }
  n.setOutput(0, i64Constant(n, {rank, count}, coords));
  return success();
}

/// Compress with a constant condition is a gather of the selected indices.
LogicalResult importCompress(NodeImporter &n) {
  DenseElementsAttr condition = n.constantInput(1);
  if (!condition)
    return n.unsupported("Compress with a condition that is not a "
                         "compile-time constant (the result shape depends "
                         "on it)");
  Value data = n.input(0);
  auto type = n.inputType(0);
  int64_t axis = 0;
  if (n.hasAttr("axis")) {
    auto a = n.normalizeAxis(n.intAttr("axis", 0), type.getRank());
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    data = n.reshape(data, {type.getNumElements()});
  }
  int64_t extent = cast<RankedTensorType>(data.getType()).getDimSize(axis);
  SmallVector<int64_t> selected;
  int64_t i = 0;
  for (Attribute v : condition.getValues<Attribute>()) {
    bool keep = isa<FloatAttr>(v) ? !cast<FloatAttr>(v).getValue().isZero()
                                  : !cast<IntegerAttr>(v).getValue().isZero();
    if (keep && i >= extent)
      return n.emitError() << "condition selects index " << i
                           << ", beyond the extent " << extent;
    if (keep)
      selected.push_back(i);
    ++i;
  }
  Value indices = i64Constant(n, {(int64_t)selected.size()}, selected);
  return setResult(n, n.create<GatherOp>(data, indices, axis));
}

/// Tile: view each axis as [1, d], broadcast to [repeats, d], merge.
LogicalResult importTile(NodeImporter &n) {
  auto type = n.inputType(0);
  auto repeats = n.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  if ((int64_t)repeats->size() != type.getRank() ||
      llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return n.emitError() << "repeats must have one non-negative entry per "
                            "axis (rank " << type.getRank() << ")";
  if (llvm::all_of(*repeats, [](int64_t r) { return r == 1; })) {
    n.setOutput(0, n.input(0));
    return success();
  }
  SmallVector<int64_t> split, expanded, merged;
  for (auto [d, r] : llvm::zip(type.getShape(), *repeats)) {
    split.append({1, d});
    expanded.append({r, d});
    merged.push_back(r * d);
  }
  auto wide = n.create<ExpandOp>(n.reshape(n.input(0), split), expanded);
  if (failed(wide))
    return failure();
  n.setOutput(0, n.reshape(*wide, merged));
  return success();
}

/// Trilu: where(col - row >= k (upper) or <= k (lower), x, 0), with the
/// mask built from a row and a column of indices. `k` may be a runtime
/// value: it does not change the shape.
LogicalResult importTrilu(NodeImporter &n) {
  auto type = n.inputType(0);
  if (type.getRank() < 2)
    return n.emitError() << "input must have rank >= 2";
  int64_t rows = type.getDimSize(type.getRank() - 2);
  int64_t cols = type.getDimSize(type.getRank() - 1);
  bool upper = n.intAttr("upper", 1) != 0;
  Type i64 = IntegerType::get(n.context(), 64);
  Value k = i64Constant(n, {1, 1}, {0});
  if (Value given = n.input(1)) {
    if (n.inputType(1).getNumElements() != 1)
      return n.emitError() << "k must be a scalar";
    k = n.reshape(given, {1, 1});
    if (n.inputType(1).getElementType() != i64) {
      auto cast = n.create<CastOp>(k, i64);
      if (failed(cast))
        return failure();
      k = *cast;
    }
  }
  // upper: col > row + k - 1; lower: col < row + k + 1. Beyond these bounds
  // k changes nothing, and clamping it keeps the sums from overflowing.
  SmallVector<int64_t> row, col;
  for (int64_t i = 0; i < rows; ++i)
    row.push_back(i + (upper ? -1 : 1));
  for (int64_t j = 0; j < cols; ++j)
    col.push_back(j);
  auto low = n.create<MaxOp>(k, i64Constant(n, {1, 1}, {-rows - 1}));
  if (failed(low))
    return failure();
  auto clamped = n.create<MinOp>(*low, i64Constant(n, {1, 1}, {cols + 1}));
  if (failed(clamped))
    return failure();
  auto bound = n.create<AddOp>(i64Constant(n, {rows, 1}, row), *clamped);
  if (failed(bound))
    return failure();
  Value colIndex = i64Constant(n, {1, cols}, col);
  auto mask = upper ? n.create<GreaterOp>(colIndex, *bound)
                    : n.create<LessOp>(colIndex, *bound);
  if (failed(mask))
    return failure();
  auto zeroType = RankedTensorType::get({}, type.getElementType());
  Value zero = n.constant(
      DenseElementsAttr::get(zeroType, scalarAttr(type.getElementType(), 0)));
  return setResult(n, n.create<WhereOp>(*mask, n.input(0), zero));
}

/// EyeLike: cast(row + k == col) to the requested type.
LogicalResult importEyeLike(NodeImporter &n) {
  auto type = n.inputType(0);
  if (type.getRank() != 2)
    return n.emitError() << "input must be 2-D";
  Type element = type.getElementType();
  if (n.hasAttr("dtype")) {
    int64_t dtype = n.intAttr("dtype", 0);
    element = convertElementType(dtype, n.context());
    if (!element)
      return n.unsupported("EyeLike to " + onnxTypeName(dtype));
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t k = std::clamp<int64_t>(n.intAttr("k", 0), -rows - 1, cols + 1);
  SmallVector<int64_t> diagonal, index;
  for (int64_t i = 0; i < rows; ++i)
    diagonal.push_back(i + k);
  for (int64_t j = 0; j < cols; ++j)
    index.push_back(j);
  auto eye = n.create<EqualOp>(i64Constant(n, {rows, 1}, diagonal),
                               i64Constant(n, {1, cols}, index));
  if (failed(eye))
    return failure();
  return setResult(n, n.create<CastOp>(*eye, element));
}

/// DepthToSpace and SpaceToDepth: reshape, transpose, reshape (the ONNX
/// definition).
LogicalResult importDepthToSpace(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t bs = n.intAttr("blocksize", 0);
  std::string mode = n.stringAttr("mode", "DCR");
  if (type.getRank() != 4)
    return n.emitError() << "input must be 4-D";
  if (mode != "DCR" && mode != "CRD")
    return n.unsupported("DepthToSpace mode '" + mode + "'");
  auto s = type.getShape();
  if (bs < 1 || s[1] % (bs * bs) != 0)
    return n.emitError() << "channels (" << s[1]
                         << ") must be a multiple of blocksize^2";
  int64_t c = s[1] / (bs * bs);
  bool dcr = mode == "DCR";
  SmallVector<int64_t> split =
      dcr ? SmallVector<int64_t>{s[0], bs, bs, c, s[2], s[3]}
          : SmallVector<int64_t>{s[0], c, bs, bs, s[2], s[3]};
  SmallVector<int64_t> perm = dcr ? SmallVector<int64_t>{0, 3, 4, 1, 5, 2}
                                  : SmallVector<int64_t>{0, 1, 4, 2, 5, 3};
  auto moved = n.create<TransposeOp>(n.reshape(n.input(0), split), perm);
  if (failed(moved))
    return failure();
  n.setOutput(0, n.reshape(*moved, {s[0], c, s[2] * bs, s[3] * bs}));
  return success();
}

LogicalResult importSpaceToDepth(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t bs = n.intAttr("blocksize", 0);
  std::string mode = n.stringAttr("mode", "DCR");
  if (type.getRank() != 4)
    return n.emitError() << "input must be 4-D";
  if (mode != "DCR" && mode != "CRD")
    return n.unsupported("SpaceToDepth mode '" + mode + "'");
  auto s = type.getShape();
  if (bs < 1 || s[2] % bs != 0 || s[3] % bs != 0)
    return n.emitError() << "height and width (" << s[2] << ", " << s[3]
                         << ") must be multiples of the blocksize";
  SmallVector<int64_t> perm = mode == "DCR"
                                  ? SmallVector<int64_t>{0, 3, 5, 1, 2, 4}
                                  : SmallVector<int64_t>{0, 1, 3, 5, 2, 4};
  auto moved = n.create<TransposeOp>(
      n.reshape(n.input(0), {s[0], s[1], s[2] / bs, bs, s[3] / bs, bs}), perm);
  if (failed(moved))
    return failure();
  n.setOutput(0, n.reshape(*moved, {s[0], s[1] * bs * bs, s[2] / bs, s[3] / bs}));
  return success();
}

//===----------------------------------------------------------------------===//
// Operators with their own autoglm op
//===----------------------------------------------------------------------===//

LogicalResult importGatherElements(NodeImporter &n) {
  auto axis = n.normalizeAxis(n.intAttr("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return setResult(n, n.create<GatherElementsOp>(n.input(0), n.input(1), *axis));
}

LogicalResult importGatherND(NodeImporter &n) {
  return setResult(n, n.create<GatherNDOp>(n.input(0), n.input(1),
                                           n.intAttr("batch_dims", 0)));
}

/// The `reduction` attribute of ScatterElements/ScatterND, checked against
/// the opset that introduced each value.
FailureOr<std::string> scatterReduction(NodeImporter &n) {
  std::string reduction = n.stringAttr("reduction", "none");
  bool known = reduction == "none" ||
               ((reduction == "add" || reduction == "mul") && n.opset() >= 16) ||
               ((reduction == "max" || reduction == "min") && n.opset() >= 18);
  if (!known) {
    (void)n.unsupported(n.node().op_type() + " reduction '" + reduction + "'");
    return failure();
  }
  return reduction;
}

LogicalResult importScatterElements(NodeImporter &n) {
  auto axis = n.normalizeAxis(n.intAttr("axis", 0), n.inputType(0).getRank());
  auto reduction = scatterReduction(n);
  if (failed(axis) || failed(reduction))
    return failure();
  return setResult(n, n.create<ScatterElementsOp>(n.input(0), n.input(1),
                                                  n.input(2), *axis,
                                                  *reduction));
}

LogicalResult importScatterND(NodeImporter &n) {
  auto reduction = scatterReduction(n);
  if (failed(reduction))
    return failure();
  return setResult(n, n.create<ScatterNDOp>(n.input(0), n.input(1), n.input(2),
                                            *reduction));
}

LogicalResult importOneHot(NodeImporter &n) {
  if (!n.constantInput(1))
    return n.needsConstant(1, "OneHot with a 'depth' that is not a "
                              "compile-time constant (the result shape "
                              "depends on it) is not supported");
  auto depth = n.constantScalar(1, "depth");
  if (failed(depth))
    return failure();
  int64_t rank = n.inputType(0).getRank();
  auto axis = n.normalizeAxis(n.intAttr("axis", -1), rank + 1);
  if (failed(axis))
    return failure();
  if (*depth < 1)
    return n.emitError() << "depth must be positive, got " << *depth;
  return setResult(n, n.create<OneHotOp>(n.input(0), n.input(2),
                                         (int64_t)*depth, *axis));
}

/// Rewrites an ONNX einsum equation into the explicit form of
/// autoglm.einsum: no spaces, ellipses replaced by unused letters (aligned
/// to the right, so they broadcast), and the implicit result term spelled
/// out (ellipsis letters, then the letters used once, in ASCII order).
FailureOr<std::string> explicitEinsum(NodeImporter &n, std::string equation) {
  llvm::erase(equation, ' ');
  StringRef eq(equation);
  bool isExplicit = eq.contains("->");
  auto [lhs, rhs] = eq.split("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != n.numInputs())
    return n.emitError() << "equation '" << equation << "' has "
                         << terms.size() << " operand terms for "
                         << n.numInputs() << " inputs";
  std::string unused;
  for (char c = 'A'; c <= 'z'; ++c)
    if (llvm::isAlpha(c) && !eq.contains(c))
      unused.push_back(c);
  // Dimensions each ellipsis stands for; all of them share the last ones.
  int64_t ellipsis = 0;
  SmallVector<int64_t> ellipsisRank;
  for (auto [i, term] : llvm::enumerate(terms)) {
    int64_t letters = term.size() - (term.contains("...") ? 3 : 0);
    int64_t extra = n.inputType(i).getRank() - letters;
    if (extra < 0 || (extra > 0 && !term.contains("...")))
      return n.emitError() << "term '" << term << "' does not match input "
                           << i << " of rank " << n.inputType(i).getRank();
    ellipsisRank.push_back(extra);
    ellipsis = std::max(ellipsis, extra);
  }
  if (ellipsis > (int64_t)unused.size())
    return n.unsupported("Einsum with this many ellipsis dimensions");
  StringRef ellipsisLetters = StringRef(unused).take_front(ellipsis);
  std::string result;
  for (auto [term, extra] : llvm::zip(terms, ellipsisRank)) {
    if (!result.empty())
      result += ',';
    auto [before, after] = term.split("...");
    result += before.str() + ellipsisLetters.take_back(extra).str() +
              (term.contains("...") ? after.str() : "");
  }
  result += "->";
  if (isExplicit) {
    auto [before, after] = rhs.split("...");
    result += before.str() +
              (rhs.contains("...") ? ellipsisLetters.str() + after.str() : "");
  } else {
    result += ellipsisLetters.str();
    std::string once;
    for (char c : lhs)
      if (llvm::isAlpha(c) && llvm::count(lhs, c) == 1)
        once.push_back(c);
    llvm::sort(once);
    result += once;
  }
  return result;
}

LogicalResult importEinsum(NodeImporter &n) {
  auto equation = explicitEinsum(n, n.stringAttr("equation", ""));
  if (failed(equation))
    return failure();
  SmallVector<Value> inputs;
  for (size_t i = 0; i < n.numInputs(); ++i)
    inputs.push_back(n.input(i));
  return setResult(n, n.create<EinsumOp>(inputs, *equation));
}

LogicalResult importCenterCropPad(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes = n.hasAttr("axes")
                                  ? n.intsAttr("axes")
                                  : llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t &axis : axes) {
    auto normalized = n.normalizeAxis(axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  // The target extents come from `shape`.
  SmallVector<int64_t> target(type.getShape());
  auto values = n.constantInts(1, "shape");
  if (failed(values))
    return failure();
  if (values->size() != axes.size())
    return n.emitError() << "shape must have one entry per axis";
  for (auto [axis, extent] : llvm::zip(axes, *values))
    target[axis] = extent;
  // Crop centered (the extra element of an odd difference at the end), then
  // pad centered likewise.
  SmallVector<int64_t> starts(rank, 0), ends(type.getShape()), steps(rank, 1);
  SmallVector<int64_t> pads(2 * rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = type.getDimSize(d);
    if (target[d] < 0)
      return n.emitError() << "shape entries must not be negative";
    if (target[d] < extent) {
      starts[d] = (extent - target[d]) / 2;
      ends[d] = starts[d] + target[d];
    } else {
      pads[d] = (target[d] - extent) / 2;
      pads[rank + d] = target[d] - extent - pads[d];
    }
  }
  OpChain c(n);
  Value y = c.op<SliceOp>(n.input(0), starts, ends, steps);
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; }))
    y = c.op<PadOp>(y, pads, llvm::APFloat(0.0), "constant");
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importReverseSequence(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  int64_t batchAxis = n.intAttr("batch_axis", 1);
  int64_t timeAxis = n.intAttr("time_axis", 0);
  if (rank < 2 || batchAxis == timeAxis || batchAxis < 0 || batchAxis > 1 ||
      timeAxis < 0 || timeAxis > 1)
    return n.emitError() << "batch_axis and time_axis must be 0 and 1 (in "
                            "either order) of an input of rank >= 2";
  int64_t batch = type.getDimSize(batchAxis), steps = type.getDimSize(timeAxis);
  if (n.inputType(1).getShape() != ArrayRef<int64_t>{batch})
    return n.emitError() << "sequence_lens must have shape [" << batch << "]";
  // index[t, b] = t < len[b] ? len[b] - 1 - t : t, gathered along time.
  OpChain c(n);
  Type i64 = IntegerType::get(n.context(), 64);
  Value t = c.convert(c.constant(Float64Type::get(n.context()), {steps},
                                 [](ArrayRef<int64_t> i) { return double(i[0]); }),
                      i64);
  SmallVector<int64_t> timeShape(rank, 1), lenShape(rank, 1);
  timeShape[timeAxis] = steps, lenShape[batchAxis] = batch;
  t = c.reshape(t, timeShape);
  // Lengths beyond the time axis are clamped so the gather stays inside it.
  Value len = c.reshape(
      c.op<MinOp>(c.convert(n.input(1), i64), c.scalar(i64, steps)), lenShape);
  Value reversed = c.op<SubOp>(c.op<SubOp>(len, c.scalar(i64, 1)), t);
  Value index = c.op<WhereOp>(c.op<LessOp>(t, len), reversed, t);
  index = c.op<ExpandOp>(index, type.getShape());
  Value y = c.op<GatherElementsOp>(n.input(0), index, timeAxis);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

} // namespace

void autoglm::registerShapeImporters(OpImporterTable &t) {
  t["Constant"] = {importConstant, 0};
  t["Shape"] = {importShape, 1};
  t["Reshape"] = {importReshape, 2};
  t["Unsqueeze"] = {importUnsqueeze, 1};
  t["Squeeze"] = {importSqueeze, 1};
  t["Flatten"] = {importFlatten, 1};
  t["Transpose"] = {importTranspose, 1};
  t["Concat"] = {importConcat, 1};
  t["Slice"] = {importSlice, 1};
  t["Split"] = {importSplit, 1};
  t["Gather"] = {importGather, 2};
  t["Expand"] = {importExpand, 2};
  t["Pad"] = {importPad, 1};
  t["Size"] = {importSize, 1};
  t["ConstantOfShape"] = {importConstantOfShape, 1};
  t["Range"] = {importRange, 3};
  t["NonZero"] = {importNonZero, 1};
  t["Compress"] = {importCompress, 2};
  t["Tile"] = {importTile, 2};
  t["Trilu"] = {importTrilu, 1};
  t["EyeLike"] = {importEyeLike, 1};
  t["DepthToSpace"] = {importDepthToSpace, 1};
  t["SpaceToDepth"] = {importSpaceToDepth, 1};
  t["GatherElements"] = {importGatherElements, 2};
  t["GatherND"] = {importGatherND, 2};
  t["Scatter"] = {importScatterElements, 3};
  t["ScatterElements"] = {importScatterElements, 3};
  t["ScatterND"] = {importScatterND, 3};
  t["OneHot"] = {importOneHot, 3};
  t["Einsum"] = {importEinsum, 1};
  t["CenterCropPad"] = {importCenterCropPad, 2};
  t["ReverseSequence"] = {importReverseSequence, 2};
}
