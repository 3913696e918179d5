//===- Attention.cpp - type inference of the attention ops ----------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;

FailureOr<SmallVector<int64_t>>
autoglm::attentionShape(std::optional<Location> loc, ShapedType q, ShapedType k,
               ShapedType v, ShapedType mask) {
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4 ||
      !q.hasStaticShape() || !k.hasStaticShape() || !v.hasStaticShape())
    return fail(loc, "query, key and value must be static 4-D tensors "
                     "[batch, heads, sequence, size]");
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  if (ks[0] != qs[0] || vs[0] != qs[0])
    return fail(loc, "query, key and value have different batch sizes");
  if (ks[1] != vs[1] || ks[2] != vs[2])
    return fail(loc, "key " + shapeString(ks) + " and value " +
                         shapeString(vs) +
                         " differ in heads or sequence length");
  if (ks[3] != qs[3])
    return fail(loc, "query and key head sizes differ (" + Twine(qs[3]) +
                         " and " + Twine(ks[3]) + ")");
  if (ks[1] == 0 || qs[1] % ks[1] != 0)
    return fail(loc, Twine(qs[1]) + " query heads are not a multiple of " +
                         Twine(ks[1]) + " key/value heads");
  SmallVector<int64_t> scores = {qs[0], qs[1], qs[2], ks[2]};
  if (mask && (mask.getRank() > 4 ||
               !broadcastsTo(mask.getShape(), scores)))
    return fail(loc, "mask of shape " + shapeString(mask.getShape()) +
                         " does not broadcast to the scores " +
                         shapeString(scores));
  return SmallVector<int64_t>{qs[0], qs[1], qs[2], vs[3]};
}

static ShapedType optionalShaped(Value value) {
  return value ? cast<ShapedType>(value.getType()) : ShapedType();
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto q = shapedAs(adaptor.getQuery());
  auto shape = attentionShape(loc, q, shapedAs(adaptor.getKey()),
                              shapedAs(adaptor.getValue()),
                              optionalShaped(adaptor.getMask()));
  if (failed(shape))
    return failure();
  inferred.push_back(RankedTensorType::get(*shape, q.getElementType()));
  return success();
}

LogicalResult AttentionBuffersOp::verify() {
  auto shape = attentionShape(
      getLoc(), getQuery().getType(), getKey().getType(),
      getValue().getType(), optionalShaped(getMask()));
  if (failed(shape))
    return failure();
  if (getOutput().getType().getShape() != ArrayRef<int64_t>(*shape))
    return emitOpError("output must have shape ") << shapeString(*shape);
  return success();
}
