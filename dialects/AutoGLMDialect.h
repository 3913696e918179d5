//===- AutoGLMDialect.h - the autoglm dialect ------------------*- C++ -*-===//
#ifndef AUTOGLM_DIALECTS_AUTOGLMDIALECT_H
#define AUTOGLM_DIALECTS_AUTOGLMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/AutoGLMDialect.h.inc"

namespace autoglm::traits {
/// Marks the ops that support symbolic extents (see AutoGLMBase.td).
template <typename ConcreteType>
class SymbolicShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, SymbolicShapes> {};
} // namespace autoglm::traits

#define GET_OP_CLASSES
#include "dialects/AutoGLMOps.h.inc"

#endif // AUTOGLM_DIALECTS_AUTOGLMDIALECT_H
