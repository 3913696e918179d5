//===- Elementwise.td - Elementwise ----------------------------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_ELEMENTWISE_TD
#define AUTOGLM_OPS_ELEMENTWISE_TD

include "dialects/AutoGLMBase.td"

class AGL_UnaryOp<string mnemonic, string formula, Type operandType = AGL_Tensor>
    : AGL_Op<mnemonic, [SameOperandsAndResultType, AGL_SymbolicShapes]> {
  let summary = "elementwise " # formula;
  let description = "Computes `" # formula # "` for every element of `input`.\n\n"
    # "```mlir\n%y = autoglm." # mnemonic # " %x : tensor<4x8xf32>\n```";
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def AGL_SqrtOp : AGL_UnaryOp<"sqrt", "sqrt(x)", AGL_FloatTensor>;
def AGL_ReciprocalOp : AGL_UnaryOp<"reciprocal", "1 / x", AGL_FloatTensor>;
def AGL_ErfOp : AGL_UnaryOp<"erf", "erf(x)", AGL_FloatTensor>;
def AGL_TanhOp : AGL_UnaryOp<"tanh", "tanh(x)", AGL_FloatTensor>;
def AGL_SigmoidOp : AGL_UnaryOp<"sigmoid", "1 / (1 + exp(-x))", AGL_FloatTensor>;
def AGL_ExpOp : AGL_UnaryOp<"exp", "exp(x)", AGL_FloatTensor>;
def AGL_LogOp : AGL_UnaryOp<"log", "log(x)", AGL_FloatTensor>;
def AGL_RoundOp : AGL_UnaryOp<"round", "round half to even(x)", AGL_FloatTensor>;
def AGL_ReluOp : AGL_UnaryOp<"relu", "max(x, 0)">;
def AGL_NegOp : AGL_UnaryOp<"neg", "-x"> {
  let hasFolder = 1; // negated constants appear in shape arithmetic
}
def AGL_AbsOp : AGL_UnaryOp<"abs", "|x|">;
def AGL_SignOp : AGL_UnaryOp<"sign", "sign(x) (-1, 0 or 1; NaN stays NaN)">;
def AGL_CeilOp : AGL_UnaryOp<"ceil", "ceil(x)", AGL_FloatTensor> {
  let hasFolder = 1;
}
def AGL_FloorOp : AGL_UnaryOp<"floor", "floor(x)", AGL_FloatTensor> {
  let hasFolder = 1;
}
def AGL_SinOp : AGL_UnaryOp<"sin", "sin(x)", AGL_FloatTensor>;
def AGL_CosOp : AGL_UnaryOp<"cos", "cos(x)", AGL_FloatTensor>;
def AGL_TanOp : AGL_UnaryOp<"tan", "tan(x)", AGL_FloatTensor>;
def AGL_AsinOp : AGL_UnaryOp<"asin", "asin(x)", AGL_FloatTensor>;
def AGL_AcosOp : AGL_UnaryOp<"acos", "acos(x)", AGL_FloatTensor>;
def AGL_AtanOp : AGL_UnaryOp<"atan", "atan(x)", AGL_FloatTensor>;
def AGL_SinhOp : AGL_UnaryOp<"sinh", "sinh(x)", AGL_FloatTensor>;
def AGL_CoshOp : AGL_UnaryOp<"cosh", "cosh(x)", AGL_FloatTensor>;
def AGL_AsinhOp : AGL_UnaryOp<"asinh", "asinh(x)", AGL_FloatTensor>;
def AGL_AcoshOp : AGL_UnaryOp<"acosh", "acosh(x)", AGL_FloatTensor>;
def AGL_AtanhOp : AGL_UnaryOp<"atanh", "atanh(x)", AGL_FloatTensor>;
// Accurate near 0, where exp(x) - 1 and log(1 + x) lose their digits; the
// building blocks of Elu, Selu, Celu and Softplus.
def AGL_Expm1Op : AGL_UnaryOp<"expm1", "exp(x) - 1", AGL_FloatTensor>;
def AGL_Log1pOp : AGL_UnaryOp<"log1p", "log(1 + x)", AGL_FloatTensor>;

def AGL_ClipOp : AGL_Op<"clip", [SameOperandsAndResultType, AGL_SymbolicShapes]> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    Clamps every element to `[min, max]`; a missing bound is unbounded. ONNX
    passes the bounds as inputs; the importer requires them to be constants.

    ```mlir
    %y = autoglm.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

class AGL_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : AGL_InferredOp<mnemonic, !listconcat(traits, [AGL_SymbolicShapes])> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise after broadcasting "
    # "`lhs` and `rhs` to a common shape (numpy rules). The result has the "
    # "element type of `lhs`.\n\n"
    # "```mlir\n%z = autoglm." # mnemonic
    # " %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>\n```";
  let arguments = (ins AGL_Tensor:$lhs, AGL_Tensor:$rhs);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def AGL_AddOp : AGL_BinaryOp<"add", "lhs + rhs", [Commutative]>;
def AGL_SubOp : AGL_BinaryOp<"sub", "lhs - rhs">;
def AGL_MulOp : AGL_BinaryOp<"mul", "lhs * rhs", [Commutative]>;
def AGL_DivOp : AGL_BinaryOp<"div", "lhs / rhs">;
def AGL_PowOp : AGL_BinaryOp<"pow", "lhs ^ rhs">;
def AGL_MinOp : AGL_BinaryOp<"min", "min(lhs, rhs)", [Commutative]>;
def AGL_MaxOp : AGL_BinaryOp<"max", "max(lhs, rhs)", [Commutative]>;

class AGL_CompareOp<string mnemonic, string formula>
    : AGL_InferredOp<mnemonic, [AGL_SymbolicShapes]> {
  let summary = "elementwise comparison " # formula;
  let description = "Compares `lhs` and `rhs` elementwise after numpy "
    # "broadcasting; the result is a tensor of `i1`.\n\n"
    # "```mlir\n%b = autoglm." # mnemonic
    # " %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>\n```";
  let arguments = (ins AGL_Tensor:$lhs, AGL_Tensor:$rhs);
  let results = (outs AGL_BoolTensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def AGL_EqualOp : AGL_CompareOp<"equal", "lhs == rhs">;
def AGL_LessOp : AGL_CompareOp<"less", "lhs < rhs">;
def AGL_GreaterOp : AGL_CompareOp<"greater", "lhs > rhs">;
// A NaN operand compares false, so these are not negations of less/greater.
def AGL_LessEqualOp : AGL_CompareOp<"less_equal", "lhs <= rhs">;
def AGL_GreaterEqualOp : AGL_CompareOp<"greater_equal", "lhs >= rhs">;

// Integer tensors, `i1` included: the operands of bitwise and logical ops.
def AGL_BitwiseTensor : RankedTensorOf<[AnyInteger]>;

def AGL_NotOp : AGL_Op<"not", [SameOperandsAndResultType, AGL_SymbolicShapes]> {
  let summary = "elementwise bitwise not (logical not on i1)";
  let description = [{
    Flips every bit; on `i1` this is logical not.

    ```mlir
    %b = autoglm.not %a : tensor<4xi1>
    ```
  }];
  let arguments = (ins AGL_BitwiseTensor:$input);
  let results = (outs AGL_BitwiseTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasFolder = 1;
}

class AGL_BitwiseOp<string mnemonic, string formula, list<Trait> traits = []>
    : AGL_BinaryOp<mnemonic, formula, traits> {
  let description = "Computes `" # formula # "` on the bits of integer "
    # "operands (on `i1` the logical operation) after numpy broadcasting. Both "
    # "operands have the same element type.\n\n"
    # "```mlir\n%z = autoglm." # mnemonic
    # " %x, %y : (tensor<4x8xi1>, tensor<8xi1>) -> tensor<4x8xi1>\n```";
  let arguments = (ins AGL_BitwiseTensor:$lhs, AGL_BitwiseTensor:$rhs);
  let results = (outs AGL_BitwiseTensor:$output);
}

def AGL_AndOp : AGL_BitwiseOp<"and", "lhs & rhs", [Commutative]>;
def AGL_OrOp : AGL_BitwiseOp<"or", "lhs | rhs", [Commutative]>;
def AGL_XorOp : AGL_BitwiseOp<"xor", "lhs ^ rhs", [Commutative]>;

def AGL_ShiftLeftOp : AGL_BitwiseOp<"shift_left", "lhs << rhs"> {
  let summary = "elementwise left shift with numpy broadcasting";
  let description = [{
    Shifts every element of `lhs` left by the matching element of `rhs`.
    Bits moved past the top (the sign bit included) are lost; a shift
    amount that is negative or at least the bit width gives 0.

    ```mlir
    %z = autoglm.shift_left %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    ```
  }];
  let hasFolder = 0;
}

def AGL_ShiftRightOp : AGL_BitwiseOp<"shift_right", "lhs >> rhs"> {
  let summary = "elementwise right shift with numpy broadcasting";
  let description = [{
    Shifts every element of `lhs` right by the matching element of `rhs`:
    logical for unsigned and arithmetic (sign-extending) for signed types. A
    shift amount that is negative or at least the bit width gives what the
    sign extension alone produces: -1 for a negative signed `lhs`, else 0.

    ```mlir
    %z = autoglm.shift_right %x, %y : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
    ```
  }];
  let hasFolder = 0;
}

def AGL_ModOp : AGL_BinaryOp<"mod", "lhs mod rhs"> {
  let summary = "elementwise remainder with numpy broadcasting";
  let description = [{
    With `fmod` the remainder of truncated division (C `fmod`/`%`, the sign
    of `lhs`); without it the remainder of floored division (Python `%`,
    the sign of `rhs`). For floats a zero `rhs` or an infinite `lhs` gives
    NaN; without `fmod` a zero result takes the sign of `rhs`, and an
    infinite `rhs` with a finite `lhs` of the other sign gives `rhs`.

    ```mlir
    %z = autoglm.mod %x, %y {fmod = true} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$lhs, AGL_Tensor:$rhs,
                       DefaultValuedAttr<BoolAttr, "false">:$fmod);
}

def AGL_WhereOp : AGL_InferredOp<"where", [AGL_SymbolicShapes]> {
  let summary = "elementwise select with numpy broadcasting";
  let description = [{
    `condition ? x : y` for every element, after broadcasting all three.

    ```mlir
    %z = autoglm.where %c, %x, %y
        : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
    ```
  }];
  let arguments = (ins AGL_BoolTensor:$condition, AGL_Tensor:$x, AGL_Tensor:$y);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def AGL_CastOp : AGL_InferredOp<"cast", [AGL_SymbolicShapes]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to `to` with ONNX Cast semantics: floats to
    integers truncate toward zero (and wrap to the width of 2- and 4-bit
    integers), to `i1` is `x != 0`, to floats rounds to nearest even. To a
    float8 type, `saturate` clamps out-of-range values (infinities included)
    to the largest finite value instead of making them infinite or NaN. To
    f8E8M0FNU, `round_mode` (`up`, `down` or `nearest`) rounds the exponent.

    ```mlir
    %y = autoglm.cast %x {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
    %z = autoglm.cast %x {to = f8E4M3FN, saturate = false}
        : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, TypeAttr:$to,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate,
                       DefaultValuedStrAttr<StrAttr, "up">:$round_mode);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_BitcastOp : AGL_InferredOp<"bitcast"> {
  let summary = "reinterpret the bits of every element as another type";
  let description = [{
    Same bits, another element type of the same width (ONNX BitCast); no
    value conversion.

    ```mlir
    %y = autoglm.bitcast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, TypeAttr:$to);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // AUTOGLM_OPS_ELEMENTWISE_TD
