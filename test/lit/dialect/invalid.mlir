// RUN: autoglm-opt %s --split-input-file --verify-diagnostics

// Every op with an inferred result type reports the shape problem at the op,
// then the generic "failed to infer" error.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @add_broadcast_mismatch(%a: tensor<4x8xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operand shapes [4,8] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{'autoglm.add' op failed to infer returned types}}
  %0 = autoglm.add %a, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @mul_wrong_result_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{'autoglm.mul' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.mul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @sub_result_takes_lhs_element_type(%a: tensor<4xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.sub %a, %a : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi32>
  return
}

// -----

func.func @add_element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'autoglm.add' op operands must have the same element type, got 'f32' and 'i32'}}
  %0 = autoglm.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @div_element_type_mismatch(%a: tensor<4xi64>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'autoglm.div' op operands must have the same element type}}
  %0 = autoglm.div %a, %b : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @max_element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'autoglm.max' op operands must have the same element type}}
  %0 = autoglm.max %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @less_element_type_mismatch(%a: tensor<4xi64>, %b: tensor<4xui64>) {
  // expected-error @+1 {{'autoglm.less' op operands must have the same element type}}
  %0 = autoglm.less %a, %b : (tensor<4xi64>, tensor<4xui64>) -> tensor<4xi1>
  return
}

// -----

func.func @equal_broadcast_mismatch(%a: tensor<2x3xi64>, %b: tensor<2xi64>) {
  // expected-error @+2 {{operand shapes [2,3] and [2] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.equal %a, %b : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x3xi1>
  return
}

// -----

func.func @greater_result_not_bool(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = autoglm.greater %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_element_type_mismatch(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'autoglm.where' op x and y must have the same element type}}
  %0 = autoglm.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @where_broadcast_mismatch(%c: tensor<3xi1>, %x: tensor<4xf32>, %y: tensor<f32>) {
  // expected-error @+2 {{operand shapes [3] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.where %c, %x, %y : (tensor<3xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xi8>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = autoglm.where %c, %x, %x : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_result_disagrees_with_to(%x: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @sqrt_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = autoglm.sqrt %x : tensor<4xi32>
  return
}

// -----

func.func @not_of_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of integer values}}
  %0 = autoglm.not %x : tensor<4xf32>
  return
}

// -----

func.func @relu_of_index(%x: tensor<4xindex>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or integer values}}
  %0 = autoglm.relu %x : tensor<4xindex>
  return
}

// -----

func.func @unranked_operand(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "autoglm.exp"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @round_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = autoglm.round %x : tensor<4xi32>
  return
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_float_zero_point(%x: tensor<1x8xf32>, %s: tensor<f32>, %zp: tensor<f32>) {
  // expected-error @+1 {{'autoglm.quantize_linear' op zero point must be an integer, float8 or float4 tensor}}
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64} : (tensor<1x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @quantize_e8m0(%x: tensor<1x8xf32>, %s: tensor<f32>, %zp: tensor<f8E8M0FNU>) {
  // expected-error @+1 {{'autoglm.quantize_linear' op quantizing to f8E8M0FNU is not supported}}
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64} : (tensor<1x8xf32>, tensor<f32>, tensor<f8E8M0FNU>) -> tensor<1x8xf8E8M0FNU>
  return
}

// -----

func.func @quantize_per_channel_extent(%x: tensor<1x8xf32>, %s: tensor<4xf32>, %zp: tensor<4xi8>) {
  // expected-error @+1 {{'autoglm.quantize_linear' op scale and zero point must be scalars, have one entry per slice of axis 1 or the input's shape, got [4]}}
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64} : (tensor<1x8xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x8xi8>
  return
}

// -----

func.func @quantize_param_shapes_differ(%x: tensor<1x8xf32>, %s: tensor<8xf32>, %zp: tensor<i8>) {
  // expected-error @+1 {{'autoglm.quantize_linear' op scale and zero point must have the same shape}}
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64} : (tensor<1x8xf32>, tensor<8xf32>, tensor<i8>) -> tensor<1x8xi8>
  return
}

// -----

func.func @quantize_axis_out_of_range(%x: tensor<1x8xf32>, %s: tensor<f32>, %zp: tensor<i8>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 2 : i64} : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xi8>
  return
}

// -----

// The result type follows the zero point.
func.func @quantize_result_type(%x: tensor<1x8xf32>, %s: tensor<f32>, %zp: tensor<i8>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x8xi8>' are incompatible with return type(s) of operation 'tensor<1x8xui8>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64} : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xui8>
  return
}

// -----

func.func @dequantize_zero_point_type(%q: tensor<1x8xui8>, %s: tensor<f32>, %zp: tensor<i8>) {
  // expected-error @+1 {{'autoglm.dequantize_linear' op input and zero point must have the same type}}
  %0 = autoglm.dequantize_linear %q, %s, %zp {axis = 1 : i64} : (tensor<1x8xui8>, tensor<f32>, tensor<i8>) -> tensor<1x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_k_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{matmul contraction extents differ: [2,3] x [4,5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @matmul_vector_k_mismatch(%a: tensor<3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{matmul contraction extents differ: [3] x [4,5]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.matmul %a, %b : (tensor<3xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+2 {{matmul batch dimensions [2] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_element_type_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xi32>) {
  // expected-error @+2 {{matmul operands must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xi32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{matmul operands must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_wrong_result(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x4x16xf32>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @gemm_not_2d(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{gemm operands must be 2-D}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.gemm %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

// transB makes b [16, 8] contract over 8, not 16.
func.func @gemm_k_mismatch(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+2 {{gemm contraction extents differ: 16 vs 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.gemm %a, %b {transB = true} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @gemm_bias_does_not_broadcast(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'autoglm.gemm' op bias of shape [4] does not broadcast to the result [4,16]}}
  %0 = autoglm.gemm %a, %b, %c : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4xf32>) -> tensor<4x16xf32>
  return
}

// -----

// The bias may broadcast to the result, never the result to the bias.
func.func @gemm_bias_larger_than_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'autoglm.gemm' op bias of shape [2,4,16] does not broadcast to the result [4,16]}}
  %0 = autoglm.gemm %a, %b, %c : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<2x4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @gemm_element_type_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf16>) {
  // expected-error @+2 {{gemm operands must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.gemm %a, %b, %c : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf16>) -> tensor<4x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axes_unsorted(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes must be sorted and unique}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.reduce_sum %x {axes = array<i64: 2, 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

func.func @reduce_axes_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes must be sorted and unique}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.reduce_mean %x {axes = array<i64: 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{axis 3 is out of range for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.reduce_max %x {axes = array<i64: 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// Axes are normalized at import: negative ones are invalid here.
func.func @reduce_axis_negative(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{axis -1 is out of range for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.reduce_max %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @reduce_keepdims_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.reduce_sum %x {axes = array<i64: 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @softmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = autoglm.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_axis_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -1 is out of range for rank 2}}
  %0 = autoglm.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_axis_out_of_range(%x: tensor<1x8x32xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{axis 3 is out of range for rank 3}}
  %0 = autoglm.layer_norm %x, %g {axis = 3 : i64} : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<1x8x32xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'autoglm.layer_norm' op scale/bias of shape [16] does not broadcast to the normalized shape [32]}}
  %0 = autoglm.layer_norm %x, %g {axis = 2 : i64} : (tensor<1x8x32xf32>, tensor<16xf32>) -> tensor<1x8x32xf32>
  return
}

// -----

// With axis 1 the normalized shape is [8, 32]; a [32] scale broadcasts, an
// [8] bias does not.
func.func @layer_norm_bias_shape(%x: tensor<1x8x32xf32>, %g: tensor<32xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{scale/bias of shape [8] does not broadcast to the normalized shape [8,32]}}
  %0 = autoglm.layer_norm %x, %g, %b {axis = 1 : i64} : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<8xf32>) -> tensor<1x8x32xf32>
  return
}

// -----

func.func @layer_norm_result(%x: tensor<1x8x32xf32>, %g: tensor<32xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x32xf32>' are incompatible with return type(s) of operation 'tensor<8x32xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.layer_norm %x, %g {axis = 2 : i64} : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<16xf32>, %p: tensor<16xf32>) {
  // expected-error @+1 {{'autoglm.batch_norm' op input must have rank >= 2}}
  %0 = autoglm.batch_norm %x, %p, %p, %p, %p : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @batch_norm_param_extent(%x: tensor<1x16x8x8xf32>, %p: tensor<16xf32>, %q: tensor<8xf32>) {
  // expected-error @+1 {{'autoglm.batch_norm' op per-channel parameters must have shape [16], got [8]}}
  %0 = autoglm.batch_norm %x, %p, %p, %q, %p : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return
}

// -----

func.func @batch_norm_param_rank(%x: tensor<1x16x8x8xf32>, %p: tensor<16xf32>, %q: tensor<16x1xf32>) {
  // expected-error @+1 {{per-channel parameters must have shape [16], got [16,1]}}
  %0 = autoglm.batch_norm %x, %q, %p, %p, %p : (tensor<1x16x8x8xf32>, tensor<16x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return
}

// -----

// Parameters are checked against the input; a wrong result type is reported
// as such, not as a parameter mismatch.
func.func @batch_norm_result(%x: tensor<1x16x8x8xf32>, %p: tensor<16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x8x8xf32>' are incompatible with return type(s) of operation 'tensor<1x8x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.batch_norm %x, %p, %p, %p, %p : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x8x8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// -----

func.func @conv_rank(%x: tensor<3x32xf32>, %w: tensor<16x3xf32>) {
  // expected-error @+2 {{conv needs input and filter of equal rank >= 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<3x32xf32>, tensor<16x3xf32>) -> tensor<3x16xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error @+2 {{conv needs input and filter of equal rank >= 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}

// -----

func.func @conv_attr_lengths(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{strides/dilations need 2 entries and pads 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}

// -----

func.func @conv_channel_mismatch(%x: tensor<1x3x32x32xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+2 {{conv channels do not match: input has 3, filter expects 4 x group 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x30x30xf32>
  return
}

// -----

// 8 input channels in 4 groups of 2, but 6 filters do not split into 4 groups.
func.func @conv_filters_not_divisible_by_group(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{conv channels do not match: input has 8, filter expects 2 x group 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_group_zero(%x: tensor<1x8x8x8xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @+2 {{conv channels do not match: input has 8, filter expects 2 x group 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0 : i64} : (tensor<1x8x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_kernel_too_big(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x5x5xf32>) {
  // expected-error @+2 {{window of extent 5 is larger than the padded input 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<16x3x5x5xf32>) -> tensor<1x16x1x1xf32>
  return
}

// -----

// Dilation 2 spreads a 3-tap kernel over 5 positions.
func.func @conv_dilated_kernel_too_big(%x: tensor<1x3x4x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{window of extent 5 is larger than the padded input 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>} : (tensor<1x3x4x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x1x6xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{kernel, stride and dilation must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x16x8x8xf32>' are incompatible with return type(s) of operation 'tensor<1x16x6x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_bias_extent(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'autoglm.conv' op bias must have one entry per filter}}
  %0 = autoglm.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @pool_kernel_length(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{pooling needs rank >= 3 and one kernel extent per spatial axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{pooling needs rank >= 3 and one kernel extent per spatial axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.average_pool %x {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @pool_attr_lengths(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{strides/dilations need 2 entries and pads 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @pool_window_too_big(%x: tensor<1x4x3x3xf32>) {
  // expected-error @+2 {{window of extent 4 is larger than the padded input 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.average_pool %x {kernel_shape = array<i64: 4, 4>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @pool_zero_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{kernel, stride and dilation must be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 0, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x7xf32>
  return
}

// -----

// Without ceil_mode 5 positions give 2 windows of 2 with stride 2.
func.func @pool_floor_result(%x: tensor<1x4x5x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x2x2xf32>' are incompatible with return type(s) of operation 'tensor<1x4x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  return
}

// -----

// With ceil_mode a window that would start inside the end padding is dropped:
// 4 positions + 1 end pad, kernel 2, stride 2: windows at 0 and 2 only.
func.func @pool_ceil_drops_window_in_padding(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x1x3x3xf32>' are incompatible with return type(s) of operation 'tensor<1x1x2x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return
}

// -----

func.func @global_pool_rank(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{global pooling needs rank >= 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.global_average_pool %x : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

// -----

func.func @constant_type_mismatch() {
  // expected-error @+2 {{inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "autoglm.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi32>
  return
}

// -----

func.func @shape_range_reversed(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{shape range [2, 1) is invalid for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.shape %x {start = 2 : i64, end = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<0xi64>
  return
}

// -----

func.func @shape_range_past_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{shape range [0, 4) is invalid for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.shape %x {start = 0 : i64, end = 4 : i64} : (tensor<2x3x4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @shape_negative_start(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{shape range [-1, 3) is invalid for rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.shape %x {start = -1 : i64, end = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @shape_result_not_i64(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = autoglm.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<3xi32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'autoglm.reshape' op cannot reshape [2,3] (6 elements) to [4] (4 elements)}}
  %0 = autoglm.reshape %x : (tensor<2x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'autoglm.reshape' op cannot change the element type}}
  %0 = autoglm.reshape %x : (tensor<2x3xf32>) -> tensor<6xi32>
  return
}

// -----

func.func @unsqueeze_axis_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+2 {{unsqueeze axes must be unique and in range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.unsqueeze %x {axes = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return
}

// -----

func.func @unsqueeze_axis_repeated(%x: tensor<3xf32>) {
  // expected-error @+2 {{unsqueeze axes must be unique and in range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.unsqueeze %x {axes = array<i64: 0, 0>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  return
}

// -----

// Axes are positions in the result: [3] with axes 0 and 2 is [1, 3, 1].
func.func @unsqueeze_result(%x: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x1xf32>' are incompatible with return type(s) of operation 'tensor<1x1x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.unsqueeze %x {axes = array<i64: 0, 2>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  return
}

// -----

func.func @squeeze_non_unit_axis(%x: tensor<2x1xf32>) {
  // expected-error @+2 {{squeeze axis 0 must name an extent-1 dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.squeeze %x {axes = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_axis_out_of_range(%x: tensor<2x1xf32>) {
  // expected-error @+2 {{squeeze axis 2 must name an extent-1 dimension}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.squeeze %x {axes = array<i64: 2>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @flatten_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{flatten axis out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.flatten %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @transpose_not_a_permutation(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm must be a permutation of the 3 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.transpose %x {perm = array<i64: 0, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm must be a permutation of the 3 axes}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x4x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.concat {axis = 0 : i64} : () -> tensor<2xi64>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_shape_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{concat input of type [2,4] does not match [2,3] outside axis 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{concat input of type [3] does not match [2,3] outside axis 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type_mismatch(%a: tensor<2xi64>, %b: tensor<2xi32>) {
  // expected-error @+2 {{concat input of type [2] does not match [2] outside axis 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.concat %a, %b {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @slice_bounds_per_axis(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{slice needs one start, end and step per axis}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.slice %x {starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{slice step must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_end_past_extent(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{slice of axis 1 leaves its extent 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.slice %x {starts = array<i64: 0, 4>, ends = array<i64: 4, 12>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{slice of axis 0 leaves its extent 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.slice %x {starts = array<i64: -1, 0>, ends = array<i64: 2, 8>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<3x8xf32>
  return
}

// -----

// Reading backwards from 5 starts outside an extent of 4.
func.func @slice_negative_step_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{slice of axis 0 leaves its extent 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.slice %x {starts = array<i64: 5, 0>, ends = array<i64: -1, 8>, steps = array<i64: -1, 1>} : (tensor<4x8xf32>) -> tensor<6x8xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 3>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @gather_axis_out_of_range(%d: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.gather %d, %i {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<10x4x3xf32>
  return
}

// -----

func.func @gather_float_indices(%d: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer or 32-bit signed integer or 64-bit signed integer values}}
  %0 = autoglm.gather %d, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_result(%d: tensor<10x4xf32>, %i: tensor<2x3xi32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<10x2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.gather %d, %i {axis = 1 : i64} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @expand_incompatible(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{cannot expand [3,4] to [2,4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.expand %x {shape = array<i64: 2, 4>} : (tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Expand broadcasts both ways: a 1 in the shape keeps the input's extent.
func.func @expand_result(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x3x4xf32>' are incompatible with return type(s) of operation 'tensor<2x1x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.expand %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @pad_amount_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad needs 4 amounts}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.pad %x {pads = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_crop_below_zero(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{padding crops axis 1 below zero}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.pad %x {pads = array<i64: 0, -2, 0, -2>} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return
}


// -----

func.func @matmul_integer_not_8bit(%a: tensor<2x3xi32>, %b: tensor<3x5xi8>, %za: tensor<i32>, %zb: tensor<i8>) {
  // expected-error @+1 {{operands must be 8-bit integers, got 'i32'}}
  %0 = autoglm.matmul_integer %a, %b, %za, %zb : (tensor<2x3xi32>, tensor<3x5xi8>, tensor<i32>, tensor<i8>) -> tensor<2x5xi32>
  return
}

// -----

func.func @matmul_integer_zero_point_type(%a: tensor<2x3xui8>, %b: tensor<3x5xi8>, %za: tensor<i8>, %zb: tensor<i8>) {
  // expected-error @+1 {{a zero point must have its operand's type}}
  %0 = autoglm.matmul_integer %a, %b, %za, %zb : (tensor<2x3xui8>, tensor<3x5xi8>, tensor<i8>, tensor<i8>) -> tensor<2x5xi32>
  return
}

// -----

func.func @matmul_integer_per_row(%a: tensor<2x3xui8>, %b: tensor<3x5xi8>, %za: tensor<2xui8>, %zb: tensor<i8>) {
  // expected-error @+1 {{zero points must be per-tensor scalars}}
  %0 = autoglm.matmul_integer %a, %b, %za, %zb : (tensor<2x3xui8>, tensor<3x5xi8>, tensor<2xui8>, tensor<i8>) -> tensor<2x5xi32>
  return
}

// -----

func.func @conv_integer_not_8bit(%x: tensor<1x2x4x4xi32>, %w: tensor<3x2x3x3xi8>, %zx: tensor<i32>, %zw: tensor<i8>) {
  // expected-error@+1 {{operands must be 8-bit integers, got 'i32'}}
  %0 = autoglm.conv_integer %x, %w, %zx, %zw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xi32>, tensor<3x2x3x3xi8>, tensor<i32>, tensor<i8>) -> tensor<1x3x2x2xi32>
  return
}

// -----

func.func @conv_integer_per_channel_zero_point(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<3xi8>) {
  // expected-error@+1 {{zero points must be per-tensor scalars}}
  %0 = autoglm.conv_integer %x, %w, %zx, %zw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xi8>, tensor<ui8>, tensor<3xi8>) -> tensor<1x3x2x2xi32>
  return
}

// -----

func.func @conv_integer_channels(%x: tensor<1x2x4x4xui8>, %w: tensor<3x4x3x3xi8>, %zx: tensor<ui8>, %zw: tensor<i8>) {
  // expected-error@+2 {{conv channels do not match: input has 2, filter expects 4 x group 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = autoglm.conv_integer %x, %w, %zx, %zw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>, tensor<3x4x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x2x2xi32>
  return
}
