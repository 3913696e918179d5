//===- Normalization.td - Reductions and normalizations --------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_NORMALIZATION_TD
#define AUTOGLM_OPS_NORMALIZATION_TD

include "dialects/AutoGLMBase.td"

def AGL_SoftmaxOp : AGL_Op<"softmax", [SameOperandsAndResultType, AGL_SymbolicShapes]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (opset-13 meaning; older
    opsets' flattening form is rewritten at import). f16 and bf16 inputs are
    computed in f32 and rounded once.

    ```mlir
    %p = autoglm.softmax %s {axis = 3 : i64} : tensor<1x4x32x32xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, I64Attr:$axis);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def AGL_LogSoftmaxOp : AGL_Op<"log_softmax", [SameOperandsAndResultType, AGL_SymbolicShapes]> {
  let summary = "logarithm of the softmax along one axis";
  let description = [{
    `x - max - log(sum(exp(x - max)))` along `axis` (opset-13 meaning; older
    opsets' flattening form is rewritten at import).

    ```mlir
    %p = autoglm.log_softmax %s {axis = 1 : i64} : tensor<8x32000xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, I64Attr:$axis);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def AGL_HardmaxOp : AGL_Op<"hardmax", [SameOperandsAndResultType]> {
  let summary = "one-hot of the first maximum along one axis";
  let description = [{
    1 at the first position of the maximum along `axis`, 0 elsewhere
    (opset-13 meaning; older opsets' flattening form is rewritten at import).

    ```mlir
    %h = autoglm.hardmax %x {axis = 1 : i64} : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, I64Attr:$axis);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

class AGL_ReduceOp<string mnemonic, string what, Type tensor = AGL_Tensor>
    : AGL_InferredOp<mnemonic, [AGL_SymbolicShapes]> {
  let summary = what # " over the given axes";
  let description = "Reduces `input` by " # what # " over `axes` (sorted, "
    # "non-negative; empty means all axes). With `keepdims` the reduced "
    # "axes stay as extent 1. Floating-point sums of f16 and bf16 inputs "
    # "are accumulated in f32.\n\n"
    # "```mlir\n%m = autoglm." # mnemonic
    # " %x {axes = array<i64: 2>, keepdims = true}"
    # " : (tensor<1x32x256xf32>) -> tensor<1x32x1xf32>\n```";
  let arguments = (ins tensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def AGL_ReduceMeanOp : AGL_ReduceOp<"reduce_mean", "the mean">;
def AGL_ReduceSumOp : AGL_ReduceOp<"reduce_sum", "the sum">;
def AGL_ReduceMaxOp : AGL_ReduceOp<"reduce_max", "the maximum">;
def AGL_ReduceMinOp : AGL_ReduceOp<"reduce_min", "the minimum">;
def AGL_ReduceProdOp : AGL_ReduceOp<"reduce_prod", "the product">;
def AGL_ReduceL1Op : AGL_ReduceOp<"reduce_l1", "the sum of absolute values">;
def AGL_ReduceSumSquareOp
    : AGL_ReduceOp<"reduce_sum_square", "the sum of squares">;
def AGL_ReduceL2Op
    : AGL_ReduceOp<"reduce_l2", "the square root of the sum of squares",
                   AGL_FloatTensor>;
def AGL_ReduceLogSumOp
    : AGL_ReduceOp<"reduce_log_sum", "the logarithm of the sum",
                   AGL_FloatTensor>;
def AGL_ReduceLogSumExpOp
    : AGL_ReduceOp<"reduce_log_sum_exp",
                   "log(sum(exp(x))) (computed shifted by the maximum)",
                   AGL_FloatTensor>;

class AGL_ArgReduceOp<string mnemonic, string what> : AGL_InferredOp<mnemonic> {
  let summary = "index of the " # what # " along one axis";
  let description = "The position along `axis` of the " # what # " of "
    # "`input`, as i64. Ties give the first position, or the last with "
    # "`select_last_index`; NaN counts as the " # what # ". With `keepdims` "
    # "the axis stays as extent 1.\n\n"
    # "```mlir\n%i = autoglm." # mnemonic
    # " %x {axis = 1 : i64, keepdims = false}"
    # " : (tensor<2x5xf32>) -> tensor<2xi64>\n```";
  let arguments = (ins AGL_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def AGL_ArgMaxOp : AGL_ArgReduceOp<"arg_max", "maximum">;
def AGL_ArgMinOp : AGL_ArgReduceOp<"arg_min", "minimum">;

def AGL_TopKOp : AGL_InferredOp<"top_k"> {
  let summary = "the k largest (or smallest) elements along one axis";
  let description = [{
    The `k` largest elements along `axis` (the smallest without `largest`),
    in order, with their positions as i64. Equal values are ordered by
    position; NaN counts as larger than any number.

    ```mlir
    %v, %i = autoglm.top_k %x {k = 2 : i64, axis = 1 : i64}
        : (tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, I64Attr:$k, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs AGL_Tensor:$values, RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

class AGL_CumulativeOp<string mnemonic, string what>
    : AGL_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = "cumulative " # what # " along one axis";
  let description = "Running " # what # " along `axis`. `exclusive` leaves "
    # "out the element itself (the first value is the identity); `reverse` "
    # "runs from the end of the axis.\n\n"
    # "```mlir\n%c = autoglm." # mnemonic
    # " %x {axis = 1 : i64, exclusive = true} : tensor<2x8xi64>\n```";
  let arguments = (ins AGL_Tensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def AGL_CumSumOp : AGL_CumulativeOp<"cum_sum", "sum">;
def AGL_CumProdOp : AGL_CumulativeOp<"cum_prod", "product">;

def AGL_LayerNormOp : AGL_InferredOp<"layer_norm", [AGL_SymbolicShapes]> {
  let summary = "layer normalization over the trailing axes";
  let description = [{
    Normalizes over axes `axis..rank-1` to zero mean and unit variance, then
    scales by `scale` and adds `bias` (both broadcast to those axes). Mean
    and variance are summed in f64; f16 and bf16 data is computed in f32.

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

def AGL_RMSNormOp : AGL_InferredOp<"rms_norm", [AGL_SymbolicShapes]> {
  let summary = "RMS normalization over the trailing axes";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon) * scale`, the mean taken over axes
    `axis..rank-1`; `scale` broadcasts to those axes. Statistics of f16 and
    bf16 inputs are computed in f32.

    ```mlir
    %y = autoglm.rms_norm %x, %g {axis = 2 : i64, epsilon = 1.0e-6 : f32}
        : (tensor<1x8x64xf32>, tensor<64xf32>) -> tensor<1x8x64xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$scale,
                       I64Attr:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_GroupNormOp : AGL_InferredOp<"group_norm"> {
  let summary = "group normalization of an [N, C, ...] tensor";
  let description = [{
    The channels are split into `num_groups` groups; each (instance, group)
    is normalized to zero mean and unit variance, then scaled and shifted per
    channel: `(x - mean) / sqrt(var + epsilon) * scale[c] + bias[c]`.
    Instance normalization is the case `num_groups = C`. Mean and variance
    are summed in f64; f16 and bf16 data is computed in f32.

    ```mlir
    %y = autoglm.group_norm %x, %s, %b {num_groups = 32 : i64, epsilon = 1.0e-5 : f32}
        : (tensor<1x320x64x64xf16>, tensor<320xf16>, tensor<320xf16>) -> tensor<1x320x64x64xf16>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$scale,
                       AGL_FloatTensor:$bias, I64Attr:$num_groups,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_BatchNormOp : AGL_InferredOp<"batch_norm"> {
  let summary = "inference-mode batch normalization";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (axis 1).
    After a convolution with constant weights it canonicalizes away: the
    scale and shift fold into the convolution's filter and bias.

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
  let hasCanonicalizer = 1;
}

#endif // AUTOGLM_OPS_NORMALIZATION_TD
