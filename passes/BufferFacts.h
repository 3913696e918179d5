//===- BufferFacts.h - what the kernel-call passes know of buffers -*- C++ -*-===//
//
// The passes that replace linalg ops by runtime kernel calls run before the
// arena is planned (so that what they leave unused takes no memory) and
// also work on planned buffers; either way they only remove buffer uses.
// What they check before they do: static strides, which bytes two buffers
// occupy, whether a buffer's contents are read again, and which op
// initialized it.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_BUFFERFACTS_H
#define AUTOGLM_PASSES_BUFFERFACTS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <optional>

namespace autoglm {

/// Bytes of one element of `type` in memory, as the arena and the weights
/// buffer lay them out: whole bytes, at least one (i1 takes a byte).
int64_t elementBytes(mlir::Type type);

/// Bytes of a statically shaped buffer of `type`.
int64_t bufferBytes(mlir::MemRefType type);

/// Static strides of a buffer, or nothing.
std::optional<llvm::SmallVector<int64_t>> staticStrides(mlir::Value buffer);

/// A linalg op that only writes one constant into `buffer` (a fill, or a
/// map or generic without inputs that yields a constant), for which
/// `isValue` holds.
bool isConstantFill(mlir::Operation *op, mlir::Value buffer,
                    llvm::function_ref<bool(mlir::Value)> isValue);
/// The same for a zero constant (float or integer).
bool isZeroFill(mlir::Operation *op, mlir::Value buffer);

/// The memory a buffer lies in: the function argument it views (the arena,
/// an input or an output) and, for a byte view of it (the arena, the
/// weights), its byte range; the whole argument otherwise (end unbounded).
struct MemoryRange {
  mlir::Value base;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
};
std::optional<MemoryRange> memoryRange(mlir::Value buffer);

/// Whether `buffer` is one of the run's host-side arguments (symbol values,
/// output extents), which a CUDA model's runtime passes as host memory;
/// every other buffer argument of a CUDA model is device memory.
bool isHostArgument(mlir::Value buffer);

/// Whether two buffers provably share no byte.
bool disjoint(mlir::Value a, mlir::Value b);

/// Whether what `buffer` holds after `point` is never read: the next op
/// after `point` that touches it (if any) overwrites all of it first, as
/// linalg ops show, or is one of `overwriters` (kernel calls known to write
/// all of it without reading it).
bool deadAfter(mlir::Value buffer, mlir::Operation *point,
               llvm::ArrayRef<mlir::Operation *> overwriters = {});

/// The previous op in the block that touches memory, or null.
mlir::Operation *previousEffect(mlir::Operation *op);

/// The next op in the block that touches memory, or null.
mlir::Operation *nextEffect(mlir::Operation *op);

/// Whether the ops that define `value` after `point` touch no memory, so
/// that they can move before it.
bool canHoistBefore(mlir::Value value, mlir::Operation *point);

/// Moves the side-effect-free ops that define `value` after `point` (a
/// view of a buffer a kernel call at `point` now writes) to before it.
void hoistBefore(mlir::Value value, mlir::Operation *point);

/// Whether `buffer` holds zeros at `point`: the last op before it that
/// may write it is a zero fill of it, or a copy into it of a buffer that
/// holds zeros there; every op in between is a linalg op that writes other
/// bytes. Sets `init` to that fill or copy.
bool zeroAt(mlir::Value buffer, mlir::Operation *point,
            mlir::Operation *&init);

} // namespace autoglm

#endif // AUTOGLM_PASSES_BUFFERFACTS_H
