//===- Shapes.cpp - importers of shape and data-movement operators --------===//
//
// ONNX passes reshape targets, slice bounds, axes and pads as tensors. They
// must be compile-time constants (possibly after folding shape subgraphs);
// here they are read, normalized, and stored as attributes.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/NodeImporter.h"
#include "compiler/importer/TensorConversion.h"
#include "dialects/ShapeUtils.h"

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

LogicalResult importReshape(NodeImporter &n) {
  auto type = n.inputType(0);
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
    b.starts[*axis] = start;
    b.ends[*axis] = end;
    b.steps[*axis] = step;
  }
  return b;
}

LogicalResult importSlice(NodeImporter &n) {
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

LogicalResult importExpand(NodeImporter &n) {
  auto shape = n.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  return setResult(n, n.create<ExpandOp>(n.input(0), *shape));
}

LogicalResult importPad(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  std::string mode = n.stringAttr("mode", "constant");
  if (mode != "constant")
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
    if (n.input(2)) {
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
  return setResult(n, n.create<PadOp>(n.input(0), pads, llvm::APFloat(value)));
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
}
