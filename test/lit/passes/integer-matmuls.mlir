// RUN: autoglm-opt %s --split-input-file --autoglm-integer-matmuls | FileCheck %s

// QDQ as quantize_static writes it: a per-tensor uint8 activation times an
// int8 weight with a scale per column (and zero points 0 per column). The
// product becomes an exact integer one, scaled by s_a * s_b per column.
// CHECK-LABEL: func.func @qdq_per_column
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>, %[[W:.*]]: tensor<64x32xi8>, %[[WS:.*]]: tensor<32xf32>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<ui8>)
// CHECK: %[[WZ:.*]] = autoglm.constant dense<0> : tensor<i8>
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %[[X]], %[[S]], %[[Z]]
// CHECK: %[[ACC:.*]] = autoglm.matmul_integer %[[Q]], %[[W]], %[[Z]], %[[WZ]] : (tensor<4x64xui8>, tensor<64x32xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x32xi32>
// CHECK: %[[F:.*]] = autoglm.cast %[[ACC]] {to = f32} : (tensor<4x32xi32>) -> tensor<4x32xf32>
// CHECK: %[[SCALE:.*]] = autoglm.mul %[[S]], %[[WS]] : (tensor<f32>, tensor<32xf32>) -> tensor<32xf32>
// CHECK: %[[Y:.*]] = autoglm.mul %[[F]], %[[SCALE]] : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NOT: autoglm.matmul %
// CHECK: return %[[Y]]
func.func @qdq_per_column(%x: tensor<4x64xf32>, %w: tensor<64x32xi8>, %ws: tensor<32xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4x32xf32> {
  %wz = autoglm.constant dense<0> : tensor<32xi8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x64xui8>
  %a = autoglm.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<4x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x64xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi8>) -> tensor<64x32xf32>
  %y = autoglm.matmul %a, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Batched lhs, per-tensor everything: one matmul_integer, scales multiplied.
// CHECK-LABEL: func.func @per_tensor_batched
// CHECK: autoglm.matmul_integer %{{.*}} : (tensor<2x4x64xi8>, tensor<64x32xi8>, tensor<i8>, tensor<i8>) -> tensor<2x4x32xi32>
// CHECK: autoglm.mul %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
func.func @per_tensor_batched(%aq: tensor<2x4x64xi8>, %w: tensor<64x32xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<2x4x32xf32> {
  %a = autoglm.dequantize_linear %aq, %s, %z {axis = 1 : i64} : (tensor<2x4x64xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4x64xf32>
  %b = autoglm.dequantize_linear %w, %s, %z {axis = 1 : i64} : (tensor<64x32xi8>, tensor<f32>, tensor<i8>) -> tensor<64x32xf32>
  %y = autoglm.matmul %a, %b : (tensor<2x4x64xf32>, tensor<64x32xf32>) -> tensor<2x4x32xf32>
  return %y : tensor<2x4x32xf32>
}

// -----

// Left alone: the lhs scale is per row (axis 0), which one column scale
// cannot express; the weight's zero points differ between columns; a float
// operand.
// CHECK-LABEL: func.func @not_folded
// CHECK-NOT: autoglm.matmul_integer
// CHECK-COUNT-3: autoglm.matmul %
func.func @not_folded(%aq: tensor<4x64xui8>, %w: tensor<64x32xi8>, %rows: tensor<4xf32>, %rz: tensor<4xui8>, %ws: tensor<32xf32>, %s: tensor<f32>, %z: tensor<ui8>, %f: tensor<4x64xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) {
  %wz = autoglm.constant dense<[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<32xi8>
  %wz0 = autoglm.constant dense<0> : tensor<32xi8>
  %per_row = autoglm.dequantize_linear %aq, %rows, %rz {axis = 0 : i64} : (tensor<4x64xui8>, tensor<4xf32>, tensor<4xui8>) -> tensor<4x64xf32>
  %a = autoglm.dequantize_linear %aq, %s, %z {axis = 1 : i64} : (tensor<4x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x64xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz0 {axis = 1 : i64} : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi8>) -> tensor<64x32xf32>
  %uneven = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi8>) -> tensor<64x32xf32>
  %y0 = autoglm.matmul %per_row, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  %y1 = autoglm.matmul %a, %uneven : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  %y2 = autoglm.matmul %f, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  return %y0, %y1, %y2 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// int8 activations (quantize_static's default): the quantization becomes
// uint8 with the zero point moved by 128 (-3 -> 125), so that the product
// takes an unsigned left operand, which the int8 GEMM needs.
// CHECK-LABEL: func.func @signed_activation
// CHECK: %[[Z:.*]] = autoglm.constant dense<125> : tensor<ui8>
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %arg0, %arg3, %[[Z]] {axis = 1 : i64} : (tensor<4x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x64xui8>
// CHECK: autoglm.matmul_integer %[[Q]], %arg1, %[[Z]], %{{.*}} : (tensor<4x64xui8>, tensor<64x32xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x32xi32>
// CHECK-NOT: xi8>) -> tensor<4x64xi8>
func.func @signed_activation(%x: tensor<4x64xf32>, %w: tensor<64x32xi8>, %ws: tensor<32xf32>, %s: tensor<f32>) -> tensor<4x32xf32> {
  %z = autoglm.constant dense<-3> : tensor<i8>
  %wz = autoglm.constant dense<0> : tensor<32xi8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x64xf32>, tensor<f32>, tensor<i8>) -> tensor<4x64xi8>
  %a = autoglm.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<4x64xi8>, tensor<f32>, tensor<i8>) -> tensor<4x64xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi8>) -> tensor<64x32xf32>
  %y = autoglm.matmul %a, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The int8 values are also returned: they stay int8 (the product then
// takes them signed).
// CHECK-LABEL: func.func @signed_activation_returned
// CHECK: autoglm.quantize_linear {{.*}} -> tensor<4x64xi8>
// CHECK: autoglm.matmul_integer {{.*}} : (tensor<4x64xi8>
func.func @signed_activation_returned(%x: tensor<4x64xf32>, %w: tensor<64x32xi8>, %ws: tensor<32xf32>, %s: tensor<f32>) -> (tensor<4x32xf32>, tensor<4x64xi8>) {
  %z = autoglm.constant dense<-3> : tensor<i8>
  %wz = autoglm.constant dense<0> : tensor<32xi8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x64xf32>, tensor<f32>, tensor<i8>) -> tensor<4x64xi8>
  %a = autoglm.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<4x64xi8>, tensor<f32>, tensor<i8>) -> tensor<4x64xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi8>) -> tensor<64x32xf32>
  %y = autoglm.matmul %a, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  return %y, %q : tensor<4x32xf32>, tensor<4x64xi8>
}

// -----

// A QDQ convolution (quantize_static, per_channel): a per-tensor uint8
// input, an int8 filter with a scale per output channel (axis 0), a float
// bias. It becomes conv_integer, scaled by s_x * s_w with the per-filter
// scales viewed as [1, F, 1, 1], plus the bias viewed the same way.
// CHECK-LABEL: func.func @qdq_conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x6xui8>, %[[W:.*]]: tensor<4x8x3x3xi8>, %[[WS:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<ui8>)
// CHECK: %[[WZ:.*]] = autoglm.constant dense<0> : tensor<i8>
// CHECK: %[[ACC:.*]] = autoglm.conv_integer %[[X]], %[[W]], %[[Z]], %[[WZ]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x6x6xui8>, tensor<4x8x3x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x4x3x3xi32>
// CHECK: %[[F:.*]] = autoglm.cast %[[ACC]] {to = f32}
// CHECK: %[[WS4:.*]] = autoglm.reshape %[[WS]] : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[SCALE:.*]] = autoglm.mul %[[S]], %[[WS4]] : (tensor<f32>, tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[Y:.*]] = autoglm.mul %[[F]], %[[SCALE]]
// CHECK: %[[B4:.*]] = autoglm.reshape %[[B]] : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
// CHECK: %[[OUT:.*]] = autoglm.add %[[Y]], %[[B4]] : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NOT: autoglm.conv %
// CHECK: return %[[OUT]]
func.func @qdq_conv(%xq: tensor<1x8x6x6xui8>, %w: tensor<4x8x3x3xi8>, %ws: tensor<4xf32>, %bias: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x4x3x3xf32> {
  %wz = autoglm.constant dense<0> : tensor<4xi8>
  %x = autoglm.dequantize_linear %xq, %s, %z {axis = 1 : i64} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xf32>
  %f = autoglm.dequantize_linear %w, %ws, %wz {axis = 0 : i64} : (tensor<4x8x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x8x3x3xf32>
  %y = autoglm.conv %x, %f, %bias {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x8x6x6xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}

// -----

// Convolutions left alone: two groups (the kernel's product has one); a
// filter scale along its input channels (axis 1), which no per-filter
// scale expresses.
// CHECK-LABEL: func.func @conv_not_folded
// CHECK-NOT: autoglm.conv_integer
// CHECK-COUNT-2: autoglm.conv %
func.func @conv_not_folded(%xq: tensor<1x8x6x6xui8>, %w: tensor<4x4x3x3xi8>, %w8: tensor<4x8x3x3xi8>, %cs: tensor<8xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %wz = autoglm.constant dense<0> : tensor<i8>
  %wz8 = autoglm.constant dense<0> : tensor<8xi8>
  %x = autoglm.dequantize_linear %xq, %s, %z {axis = 1 : i64} : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xf32>
  %f = autoglm.dequantize_linear %w, %s, %wz {axis = 0 : i64} : (tensor<4x4x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x4x3x3xf32>
  %f8 = autoglm.dequantize_linear %w8, %cs, %wz8 {axis = 1 : i64} : (tensor<4x8x3x3xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<4x8x3x3xf32>
  %y0 = autoglm.conv %x, %f {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<1x8x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
  %y1 = autoglm.conv %x, %f8 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x8x6x6xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %y0, %y1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// A symbolic batch: the convolution stays float (the int8 convolution's
// gather needs static shapes).
// CHECK-LABEL: func.func @conv_symbolic
// CHECK-NOT: autoglm.conv_integer
// CHECK: autoglm.conv %
func.func @conv_symbolic(%xq: tensor<?x8x6x6xui8>, %w: tensor<4x8x3x3xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<?x4x4x4xf32> {
  %wz = autoglm.constant dense<0> : tensor<i8>
  %x = autoglm.dequantize_linear %xq, %s, %z {axis = 1 : i64} : (tensor<?x8x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<?x8x6x6xf32>
  %f = autoglm.dequantize_linear %w, %s, %wz {axis = 0 : i64} : (tensor<4x8x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x8x3x3xf32>
  %y = autoglm.conv %x, %f {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<?x8x6x6xf32>, tensor<4x8x3x3xf32>) -> tensor<?x4x4x4xf32>
  return %y : tensor<?x4x4x4xf32>
}
