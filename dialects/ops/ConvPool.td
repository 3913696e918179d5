//===- ConvPool.td - Convolution and pooling (NCHW, any number of spatial dims) *- tablegen -*-===//

#ifndef AUTOGLM_OPS_CONVPOOL_TD
#define AUTOGLM_OPS_CONVPOOL_TD

include "dialects/AutoGLMBase.td"

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

class AGL_PoolOp<string mnemonic, string what, Type elementType>
    : AGL_InferredOp<mnemonic> {
  let summary = what # " pooling over spatial windows, NCHW layout";
  let description = "Takes the " # what # " of each `kernel_shape` window "
    # "(with `strides`, `dilations`, begin-then-end `pads`; `ceil_mode` rounds "
    # "the output extent up). Padding never contributes a value"
    # " unless `count_include_pad` asks average pooling to count it.\n\n"
    # "```mlir\n%y = autoglm." # mnemonic
    # " %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,"
    # " pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}"
    # " : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>\n```";
  let arguments = (ins elementType:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs elementType:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def AGL_MaxPoolOp : AGL_PoolOp<"max_pool", "maximum", AGL_Tensor>;
def AGL_AveragePoolOp : AGL_PoolOp<"average_pool", "average", AGL_FloatTensor>;

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

#endif // AUTOGLM_OPS_CONVPOOL_TD
