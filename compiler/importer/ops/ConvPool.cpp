//===- ConvPool.cpp - importers of convolution and pooling ----------------===//

#include "compiler/importer/OpChain.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

/// Window attributes shared by Conv and the pooling operators, with defaults
/// filled in and auto_pad resolved to explicit begin/end paddings.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

FailureOr<Window> readWindow(NodeImporter &n, ArrayRef<int64_t> kernel) {
  auto input = n.inputType(0);
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1)
    return n.emitError() << "input must have rank >= 3 (N, C, spatial...)";
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = n.intsAttr("strides");
  w.dilations = n.intsAttr("dilations");
  w.pads = n.intsAttr("pads");
  if (w.strides.empty())
    w.strides.assign(spatial, 1);
  if (w.dilations.empty())
    w.dilations.assign(spatial, 1);
  if (w.pads.empty())
    w.pads.assign(2 * spatial, 0);
  if ((int64_t)w.kernel.size() != spatial ||
      (int64_t)w.strides.size() != spatial ||
      (int64_t)w.dilations.size() != spatial ||
      (int64_t)w.pads.size() != 2 * spatial)
    return n.emitError() << "kernel_shape/strides/dilations need " << spatial
                         << " entries and pads " << 2 * spatial;
  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = input.getDimSize(i + 2);
      int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      int64_t span = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + span - in);
      int64_t small = total / 2, large = total - small;
      w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
      w.pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return n.unsupported("auto_pad '" + autoPad + "'");
  }
  return w;
}

/// The kernel extents: the kernel_shape attribute, which must agree with the
/// filter, or the filter's spatial extents.
FailureOr<SmallVector<int64_t>> filterKernel(NodeImporter &n,
                                             size_t filterInput = 1) {
  auto filter = n.inputType(filterInput);
  SmallVector<int64_t> fromFilter(
      filter.getShape().begin() + std::min<int64_t>(2, filter.getRank()),
      filter.getShape().end());
  SmallVector<int64_t> kernel = n.intsAttr("kernel_shape");
  if (kernel.empty())
    return fromFilter;
  if (kernel != fromFilter)
    return n.emitError() << "kernel_shape does not match the filter's "
                            "spatial extents";
  return kernel;
}

LogicalResult importConv(NodeImporter &n) {
  if (n.inputType(0).getElementType() != n.inputType(1).getElementType())
    return n.emitError() << "input and filter must have the same element type";
  auto kernel = filterKernel(n);
  if (failed(kernel))
    return failure();
  auto w = readWindow(n, *kernel);
  if (failed(w))
    return failure();
  auto out = n.create<ConvOp>(n.input(0), n.input(1), n.input(2), w->strides,
                              w->pads, w->dilations, n.intAttr("group", 1));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// `value` widened to int32 minus its zero point, if any. A zero point with
/// one entry per slice of axis 0 is viewed as [K, 1, ...] to broadcast.
FailureOr<Value> subtractZeroPoint(NodeImporter &n, size_t value, size_t zp) {
  auto i32 = IntegerType::get(n.context(), 32);
  auto wide = n.create<CastOp>(n.input(value), i32);
  if (failed(wide) || !n.input(zp))
    return wide;
  Value zero = n.input(zp);
  auto zpType = n.inputType(zp);
  int64_t rank = n.inputType(value).getRank();
  if (zpType.getNumElements() == 1) {
    zero = n.reshape(zero, {});
  } else if (zpType.getRank() == 1 && rank > 1) {
    SmallVector<int64_t> shape(rank, 1);
    shape[0] = zpType.getDimSize(0);
    zero = n.reshape(zero, shape);
  }
  auto wideZero = n.create<CastOp>(zero, i32);
  if (failed(wideZero))
    return failure();
  return n.create<SubOp>(*wide, *wideZero);
}

/// (x - x_zero_point) conv (w - w_zero_point), accumulated in int32; the
/// padding is zero after the zero point is subtracted. With one group,
/// scalar zero points and static shapes, one autoglm.conv_integer (the
/// 8-bit operands stay 8-bit, for the int8 GEMM); otherwise the operands
/// are widened to i32 and their zero points subtracted before an i32
/// convolution.
LogicalResult importConvInteger(NodeImporter &n) {
  if (n.input(2) && n.inputType(2).getNumElements() != 1)
    return n.unsupported("a per-channel x_zero_point");
  auto kernel = filterKernel(n);
  if (failed(kernel))
    return failure();
  auto w = readWindow(n, *kernel);
  if (failed(w))
    return failure();
  if (n.intAttr("group", 1) == 1 && n.inputType(0).hasStaticShape() &&
      n.inputType(1).hasStaticShape())
    if (Value xZp = n.scalarZeroPoint(0, 2))
      if (Value wZp = n.scalarZeroPoint(1, 3)) {
        auto out = n.create<ConvIntegerOp>(n.input(0), n.input(1), xZp, wZp,
                                           w->strides, w->pads, w->dilations);
        if (failed(out))
          return failure();
        n.setOutput(0, *out);
        return success();
      }
  auto x = subtractZeroPoint(n, 0, 2);
  auto filter = subtractZeroPoint(n, 1, 3);
  if (failed(x) || failed(filter))
    return failure();
  auto out = n.create<ConvOp>(*x, *filter, Value(), w->strides, w->pads,
                              w->dilations, n.intAttr("group", 1));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// A tensor of `type` and `shape` filled with 1 (unit dequantization scales).
Value ones(NodeImporter &n, ArrayRef<int64_t> shape, FloatType type) {
  auto tensorType = RankedTensorType::get(shape, type);
  return n.constant(DenseElementsAttr::get(
      tensorType, cast<Attribute>(FloatAttr::get(type, 1.0))));
}

/// QLinearConv as float ops: both operands dequantized with unit scales
/// (x - x_zero_point, w - w_zero_point: exact small integers), a float
/// convolution plus the int32 bias, then the result scaled by
/// x_scale * w_scale / y_scale (in the scales' type, as the reference
/// computes it) in f64 and quantized to y_zero_point's type.
LogicalResult importQLinearConv(NodeImporter &n) {
  auto kernel = filterKernel(n, 3);
  if (failed(kernel))
    return failure();
  auto w = readWindow(n, *kernel);
  if (failed(w))
    return failure();
  auto f32 = Float32Type::get(n.context());
  auto f64 = Float64Type::get(n.context());
  auto dequantize = [&](size_t value, size_t zp) -> FailureOr<Value> {
    auto zpType = n.inputType(zp);
    return n.create<DequantizeLinearOp>(n.input(value),
                                        ones(n, zpType.getShape(), f32),
                                        n.input(zp), int64_t(0));
  };
  if (n.inputType(2).getNumElements() != 1)
    return n.unsupported("a per-channel x_zero_point");
  auto x = dequantize(0, 2);
  auto filter = dequantize(3, 5);
  if (failed(x) || failed(filter))
    return failure();
  Value bias;
  if (n.input(8)) {
    auto b = n.create<CastOp>(n.input(8), f32);
    if (failed(b))
      return failure();
    bias = *b;
  }
  auto conv = n.create<ConvOp>(*x, *filter, bias, w->strides, w->pads,
                               w->dilations, n.intAttr("group", 1));
  if (failed(conv))
    return failure();
  // Per-channel w_scale [M] scales axis 1 of the result.
  Value wScale = n.input(4);
  auto wScaleType = n.inputType(4);
  if (wScaleType.getNumElements() != 1) {
    SmallVector<int64_t> shape(n.inputType(0).getRank(), 1);
    shape[1] = wScaleType.getNumElements();
    wScale = n.reshape(wScale, shape);
  }
  auto product = n.create<MulOp>(n.input(1), wScale);
  if (failed(product))
    return failure();
  auto multiplier = n.create<DivOp>(*product, n.input(6));
  if (failed(multiplier))
    return failure();
  auto wide = n.create<CastOp>(*conv, f64);
  auto wideMultiplier = n.create<CastOp>(*multiplier, f64);
  if (failed(wide) || failed(wideMultiplier))
    return failure();
  auto scaled = n.create<MulOp>(*wide, *wideMultiplier);
  if (failed(scaled))
    return failure();
  Value yZero = n.input(7);
  if (n.inputType(7).getNumElements() != 1)
    return n.unsupported("a per-channel y_zero_point");
  yZero = n.reshape(yZero, {});
  auto y = n.create<QuantizeLinearOp>(*scaled, ones(n, {}, f64), yZero,
                                      int64_t(0));
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  return success();
}

/// ConvTranspose: explicit pads, or pads derived from output_shape (or from
/// in * stride for SAME_UPPER/SAME_LOWER) with the total split as the
/// operator's documentation (opset 11) says; opset 1 used the same rule.
LogicalResult importConvTranspose(NodeImporter &n) {
  auto input = n.inputType(0);
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1)
    return n.emitError() << "input must have rank >= 3 (N, C, spatial...)";
  auto kernel = filterKernel(n);
  if (failed(kernel))
    return failure();
  auto orDefault = [&](StringRef name, int64_t count, int64_t value) {
    SmallVector<int64_t> v = n.intsAttr(name);
    if (v.empty())
      v.assign(count, value);
    return v;
  };
  SmallVector<int64_t> strides = orDefault("strides", spatial, 1),
                       dilations = orDefault("dilations", spatial, 1),
                       pads = orDefault("pads", 2 * spatial, 0),
                       outputPadding = orDefault("output_padding", spatial, 0),
                       outputShape = n.intsAttr("output_shape");
  if ((int64_t)outputShape.size() == spatial + 2)
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  if ((int64_t)strides.size() != spatial || (int64_t)dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial ||
      (int64_t)outputPadding.size() != spatial ||
      (!outputShape.empty() && (int64_t)outputShape.size() != spatial))
    return n.emitError() << "strides/dilations/output_padding/output_shape "
                            "need "
                         << spatial << " entries and pads " << 2 * spatial;
  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (!llvm::is_contained({"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"},
                          StringRef(autoPad)))
    return n.unsupported("auto_pad '" + autoPad + "'");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (autoPad == "VALID")
    pads.assign(2 * spatial, 0);
  if (!outputShape.empty() || same) {
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = input.getDimSize(i + 2);
      int64_t target = outputShape.empty() ? in * strides[i] : outputShape[i];
      int64_t total = strides[i] * (in - 1) + outputPadding[i] +
                      ((*kernel)[i] - 1) * dilations[i] + 1 - target;
      int64_t half = llvm::divideFloorSigned(total, 2);
      pads[i] = autoPad == "SAME_UPPER" ? half : total - half;
      pads[i + spatial] = total - pads[i];
    }
  }
  auto out = n.create<ConvTransposeOp>(n.input(0), n.input(1), n.input(2),
                                       strides, pads, dilations, outputPadding,
                                       n.intAttr("group", 1));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importMaxPool(NodeImporter &n) {
  int64_t storageOrder = n.intAttr("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return n.emitError() << "storage_order must be 0 or 1";
  auto w = readWindow(n, n.intsAttr("kernel_shape"));
  if (failed(w))
    return failure();
  bool ceilMode = n.intAttr("ceil_mode", 0) != 0;
  if (!n.outputUsed(1)) {
    auto out = n.create<MaxPoolOp>(n.input(0), w->kernel, w->strides, w->pads,
                                   w->dilations, ceilMode, false);
    if (failed(out))
      return failure();
    n.setOutput(0, *out);
    return success();
  }
  // Two results: infer both types, then build with them.
  OpBuilder detached(n.context());
  Builder b(n.context());
  SmallVector<Type> types;
  auto probe = MaxPoolWithIndicesOp::create(
      detached, n.loc(), TypeRange{NoneType::get(n.context()), NoneType::get(n.context())},
      n.input(0), b.getDenseI64ArrayAttr(w->kernel),
      b.getDenseI64ArrayAttr(w->strides), b.getDenseI64ArrayAttr(w->pads),
      b.getDenseI64ArrayAttr(w->dilations), b.getBoolAttr(ceilMode),
      b.getBoolAttr(storageOrder == 1));
  bool inferred = succeeded(MaxPoolWithIndicesOp::inferReturnTypes(
      n.context(), n.loc(), probe->getOperands(), probe->getRawDictionaryAttrs(),
      probe->getPropertiesStorage(), probe->getRegions(), types));
  probe->erase();
  if (!inferred)
    return failure();
  auto op = MaxPoolWithIndicesOp::create(
      n.builder(), n.loc(), types, n.input(0), w->kernel, w->strides, w->pads,
      w->dilations, ceilMode, storageOrder == 1);
  n.setOutput(0, op.getOutput());
  n.setOutput(1, op.getIndices());
  return success();
}

LogicalResult importAveragePool(NodeImporter &n) {
  auto w = readWindow(n, n.intsAttr("kernel_shape"));
  if (failed(w))
    return failure();
  auto out = n.create<AveragePoolOp>(n.input(0), w->kernel, w->strides, w->pads,
                                     w->dilations, n.intAttr("ceil_mode", 0) != 0,
                                     n.intAttr("count_include_pad", 0) != 0);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// p is an integer from opset 2 on (a float before).
FailureOr<int64_t> readP(NodeImporter &n) {
  const auto *attr = n.attribute("p");
  if (!attr)
    return int64_t(2);
  double p = attr->type() == onnx::AttributeProto::FLOAT ? attr->f() : attr->i();
  if (p != std::floor(p) || p < 1)
    return n.unsupported("p = " + std::to_string(p));
  return (int64_t)p;
}

LogicalResult importLpPool(NodeImporter &n) {
  auto p = readP(n);
  if (failed(p))
    return failure();
  auto w = readWindow(n, n.intsAttr("kernel_shape"));
  if (failed(w))
    return failure();
  auto out = n.create<LpPoolOp>(n.input(0), *p, w->kernel, w->strides, w->pads,
                                w->dilations, n.intAttr("ceil_mode", 0) != 0);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importGlobalAveragePool(NodeImporter &n) {
  auto out = n.create<GlobalAveragePoolOp>(n.input(0));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// Global max and Lp pooling are their windowed forms with one window
/// covering all spatial positions.
template <typename OpTy>
LogicalResult importGlobalPool(NodeImporter &n) {
  auto input = n.inputType(0);
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1)
    return n.emitError() << "input must have rank >= 3 (N, C, spatial...)";
  SmallVector<int64_t> kernel(input.getShape().drop_front(2)),
      ones(spatial, 1), zeros(2 * spatial, 0);
  FailureOr<Value> out;
  if constexpr (std::is_same_v<OpTy, LpPoolOp>) {
    auto p = readP(n);
    if (failed(p))
      return failure();
    out = n.create<LpPoolOp>(n.input(0), *p, kernel, ones, zeros, ones, false);
  } else {
    out = n.create<MaxPoolOp>(n.input(0), kernel, ones, zeros, ones, false,
                              false);
  }
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

//===----------------------------------------------------------------------===//
// Resize and Upsample
//===----------------------------------------------------------------------===//

/// A constant float input as doubles; an empty vector for an absent or empty
/// input; failure if it is not a compile-time constant.
FailureOr<SmallVector<double>> constantFloats(NodeImporter &n, size_t i,
                                              StringRef what) {
  if (!n.input(i) || n.inputType(i).getNumElements() == 0)
    return SmallVector<double>{};
  DenseElementsAttr attr = n.constantInput(i);
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return n.needsConstant(i, "input '" + what +
                                  "' must be a compile-time float constant "
                                  "(data-dependent shapes are not supported)");
  SmallVector<double> values;
  for (const APFloat &v : attr.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

struct ResizeSettings {
  std::string mode, coordinateMode, nearestMode = "round_prefer_floor";
  double cubicA = -0.75, extrapolation = 0.0;
  bool excludeOutside = false, antialias = false;
};

/// Builds autoglm.resize from per-axis scales or sizes (one entry per axis
/// of `axes`), following the reference rules for output extents.
LogicalResult buildResize(NodeImporter &n, const ResizeSettings &s,
                          ArrayRef<double> axisScales,
                          ArrayRef<int64_t> axisSizes, ArrayRef<double> axisRoi,
                          ArrayRef<int64_t> axes, StringRef policy) {
  auto input = n.inputType(0);
  int64_t rank = input.getRank();
  SmallVector<double> scales(rank, 1.0), roi;
  SmallVector<int64_t> sizes(input.getShape());
  int64_t count = axes.size();
  bool crop = s.coordinateMode == "tf_crop_and_resize";
  if (crop && axisRoi.empty())
    return n.emitError() << "tf_crop_and_resize needs the roi input";
  if (crop) {
    if ((int64_t)axisRoi.size() != 2 * count)
      return n.emitError() << "roi needs " << 2 * count << " entries, got "
                           << axisRoi.size();
    roi.assign(rank, 0.0);
    roi.append(rank, 1.0);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      roi[axis] = axisRoi[i];
      roi[axis + rank] = axisRoi[i + count];
    }
  }
  if (!axisSizes.empty()) {
    if ((int64_t)axisSizes.size() != count)
      return n.emitError() << "sizes needs " << count << " entries, got "
                           << axisSizes.size();
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (axisSizes[i] < 1)
        return n.emitError() << "sizes must be positive";
      sizes[axis] = axisSizes[i];
      scales[axis] = (double)sizes[axis] / input.getDimSize(axis);
    }
    if (policy != "stretch") {
      double scale = scales[axes.front()];
      for (int64_t axis : axes)
        scale = policy == "not_larger" ? std::min(scale, scales[axis])
                                       : std::max(scale, scales[axis]);
      for (int64_t axis : axes) {
        scales[axis] = scale;
        sizes[axis] = (int64_t)(scale * input.getDimSize(axis) + 0.5);
      }
    }
  } else {
    if ((int64_t)axisScales.size() != count)
      return n.emitError() << "scales needs " << count << " entries, got "
                           << axisScales.size();
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (!(axisScales[i] > 0))
        return n.emitError() << "scales must be positive";
      scales[axis] = axisScales[i];
      sizes[axis] = (int64_t)std::floor(axisScales[i] * input.getDimSize(axis));
      if (sizes[axis] < 1)
        return n.emitError() << "scale " << axisScales[i] << " leaves no output "
                             << "along axis " << axis;
    }
    // The documentation also scales by the roi extent here; implementations
    // disagree, so only the unambiguous case is accepted.
    if (crop &&
        llvm::any_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
          return roi[d] != 0.0 || roi[d + rank] != 1.0;
        }))
      return n.unsupported("tf_crop_and_resize with scales and a cropping roi");
  }
  Builder b(n.context());
  auto out = n.create<ResizeOp>(
      n.input(0), b.getDenseF64ArrayAttr(scales),
      b.getDenseI64ArrayAttr(sizes), b.getStringAttr(s.mode),
      b.getStringAttr(s.coordinateMode), b.getStringAttr(s.nearestMode),
      b.getF64FloatAttr(s.cubicA), b.getBoolAttr(s.excludeOutside),
      b.getF64FloatAttr(s.extrapolation), b.getBoolAttr(s.antialias),
      b.getDenseF64ArrayAttr(roi));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// Before opset 11 (Upsample, Resize-10) coordinates are asymmetric and
/// nearest takes the floor when upsampling and the ceiling when
/// downsampling, as the common runtimes do.
LogicalResult importAsymmetricResize(NodeImporter &n, ArrayRef<double> scales) {
  ResizeSettings s;
  s.mode = n.stringAttr("mode", "nearest");
  if (s.mode == "bilinear")
    s.mode = "linear";
  if (s.mode != "nearest" && s.mode != "linear")
    return n.unsupported("mode '" + s.mode + "'");
  s.coordinateMode = "asymmetric";
  bool up = llvm::all_of(scales, [](double v) { return v >= 1; });
  bool down = llvm::all_of(scales, [](double v) { return v <= 1; });
  if (s.mode == "nearest" && !up && !down)
    return n.unsupported("nearest resizing that enlarges some axes and "
                         "shrinks others");
  s.nearestMode = up ? "floor" : "ceil";
  auto axes = llvm::to_vector(llvm::seq<int64_t>(0, n.inputType(0).getRank()));
  return buildResize(n, s, scales, {}, {}, axes, "stretch");
}

LogicalResult importUpsample(NodeImporter &n) {
  if (n.opset() >= 10)
    return n.unsupported("Upsample (deprecated since opset 10)");
  SmallVector<double> scales;
  if (n.opset() < 9) {
    const auto *attr = n.attribute("scales");
    if (!attr)
      return n.emitError() << "missing the scales attribute";
    scales.assign(attr->floats().begin(), attr->floats().end());
  } else {
    if (!n.input(1))
      return n.emitError() << "missing the scales input";
    auto values = constantFloats(n, 1, "scales");
    if (failed(values))
      return failure();
    scales = *values;
  }
  return importAsymmetricResize(n, scales);
}

LogicalResult importResize(NodeImporter &n) {
  int64_t rank = n.inputType(0).getRank();
  if (n.opset() < 11) {
    auto scales = constantFloats(n, 1, "scales");
    if (failed(scales))
      return failure();
    return importAsymmetricResize(n, *scales);
  }
  ResizeSettings s;
  s.mode = n.stringAttr("mode", "nearest");
  s.coordinateMode = n.stringAttr("coordinate_transformation_mode", "half_pixel");
  s.nearestMode = n.stringAttr("nearest_mode", "round_prefer_floor");
  s.cubicA = n.floatAttr("cubic_coeff_a", -0.75f);
  s.extrapolation = n.floatAttr("extrapolation_value", 0.0f);
  s.excludeOutside = n.intAttr("exclude_outside", 0) != 0;
  s.antialias = n.opset() >= 18 && n.intAttr("antialias", 0) != 0;
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, StringRef(s.mode)))
    return n.unsupported("mode '" + s.mode + "'");
  SmallVector<StringRef> modes = {"half_pixel", "pytorch_half_pixel",
                                  "align_corners", "asymmetric",
                                  "tf_crop_and_resize"};
  if (n.opset() == 11)
    modes.push_back("tf_half_pixel_for_nn");
  if (n.opset() >= 19)
    modes.push_back("half_pixel_symmetric");
  if (!llvm::is_contained(modes, StringRef(s.coordinateMode)))
    return n.unsupported("coordinate_transformation_mode '" +
                         s.coordinateMode + "'");
  if (!llvm::is_contained({"round_prefer_floor", "round_prefer_ceil", "floor",
                           "ceil"},
                          StringRef(s.nearestMode)))
    return n.unsupported("nearest_mode '" + s.nearestMode + "'");
  if (s.antialias && s.mode == "nearest")
    s.antialias = false; // antialias only changes linear and cubic kernels

  SmallVector<int64_t> axes;
  if (n.opset() >= 18 && n.hasAttr("axes")) {
    for (int64_t axis : n.intsAttr("axes")) {
      auto a = n.normalizeAxis(axis, rank);
      if (failed(a))
        return failure();
      if (llvm::is_contained(axes, *a))
        return n.emitError() << "axes must be unique";
      axes.push_back(*a);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  std::string policy = n.opset() >= 18
                           ? n.stringAttr("keep_aspect_ratio_policy", "stretch")
                           : "stretch";
  if (!llvm::is_contained({"stretch", "not_larger", "not_smaller"},
                          StringRef(policy)))
    return n.unsupported("keep_aspect_ratio_policy '" + policy + "'");

  // Only tf_crop_and_resize reads the roi.
  SmallVector<double> roi;
  if (s.coordinateMode == "tf_crop_and_resize") {
    auto values = constantFloats(n, 1, "roi");
    if (failed(values))
      return failure();
    roi = *values;
  }
  SmallVector<int64_t> sizes;
  if (n.input(3) && n.inputType(3).getNumElements() > 0) {
    auto values = n.constantInts(3, "sizes");
    if (failed(values))
      return failure();
    sizes = *values;
  }
  SmallVector<double> scales;
  if (sizes.empty()) {
    auto values = constantFloats(n, 2, "scales");
    if (failed(values))
      return failure();
    if (values->empty())
      return n.emitError() << "needs scales or sizes";
    scales = *values;
  } else if (n.input(2) && n.inputType(2).getNumElements() > 0) {
    return n.emitError() << "takes scales or sizes, not both";
  }
  return buildResize(n, s, scales, sizes, roi, axes, policy);
}

LogicalResult importMaxUnpool(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank(), spatial = rank - 2;
  if (rank < 3 || n.inputType(1).getShape() != type.getShape())
    return n.emitError() << "X and I must have one shape of rank >= 3";
  SmallVector<int64_t> kernel = n.intsAttr("kernel_shape");
  SmallVector<int64_t> strides = n.hasAttr("strides")
                                     ? n.intsAttr("strides")
                                     : SmallVector<int64_t>(spatial, 1);
  SmallVector<int64_t> pads = n.hasAttr("pads")
                                  ? n.intsAttr("pads")
                                  : SmallVector<int64_t>(2 * spatial, 0);
  if ((int64_t)kernel.size() != spatial || (int64_t)strides.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return n.emitError() << "kernel_shape, strides and pads must match the "
                         << spatial << " spatial axes";
  // The unpooled shape the pooling came from; I indexes it flattened whole.
  SmallVector<int64_t> unpooled(type.getShape().take_front(2));
  for (int64_t d = 0; d < spatial; ++d)
    unpooled.push_back((type.getDimSize(2 + d) - 1) * strides[d] -
                       (pads[d] + pads[spatial + d]) + kernel[d]);
  // A larger output_shape pads the unpooled result at the end.
  SmallVector<int64_t> shape = unpooled;
  if (n.input(2)) {
    auto values = n.constantInts(2, "output_shape");
    if (failed(values))
      return failure();
    shape = *values;
  }
  if ((int64_t)shape.size() != rank)
    return n.emitError() << "output_shape must have " << rank << " entries";
  SmallVector<int64_t> extra(2 * rank, 0);
  for (int64_t d = 0; d < rank; ++d) {
    if (shape[d] < unpooled[d])
      return n.emitError() << "output_shape " << inference::shapeString(shape)
                           << " is smaller than the unpooled shape "
                           << inference::shapeString(unpooled);
    extra[rank + d] = shape[d] - unpooled[d];
  }
  OpChain c(n);
  Type element = type.getElementType();
  int64_t total = product(unpooled), count = type.getNumElements();
  Value zeros = c.zeros(element, {total});
  Value y = c.op<ScatterElementsOp>(zeros, c.reshape(n.input(1), {count}),
                                    c.reshape(n.input(0), {count}), int64_t(0),
                                    "none");
  y = c.reshape(y, unpooled);
  if (llvm::any_of(extra, [](int64_t p) { return p != 0; }))
    y = c.op<PadOp>(y, extra, llvm::APFloat(0.0), "constant");
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

} // namespace

void autoglm::registerConvPoolImporters(OpImporterTable &t) {
  t["Conv"] = {importConv, 2};
  t["ConvInteger"] = {importConvInteger, 2};
  t["ConvTranspose"] = {importConvTranspose, 2};
  t["QLinearConv"] = {importQLinearConv, 8};
  t["MaxPool"] = {importMaxPool, 1};
  t["AveragePool"] = {importAveragePool, 1};
  t["LpPool"] = {importLpPool, 1};
  t["GlobalAveragePool"] = {importGlobalAveragePool, 1};
  t["GlobalMaxPool"] = {importGlobalPool<MaxPoolOp>, 1};
  t["GlobalLpPool"] = {importGlobalPool<LpPoolOp>, 1};
  t["Resize"] = {importResize, 1};
  t["Upsample"] = {importUpsample, 1};
  t["MaxUnpool"] = {importMaxUnpool, 2};
}
