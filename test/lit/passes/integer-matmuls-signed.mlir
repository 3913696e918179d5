// RUN: autoglm-opt %s --split-input-file --autoglm-integer-matmuls=signed-activations=true | FileCheck %s

// For cuBLASLt (the CUDA target): a uint8 activation with zero point 133
// becomes int8 with zero point 5 (the same values less 128), and the
// product by a constant weight loses that zero point: 5 * (the weight's
// column sums) is subtracted after it, exactly, in int32. Column sums of
// [[1, -2], [3, 4], [-5, 6]] are [-1, 8]: the correction is [-5, 40].
// CHECK-LABEL: func.func @uint8_activation_constant_weight
// CHECK-DAG: %[[SUMS:.*]] = autoglm.constant dense<[-5, 40]> : tensor<2xi32>
// CHECK-DAG: %[[ZP:.*]] = autoglm.constant dense<5> : tensor<i8>
// CHECK-DAG: %[[NOZP:.*]] = autoglm.constant dense<0> : tensor<i8>
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %{{.*}}, %{{.*}}, %[[ZP]] {axis = 1 : i64} : (tensor<4x3xf32>, tensor<f32>, tensor<i8>) -> tensor<4x3xi8>
// CHECK: %[[ACC:.*]] = autoglm.matmul_integer %[[Q]], %{{.*}}, %[[NOZP]], %{{.*}} : (tensor<4x3xi8>, tensor<3x2xi8>, tensor<i8>, tensor<i8>) -> tensor<4x2xi32>
// CHECK: %[[EXACT:.*]] = autoglm.sub %[[ACC]], %[[SUMS]] : (tensor<4x2xi32>, tensor<2xi32>) -> tensor<4x2xi32>
// CHECK: autoglm.cast %[[EXACT]] {to = f32}
// CHECK-NOT: ui8
func.func @uint8_activation_constant_weight(%x: tensor<4x3xf32>, %s: tensor<f32>, %ws: tensor<2xf32>) -> tensor<4x2xf32> {
  %z = autoglm.constant dense<133> : tensor<ui8>
  %w = autoglm.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %wz = autoglm.constant dense<0> : tensor<2xi8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x3xui8>
  %a = autoglm.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x3xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<3x2xf32>
  %y = autoglm.matmul %a, %b : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// An activation that something other than a product reads dequantized
// keeps its uint8 type, and a weight that is not a constant keeps the
// zero point in the product.
// CHECK-LABEL: func.func @kept
// CHECK: autoglm.quantize_linear {{.*}} -> tensor<4x3xui8>
// CHECK: autoglm.matmul_integer {{.*}} : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8>)
// CHECK-NOT: autoglm.sub
func.func @kept(%x: tensor<4x3xf32>, %s: tensor<f32>, %w: tensor<3x2xi8>, %ws: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<4x3xf32>) {
  %z = autoglm.constant dense<133> : tensor<ui8>
  %wz = autoglm.constant dense<0> : tensor<2xi8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x3xui8>
  %a = autoglm.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<4x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x3xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<3x2xf32>
  %y = autoglm.matmul %a, %b : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y, %a : tensor<4x2xf32>, tensor<4x3xf32>
}

// -----

// A signed activation (QDQ with int8 activations) with a constant weight:
// only the zero point moves out of the product: -3 * (4 * 2) per column.
// CHECK-LABEL: func.func @int8_activation
// CHECK: %[[SUMS:.*]] = autoglm.constant dense<-24> : tensor<4xi32>
// CHECK: %[[ACC:.*]] = autoglm.matmul_integer {{.*}} : (tensor<1x4xi8>, tensor<4x4xi8>, tensor<i8>, tensor<i8>) -> tensor<1x4xi32>
// CHECK: autoglm.sub %[[ACC]], %[[SUMS]] : (tensor<1x4xi32>, tensor<4xi32>)
func.func @int8_activation(%x: tensor<1x4xf32>, %s: tensor<f32>) -> tensor<1x4xf32> {
  %z = autoglm.constant dense<-3> : tensor<i8>
  %w = autoglm.constant dense<2> : tensor<4x4xi8>
  %ws = autoglm.constant dense<0.5> : tensor<f32>
  %wz = autoglm.constant dense<0> : tensor<i8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %a = autoglm.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 1 : i64} : (tensor<4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<4x4xf32>
  %y = autoglm.matmul %a, %b : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// -----

// quantize_dynamic's form: the zero point computed at run time (a uint8
// tensor), read by matmul_integer itself. It becomes int8(int32(z) - 128)
// at run time, and its share of the product z * (column sums [3, 0]) is
// computed at run time too. (The weight's zero point, defined after the
// quantization, still comes before the new product.)
// CHECK-LABEL: func.func @dynamic_zero_point
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<ui8>)
// CHECK-DAG: %[[SUMS:.*]] = autoglm.constant dense<[3, 0]> : tensor<2xi32>
// CHECK-DAG: %[[OFFSET:.*]] = autoglm.constant dense<128> : tensor<i32>
// CHECK: %[[ZW:.*]] = autoglm.cast %[[Z]] {to = i32} : (tensor<ui8>) -> tensor<i32>
// CHECK: %[[ZS:.*]] = autoglm.sub %[[ZW]], %[[OFFSET]]
// CHECK: %[[ZI8:.*]] = autoglm.cast %[[ZS]] {to = i8} : (tensor<i32>) -> tensor<i8>
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %[[X]], %[[S]], %[[ZI8]] {{.*}} -> tensor<2x2xi8>
// CHECK: %[[ZI32:.*]] = autoglm.cast %[[ZI8]] {to = i32}
// CHECK: %[[SHARE:.*]] = autoglm.mul %[[ZI32]], %[[SUMS]] : (tensor<i32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK: %[[ACC:.*]] = autoglm.matmul_integer %[[Q]], {{.*}} : (tensor<2x2xi8>, tensor<2x2xi8>, tensor<i8>, tensor<i8>) -> tensor<2x2xi32>
// CHECK: autoglm.sub %[[ACC]], %[[SHARE]] : (tensor<2x2xi32>, tensor<2xi32>)
func.func @dynamic_zero_point(%x: tensor<2x2xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<2x2xi32> {
  %w = autoglm.constant dense<[[1, -1], [2, 1]]> : tensor<2x2xi8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x2xui8>
  %wz = autoglm.constant dense<0> : tensor<i8>
  %y = autoglm.matmul_integer %q, %w, %z, %wz : (tensor<2x2xui8>, tensor<2x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x2xi32>
  return %y : tensor<2x2xi32>
}

// -----

// A quantized convolution's input (QLinearConv's form: the dequantization
// with a scale of its own) is made int8 too: conv_integer reads it with
// its zero point less 128 (the lowering leaves that out of the product).
// CHECK-LABEL: func.func @convolution
// CHECK-DAG: %[[ZP:.*]] = autoglm.constant dense<-118> : tensor<i8>
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %{{.*}}, %{{.*}}, %[[ZP]] {{.*}} -> tensor<1x1x4x4xi8>
// CHECK: autoglm.conv_integer %[[Q]], %{{.*}}, %[[ZP]], %{{.*}} {{.*}} : (tensor<1x1x4x4xi8>, tensor<2x1x3x3xi8>, tensor<i8>, tensor<i8>)
func.func @convolution(%x: tensor<1x1x4x4xf32>, %s: tensor<f32>, %s2: tensor<f32>, %ws: tensor<f32>) -> tensor<1x2x4x4xf32> {
  %z = autoglm.constant dense<10> : tensor<ui8>
  %w = autoglm.constant dense<1> : tensor<2x1x3x3xi8>
  %wz = autoglm.constant dense<0> : tensor<i8>
  %q = autoglm.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xui8>
  %a = autoglm.dequantize_linear %q, %s2, %z {axis = 1 : i64} : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xf32>
  %b = autoglm.dequantize_linear %w, %ws, %wz {axis = 0 : i64} : (tensor<2x1x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x1x3x3xf32>
  %y = autoglm.conv %a, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
