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

namespace autoglm {
/// The output shape [B, H, Sq, Dv] of attention on Q [B, H, Sq, D], K
/// [B, Hkv, Sk, D], V [B, Hkv, Sk, Dv] and a mask (or null) broadcasting to
/// [B, H, Sq, Sk]; failure (reported at `loc`, if any) when they disagree.
mlir::FailureOr<llvm::SmallVector<int64_t>>
attentionShape(std::optional<mlir::Location> loc, mlir::ShapedType query,
               mlir::ShapedType key, mlir::ShapedType value,
               mlir::ShapedType mask);
} // namespace autoglm

#endif // AUTOGLM_DIALECTS_AUTOGLMDIALECT_H
