//===- SizeBounds.h - upper bounds of symbolic extents ----------*- C++ -*-===//
//
// With symbolic input extents (`--dim seq=1..128`) a buffer's size is index
// arithmetic on those extents. The arena is planned for the largest value
// that arithmetic can take: interval arithmetic from the declared ranges,
// which is sound for every size inside them.
//
// The ranges are attributes of the model's function: `autoglm.symbols`
// ({name, min, max} per symbol) and, per argument, `autoglm.dim_symbols`
// (the symbol of each extent, -1 for static ones). After the signature is
// made static, symbol values are loads from the `autoglm.symbol_values`
// argument.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_SIZEBOUNDS_H
#define AUTOGLM_PASSES_SIZEBOUNDS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace autoglm {

struct Interval {
  int64_t lo, hi;
};

/// The range of symbol `index` of `func`, if declared.
std::optional<Interval> symbolRange(mlir::func::FuncOp func, int64_t index);

/// Bounds of an index (or integer) value; nullopt if it depends on data.
std::optional<Interval> boundsOf(mlir::Value value);

/// Bounds of extent `dim` of a shaped value.
std::optional<Interval> extentBounds(mlir::Value shaped, int64_t dim);

/// The largest shape `shaped` can take; nullopt if an extent is unbounded.
std::optional<llvm::SmallVector<int64_t>> maxShape(mlir::Value shaped);

} // namespace autoglm

#endif // AUTOGLM_PASSES_SIZEBOUNDS_H
