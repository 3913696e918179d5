//===- InferenceUtils.h - helpers of op type inference ----------*- C++ -*-===//
//
// Shared by the files that implement type inference and verification of the
// autoglm ops (AutoGLMOps.cpp and one file per newer operator family).
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_DIALECTS_INFERENCEUTILS_H
#define AUTOGLM_DIALECTS_INFERENCEUTILS_H

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <string>

namespace autoglm {
namespace inference {

using namespace mlir;

inline mlir::RankedTensorType shapedAs(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "," : "") + std::to_string(d);
  return s + "]";
}

inline mlir::LogicalResult fail(std::optional<Location> loc, const Twine &message) {
  return emitOptionalError(loc, message);
}

inline mlir::LogicalResult inferBroadcast(std::optional<Location> loc,
                             ArrayRef<RankedTensorType> operands,
                             Type elementType,
                             SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape(operands.front().getShape());
  for (RankedTensorType t : operands.drop_front()) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, t.getShape(), next))
      return fail(loc, "operand shapes " + shapeString(shape) + " and " +
                           shapeString(t.getShape()) +
                           " are not broadcast-compatible");
    shape = std::move(next);
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

// Spatial output extent shared by convolution and pooling.
inline mlir::LogicalResult windowExtent(std::optional<Location> loc, int64_t in,
                           int64_t kernel, int64_t stride, int64_t dilation,
                           int64_t padBegin, int64_t padEnd, bool ceilMode,
                           int64_t &out) {
  if (kernel < 1 || stride < 1 || dilation < 1)
    return fail(loc, "kernel, stride and dilation must be positive");
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t room = in + padBegin + padEnd - span;
  if (room < 0)
    return fail(loc, "window of extent " + Twine(span) +
                         " is larger than the padded input " +
                         Twine(in + padBegin + padEnd));
  out = (ceilMode ? (room + stride - 1) / stride : room / stride) + 1;
  // A window that would start in the end padding is dropped (ONNX rule).
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return success();
}

inline mlir::LogicalResult checkAxis(std::optional<Location> loc, int64_t axis,
                        int64_t rank, StringRef what = "axis") {
  if (axis < 0 || axis >= rank)
    return fail(loc, what + " " + Twine(axis) + " is out of range for rank " +
                         Twine(rank));
  return success();
}

/// True if `shape` broadcasts to exactly `target` (numpy rules).
inline bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> target) {
  SmallVector<int64_t> out;
  return OpTrait::util::getBroadcastedShape(shape, target, out) &&
         ArrayRef<int64_t>(out) == target;
}

/// Shape of a reduction over sorted, unique `axes` (empty: all axes).
inline LogicalResult inferReduction(std::optional<Location> loc, Value input,
                                    ArrayRef<int64_t> axes, bool keepdims,
                                    SmallVectorImpl<Type> &inferred) {
  auto type = shapedAs(input);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (failed(checkAxis(loc, axis, type.getRank())))
      return failure();
    if (i > 0 && axes[i - 1] >= axis)
      return fail(loc, "reduction axes must be sorted and unique");
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool reduced = axes.empty() || llvm::is_contained(axes, d);
    if (!reduced)
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  inferred.push_back(type.clone(shape));
  return success();
}

} // namespace inference
} // namespace autoglm

#endif // AUTOGLM_DIALECTS_INFERENCEUTILS_H
