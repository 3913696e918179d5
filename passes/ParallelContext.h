//===- ParallelContext.h - values passed to a parallel loop body -*- C++ -*-===//
//
// A loop body that the runtime's pool runs is a C function
// `void body(void *ctx, int64_t begin, int64_t end)`: whatever it uses from
// its caller travels in `ctx`, an array of i64 slots on the caller's stack.
// A memref takes its aligned pointer, offset, sizes and strides; a scalar
// its bits. On the other side the values are rebuilt with the same types.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_PARALLELCONTEXT_H
#define AUTOGLM_PASSES_PARALLELCONTEXT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace autoglm {

/// Whether `type` can cross in the context: strided memrefs, integers,
/// indices and floats of at most 64 bits.
bool fitsContext(mlir::Type type);

/// The number of i64 slots `type` takes.
int64_t contextSlots(mlir::Type type);

/// Stores `values` into consecutive slots of the i64 array `context`.
void packContext(mlir::OpBuilder &b, mlir::Location loc, mlir::Value context,
                 mlir::ValueRange values);

/// Loads values of `types` back from `context`, in the order they were
/// packed.
llvm::SmallVector<mlir::Value> unpackContext(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Value context,
                                             mlir::TypeRange types);

} // namespace autoglm

#endif // AUTOGLM_PASSES_PARALLELCONTEXT_H
