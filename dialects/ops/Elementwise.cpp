//===- Elementwise.cpp - type inference of Elementwise ops ------------------------------===//
//
// Inference and verifiers of the ops in ops/Elementwise.td that are not in
// AutoGLMOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;

LogicalResult BitcastOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  inferred.push_back(shapedAs(adaptor.getInput()).clone(adaptor.getTo()));
  return success();
}

LogicalResult BitcastOp::verify() {
  // A bool is stored in one byte, so it reinterprets as an 8-bit integer.
  auto storageBits = [](Type t) {
    return t.isInteger(1) ? 8u : t.getIntOrFloatBitWidth();
  };
  Type from = getElementTypeOrSelf(getInput().getType()), to = getTo();
  bool boolAndFloat = (from.isInteger(1) || to.isInteger(1)) &&
                      (isa<FloatType>(from) || isa<FloatType>(to));
  if (storageBits(from) != storageBits(to) || boolAndFloat)
    return emitOpError("cannot reinterpret ")
           << from << " as " << to << ": the bit widths differ";
  return success();
}

namespace {

template <typename Op>
LogicalResult verifySameOperandElements(Op op) {
  Type lhs = getElementTypeOrSelf(op.getLhs()),
       rhs = getElementTypeOrSelf(op.getRhs());
  if (lhs != rhs)
    return op.emitOpError("operands must have the same element type, got ")
           << lhs << " and " << rhs;
  return success();
}

} // namespace

// Binary ops: the broadcast shape, with the element type of lhs.
#define AGL_BINARY(Op)                                                         \
  LogicalResult Op::inferReturnTypes(MLIRContext *, std::optional<Location> l, \
                                     Adaptor a, SmallVectorImpl<Type> &t) {    \
    auto lhs = shapedAs(a.getLhs());                                           \
    return inferBroadcast(l, {lhs, shapedAs(a.getRhs())},                      \
                          lhs.getElementType(), t);                            \
  }                                                                            \
  LogicalResult Op::verify() { return verifySameOperandElements(*this); }

AGL_BINARY(AndOp)
AGL_BINARY(OrOp)
AGL_BINARY(XorOp)
AGL_BINARY(ShiftLeftOp)
AGL_BINARY(ShiftRightOp)
AGL_BINARY(ModOp)
#undef AGL_BINARY

// Comparisons: the broadcast shape of i1.
#define AGL_COMPARE(Op)                                                        \
  LogicalResult Op::inferReturnTypes(MLIRContext *ctx,                         \
                                     std::optional<Location> l, Adaptor a,     \
                                     SmallVectorImpl<Type> &t) {               \
    return inferBroadcast(l, {shapedAs(a.getLhs()), shapedAs(a.getRhs())},     \
                          IntegerType::get(ctx, 1), t);                        \
  }                                                                            \
  LogicalResult Op::verify() { return verifySameOperandElements(*this); }

AGL_COMPARE(LessEqualOp)
AGL_COMPARE(GreaterEqualOp)
#undef AGL_COMPARE
