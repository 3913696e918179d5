//===- ConvPool.cpp - type inference of ConvPool ops ------------------------------===//
//
// Inference and verifiers of the ops in ops/ConvPool.td that are not in
// AutoGLMOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;

namespace {

LogicalResult checkSpatialAttrs(std::optional<Location> loc, int64_t spatial,
                                ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> pads,
                                ArrayRef<int64_t> dilations) {
  if ((int64_t)kernel.size() != spatial || (int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial ||
      (int64_t)pads.size() != 2 * spatial)
    return fail(loc, "kernel/strides/dilations need " + Twine(spatial) +
                         " entries and pads " + Twine(2 * spatial));
  return success();
}

/// Output shape [N, C, out...] of a pooling window over an NC... input.
LogicalResult inferWindowed(std::optional<Location> loc, RankedTensorType input,
                            ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                            ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                            bool ceilMode, SmallVectorImpl<int64_t> &shape) {
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1)
    return fail(loc, "pooling needs rank >= 3 (N, C, spatial...)");
  if (failed(checkSpatialAttrs(loc, spatial, kernel, strides, pads, dilations)))
    return failure();
  shape.assign(input.getShape().begin(), input.getShape().begin() + 2);
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t out;
    if (failed(windowExtent(loc, input.getDimSize(i + 2), kernel[i], strides[i],
                            dilations[i], pads[i], pads[i + spatial], ceilMode,
                            out)))
      return failure();
    shape.push_back(out);
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTransposeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput()),
       filter = shapedAs(adaptor.getFilter());
  int64_t spatial = input.getRank() - 2, group = adaptor.getGroup();
  if (spatial < 1 || filter.getRank() != input.getRank())
    return fail(loc, "conv_transpose needs input and filter of equal rank >= 3");
  auto strides = adaptor.getStrides(), pads = adaptor.getPads(),
       dilations = adaptor.getDilations(),
       outputPadding = adaptor.getOutputPadding();
  if (failed(checkSpatialAttrs(loc, spatial, filter.getShape().drop_front(2),
                               strides, pads, dilations)))
    return failure();
  if ((int64_t)outputPadding.size() != spatial)
    return fail(loc, "output_padding needs " + Twine(spatial) + " entries");
  if (group < 1 || input.getDimSize(1) != filter.getDimSize(0) ||
      input.getDimSize(1) % group != 0)
    return fail(loc, "conv_transpose channels do not match: input has " +
                         Twine(input.getDimSize(1)) + ", filter expects " +
                         Twine(filter.getDimSize(0)) + " in " + Twine(group) +
                         " groups");
  SmallVector<int64_t> shape = {input.getDimSize(0),
                                filter.getDimSize(1) * group};
  for (int64_t i = 0; i < spatial; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || outputPadding[i] < 0)
      return fail(loc, "strides and dilations must be positive and "
                       "output_padding non-negative");
    int64_t out = strides[i] * (input.getDimSize(i + 2) - 1) + outputPadding[i] +
                  dilations[i] * (filter.getDimSize(i + 2) - 1) + 1 - pads[i] -
                  pads[i + spatial];
    if (out < 1)
      return fail(loc, "padding leaves no output along spatial axis " +
                           Twine(i));
    shape.push_back(out);
  }
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult ConvTransposeOp::verify() {
  Type element = getType().getElementType();
  if (getFilter().getType().getElementType() != element ||
      (getBias() && getBias().getType().getElementType() != element))
    return emitOpError("input, filter and bias must have the same element type");
  if (getBias() && (shapedAs(getBias()).getRank() != 1 ||
                    shapedAs(getBias()).getDimSize(0) != getType().getDimSize(1)))
    return emitOpError("bias must have one entry per output channel");
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult LpPoolOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  SmallVector<int64_t> shape;
  if (failed(inferWindowed(loc, input, adaptor.getKernelShape(),
                           adaptor.getStrides(), adaptor.getPads(),
                           adaptor.getDilations(), adaptor.getCeilMode(),
                           shape)))
    return failure();
  inferred.push_back(input.clone(shape));
  return success();
}

LogicalResult LpPoolOp::verify() {
  if (getP() < 1)
    return emitOpError("p must be positive, got ") << getP();
  return success();
}

LogicalResult MaxPoolWithIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  SmallVector<int64_t> shape;
  if (failed(inferWindowed(loc, input, adaptor.getKernelShape(),
                           adaptor.getStrides(), adaptor.getPads(),
                           adaptor.getDilations(), adaptor.getCeilMode(),
                           shape)))
    return failure();
  inferred.push_back(input.clone(shape));
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = shapedAs(adaptor.getInput());
  auto sizes = adaptor.getSizes();
  if ((int64_t)sizes.size() != input.getRank())
    return fail(loc, "resize needs one size per axis, got " +
                         Twine(sizes.size()) + " for rank " +
                         Twine(input.getRank()));
  for (int64_t s : sizes)
    if (s < 1)
      return fail(loc, "resize sizes must be positive, got " +
                           shapeString(sizes));
  inferred.push_back(input.clone(sizes));
  return success();
}

LogicalResult ResizeOp::verify() {
  // Checked against the input: a wrong result type is reported by the
  // inferred-type check.
  int64_t rank = shapedAs(getInput()).getRank();
  if ((int64_t)getScales().size() != rank)
    return emitOpError("needs one scale per axis");
  for (double s : getScales())
    if (!(s > 0))
      return emitOpError("scales must be positive");
  if (!getRoi().empty() && (int64_t)getRoi().size() != 2 * rank)
    return emitOpError("roi needs a start and an end per axis");
  StringRef mode = getMode(), ctm = getCoordinateTransformationMode(),
            nearest = getNearestMode();
  if (!llvm::is_contained({"nearest", "linear", "cubic"}, mode))
    return emitOpError("unknown mode '") << mode << "'";
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_half_pixel_for_nn", "tf_crop_and_resize"},
                          ctm))
    return emitOpError("unknown coordinate_transformation_mode '") << ctm << "'";
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}, nearest))
    return emitOpError("unknown nearest_mode '") << nearest << "'";
  if (ctm == "tf_crop_and_resize" && getRoi().empty())
    return emitOpError("tf_crop_and_resize needs a roi");
  if (mode == "nearest" && getAntialias())
    return emitOpError("antialias applies to linear and cubic modes only");
  return success();
}
