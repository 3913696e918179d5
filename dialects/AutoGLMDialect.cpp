//===- AutoGLMDialect.cpp - dialect registration --------------------------===//

#include "dialects/AutoGLMDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace autoglm;

#include "dialects/AutoGLMDialect.cpp.inc"

void AutoGLMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/AutoGLMOps.cpp.inc"
      >();
}

Operation *AutoGLMDialect::materializeConstant(OpBuilder &builder,
                                               Attribute value, Type type,
                                               Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
