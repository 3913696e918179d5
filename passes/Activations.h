//===- Activations.h - activations the runtime's epilogues compute -*- C++ -*-===//
//
// The runtime's GEMM and convolution apply an activation (AGL_ACT_*) to
// each output tile while it is in registers. Exporters spell the same
// activation many ways (GELU as x * 0.5 * (1 + erf(x / sqrt(2))), or with
// the 0.5 first, or dividing by 1.4142135; SiLU as x * sigmoid(x) or
// x / (1 + exp(-x)), ...) and autoglm-approximate-math later turns erf,
// tanh and exp into polynomials, where none of them is recognizable any
// more. So autoglm-mark-activations recognizes them before that, on the
// fused elementwise loops, by what they compute: the ops that compute a
// value y from one value x alone are evaluated at sample points and
// compared with each activation; a match is recorded on y's defining op
// (`autoglm.activation`) and, where x is not a block argument, on x's
// (`autoglm.activation_input`). The kernel-call passes read the marks, and
// check again that y depends on x alone.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_ACTIVATIONS_H
#define AUTOGLM_PASSES_ACTIVATIONS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace autoglm {

/// The attribute that marks an op whose result is an activation of one
/// value: its name (activationName).
constexpr llvm::StringLiteral kActivationAttrName = "autoglm.activation";
/// The attribute that marks the op computing that activation's input.
constexpr llvm::StringLiteral kActivationInputAttrName =
    "autoglm.activation_input";

/// "relu", "gelu_erf", "gelu_tanh", "silu" for AGL_ACT_*; "" for none.
llvm::StringRef activationName(int activation);

/// Whether `y` is computed from `x` alone: every operand chain from `y`
/// within its block ends at `x` or at a constant, through side-effect-free
/// ops with one result.
bool computedFromOnly(mlir::Value y, mlir::Value x);

/// The AGL_ACT_* that `y` is of `x` according to the mark on y's defining
/// op, provided that it is the only mark of its block, that x is the input
/// the mark was made for (x's defining op is marked as the input, or x is a
/// block argument) and that y is computed from x alone; nothing otherwise.
/// (y computed from x alone and from the marked input alone, with both
/// marked, makes them the same value: a block has one marked input.)
std::optional<int> markedActivation(mlir::Value y, mlir::Value x);

/// The AGL_ACT_* that `y` is of `x`: the marked one, or, unmarked, a ReLU
/// written as maximumf(x, 0) (which no later pass rewrites); nothing
/// otherwise. What the kernel-call passes take into an epilogue.
std::optional<int> activationOf(mlir::Value y, mlir::Value x);

/// The AGL_ACT_* that `y` computes of `x`, by evaluation (see above), if y
/// is computed from x alone; nothing otherwise.
std::optional<int> evaluateActivation(mlir::Value y, mlir::Value x);

/// The uint8 QuantizeLinear that the lowering writes, as an int8 product's
/// epilogue ends when it quantizes the next product's input:
/// `fptoui(min(max(roundeven(input / scale) + zeroPoint, 0), 255))` (each
/// binary op's operands in either order); where the activation before it
/// sits for autoglm-mark-activations, and what autoglm-contractions-to-kernels
/// takes into the call when scale and zero point are constants.
struct QuantizeToU8 {
  mlir::Value input, scale, zeroPoint;
};
std::optional<QuantizeToU8> matchQuantizeToU8(mlir::Value yielded);

} // namespace autoglm

#endif // AUTOGLM_PASSES_ACTIVATIONS_H
