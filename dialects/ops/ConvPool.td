//===- ConvPool.td - Convolution and pooling (NCHW, any number of spatial dims) *- tablegen -*-===//

#ifndef AUTOGLM_OPS_CONVPOOL_TD
#define AUTOGLM_OPS_CONVPOOL_TD

include "dialects/AutoGLMBase.td"

def AGL_ConvOp : AGL_InferredOp<"conv"> {
  let summary = "grouped N-d convolution, NCHW layout";
  let description = [{
    Cross-correlation of `input` [N, C, spatial...] with `filter`
    [F, C/group, kernel...], plus an optional per-filter `bias`. `pads` lists
    the begin paddings of every spatial axis, then the end paddings; padding
    is zero. Integer operands (ConvInteger, after the zero points are
    subtracted) accumulate in their own type.

    ```mlir
    %y = autoglm.conv %x, %w, %b {strides = array<i64: 1, 1>,
        pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, AGL_Tensor:$filter,
                       Optional<AGL_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_ConvTransposeOp : AGL_InferredOp<"conv_transpose"> {
  let summary = "grouped N-d transposed convolution, NCHW layout";
  let description = [{
    The gradient of `autoglm.conv` with respect to its input: every input
    element [N, C, spatial...] scatters its product with the `filter`
    [C, F/group, kernel...] into the output, input position `i` and kernel
    position `k` landing on `i * stride + k * dilation - pad_begin`. Each
    spatial extent of the result is

        stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1
            - pad_begin - pad_end

    `pads` lists the begin paddings, then the end paddings; they crop the
    full result and may be negative, which extends it with positions no
    input reaches (they hold the bias). `bias` has one entry per output
    channel.

    ```mlir
    %y = autoglm.conv_transpose %x, %w {strides = array<i64: 2, 2>,
        pads = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 1>,
        output_padding = array<i64: 0, 0>}
        : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$filter,
                       Optional<AGL_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding,
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

def AGL_LpPoolOp : AGL_InferredOp<"lp_pool"> {
  let summary = "Lp-norm pooling over spatial windows, NCHW layout";
  let description = [{
    `(sum |x|^p)^(1/p)` over each `kernel_shape` window, with the window
    attributes of the other pooling ops. Padding is zero, so it adds nothing
    to a sum.

    ```mlir
    %y = autoglm.lp_pool %x {p = 2 : i64, kernel_shape = array<i64: 2, 2>,
        strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
        dilations = array<i64: 1, 1>}
        : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, I64Attr:$p,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs AGL_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_MaxPoolWithIndicesOp : AGL_InferredOp<"max_pool_with_indices"> {
  let summary = "maximum pooling that also returns where each maximum is";
  let description = [{
    `autoglm.max_pool` plus, for each window, the flat index into `input` of
    its first largest element. With `column_major` the spatial axes of that
    index are counted in reverse order (the last one varies slowest), as
    ONNX's `storage_order = 1` asks; batch and channel stay outermost.

    ```mlir
    %y, %i = autoglm.max_pool_with_indices %x {kernel_shape = array<i64: 2, 2>,
        strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
        dilations = array<i64: 1, 1>}
        : (tensor<1x16x32x32xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xi64>)
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$column_major);
  let results = (outs AGL_Tensor:$output, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def AGL_ResizeOp : AGL_InferredOp<"resize"> {
  let summary = "N-d interpolation: nearest, (multi)linear or cubic";
  let description = [{
    Resamples `input` to the shape `sizes`, one axis after the other. Output
    position `y` of an axis reads input coordinate `x`, given by
    `coordinate_transformation_mode` with that axis' `scales` entry `s`:

    - `half_pixel`: `(y + 0.5) / s - 0.5`
    - `half_pixel_symmetric`: like `half_pixel`, shifted so that the centres
      of input and output coincide when `sizes` was rounded
    - `pytorch_half_pixel`: `half_pixel`, but `-0.5` for an output extent 1
    - `align_corners`: `y * (in - 1) / (s * in - 1)`
    - `asymmetric`: `y / s`
    - `tf_half_pixel_for_nn`: `(y + 0.5) / s`
    - `tf_crop_and_resize`: from the `roi` window (the starts of every axis,
      then the ends, as fractions of `in - 1`); a position outside the input
      is `extrapolation_value`.

    `mode` then combines neighbours of `x`: `nearest` takes one (rounded by
    `nearest_mode`: `round_prefer_floor`, `round_prefer_ceil`, `floor` or
    `ceil`), `linear` two and `cubic` four (Keys' kernel with
    `cubic_coeff_a`) per axis. Neighbours past the edge repeat the edge
    element, or with `exclude_outside` drop out (the other weights are
    renormalized). With `antialias`, downsampling widens the linear or cubic
    kernel by `1 / s`. Axes whose scale is 1 and extent unchanged are copied.
    Integer results are rounded half to even and saturated.

    ```mlir
    %y = autoglm.resize %x {mode = "linear",
        coordinate_transformation_mode = "half_pixel",
        scales = array<f64: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 3, 16, 16>}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input,
                       DenseF64ArrayAttr:$scales, DenseI64ArrayAttr:$sizes,
                       DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                       DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                       DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode,
                       DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value,
                       DefaultValuedAttr<BoolAttr, "false">:$antialias,
                       DefaultValuedAttr<DenseF64ArrayAttr, "{}">:$roi);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // AUTOGLM_OPS_CONVPOOL_TD
