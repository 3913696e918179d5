//===- StorageTypes.h - element types that are stored, not computed -*- C++ -*-===//
//
// float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0fnu), float4 (e2m1fn) and the
// 2- and 4-bit integers only hold data: ONNX converts them (Cast,
// QuantizeLinear, DequantizeLinear) and moves them, but computes in wider
// types. Below the autoglm dialect each of their elements is one byte, and
// the conversions are bit manipulation on that byte (LLVM has no such types).
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_DIALECTS_STORAGETYPES_H
#define AUTOGLM_DIALECTS_STORAGETYPES_H

#include "mlir/IR/BuiltinTypes.h"

namespace autoglm {

/// float8 and float4 types: arithmetic on them is done in float32.
inline bool isNarrowFloat(mlir::Type t) {
  return llvm::isa<mlir::Float8E4M3FNType, mlir::Float8E4M3FNUZType,
                   mlir::Float8E5M2Type, mlir::Float8E5M2FNUZType,
                   mlir::Float8E8M0FNUType, mlir::Float4E2M1FNType>(t);
}

/// 2- and 4-bit integers (signed or unsigned); bool (i1) is not one.
inline bool isSubByteInteger(mlir::Type t) {
  auto i = llvm::dyn_cast<mlir::IntegerType>(t);
  return i && i.getWidth() > 1 && i.getWidth() < 8;
}

/// Types that only a few ops accept (see the importer's check).
inline bool isStorageOnlyType(mlir::Type t) {
  return isNarrowFloat(t) || isSubByteInteger(t);
}

} // namespace autoglm

#endif // AUTOGLM_DIALECTS_STORAGETYPES_H
