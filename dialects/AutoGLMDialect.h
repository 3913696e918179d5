//===- AutoGLMDialect.h - the autoglm dialect ------------------*- C++ -*-===//
#ifndef AUTOGLM_DIALECTS_AUTOGLMDIALECT_H
#define AUTOGLM_DIALECTS_AUTOGLMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/AutoGLMDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/AutoGLMOps.h.inc"

#endif // AUTOGLM_DIALECTS_AUTOGLMDIALECT_H
