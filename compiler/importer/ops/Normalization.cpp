//===- Normalization.cpp - importers of Softmax, reductions and norms -----===//

#include "compiler/importer/OpChain.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {


/// The float type statistics are computed in: f32 for 16-bit floats.
Type statisticsType(Type element) {
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The value of a reduction over no axes (noop_with_empty_axes): the
/// per-element map of the reduction, as the reference and the ONNX function
/// bodies define it (ReduceSumSquare gives x*x, ReduceL1 |x|, ...).
template <typename OpTy>
Value reduceNothing(OpChain &c, Value x) {
  if constexpr (std::is_same_v<OpTy, ReduceSumSquareOp>)
    return c.op<MulOp>(x, x);
  else if constexpr (std::is_same_v<OpTy, ReduceL1Op> ||
                     std::is_same_v<OpTy, ReduceL2Op>)
    return getElementTypeOrSelf(x.getType()).isUnsignedInteger()
               ? x
               : c.unary<AbsOp>(x);
  else if constexpr (std::is_same_v<OpTy, ReduceLogSumOp>)
    return c.unary<LogOp>(x);
  else
    return x;
}

/// Reductions defined only through exp/log/sqrt run on integers in f64 and
/// convert back (truncating), as the reference does.
template <typename OpTy>
constexpr bool needsFloat = std::is_same_v<OpTy, ReduceL2Op> ||
                            std::is_same_v<OpTy, ReduceLogSumOp> ||
                            std::is_same_v<OpTy, ReduceLogSumExpOp>;

template <typename OpTy>
LogicalResult importReduce(NodeImporter &n) {
  auto type = n.inputType(0);
  // Axes moved from an attribute to an input: ReduceSum at 13, others at 18.
  bool axesAsInput =
      n.opset() >= (n.node().op_type() == "ReduceSum" ? 13 : 18);
  SmallVector<int64_t> axes;
  if (axesAsInput && n.input(1)) {
    // An axes input with no elements is known to be empty even when its
    // value is only known at run time.
    if (n.inputType(1).getNumElements() != 0) {
      auto values = n.constantInts(1, "axes");
      if (failed(values))
        return failure();
      axes = *values;
    }
  } else if (!axesAsInput) {
    axes = n.intsAttr("axes");
  }
  for (int64_t &axis : axes) {
    auto normalized = n.normalizeAxis(axis, type.getRank());
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());

  OpChain c(n);
  Value x = n.input(0);
  Type element = type.getElementType();
  if constexpr (needsFloat<OpTy>)
    x = c.convert(x, isa<FloatType>(element) ? element
                                             : Float64Type::get(n.context()));
  Value out;
  if (axes.empty() && n.intAttr("noop_with_empty_axes", 0))
    out = reduceNothing<OpTy>(c, x);
  else
    out = c.op<OpTy>(x, axes, n.intAttr("keepdims", 1) != 0);
  out = c.convert(out, element);
  if (!c.ok())
    return failure();
  n.setOutput(0, out);
  return success();
}

template <typename OpTy>
LogicalResult importArgReduce(NodeImporter &n) {
  auto axis = n.normalizeAxis(n.intAttr("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  auto out = n.create<OpTy>(n.input(0), *axis, n.intAttr("keepdims", 1) != 0,
                            n.intAttr("select_last_index", 0) != 0);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importTopK(NodeImporter &n) {
  auto type = n.inputType(0);
  auto axis = n.normalizeAxis(n.intAttr("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  // k is an attribute before opset 10, then a 1-element input.
  int64_t k;
  if (n.opset() < 10) {
    k = n.intAttr("k", -1);
  } else {
    auto values = n.constantInts(1, "k");
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return n.emitError() << "input 'k' must have one element";
    k = values->front();
  }
  if (k < 0 || k > type.getDimSize(*axis))
    return n.emitError() << "k = " << k << " is out of range for an axis of "
                         << type.getDimSize(*axis) << " elements";
  SmallVector<int64_t> shape(type.getShape());
  shape[*axis] = k;
  Value values = n.createTyped<TopKOp>(
      type.clone(shape),
      RankedTensorType::get(shape, IntegerType::get(n.context(), 64)),
      n.input(0), k, *axis, n.intAttr("largest", 1) != 0);
  // `sorted = 0` allows any order; sorted is one of them.
  n.setOutput(0, values);
  n.setOutput(1, values.getDefiningOp()->getResult(1));
  return success();
}

template <typename OpTy>
LogicalResult importCumulative(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  int64_t axis = 0;
  // A 1-D input has one axis, so its axis is known even when the axis input
  // is only known at run time.
  if (rank != 1 || n.constantInput(1)) {
    auto values = n.constantInts(1, "axis");
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return n.emitError() << "input 'axis' must have one element";
    axis = values->front();
  }
  auto normalized = n.normalizeAxis(axis, rank);
  if (failed(normalized))
    return failure();
  n.setOutput(0, n.createTyped<OpTy>(n.input(0), *normalized,
                                         n.intAttr("exclusive", 0) != 0,
                                         n.intAttr("reverse", 0) != 0));
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax, Hardmax
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult importSoftmaxLike(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  auto axis = n.normalizeAxis(n.intAttr("axis", n.opset() < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  if (n.opset() >= 13 || *axis == rank - 1) {
    n.setOutput(0, n.createTyped<OpTy>(n.input(0), *axis));
    return success();
  }
  // Before opset 13 these ops worked on the input viewed as a 2-D matrix
  // [prod(dims[:axis]), prod(dims[axis:])], along its rows.
  auto dims = type.getShape();
  Value flat = n.reshape(n.input(0), {product(dims.take_front(*axis)),
                                      product(dims.drop_front(*axis))});
  Value result = n.createTyped<OpTy>(flat, int64_t(1));
  n.setOutput(0, n.reshape(result, dims));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

/// Float type a `stash_type` attribute names (the precision of the
/// statistics), or null if it is not a float type.
Type stashType(NodeImporter &n) {
  Builder b(n.context());
  switch (n.intAttr("stash_type", 1)) {
  case 1: return b.getF32Type();
  case 10: return b.getF16Type();
  case 11: return b.getF64Type();
  case 16: return b.getBF16Type();
  default: return {};
  }
}

/// Zero mean and unit variance over `axes`: (x - mean) / sqrt(var + eps),
/// also giving the mean and 1 / sqrt(var + eps) with the axes kept.
struct Moments {
  Value normalized, mean, invStdDev;
};

Moments standardize(OpChain &c, Value x, ArrayRef<int64_t> axes, double eps) {
  Type element = getElementTypeOrSelf(x.getType());
  Value mean = c.op<ReduceMeanOp>(x, axes, true);
  Value centered = c.op<SubOp>(x, mean);
  Value variance = c.op<ReduceMeanOp>(c.op<MulOp>(centered, centered), axes, true);
  Value stdDev = c.unary<SqrtOp>(c.op<AddOp>(variance, c.scalar(element, eps)));
  Value inv = c.unary<ReciprocalOp>(stdDev);
  return {c.op<MulOp>(centered, inv), mean, inv};
}

SmallVector<int64_t> axesFrom(int64_t first, int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(first, rank));
}

LogicalResult importLayerNorm(NodeImporter &n) {
  auto type = n.inputType(0);
  auto axis = n.normalizeAxis(n.intAttr("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  double eps = n.floatAttr("epsilon", 1e-5f);
  if (!n.outputUsed(1) && !n.outputUsed(2)) {
    auto out = n.create<LayerNormOp>(n.input(0), n.input(1), n.input(2), *axis,
                                     llvm::APFloat((float)eps));
    if (failed(out))
      return failure();
    n.setOutput(0, *out);
    return success();
  }
  // Mean and InvStdDev are wanted too: the normalization written out in the
  // stash type (the type of those outputs), as the ONNX function body does.
  Type stash = stashType(n);
  if (!stash)
    return n.unsupported("stash_type " + Twine(n.intAttr("stash_type", 1)));
  OpChain c(n);
  Moments m = standardize(c, c.convert(n.input(0), stash),
                          axesFrom(*axis, type.getRank()), eps);
  Value y = c.op<MulOp>(m.normalized, c.convert(n.input(1), stash));
  if (n.input(2))
    y = c.op<AddOp>(y, c.convert(n.input(2), stash));
  y = c.convert(y, type.getElementType());
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  n.setOutput(1, m.mean);
  n.setOutput(2, m.invStdDev);
  return success();
}

LogicalResult importRMSNorm(NodeImporter &n) {
  auto axis = n.normalizeAxis(n.intAttr("axis", -1), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  if (!stashType(n))
    return n.unsupported("stash_type " + Twine(n.intAttr("stash_type", 1)));
  auto out = n.create<RMSNormOp>(n.input(0), n.input(1), *axis,
                                 llvm::APFloat(n.floatAttr("epsilon", 1e-5f)));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// Checks that per-channel (or per-group) parameter `i` has `count` elements.
LogicalResult checkParameter(NodeImporter &n, size_t i, StringRef what,
                             int64_t count) {
  auto type = n.inputType(i);
  if (type.getRank() != 1 || type.getDimSize(0) != count)
    return n.emitError() << what << " must have shape [" << count << "], got "
                         << inference::shapeString(type.getShape());
  return success();
}

LogicalResult importInstanceNorm(NodeImporter &n) {
  // Group normalization with one channel per group.
  auto type = n.inputType(0);
  if (type.getRank() < 2)
    return n.emitError() << "input must have rank >= 2";
  int64_t channels = type.getDimSize(1);
  if (failed(checkParameter(n, 1, "scale", channels)) ||
      failed(checkParameter(n, 2, "bias", channels)))
    return failure();
  auto out =
      n.create<GroupNormOp>(n.input(0), n.input(1), n.input(2), channels,
                            llvm::APFloat(n.floatAttr("epsilon", 1e-5f)));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importGroupNorm(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t groups = n.intAttr("num_groups", 0);
  if (type.getRank() < 2)
    return n.emitError() << "input must have rank >= 2";
  int64_t channels = type.getDimSize(1);
  if (groups < 1 || channels % groups)
    return n.emitError() << "num_groups " << groups
                         << " does not divide the " << channels
                         << " channels";
  // The statistics are computed in f32 or wider whatever the stash type.
  if (!stashType(n))
    return n.unsupported("stash_type " + Twine(n.intAttr("stash_type", 1)));
  // Opset 18 has one scale and bias per group, opset 21 one per channel;
  // per-group values are repeated for the channels of their group.
  bool perGroup = n.opset() < 21;
  int64_t params = perGroup ? groups : channels;
  if (failed(checkParameter(n, 1, "scale", params)) ||
      failed(checkParameter(n, 2, "bias", params)))
    return failure();
  OpChain c(n);
  auto perChannel = [&](Value v) {
    if (!perGroup)
      return v;
    Value wide = c.op<ExpandOp>(c.reshape(v, {groups, 1}),
                                ArrayRef<int64_t>{groups, channels / groups});
    return c.reshape(wide, {channels});
  };
  Value scale = perChannel(n.input(1)), bias = perChannel(n.input(2));
  Value y = c.op<GroupNormOp>(n.input(0), scale, bias, groups,
                              llvm::APFloat(n.floatAttr("epsilon", 1e-5f)));
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importMeanVarianceNorm(NodeImporter &n) {
  auto type = n.inputType(0);
  SmallVector<int64_t> axes = n.hasAttr("axes") ? n.intsAttr("axes")
                                                : SmallVector<int64_t>{0, 2, 3};
  for (int64_t &axis : axes) {
    auto normalized = n.normalizeAxis(axis, type.getRank());
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  // (x - mean) / (sqrt(var) + 1e-9), the ONNX function body.
  OpChain c(n);
  Type element = type.getElementType(), compute = statisticsType(element);
  Value x = c.convert(n.input(0), compute);
  Value mean = c.op<ReduceMeanOp>(x, axes, true);
  Value centered = c.op<SubOp>(x, mean);
  Value variance = c.op<ReduceMeanOp>(c.op<MulOp>(centered, centered), axes, true);
  Value stdDev =
      c.op<AddOp>(c.unary<SqrtOp>(variance), c.scalar(compute, 1e-9));
  Value y = c.convert(c.op<DivOp>(centered, stdDev), element);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importLpNorm(NodeImporter &n) {
  auto type = n.inputType(0);
  auto axis = n.normalizeAxis(n.intAttr("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  int64_t p = n.intAttr("p", 2);
  if (p != 1 && p != 2)
    return n.unsupported("LpNormalization with p = " + Twine(p));
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return n.unsupported("LpNormalization of a non-float input");
  OpChain c(n);
  Value x = n.input(0);
  SmallVector<int64_t> axes = {*axis};
  Value norm = p == 1 ? c.op<ReduceL1Op>(x, axes, true)
                      : c.op<ReduceL2Op>(x, axes, true);
  // An all-zero slice stays zero (0 / 1) instead of 0 / 0.
  Value zero = c.scalar(element, 0.0), one = c.scalar(element, 1.0);
  Value denominator = c.op<WhereOp>(c.op<EqualOp>(norm, zero), one, norm);
  Value y = c.op<DivOp>(x, denominator);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importBatchNorm(NodeImporter &n) {
  if (n.intAttr("training_mode", 0) || n.outputUsed(1) || n.outputUsed(2) ||
      n.outputUsed(3) || n.outputUsed(4))
    return n.unsupported("BatchNormalization in training mode");
  // Opset 7 could normalize per activation instead of per channel.
  if (n.opset() < 9 && n.intAttr("spatial", 1) == 0)
    return n.unsupported("BatchNormalization with spatial = 0");
  auto out = n.create<BatchNormOp>(
      n.input(0), n.input(1), n.input(2), n.input(3), n.input(4),
      llvm::APFloat(n.floatAttr("epsilon", 1e-5f)));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importLRN(NodeImporter &n) {
  auto type = n.inputType(0);
  if (type.getRank() < 3)
    return n.emitError() << "input must have rank >= 3";
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return n.unsupported("LRN of a non-float input");
  int64_t size = n.intAttr("size", 0);
  if (size < 1)
    return n.emitError() << "size must be positive";
  double alpha = n.floatAttr("alpha", 1e-4f), beta = n.floatAttr("beta", 0.75f);
  double bias = n.floatAttr("bias", 1.0f);
  // x / (bias + alpha / size * sum of x^2 over the channels c - floor((size
  // - 1) / 2) .. c + ceil((size - 1) / 2))^beta; the window sum is `size`
  // shifted slices of the zero-padded squares.
  int64_t channels = type.getDimSize(1), rank = type.getRank();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  OpChain c(n);
  Type compute = statisticsType(element);
  Value x = c.convert(n.input(0), compute);
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[1] = before, pads[rank + 1] = after;
  Value squares = c.op<PadOp>(c.op<MulOp>(x, x), pads, llvm::APFloat(0.0), "constant");
  Value sum;
  for (int64_t j = 0; j < size; ++j) {
    Value window = c.slice(squares, 1, j, j + channels, 1);
    sum = sum ? c.op<AddOp>(sum, window) : window;
  }
  Value denominator = c.op<PowOp>(
      c.op<AddOp>(c.op<MulOp>(sum, c.scalar(compute, alpha / size)),
                  c.scalar(compute, bias)),
      c.scalar(compute, beta));
  Value y = c.convert(c.op<DivOp>(x, denominator), element);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

} // namespace

void autoglm::registerNormalizationImporters(OpImporterTable &t) {
  t["ReduceMean"] = {importReduce<ReduceMeanOp>, 1};
  t["ReduceSum"] = {importReduce<ReduceSumOp>, 1};
  t["ReduceMax"] = {importReduce<ReduceMaxOp>, 1};
  t["ReduceMin"] = {importReduce<ReduceMinOp>, 1};
  t["ReduceProd"] = {importReduce<ReduceProdOp>, 1};
  t["ReduceL1"] = {importReduce<ReduceL1Op>, 1};
  t["ReduceL2"] = {importReduce<ReduceL2Op>, 1};
  t["ReduceSumSquare"] = {importReduce<ReduceSumSquareOp>, 1};
  t["ReduceLogSum"] = {importReduce<ReduceLogSumOp>, 1};
  t["ReduceLogSumExp"] = {importReduce<ReduceLogSumExpOp>, 1};
  t["ArgMax"] = {importArgReduce<ArgMaxOp>, 1};
  t["ArgMin"] = {importArgReduce<ArgMinOp>, 1};
  t["TopK"] = {importTopK, 1};
  t["CumSum"] = {importCumulative<CumSumOp>, 2};
  t["CumProd"] = {importCumulative<CumProdOp>, 2};
  t["Softmax"] = {importSoftmaxLike<SoftmaxOp>, 1};
  t["LogSoftmax"] = {importSoftmaxLike<LogSoftmaxOp>, 1};
  t["Hardmax"] = {importSoftmaxLike<HardmaxOp>, 1};
  t["LayerNormalization"] = {importLayerNorm, 2};
  t["RMSNormalization"] = {importRMSNorm, 2};
  t["InstanceNormalization"] = {importInstanceNorm, 3};
  t["GroupNormalization"] = {importGroupNorm, 3};
  t["MeanVarianceNormalization"] = {importMeanVarianceNorm, 1};
  t["LpNormalization"] = {importLpNorm, 1};
  t["BatchNormalization"] = {importBatchNorm, 5};
  t["LRN"] = {importLRN, 1};
}
