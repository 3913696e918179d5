//===- Quantization.td - Quantization --------------------------*- tablegen -*-===//

#ifndef AUTOGLM_OPS_QUANTIZATION_TD
#define AUTOGLM_OPS_QUANTIZATION_TD

include "dialects/AutoGLMBase.td"

def AGL_QuantizeLinearOp : AGL_InferredOp<"quantize_linear"> {
  let summary = "float to integer: saturate(round(x / scale) + zero_point)";
  let description = [{
    Rounds half to even and saturates to the range of the result type, which
    is the type of `zero_point`. `scale` and `zero_point` are scalars
    (per-tensor) or 1-D along `axis` (per-channel). To float8 types the
    zero point is not added (ONNX requires it to be 0) and `saturate` says
    whether out-of-range values clamp to the largest finite value; float4
    always saturates.

    ```mlir
    %q = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64}
        : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
    ```
  }];
  let arguments = (ins AGL_FloatTensor:$input, AGL_FloatTensor:$scale,
                       AGL_Tensor:$zero_point, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate);
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

def AGL_MatMulIntegerOp : AGL_InferredOp<"matmul_integer", [AGL_SymbolicShapes]> {
  let summary = "integer matrix product: (lhs - lhs_zero_point) x (rhs - rhs_zero_point)";
  let description = [{
    The exact product of two 8-bit integer tensors (`ui8` or `i8` each),
    accumulated in `i32`, with batch dimensions broadcast as by
    `autoglm.matmul`. The zero points are per-tensor scalars of the
    operands' types. This is ONNX's MatMulInteger, and what a product of
    dequantized operands becomes (`autoglm-integer-matmuls`): the float
    result is this one times the two scales. The runtime's int8 GEMM
    computes it for a `ui8` lhs and a constant `i8` rhs whose zero point
    is 0.

    ```mlir
    %acc = autoglm.matmul_integer %a, %w, %a_zp, %w_zp
        : (tensor<4x64xui8>, tensor<64x32xi8>, tensor<ui8>, tensor<i8>)
        -> tensor<4x32xi32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$lhs, AGL_Tensor:$rhs,
                       AGL_Tensor:$lhs_zero_point, AGL_Tensor:$rhs_zero_point);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def AGL_ConvIntegerOp : AGL_InferredOp<"conv_integer"> {
  let summary = "integer convolution: (input - input_zero_point) conv (filter - filter_zero_point)";
  let description = [{
    The exact convolution of two 8-bit integer tensors (`ui8` or `i8`
    each), accumulated in `i32`: `autoglm.conv` (NCHW, one group, the same
    other attributes) of the operands less their zero points, which are
    per-tensor scalars of the operands' types; the padding is the input's
    zero point, so it contributes 0. This is ONNX's ConvInteger with one
    group, and what a convolution of dequantized operands becomes
    (`autoglm-integer-matmuls`). It lowers to an im2col gather of the input
    (a row per output position) times the filter: a product that the
    runtime's int8 GEMM computes for a `ui8` input and a constant `i8`
    filter whose zero point is 0.

    ```mlir
    %acc = autoglm.conv_integer %x, %w, %x_zp, %w_zp {strides = array<i64: 1, 1>,
        pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
        : (tensor<1x8x16x16xui8>, tensor<16x8x3x3xi8>, tensor<ui8>, tensor<i8>)
        -> tensor<1x16x16x16xi32>
    ```
  }];
  let arguments = (ins AGL_Tensor:$input, AGL_Tensor:$filter,
                       AGL_Tensor:$input_zero_point,
                       AGL_Tensor:$filter_zero_point,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs AGL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // AUTOGLM_OPS_QUANTIZATION_TD
