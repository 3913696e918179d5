//===- RecognizePatterns.h - helpers of the recognition passes --*- C++ -*-===//
//
// What the passes that rebuild composite ops from primitive ones
// (RecognizeNorms, RecognizeAttention) share: reading scalar constants,
// trying both operand orders of a commutative op, and the fused location of
// every ONNX node a recognized op replaces.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_RECOGNIZEPATTERNS_H
#define AUTOGLM_PASSES_RECOGNIZEPATTERNS_H

#include "dialects/AutoGLMDialect.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace autoglm {

/// The value of a constant holding one f32 value (any shape), or nothing.
std::optional<float> scalarConstant(mlir::Value value);

/// Both operand orders of a commutative op: (lhs, rhs), (rhs, lhs).
template <typename Op>
llvm::SmallVector<std::pair<mlir::Value, mlir::Value>, 2> operandOrders(Op op) {
  return {{op.getLhs(), op.getRhs()}, {op.getRhs(), op.getLhs()}};
}

/// The locations of `root` and the ops above it up to (not including) the
/// ops that define `inputs`: every ONNX node the recognized op replaces.
mlir::Location locationOfPattern(mlir::PatternRewriter &rewriter,
                                 mlir::Operation *root,
                                 llvm::ArrayRef<mlir::Value> inputs);

} // namespace autoglm

#endif // AUTOGLM_PASSES_RECOGNIZEPATTERNS_H
