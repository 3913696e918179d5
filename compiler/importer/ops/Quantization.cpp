//===- Quantization.cpp - importers of quantized ONNX operators -----------===//
//
// QuantizeLinear/DequantizeLinear map to their autoglm ops; the dynamic and
// integer-matmul operators are spelled with them and primitive ops, which
// keeps one meaning of quantization in the dialect.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/NodeImporter.h"
#include "compiler/importer/TensorConversion.h"
#include "dialects/StorageTypes.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// A zero point of `type` with the shape of `scale` (absent zero points).
Value zeroLike(NodeImporter &n, Value scale, Type type) {
  auto shape = cast<RankedTensorType>(scale.getType()).getShape();
  auto tensorType = RankedTensorType::get(shape, type);
  return n.constant(DenseElementsAttr::get(
      tensorType, cast<Attribute>(Builder(n.context()).getZeroAttr(type))));
}

/// Blocked quantization: parameters with one entry per `block` elements
/// along `axis`, repeated to the input's shape by a gather.
FailureOr<Value> expandBlocks(NodeImporter &n, Value param, int64_t axis,
                              int64_t block) {
  auto in = n.inputType(0);
  auto type = cast<RankedTensorType>(param.getType());
  int64_t extent = in.getDimSize(axis);
  if (type.getRank() != in.getRank() ||
      type.getDimSize(axis) != (extent + block - 1) / block)
    return n.emitError() << "blocked quantization parameters of shape "
                         << type << " do not match blocks of " << block;
  SmallVector<int64_t> indices;
  for (int64_t i = 0; i < extent; ++i)
    indices.push_back(i / block);
  Value index = n.constant(DenseElementsAttr::get(
      RankedTensorType::get({extent}, IntegerType::get(n.context(), 64)),
      ArrayRef<int64_t>(indices)));
  return n.create<GatherOp>(param, index, axis);
}

FailureOr<int64_t> quantAxis(NodeImporter &n) {
  if (n.intAttr("block_size", 0) != 0) {
    if (n.inputType(0).getRank() == 0)
      return n.emitError() << "blocked quantization of a scalar";
    return n.normalizeAxis(n.intAttr("axis", 1), n.inputType(0).getRank());
  }
  // The axis only matters for per-channel (1-D) parameters.
  int64_t rank = n.inputType(0).getRank();
  if (rank == 0 || n.inputType(1).getNumElements() == 1)
    return int64_t(0);
  return n.normalizeAxis(n.intAttr("axis", 1), rank);
}

LogicalResult importQuantizeLinear(NodeImporter &n) {
  auto axis = quantAxis(n);
  if (failed(axis))
    return failure();
  Value zp = n.input(2);
  if (!zp) {
    int64_t dtype = n.intAttr("output_dtype", onnx::TensorProto::UINT8);
    Type type = convertElementType(dtype, n.context());
    if (!type || type.isInteger(1) || isa<Float8E8M0FNUType>(type) ||
        (!isa<IntegerType>(type) && !isNarrowFloat(type)))
      return n.unsupported("QuantizeLinear to " + onnxTypeName(dtype));
    zp = zeroLike(n, n.input(1), type);
  }
  if (isa<Float8E8M0FNUType>(getElementTypeOrSelf(zp.getType())))
    return n.unsupported("QuantizeLinear to float8e8m0");
  Value scale = n.input(1);
  if (int64_t block = n.intAttr("block_size", 0)) {
    auto s = expandBlocks(n, scale, *axis, block);
    auto z = succeeded(s) ? expandBlocks(n, zp, *axis, block) : FailureOr<Value>();
    if (failed(s) || failed(z))
      return failure();
    scale = *s;
    zp = *z;
  }
  // The division runs in the input's type; another precision is not built.
  int64_t precision = n.intAttr("precision", 0);
  if (precision != 0 && convertElementType(precision, n.context()) !=
                            n.inputType(0).getElementType())
    return n.unsupported("QuantizeLinear with precision " +
                         onnxTypeName(precision));
  bool saturate = n.intAttr("saturate", 1) != 0;
  auto out = n.create<QuantizeLinearOp>(n.input(0), scale, zp, *axis,
                                        saturate);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importDequantizeLinear(NodeImporter &n) {
  auto axis = quantAxis(n);
  if (failed(axis))
    return failure();
  Value zp = n.input(2);
  if (!zp)
    zp = zeroLike(n, n.input(1), n.inputType(0).getElementType());
  Value scale = n.input(1);
  if (int64_t block = n.intAttr("block_size", 0)) {
    auto s = expandBlocks(n, scale, *axis, block);
    auto z = succeeded(s) ? expandBlocks(n, zp, *axis, block) : FailureOr<Value>();
    if (failed(s) || failed(z))
      return failure();
    scale = *s;
    zp = *z;
  }
  auto out = n.create<DequantizeLinearOp>(n.input(0), scale, zp, *axis);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

/// y_scale = (max(0, max(x)) - min(0, min(x))) / 255,
/// y_zero_point = saturate(round(-min(0, min(x)) / y_scale)),
/// y = quantize_linear(x, y_scale, y_zero_point) as uint8.
LogicalResult importDynamicQuantizeLinear(NodeImporter &n) {
  Value x = n.input(0);
  auto f32 = Float32Type::get(n.context());
  auto scalar = [&](float v) {
    return n.constant(DenseElementsAttr::get(RankedTensorType::get({}, f32), v));
  };
  auto reduceAll = [&](auto tag) -> FailureOr<Value> {
    using OpTy = decltype(tag);
    return n.create<OpTy>(x, ArrayRef<int64_t>{}, false);
  };
  auto hi = reduceAll(ReduceMaxOp());
  auto lo = reduceAll(ReduceMinOp());
  if (failed(hi) || failed(lo))
    return failure();
  auto maxPos = n.create<MaxOp>(*hi, scalar(0));
  auto minNeg = n.create<MinOp>(*lo, scalar(0));
  if (failed(maxPos) || failed(minNeg))
    return failure();
  auto range = n.create<SubOp>(*maxPos, *minNeg);
  if (failed(range))
    return failure();
  auto scale = n.create<DivOp>(*range, scalar(255));
  if (failed(scale))
    return failure();
  auto negMin = n.create<SubOp>(scalar(0), *minNeg);
  if (failed(negMin))
    return failure();
  auto ratio = n.create<DivOp>(*negMin, *scale);
  if (failed(ratio))
    return failure();
  Value rounded = n.createTyped<RoundOp>(*ratio);
  Builder b(n.context());
  Value clipped = n.createTyped<ClipOp>(rounded, b.getF64FloatAttr(0),
                                        b.getF64FloatAttr(255));
  auto u8 = IntegerType::get(n.context(), 8, IntegerType::Unsigned);
  auto zp = n.create<CastOp>(clipped, u8);
  if (failed(zp))
    return failure();
  auto y = n.create<QuantizeLinearOp>(x, *scale, *zp, int64_t(0));
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  n.setOutput(1, *scale);
  n.setOutput(2, *zp);
  return success();
}

/// (A - a_zero_point) x (B - b_zero_point) accumulated in int32. The lhs
/// zero point is per row ([M]), the rhs one per column ([N]) or scalars.
/// With scalar (or no) zero points, one autoglm.matmul_integer: the 8-bit
/// operands stay 8-bit, for the int8 GEMM; otherwise the operands are
/// widened to i32 and their zero points subtracted before an i32 matmul.
LogicalResult importMatMulInteger(NodeImporter &n) {
  auto i32 = IntegerType::get(n.context(), 32);
  if (Value aZp = n.scalarZeroPoint(0, 2))
    if (Value bZp = n.scalarZeroPoint(1, 3)) {
      auto out = n.create<MatMulIntegerOp>(n.input(0), n.input(1), aZp, bZp);
      if (failed(out))
        return failure();
      n.setOutput(0, *out);
      return success();
    }
  auto widen = [&](size_t operand, size_t zpIndex,
                   bool perRow) -> FailureOr<Value> {
    auto value = n.create<CastOp>(n.input(operand), i32);
    if (failed(value) || !n.input(zpIndex))
      return value;
    Value zp = n.input(zpIndex);
    auto zpType = n.inputType(zpIndex);
    if (perRow && zpType.getRank() == 1 && zpType.getNumElements() > 1)
      zp = n.reshape(zp, {zpType.getDimSize(0), 1});
    auto wideZp = n.create<CastOp>(zp, i32);
    if (failed(wideZp))
      return failure();
    return n.create<SubOp>(*value, *wideZp);
  };
  auto a = widen(0, 2, /*perRow=*/true);
  auto b = widen(1, 3, /*perRow=*/false);
  if (failed(a) || failed(b))
    return failure();
  auto out = n.create<MatMulOp>(*a, *b);
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

/// A per-row parameter [M] of a matrix operand viewed as [M, 1] so that it
/// broadcasts along the rows; scalars and per-column parameters stay.
Value perRow(NodeImporter &n, size_t i) {
  auto type = n.inputType(i);
  if (type.getRank() == 1 && type.getNumElements() > 1)
    return n.reshape(n.input(i), {type.getDimSize(0), 1});
  return n.input(i);
}

/// QLinearMatMul as float ops: both operands dequantized with unit scales
/// (a - a_zero_point, b - b_zero_point: exact small integers), a float
/// matmul, then the product scaled by a_scale * b_scale / y_scale (in the
/// scales' type, as the reference computes it) in f64 and quantized to
/// y_zero_point's type. a's parameters may be per row, b's per column.
LogicalResult importQLinearMatMul(NodeImporter &n) {
  auto f32 = Float32Type::get(n.context());
  auto f64 = Float64Type::get(n.context());
  auto dequantize = [&](size_t value, size_t zp,
                        int64_t fromEnd) -> FailureOr<Value> {
    auto zpType = n.inputType(zp);
    int64_t rank = n.inputType(value).getRank();
    int64_t axis = zpType.getNumElements() == 1 ? 0 : std::max<int64_t>(rank - fromEnd, 0);
    return n.create<DequantizeLinearOp>(n.input(value),
                                        ones(n, zpType.getShape(), f32),
                                        n.input(zp), axis);
  };
  auto a = dequantize(0, 2, 2);
  auto b = dequantize(3, 5, 1);
  if (failed(a) || failed(b))
    return failure();
  auto product = n.create<MatMulOp>(*a, *b);
  if (failed(product))
    return failure();
  auto scales = n.create<MulOp>(perRow(n, 1), n.input(4));
  if (failed(scales))
    return failure();
  auto multiplier = n.create<DivOp>(*scales, n.input(6));
  if (failed(multiplier))
    return failure();
  auto wide = n.create<CastOp>(*product, f64);
  auto wideMultiplier = n.create<CastOp>(*multiplier, f64);
  if (failed(wide) || failed(wideMultiplier))
    return failure();
  auto scaled = n.create<MulOp>(*wide, *wideMultiplier);
  if (failed(scaled))
    return failure();
  if (n.inputType(7).getNumElements() != 1)
    return n.unsupported("a per-column y_zero_point");
  auto y = n.create<QuantizeLinearOp>(*scaled, ones(n, {}, f64),
                                      n.reshape(n.input(7), {}), int64_t(0));
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  return success();
}

} // namespace

void autoglm::registerQuantizationImporters(OpImporterTable &t) {
  t["QuantizeLinear"] = {importQuantizeLinear, 2};
  t["DequantizeLinear"] = {importDequantizeLinear, 2};
  t["DynamicQuantizeLinear"] = {importDynamicQuantizeLinear, 1};
  t["MatMulInteger"] = {importMatMulInteger, 2};
  t["QLinearMatMul"] = {importQLinearMatMul, 8};
}
