//===- AttentionOperands.h - attention's operands read in place -*- C++ -*-===//
//
// Exported attention moves heads and positions around with transposes
// ([B, S, H, D] <-> [B, H, S, D]) that only copy. An attention kernel that
// takes strides reads the transpose's input, or writes its destination, in
// place; these helpers find where that is safe (on planned-to-be buffers,
// before the arena is planned).
//
//===----------------------------------------------------------------------===//

#ifndef AUTOGLM_PASSES_ATTENTIONOPERANDS_H
#define AUTOGLM_PASSES_ATTENTIONOPERANDS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace autoglm {

/// A 4-D operand of an attention kernel: a buffer and, for each of the
/// kernel's batch, head, row and column dimensions, the buffer dimension
/// that walks it.
struct KernelOperand {
  mlir::Value buffer;
  llvm::SmallVector<int64_t, 4> dims = {0, 1, 2, 3};
  mlir::linalg::TransposeOp folded; // the transpose it replaces, if any
};

/// Operand `value` of `op` read in place of the buffer a transpose filled:
/// when that buffer (a new one) is written by the transpose alone, read by
/// `op` alone, and nothing between the two writes the transpose's input.
KernelOperand readOperand(mlir::Value value, mlir::Operation *op);

/// The output written in place of the buffer a transpose copies it into:
/// when the output (a new buffer) is read by that transpose alone, nothing
/// between `op` and it touches the copy's buffer, and that buffer does not
/// overlap the inputs. The buffer may still need hoisting before `op`
/// (hoistBefore).
KernelOperand writeOperand(mlir::Value output, mlir::Operation *op,
                           mlir::ValueRange inputs);

} // namespace autoglm

#endif // AUTOGLM_PASSES_ATTENTIONOPERANDS_H
