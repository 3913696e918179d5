//===- Normalization.cpp - type inference of Normalization ops ------------------------------===//
//
// Inference and verifiers of the ops in ops/Normalization.td that are not in
// AutoGLMOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;

//===----------------------------------------------------------------------===//
// Softmax-like ops
//===----------------------------------------------------------------------===//

LogicalResult LogSoftmaxOp::verify() {
  return checkAxis(getLoc(), getAxis(), shapedAs(getInput()).getRank());
}

LogicalResult HardmaxOp::verify() {
  return checkAxis(getLoc(), getAxis(), shapedAs(getInput()).getRank());
}

template <typename Op>
static LogicalResult inferArgReduction(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       typename Op::Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = shapedAs(adaptor.getInput());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, type.getRank())))
    return failure();
  SmallVector<int64_t> shape(type.getShape());
  if (adaptor.getKeepdims())
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduction<ArgMaxOp>(ctx, loc, adaptor, inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduction<ArgMinOp>(ctx, loc, adaptor, inferred);
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = shapedAs(adaptor.getInput());
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (failed(checkAxis(loc, axis, type.getRank())))
    return failure();
  if (k < 0 || k > type.getDimSize(axis))
    return fail(loc, "k = " + Twine(k) + " is out of range for an axis of " +
                         Twine(type.getDimSize(axis)) + " elements");
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = k;
  inferred.push_back(type.clone(shape));
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult CumSumOp::verify() {
  return checkAxis(getLoc(), getAxis(), shapedAs(getInput()).getRank());
}

LogicalResult CumProdOp::verify() {
  return checkAxis(getLoc(), getAxis(), shapedAs(getInput()).getRank());
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

LogicalResult RMSNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult RMSNormOp::verify() {
  auto type = shapedAs(getInput());
  if (failed(checkAxis(getLoc(), getAxis(), type.getRank())))
    return failure();
  auto normalized = type.getShape().drop_front(getAxis());
  if (!broadcastsTo(shapedAs(getScale()).getShape(), normalized))
    return emitOpError("scale of shape ")
           << shapeString(shapedAs(getScale()).getShape())
           << " does not broadcast to the normalized shape "
           << shapeString(normalized);
  return success();
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult GroupNormOp::verify() {
  auto type = shapedAs(getInput());
  if (type.getRank() < 2)
    return emitOpError("input must have rank >= 2");
  int64_t channels = type.getDimSize(1), groups = getNumGroups();
  if (groups < 1 || channels % groups)
    return emitOpError("num_groups ")
           << groups << " does not divide the " << channels << " channels";
  for (Value param : {getScale(), getBias()})
    if (shapedAs(param).getRank() != 1 ||
        shapedAs(param).getDimSize(0) != channels)
      return emitOpError("per-channel parameters must have shape [")
             << channels << "], got "
             << shapeString(shapedAs(param).getShape());
  return success();
}
