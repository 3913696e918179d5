//===- Normalization.td - Reductions and normalizations --------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_NORMALIZATION_TD
#define AUTOGLM_OPS_NORMALIZATION_TD

include "dialects/AutoGLMBase.td"

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

#endif // AUTOGLM_OPS_NORMALIZATION_TD
