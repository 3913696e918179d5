//===- AutoGLMOps.td - autoglm operators -------------------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_TD
#define AUTOGLM_OPS_TD

include "dialects/AutoGLMDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def AGL_Element : AnyTypeOf<[AnyFloat, AnyInteger]>;
def AGL_Tensor : RankedTensorOf<[AGL_Element]>;
def AGL_FloatTensor : RankedTensorOf<[AnyFloat]>;
def AGL_IndexTensor : RankedTensorOf<[I32, I64, SI32, SI64]>;
def AGL_BoolTensor : RankedTensorOf<[I1]>;

class AGL_Op<string mnemonic, list<Trait> traits = []>
    : Op<AutoGLM_Dialect, mnemonic, !listconcat(traits, [Pure])>;

// Ops whose result type follows from operands and attributes.
class AGL_InferredOp<string mnemonic, list<Trait> traits = []>
    : AGL_Op<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class AGL_UnaryOp<string mnemonic, string formula, Type operandType = AGL_Tensor>
    : AGL_Op<mnemonic, [SameOperandsAndResultType]> {
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
def AGL_NegOp : AGL_UnaryOp<"neg", "-x">;
def AGL_AbsOp : AGL_UnaryOp<"abs", "|x|">;

def AGL_ClipOp : AGL_Op<"clip", [SameOperandsAndResultType]> {
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
    : AGL_InferredOp<mnemonic, traits> {
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
    : AGL_InferredOp<mnemonic> {
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

def AGL_NotOp : AGL_Op<"not", [SameOperandsAndResultType]> {
  let summary = "elementwise logical not";
  let description = [{
    ```mlir
    %b = autoglm.not %a : tensor<4xi1>
    ```
  }];
  let arguments = (ins AGL_BoolTensor:$input);
  let results = (outs AGL_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

def AGL_WhereOp : AGL_InferredOp<"where"> {
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

def AGL_CastOp : AGL_InferredOp<"cast"> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to `to` with ONNX Cast semantics: floats to
    integers truncate toward zero, to `i1` is `x != 0`.

    ```mlir
    %y = autoglm.cast %x {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, TypeAttr:$to);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def AGL_QuantizeLinearOp : AGL_InferredOp<"quantize_linear"> {
  let summary = "float to integer: saturate(round(x / scale) + zero_point)";
  let description = [{
    Rounds half to even and saturates to the range of the result type, which
    is the type of `zero_point`. `scale` and `zero_point` are scalars
    (per-tensor) or 1-D along `axis` (per-channel).

    ```mlir
    %q = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64}
        : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$scale,
                       AGL_Tensor:$zero_point, I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_DequantizeLinearOp : AGL_InferredOp<"dequantize_linear"> {
  let summary = "integer to float: (x - zero_point) * scale";
  let description = [{
    The result has the element type of `scale`. `scale` and `zero_point` are
    scalars (per-tensor) or 1-D along `axis` (per-channel).

    ```mlir
    %y = autoglm.dequantize_linear %q, %s, %zp {axis = 1 : i64}
        : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, AGL_FloatTensor:$scale,
                       AGL_Tensor:$zero_point, I64Attr:$axis);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def AGL_MatMulOp : AGL_InferredOp<"matmul"> {
  let summary = "numpy-style matrix product";
  let description = [{
    Matrix product over the last two dimensions with the batch dimensions
    broadcast (numpy `matmul`); a 1-D operand is a vector.

    ```mlir
    %c = autoglm.matmul %a, %b
        : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$lhs, AGL_Tensor:$rhs);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def AGL_GemmOp : AGL_InferredOp<"gemm"> {
  let summary = "general matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    2-D product with optional transposition of either operand and an optional
    bias `c` broadcast to the result.

    ```mlir
    %y = autoglm.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32,
                                  transA = false, transB = true}
        : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$a, AGL_FloatTensor:$b,
                       Optional<AGL_FloatTensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$transA,
                       DefaultValuedAttr<BoolAttr, "false">:$transB);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

def AGL_SoftmaxOp : AGL_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (opset-13 meaning; older
    opsets' flattening form is rewritten at import).

    ```mlir
    %p = autoglm.softmax %s {axis = 3 : i64} : tensor<1x4x32x32xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, I64Attr:$axis);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

class AGL_ReduceOp<string mnemonic, string what> : AGL_InferredOp<mnemonic> {
  let summary = what # " over the given axes";
  let description = "Reduces `input` by " # what # " over `axes` (sorted, "
    # "non-negative; empty means all axes). With `keepdims` the reduced "
    # "axes stay as extent 1.\n\n"
    # "```mlir\n%m = autoglm." # mnemonic
    # " %x {axes = array<i64: 2>, keepdims = true}"
    # " : (tensor<1x32x256xf32>) -> tensor<1x32x1xf32>\n```";
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def AGL_ReduceMeanOp : AGL_ReduceOp<"reduce_mean", "the mean">;
def AGL_ReduceSumOp : AGL_ReduceOp<"reduce_sum", "the sum">;
def AGL_ReduceMaxOp : AGL_ReduceOp<"reduce_max", "the maximum">;
def AGL_ReduceMinOp : AGL_ReduceOp<"reduce_min", "the minimum">;

def AGL_LayerNormOp : AGL_InferredOp<"layer_norm"> {
  let summary = "layer normalization over the trailing axes";
  let description = [{
    Normalizes over axes `axis..rank-1` to zero mean and unit variance, then
    scales by `scale` and adds `bias` (both broadcast to those axes).

    ```mlir
    %y = autoglm.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f32}
        : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$scale,
                       Optional<AGL_FloatTensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_BatchNormOp : AGL_InferredOp<"batch_norm"> {
  let summary = "inference-mode batch normalization";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (axis 1).

    ```mlir
    %y = autoglm.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32}
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
           tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$scale,
                       AGL_FloatTensor:$bias, AGL_FloatTensor:$mean,
                       AGL_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW, any number of spatial dims)
//===----------------------------------------------------------------------===//

def AGL_ConvOp : AGL_InferredOp<"conv"> {
  let summary = "grouped N-d convolution, NCHW layout";
  let description = [{
    Cross-correlation of `input` [N, C, spatial...] with `filter`
    [F, C/group, kernel...], plus an optional per-filter `bias`. `pads` lists
    the begin paddings of every spatial axis, then the end paddings.

    ```mlir
    %y = autoglm.conv %x, %w, %b {strides = array<i64: 1, 1>,
        pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$filter,
                       Optional<AGL_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class AGL_PoolOp<string mnemonic, string what> : AGL_InferredOp<mnemonic> {
  let summary = what # " pooling over spatial windows, NCHW layout";
  let description = "Takes the " # what # " of each `kernel_shape` window "
    # "(with `strides`, `dilations`, begin-then-end `pads`; `ceil_mode` rounds "
    # "the output extent up). Padding never contributes a value"
    # " unless `count_include_pad` asks average pooling to count it.\n\n"
    # "```mlir\n%y = autoglm." # mnemonic
    # " %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,"
    # " pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}"
    # " : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>\n```";
  let arguments = (ins AGL_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def AGL_MaxPoolOp : AGL_PoolOp<"max_pool", "maximum">;
def AGL_AveragePoolOp : AGL_PoolOp<"average_pool", "average">;

def AGL_GlobalAveragePoolOp : AGL_InferredOp<"global_average_pool"> {
  let summary = "average over all spatial axes";
  let description = [{
    ```mlir
    %y = autoglm.global_average_pool %x : (tensor<1x32x8x8xf32>) -> tensor<1x32x1x1xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

def AGL_ConstantOp : AGL_InferredOp<"constant", [ConstantLike]> {
  let summary = "a constant tensor (weights live in resource blobs)";
  let description = [{
    Large values are `dense_resource` blobs, so weights are not copied into
    the IR and IR dumps elide them.

    ```mlir
    %w = autoglm.constant dense_resource<w1> : tensor<256x256xf32>
    %s = autoglm.constant dense<[1, 32, 256]> : tensor<3xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def AGL_ShapeOp : AGL_InferredOp<"shape"> {
  let summary = "the extents of a tensor as a 1-D i64 tensor";
  let description = [{
    Dimensions `start..end` of the input's shape. Folds to a constant when the
    shape is static.

    ```mlir
    %s = autoglm.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<1x32x256xf32>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_ReshapeOp : AGL_Op<"reshape"> {
  let summary = "reinterpret a tensor with another static shape";
  let description = [{
    Same elements in row-major order, new shape (the result type). ONNX
    Reshape's shape input, with its `0` and `-1` entries, is resolved at import.

    ```mlir
    %y = autoglm.reshape %x : (tensor<1x32x256xf32>) -> tensor<1x32x4x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

class AGL_ReshapeLikeOp<string mnemonic, string what, string example>
    : AGL_InferredOp<mnemonic> {
  let summary = what;
  let description = what # "; a special case of `autoglm.reshape`, to which "
    # "canonicalization rewrites it.\n\n```mlir\n" # example # "\n```";
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def AGL_UnsqueezeOp : AGL_ReshapeLikeOp<"unsqueeze",
    "insert extent-1 axes at the given result positions",
    "%y = autoglm.unsqueeze %x {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<1x8xf32>"> {
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes);
}

def AGL_SqueezeOp : AGL_ReshapeLikeOp<"squeeze",
    "remove the given extent-1 axes",
    "%y = autoglm.squeeze %x {axes = array<i64: 0>} : (tensor<1x8xf32>) -> tensor<8xf32>"> {
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$axes);
}

def AGL_FlattenOp : AGL_ReshapeLikeOp<"flatten",
    "collapse axes [0, axis) and [axis, rank) into a 2-D tensor",
    "%y = autoglm.flatten %x {axis = 1 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>"> {
  let arguments = (ins AGL_Tensor:$input, I64Attr:$axis);
}

def AGL_TransposeOp : AGL_InferredOp<"transpose"> {
  let summary = "permute the axes";
  let description = [{
    Result axis `i` is input axis `perm[i]`.

    ```mlir
    %y = autoglm.transpose %x {perm = array<i64: 0, 2, 1, 3>}
        : (tensor<1x32x4x64xf32>) -> tensor<1x4x32x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_ConcatOp : AGL_InferredOp<"concat"> {
  let summary = "join tensors along one axis";
  let description = [{
    ```mlir
    %y = autoglm.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Variadic<AGL_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_SliceOp : AGL_InferredOp<"slice"> {
  let summary = "strided window of a tensor";
  let description = [{
    Per axis, elements `starts[i], starts[i] + steps[i], ...` while before
    `ends[i]` (after `ends[i]` for negative steps). All three arrays have one
    entry per axis and are already clamped to the input's extents; an `ends`
    entry of -1 with a negative step means "through index 0".

    ```mlir
    %y = autoglm.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 256>,
                           steps = array<i64: 1, 1>} : (tensor<4x768xf32>) -> tensor<4x256xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_GatherOp : AGL_InferredOp<"gather"> {
  let summary = "take entries along one axis by index";
  let description = [{
    `output[i.., j.., k..] = data[i.., indices[j..], k..]` along `axis`;
    negative indices count from the end.

    ```mlir
    %e = autoglm.gather %table, %ids {axis = 0 : i64}
        : (tensor<1000x64xf32>, tensor<1x8xi64>) -> tensor<1x8x64xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$data, AGL_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_ExpandOp : AGL_InferredOp<"expand"> {
  let summary = "broadcast a tensor to a shape (numpy rules)";
  let description = [{
    The result shape is the broadcast of the input's shape and `shape`.

    ```mlir
    %y = autoglm.expand %x {shape = array<i64: 4, 8>} : (tensor<1x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def AGL_PadOp : AGL_InferredOp<"pad"> {
  let summary = "constant padding";
  let description = [{
    Pads (or, with negative amounts, crops) each axis: `pads` holds the begin
    amounts of every axis, then the end amounts; new elements are `value`.

    ```mlir
    %y = autoglm.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f64}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // AUTOGLM_OPS_TD
