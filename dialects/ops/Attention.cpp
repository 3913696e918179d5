//===- Attention.cpp - type inference of the attention ops ----------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;

/// Equal extents, or one of them symbolic (checked when the op runs).
static bool agree(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

FailureOr<SmallVector<int64_t>>
autoglm::attentionShape(std::optional<Location> loc, ShapedType q, ShapedType k,
               ShapedType v, ShapedType mask) {
  // Batch and sequence lengths may be symbolic; heads and head sizes fix
  // the kernel's work split and registers.
  auto headsStatic = [](ShapedType t) {
    return !t.isDynamicDim(1) && !t.isDynamicDim(3);
  };
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4 ||
      !headsStatic(q) || !headsStatic(k) || !headsStatic(v))
    return fail(loc, "query, key and value must be 4-D tensors [batch, "
                     "heads, sequence, size] with static heads and sizes");
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  if (!agree(ks[0], qs[0]) || !agree(vs[0], qs[0]))
    return fail(loc, "query, key and value have different batch sizes");
  if (ks[1] != vs[1] || !agree(ks[2], vs[2]))
    return fail(loc, "key " + shapeString(ks) + " and value " +
                         shapeString(vs) +
                         " differ in heads or sequence length");
  if (ks[3] != qs[3])
    return fail(loc, "query and key head sizes differ (" + Twine(qs[3]) +
                         " and " + Twine(ks[3]) + ")");
  if (ks[1] == 0 || qs[1] % ks[1] != 0)
    return fail(loc, Twine(qs[1]) + " query heads are not a multiple of " +
                         Twine(ks[1]) + " key/value heads");
  auto known = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) ? b : a;
  };
  int64_t batch = known(qs[0], known(ks[0], vs[0]));
  SmallVector<int64_t> scores = {batch, qs[1], qs[2], known(ks[2], vs[2])};
  if (mask && (mask.getRank() > 4 ||
               !broadcastsTo(mask.getShape(), scores)))
    return fail(loc, "mask of shape " + shapeString(mask.getShape()) +
                         " does not broadcast to the scores " +
                         shapeString(scores));
  return SmallVector<int64_t>{batch, qs[1], qs[2], vs[3]};
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
  ArrayRef<int64_t> out = getOutput().getType().getShape();
  if (!llvm::all_of_zip(out, *shape, agree))
    return emitOpError("output must have shape ") << shapeString(*shape);
  return success();
}
