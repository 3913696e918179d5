//===- AutoGLMOps.cpp - result type inference and verifiers ---------------===//
//
// Every op infers its static result type from operands and attributes; the
// InferTypeOpInterface verifier then checks the declared type against it, so
// an inconsistent shape anywhere in the graph is reported at its ONNX node.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/StorageTypes.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace autoglm;

using namespace autoglm::inference;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename Op>
static LogicalResult inferBinary(std::optional<Location> loc,
                                 typename Op::Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto lhs = shapedAs(adaptor.getLhs()), rhs = shapedAs(adaptor.getRhs());
  return inferBroadcast(loc, {lhs, rhs}, lhs.getElementType(), inferred);
}

template <typename Op>
static LogicalResult verifySameElementTypes(Op op) {
  if (getElementTypeOrSelf(op.getLhs()) != getElementTypeOrSelf(op.getRhs()))
    return op.emitOpError("operands must have the same element type, got ")
           << getElementTypeOrSelf(op.getLhs()) << " and "
           << getElementTypeOrSelf(op.getRhs());
  return success();
}

#define AGL_BINARY(Op, Verify)                                                 \
  LogicalResult Op::inferReturnTypes(MLIRContext *, std::optional<Location> l, \
                                     Adaptor a, SmallVectorImpl<Type> &t) {    \
    return inferBinary<Op>(l, a, t);                                           \
  }                                                                            \
  LogicalResult Op::verify() { return Verify; }

AGL_BINARY(AddOp, verifySameElementTypes(*this))
AGL_BINARY(SubOp, verifySameElementTypes(*this))
AGL_BINARY(MulOp, verifySameElementTypes(*this))
AGL_BINARY(DivOp, verifySameElementTypes(*this))
AGL_BINARY(MinOp, verifySameElementTypes(*this))
AGL_BINARY(MaxOp, verifySameElementTypes(*this))
// Pow's exponent may have its own element type (ONNX allows it).
AGL_BINARY(PowOp, success())
#undef AGL_BINARY

#define AGL_COMPARE(Op)                                                        \
  LogicalResult Op::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> l, Adaptor a,     \
                                     SmallVectorImpl<Type> &t) {               \
    return inferBroadcast(l, {shapedAs(a.getLhs()), shapedAs(a.getRhs())},     \
                          IntegerType::get(ctx, 1), t);                        \
  }                                                                            \
  LogicalResult Op::verify() { return verifySameElementTypes(*this); }

AGL_COMPARE(EqualOp)
AGL_COMPARE(LessOp)
AGL_COMPARE(GreaterOp)
#undef AGL_COMPARE

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto x = shapedAs(adaptor.getX());
  return inferBroadcast(
      loc, {shapedAs(adaptor.getCondition()), x, shapedAs(adaptor.getY())},
      x.getElementType(), inferred);
}

LogicalResult WhereOp::verify() {
  if (getElementTypeOrSelf(getX()) != getElementTypeOrSelf(getY()))
    return emitOpError("x and y must have the same element type");
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      shapedAs(adaptor.getInput()).clone(adaptor.getTo()));
  return success();
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Per-tensor parameters are scalars (or 1-element); per-channel ones are
/// 1-D with one entry per slice of `axis`.
static LogicalResult verifyQuantParams(Operation *op, Value input,
                                       Value scale, Value zeroPoint,
                                       int64_t axis) {
  auto in = shapedAs(input);
  if (failed(checkAxis(op->getLoc(), axis, std::max<int64_t>(in.getRank(), 1))))
    return failure();
  for (Value param : {scale, zeroPoint}) {
    auto t = shapedAs(param);
    bool perTensor = t.getNumElements() == 1 && t.getRank() <= 1;
    bool perChannel = t.getRank() == 1 && in.getRank() > 0 &&
                      t.getDimSize(0) == in.getDimSize(axis);
    bool perElement = t.getShape() == in.getShape(); // blocked, expanded
    if (!perTensor && !perChannel && !perElement)
      return op->emitOpError("scale and zero point must be scalars, have "
                             "one entry per slice of axis ")
             << axis << " or the input's shape, got "
             << shapeString(t.getShape());
  }
  // A scalar and a 1-element vector are both per-tensor.
  bool bothPerTensor = shapedAs(scale).getNumElements() == 1 &&
                       shapedAs(zeroPoint).getNumElements() == 1;
  if (!bothPerTensor &&
      shapedAs(scale).getShape() != shapedAs(zeroPoint).getShape())
    return op->emitOpError("scale and zero point must have the same shape");
  return success();
}

LogicalResult QuantizeLinearOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(shapedAs(adaptor.getInput())
                         .clone(getElementTypeOrSelf(adaptor.getZeroPoint())));
  return success();
}

LogicalResult QuantizeLinearOp::verify() {
  Type quantized = getElementTypeOrSelf(getZeroPoint());
  if (!isa<IntegerType>(quantized) && !isNarrowFloat(quantized))
    return emitOpError("zero point must be an integer, float8 or float4 tensor");
  if (isa<Float8E8M0FNUType>(quantized))
    return emitOpError("quantizing to f8E8M0FNU is not supported");
  return verifyQuantParams(*this, getInput(), getScale(), getZeroPoint(),
                           getAxis());
}

LogicalResult DequantizeLinearOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(shapedAs(adaptor.getInput())
                         .clone(getElementTypeOrSelf(adaptor.getScale())));
  return success();
}

LogicalResult DequantizeLinearOp::verify() {
  if (getElementTypeOrSelf(getInput()) != getElementTypeOrSelf(getZeroPoint()))
    return emitOpError("input and zero point must have the same type");
  return verifyQuantParams(*this, getInput(), getScale(), getZeroPoint(),
                           getAxis());
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// The shape of numpy's matmul of `lhs` and `rhs`.
static FailureOr<SmallVector<int64_t>>
inferMatMulShape(ShapedType lhs, ShapedType rhs, std::optional<Location> loc) {
  if (lhs.getRank() == 0 || rhs.getRank() == 0)
    return fail(loc, "matmul operands must have rank >= 1");
  MatMulShape s = getMatMulShape(lhs.getShape(), rhs.getShape());
  if (s.lhsK != s.rhsK)
    return fail(loc, "matmul contraction extents differ: " +
                         shapeString(lhs.getShape()) + " x " +
                         shapeString(rhs.getShape()));
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(s.lhsBatch, s.rhsBatch, batch))
    return fail(loc, "matmul batch dimensions " + shapeString(s.lhsBatch) +
                         " and " + shapeString(s.rhsBatch) +
                         " are not broadcast-compatible");
  SmallVector<int64_t> shape(batch);
  if (lhs.getRank() > 1)
    shape.push_back(s.m);
  if (rhs.getRank() > 1)
    shape.push_back(s.n);
  return shape;
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lhs = shapedAs(adaptor.getLhs()), rhs = shapedAs(adaptor.getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return fail(loc, "matmul operands must have the same element type");
  auto shape = inferMatMulShape(lhs, rhs, loc);
  if (failed(shape))
    return failure();
  inferred.push_back(RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

LogicalResult MatMulIntegerOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto shape = inferMatMulShape(shapedAs(adaptor.getLhs()),
                                shapedAs(adaptor.getRhs()), loc);
  if (failed(shape))
    return failure();
  inferred.push_back(
      RankedTensorType::get(*shape, IntegerType::get(ctx, 32)));
  return success();
}

/// The operands of an integer product or convolution: 8-bit integers, each
/// with a per-tensor zero point of its own type.
static LogicalResult
verifyIntegerOperands(Operation *op,
                      std::initializer_list<std::pair<Value, Value>> operands) {
  for (auto [operand, zeroPoint] : operands) {
    Type element = getElementTypeOrSelf(operand);
    if (!element.isInteger(8))
      return op->emitOpError("operands must be 8-bit integers, got ")
             << element;
    if (getElementTypeOrSelf(zeroPoint) != element)
      return op->emitOpError("a zero point must have its operand's type");
    if (shapedAs(zeroPoint).getNumElements() != 1 ||
        shapedAs(zeroPoint).getRank() > 1)
      return op->emitOpError("zero points must be per-tensor scalars");
  }
  return success();
}

LogicalResult MatMulIntegerOp::verify() {
  return verifyIntegerOperands(
      *this, {{getLhs(), getLhsZeroPoint()}, {getRhs(), getRhsZeroPoint()}});
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto a = shapedAs(adaptor.getA()), b = shapedAs(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return fail(loc, "gemm operands must be 2-D");
  if (a.getElementType() != b.getElementType() ||
      (adaptor.getC() &&
       getElementTypeOrSelf(adaptor.getC()) != a.getElementType()))
    return fail(loc, "gemm operands must have the same element type");
  bool ta = adaptor.getTransA(), tb = adaptor.getTransB();
  int64_t m = a.getDimSize(ta ? 1 : 0), ka = a.getDimSize(ta ? 0 : 1);
  int64_t kb = b.getDimSize(tb ? 1 : 0), n = b.getDimSize(tb ? 0 : 1);
  if (ka != kb)
    return fail(loc, "gemm contraction extents differ: " + Twine(ka) +
                         " vs " + Twine(kb));
  inferred.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult GemmOp::verify() {
  if (!getC())
    return success();
  auto resultShape = getType().getShape();
  if (!broadcastsTo(shapedAs(getC()).getShape(), resultShape))
    return emitOpError("bias of shape ")
           << shapeString(shapedAs(getC()).getShape())
           << " does not broadcast to the result " << shapeString(resultShape);
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return checkAxis(getLoc(), getAxis(), shapedAs(getInput()).getRank());
}

#define AGL_REDUCE(Op)                                                         \
  LogicalResult Op::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> l, Adaptor a,     \
                                     SmallVectorImpl<Type> &t) {               \
    return inferReduction(l, a.getInput(), a.getAxes(), a.getKeepdims(), t);   \
  }
AGL_REDUCE(ReduceMeanOp)
AGL_REDUCE(ReduceSumOp)
AGL_REDUCE(ReduceMaxOp)
AGL_REDUCE(ReduceMinOp)
AGL_REDUCE(ReduceProdOp)
AGL_REDUCE(ReduceL1Op)
AGL_REDUCE(ReduceL2Op)
AGL_REDUCE(ReduceSumSquareOp)
AGL_REDUCE(ReduceLogSumOp)
AGL_REDUCE(ReduceLogSumExpOp)
#undef AGL_REDUCE

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult LayerNormOp::verify() {
  // Checked against the input: a wrong result type is reported by the
  // inferred-type check, not as a confusing parameter error.
  auto type = shapedAs(getInput());
  if (failed(checkAxis(getLoc(), getAxis(), type.getRank())))
    return failure();
  auto normalized = type.getShape().drop_front(getAxis());
  for (Value param : {getScale(), getBias()}) {
    if (!param)
      continue;
    if (!broadcastsTo(shapedAs(param).getShape(), normalized))
      return emitOpError("scale/bias of shape ")
             << shapeString(shapedAs(param).getShape())
             << " does not broadcast to the normalized shape "
             << shapeString(normalized);
  }
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult BatchNormOp::verify() {
  auto type = shapedAs(getInput());
  if (type.getRank() < 2)
    return emitOpError("input must have rank >= 2");
  int64_t channels = type.getDimSize(1);
  for (Value param : {getScale(), getBias(), getMean(), getVariance()})
    if (shapedAs(param).getRank() != 1 ||
        shapedAs(param).getDimSize(0) != channels)
      return emitOpError("per-channel parameters must have shape [")
             << channels << "], got "
             << shapeString(shapedAs(param).getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

static LogicalResult checkWindowAttrs(std::optional<Location> loc,
                                      int64_t spatial, ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> pads,
                                      ArrayRef<int64_t> dilations) {
  if ((int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return fail(loc, "strides/dilations need " + Twine(spatial) +
                         " entries and pads " + Twine(2 * spatial));
  return success();
}

/// The output shape [N, F, out...] of a convolution (autoglm.conv's
/// rules), or a failure naming what does not fit.
static FailureOr<SmallVector<int64_t>>
inferConvShape(std::optional<Location> loc, ShapedType input, ShapedType filter,
               int64_t group, ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
               ArrayRef<int64_t> dilations) {
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1 || filter.getRank() != input.getRank())
    return fail(loc, "conv needs input and filter of equal rank >= 3");
  if (failed(checkWindowAttrs(loc, spatial, strides, pads, dilations)))
    return failure();
  if (group < 1 || input.getDimSize(1) != filter.getDimSize(1) * group ||
      filter.getDimSize(0) % group != 0)
    return fail(loc, "conv channels do not match: input has " +
                         Twine(input.getDimSize(1)) + ", filter expects " +
                         Twine(filter.getDimSize(1)) + " x group " +
                         Twine(group));
  SmallVector<int64_t> shape = {input.getDimSize(0), filter.getDimSize(0)};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t out;
    if (failed(windowExtent(loc, input.getDimSize(i + 2),
                            filter.getDimSize(i + 2), strides[i], dilations[i],
                            pads[i], pads[i + spatial], false, out)))
      return failure();
    shape.push_back(out);
  }
  return shape;
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  auto shape = inferConvShape(loc, input, shapedAs(adaptor.getFilter()),
                              adaptor.getGroup(), adaptor.getStrides(),
                              adaptor.getPads(), adaptor.getDilations());
  if (failed(shape))
    return failure();
  inferred.push_back(input.clone(*shape));
  return success();
}

LogicalResult ConvOp::verify() {
  if (getBias() && (shapedAs(getBias()).getRank() != 1 ||
                    shapedAs(getBias()).getDimSize(0) !=
                        shapedAs(getFilter()).getDimSize(0)))
    return emitOpError("bias must have one entry per filter");
  return success();
}

LogicalResult ConvIntegerOp::inferReturnTypes(MLIRContext *ctx,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  auto shape = inferConvShape(loc, input, shapedAs(adaptor.getFilter()),
                              /*group=*/1, adaptor.getStrides(),
                              adaptor.getPads(), adaptor.getDilations());
  if (failed(shape))
    return failure();
  inferred.push_back(RankedTensorType::get(*shape, IntegerType::get(ctx, 32)));
  return success();
}

LogicalResult ConvIntegerOp::verify() {
  return verifyIntegerOperands(*this, {{getInput(), getInputZeroPoint()},
                                       {getFilter(), getFilterZeroPoint()}});
}

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1 || (int64_t)adaptor.getKernelShape().size() != spatial)
    return fail(loc, "pooling needs rank >= 3 and one kernel extent per "
                     "spatial axis");
  if (failed(checkWindowAttrs(loc, spatial, adaptor.getStrides(),
                              adaptor.getPads(), adaptor.getDilations())))
    return failure();
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t out;
    if (failed(windowExtent(loc, input.getDimSize(i + 2),
                            adaptor.getKernelShape()[i], adaptor.getStrides()[i],
                            adaptor.getDilations()[i], adaptor.getPads()[i],
                            adaptor.getPads()[i + spatial],
                            adaptor.getCeilMode(), out)))
      return failure();
    shape.push_back(out);
  }
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferPool(loc, adaptor, inferred);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  return inferPool(loc, adaptor, inferred);
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  if (input.getRank() < 3)
    return fail(loc, "global pooling needs rank >= 3");
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  shape.append(input.getRank() - 2, 1);
  inferred.push_back(input.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getValue().getType());
  return success();
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  int64_t rank = shapedAs(adaptor.getInput()).getRank();
  int64_t start = adaptor.getStart(), end = adaptor.getEnd();
  if (start < 0 || start > end || end > rank)
    return fail(loc, "shape range [" + Twine(start) + ", " + Twine(end) +
                         ") is invalid for rank " + Twine(rank));
  inferred.push_back(
      RankedTensorType::get({end - start}, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = shapedAs(getInput());
  if (in.getElementType() != getType().getElementType())
    return emitOpError("cannot change the element type");
  if ((int64_t)getSizes().size() != getType().getNumDynamicDims())
    return emitOpError("takes one size per symbolic result extent (")
           << getType().getNumDynamicDims() << "), got " << getSizes().size();
  if (in.hasStaticShape() && getType().hasStaticShape() &&
      in.getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << shapeString(in.getShape()) << " (" << in.getNumElements()
           << " elements) to " << shapeString(getType().getShape()) << " ("
           << getType().getNumElements() << " elements)";
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  int64_t rank = input.getRank() + adaptor.getAxes().size();
  SmallVector<int64_t> shape(rank, -1);
  for (int64_t axis : adaptor.getAxes()) {
    if (axis < 0 || axis >= rank || shape[axis] == 1)
      return fail(loc, "unsqueeze axes must be unique and in range");
    shape[axis] = 1;
  }
  auto dims = input.getShape().begin();
  for (int64_t &d : shape)
    if (d == -1)
      d = *dims++;
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  for (int64_t axis : adaptor.getAxes())
    if (axis < 0 || axis >= input.getRank() || input.getDimSize(axis) != 1)
      return fail(loc, "squeeze axis " + Twine(axis) +
                           " must name an extent-1 dimension");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!llvm::is_contained(adaptor.getAxes(), d))
      shape.push_back(input.getDimSize(d));
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis > input.getRank())
    return fail(loc, "flatten axis out of range");
  auto dims = input.getShape();
  int64_t outer = product(dims.take_front(axis));
  int64_t inner = product(dims.drop_front(axis));
  inferred.push_back(input.clone({outer, inner}));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  auto perm = adaptor.getPerm();
  if ((int64_t)perm.size() != input.getRank() || !isPermutationVector(perm))
    return fail(loc, "perm must be a permutation of the " +
                         Twine(input.getRank()) + " axes");
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (adaptor.getInputs().empty())
    return fail(loc, "concat needs at least one input");
  auto first = shapedAs(adaptor.getInputs().front());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : adaptor.getInputs().drop_front()) {
    auto t = shapedAs(v);
    bool match = t.getRank() == first.getRank() &&
                 t.getElementType() == first.getElementType();
    // A symbolic extent is taken to equal the other input's.
    for (int64_t d = 0; match && d < t.getRank(); ++d)
      match = d == axis || t.getDimSize(d) == shape[d] ||
              t.isDynamicDim(d) || ShapedType::isDynamic(shape[d]);
    if (!match)
      return fail(loc, "concat input of type " + Twine(shapeString(t.getShape())) +
                           " does not match " + shapeString(first.getShape()) +
                           " outside axis " + Twine(axis));
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && ShapedType::isDynamic(shape[d]))
        shape[d] = t.getDimSize(d);
    shape[axis] = ShapedType::isDynamic(shape[axis]) || t.isDynamicDim(axis)
                      ? ShapedType::kDynamic
                      : shape[axis] + t.getDimSize(axis);
  }
  inferred.push_back(first.clone(shape));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  auto starts = adaptor.getStarts(), ends = adaptor.getEnds(),
       steps = adaptor.getSteps();
  int64_t rank = input.getRank();
  if ((int64_t)starts.size() != rank || (int64_t)ends.size() != rank ||
      (int64_t)steps.size() != rank)
    return fail(loc, "slice needs one start, end and step per axis");
  ArrayRef<int64_t> dynamicAxes;
  if (auto axes = adaptor.getDynamicAxesAttr())
    dynamicAxes = axes.asArrayRef();
  // Reading backwards is built with static extents only.
  if ((!dynamicAxes.empty() || !input.hasStaticShape()) &&
      llvm::any_of(steps, [](int64_t s) { return s < 0; }))
    return fail(loc, "a negative step on a slice with symbolic extents is "
                     "not supported");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (steps[d] == 0)
      return fail(loc, "slice step must not be 0");
    // Bounds known at run time: a symbolic extent.
    if (llvm::is_contained(dynamicAxes, d)) {
      if (steps[d] != 1)
        return fail(loc, "a slice with bounds known at run time needs step 1");
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // A symbolic axis can only be taken whole: start 0, end ?, step 1.
    if (input.isDynamicDim(d)) {
      if (starts[d] != 0 || !ShapedType::isDynamic(ends[d]) || steps[d] != 1)
        return fail(loc, "slicing the symbolic axis " + Twine(d) +
                             " is not supported");
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    shape.push_back(sliceExtent(starts[d], ends[d], steps[d]));
    bool inRange = shape.back() == 0 ||
                   (starts[d] >= 0 && starts[d] < input.getDimSize(d) &&
                    starts[d] + (shape.back() - 1) * steps[d] >= 0 &&
                    starts[d] + (shape.back() - 1) * steps[d] <
                        input.getDimSize(d));
    if (!inRange)
      return fail(loc, "slice of axis " + Twine(d) + " leaves its extent " +
                           Twine(input.getDimSize(d)));
  }
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> axes;
  if (auto attr = getDynamicAxesAttr())
    axes = attr.asArrayRef();
  if (getBounds().size() != 2 * axes.size())
    return emitOpError("takes a start and an end per dynamic axis (")
           << 2 * axes.size() << " bounds), got " << getBounds().size();
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis < 0 || axis >= getType().getRank() || (i && axes[i - 1] >= axis))
      return emitOpError("dynamic axes must be sorted, unique and in range");
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto data = shapedAs(adaptor.getData());
  auto indices = shapedAs(adaptor.getIndices());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, data.getRank())))
    return failure();
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  inferred.push_back(data.clone(shape));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(input.getShape(), adaptor.getShape(),
                                          shape))
    return fail(loc, "cannot expand " + shapeString(input.getShape()) +
                         " to " + shapeString(adaptor.getShape()));
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult ExpandOp::verify() {
  if ((int64_t)getSizes().size() != getType().getNumDynamicDims())
    return emitOpError("takes one size per symbolic result extent (")
           << getType().getNumDynamicDims() << "), got " << getSizes().size();
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  int64_t rank = input.getRank();
  auto pads = adaptor.getPads();
  if ((int64_t)pads.size() != 2 * rank)
    return fail(loc, "pad needs " + Twine(2 * rank) + " amounts");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    shape.push_back(input.getDimSize(d) + pads[d] + pads[d + rank]);
    if (shape.back() < 0)
      return fail(loc, "padding crops axis " + Twine(d) + " below zero");
  }
  inferred.push_back(input.clone(shape));
  return success();
}

#define GET_OP_CLASSES
#include "dialects/AutoGLMOps.cpp.inc"
