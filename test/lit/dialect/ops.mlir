// RUN: autoglm-opt %s | FileCheck %s
// Printing and re-parsing gives the same IR, in custom and in generic form.
// RUN: autoglm-opt %s | autoglm-opt | FileCheck %s
// RUN: autoglm-opt %s --mlir-print-op-generic | autoglm-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>, %[[U:.*]]: tensor<4xui8>)
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %u: tensor<4xui8>) {
  // CHECK: autoglm.sqrt %[[X]] : tensor<4x8xf32>
  %0 = autoglm.sqrt %x : tensor<4x8xf32>
  // CHECK: autoglm.reciprocal %[[X]] : tensor<4x8xf32>
  %1 = autoglm.reciprocal %x : tensor<4x8xf32>
  // CHECK: autoglm.erf %[[X]] : tensor<4x8xf32>
  %2 = autoglm.erf %x : tensor<4x8xf32>
  // CHECK: autoglm.tanh %[[X]] : tensor<4x8xf32>
  %3 = autoglm.tanh %x : tensor<4x8xf32>
  // CHECK: autoglm.sigmoid %[[X]] : tensor<4x8xf32>
  %4 = autoglm.sigmoid %x : tensor<4x8xf32>
  // CHECK: autoglm.exp %[[X]] : tensor<4x8xf32>
  %5 = autoglm.exp %x : tensor<4x8xf32>
  // CHECK: autoglm.log %[[X]] : tensor<4x8xf32>
  %6 = autoglm.log %x : tensor<4x8xf32>
  // CHECK: autoglm.round %[[X]] : tensor<4x8xf32>
  %r = autoglm.round %x : tensor<4x8xf32>
  // CHECK: autoglm.relu %[[I]] : tensor<4xi32>
  %7 = autoglm.relu %i : tensor<4xi32>
  // CHECK: autoglm.neg %[[I]] : tensor<4xi32>
  %8 = autoglm.neg %i : tensor<4xi32>
  // CHECK: autoglm.abs %[[X]] : tensor<4x8xf32>
  %9 = autoglm.abs %x : tensor<4x8xf32>
  // CHECK: autoglm.abs %[[U]] : tensor<4xui8>
  %10 = autoglm.abs %u : tensor<4xui8>
  // CHECK: autoglm.not %[[B]] : tensor<4xi1>
  %11 = autoglm.not %b : tensor<4xi1>
  return
}

// Attributes print sorted; absent bounds stay absent.
// CHECK-LABEL: func.func @clip
func.func @clip(%x: tensor<1x8xf32>, %i: tensor<4xi32>) {
  // CHECK: autoglm.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<1x8xf32>
  %0 = autoglm.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8xf32>
  // CHECK: autoglm.clip %{{.*}} {max = 3.000000e+00 : f64} : tensor<4xi32>
  %1 = autoglm.clip %i {max = 3.0 : f64} : tensor<4xi32>
  // CHECK: autoglm.clip %{{.*}} : tensor<4xi32>
  %2 = autoglm.clip %i : tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[V:.*]]: tensor<8xf32>, %[[S:.*]]: tensor<f32>, %[[N:.*]]: tensor<4xi64>, %[[K:.*]]: tensor<i64>)
func.func @binary(%a: tensor<4x8xf32>, %v: tensor<8xf32>, %s: tensor<f32>, %n: tensor<4xi64>, %k: tensor<i64>) {
  // CHECK: autoglm.add %[[A]], %[[V]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = autoglm.add %a, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: autoglm.sub %[[V]], %[[A]] : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = autoglm.sub %v, %a : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: autoglm.mul %[[A]], %[[S]] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = autoglm.mul %a, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  // CHECK: autoglm.div %[[N]], %[[N]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %3 = autoglm.div %n, %n : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: autoglm.min %[[N]], %[[N]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = autoglm.min %n, %n : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: autoglm.max %[[A]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = autoglm.max %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // The exponent of pow may have another element type.
  // CHECK: autoglm.pow %[[A]], %[[K]] : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  %6 = autoglm.pow %a, %k : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @compare_where_cast
// CHECK-SAME: (%[[N:.*]]: tensor<4xi64>, %[[M:.*]]: tensor<1xi64>, %[[C:.*]]: tensor<1x1x4x4xi1>, %[[X:.*]]: tensor<1x2x4x4xf32>, %[[Y:.*]]: tensor<f32>)
func.func @compare_where_cast(%n: tensor<4xi64>, %m: tensor<1xi64>, %c: tensor<1x1x4x4xi1>, %x: tensor<1x2x4x4xf32>, %y: tensor<f32>) {
  // CHECK: autoglm.equal %[[N]], %[[M]] : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi1>
  %0 = autoglm.equal %n, %m : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi1>
  // CHECK: autoglm.less %[[N]], %[[N]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %1 = autoglm.less %n, %n : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  // CHECK: autoglm.greater %[[M]], %[[N]] : (tensor<1xi64>, tensor<4xi64>) -> tensor<4xi1>
  %2 = autoglm.greater %m, %n : (tensor<1xi64>, tensor<4xi64>) -> tensor<4xi1>
  // CHECK: autoglm.where %[[C]], %[[X]], %[[Y]] : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %3 = autoglm.where %c, %x, %y : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  // CHECK: autoglm.cast %[[N]] {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
  %4 = autoglm.cast %n {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
  // CHECK: autoglm.cast %[[X]] {to = ui8} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xui8>
  %5 = autoglm.cast %x {to = ui8} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xui8>
  return
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

// The quantized type is the zero point's; the dequantized type the scale's.
// CHECK-LABEL: func.func @quantization
// CHECK-SAME: (%[[X:.*]]: tensor<1x8xf32>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<ui8>, %[[SC:.*]]: tensor<8xf32>, %[[ZC:.*]]: tensor<8xi8>, %[[Q:.*]]: tensor<1x8xui8>)
func.func @quantization(%x: tensor<1x8xf32>, %s: tensor<f32>, %zp: tensor<ui8>,
                        %sc: tensor<8xf32>, %zc: tensor<8xi8>, %q: tensor<1x8xui8>) {
  // CHECK: autoglm.quantize_linear %[[X]], %[[S]], %[[Z]] {axis = 1 : i64} : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64}
      : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  // Per-channel parameters have one entry per slice of the axis.
  // CHECK: autoglm.quantize_linear %[[X]], %[[SC]], %[[ZC]] {axis = 1 : i64} : (tensor<1x8xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8xi8>
  %1 = autoglm.quantize_linear %x, %sc, %zc {axis = 1 : i64}
      : (tensor<1x8xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8xi8>
  // CHECK: autoglm.dequantize_linear %[[Q]], %[[S]], %[[Z]] {axis = 1 : i64} : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
  %2 = autoglm.dequantize_linear %q, %s, %zp {axis = 1 : i64}
      : (tensor<1x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>, %v: tensor<8xf32>) {
  // CHECK: autoglm.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %0 = autoglm.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  // A 1-D lhs is a row vector, a 1-D rhs a column vector.
  // CHECK: autoglm.matmul %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %1 = autoglm.matmul %v, %b : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  // CHECK: autoglm.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  %2 = autoglm.matmul %a, %v : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  // CHECK: autoglm.matmul %{{.*}}, %{{.*}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %3 = autoglm.matmul %v, %v : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return
}

// Default attribute values are not printed.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<16x8xf32>, %[[C:.*]]: tensor<16xf32>, %[[AT:.*]]: tensor<8x4xf32>)
func.func @gemm(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %c: tensor<16xf32>, %at: tensor<8x4xf32>) {
  // CHECK: autoglm.gemm %[[A]], %[[B]], %[[C]] {transB = true} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %0 = autoglm.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, transA = false, transB = true}
      : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: autoglm.gemm %[[AT]], %[[B]] {alpha = 5.000000e-01 : f32, beta = 0.000000e+00 : f32, transA = true, transB = true} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = autoglm.gemm %at, %b {alpha = 0.5 : f32, beta = 0.0 : f32, transA = true, transB = true}
      : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<1x32x256xf32>, %i: tensor<3x4xi32>) {
  // CHECK: autoglm.softmax %{{.*}} {axis = 2 : i64} : tensor<1x32x256xf32>
  %0 = autoglm.softmax %x {axis = 2 : i64} : tensor<1x32x256xf32>
  // keepdims = true is the default.
  // CHECK: autoglm.reduce_mean %{{.*}} {axes = array<i64: 2>} : (tensor<1x32x256xf32>) -> tensor<1x32x1xf32>
  %1 = autoglm.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<1x32x256xf32>) -> tensor<1x32x1xf32>
  // CHECK: autoglm.reduce_sum %{{.*}} {axes = array<i64: 0, 2>, keepdims = false} : (tensor<1x32x256xf32>) -> tensor<32xf32>
  %2 = autoglm.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<1x32x256xf32>) -> tensor<32xf32>
  // Empty axes reduce everything.
  // CHECK: autoglm.reduce_max %{{.*}} {axes = array<i64>, keepdims = false} : (tensor<3x4xi32>) -> tensor<i32>
  %3 = autoglm.reduce_max %i {axes = array<i64>, keepdims = false} : (tensor<3x4xi32>) -> tensor<i32>
  // CHECK: autoglm.reduce_max %{{.*}} {axes = array<i64>} : (tensor<3x4xi32>) -> tensor<1x1xi32>
  %4 = autoglm.reduce_max %i {axes = array<i64>} : (tensor<3x4xi32>) -> tensor<1x1xi32>
  // CHECK: autoglm.reduce_min %{{.*}} {axes = array<i64: 1>, keepdims = false} : (tensor<3x4xi32>) -> tensor<3xi32>
  %5 = autoglm.reduce_min %i {axes = array<i64: 1>, keepdims = false} : (tensor<3x4xi32>) -> tensor<3xi32>
  return
}

// CHECK-LABEL: func.func @norms
func.func @norms(%x: tensor<1x8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>,
                 %y: tensor<1x16x8x8xf32>, %p: tensor<16xf32>) {
  // CHECK: autoglm.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  %0 = autoglm.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f32}
      : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  // The bias is optional.
  // CHECK: autoglm.layer_norm %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.99999997E-7 : f32} : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  %1 = autoglm.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f32}
      : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  // CHECK: autoglm.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %2 = autoglm.batch_norm %y, %p, %p, %p, %p {epsilon = 1.0e-3 : f32}
      : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>,
                %dw: tensor<8x1x3x3xf32>, %x1: tensor<1x8x10xf32>) {
  // CHECK: autoglm.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %0 = autoglm.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  // Strided, no bias.
  // CHECK: autoglm.conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x15x15xf32>
  %1 = autoglm.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                            dilations = array<i64: 1, 1>}
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x15x15xf32>
  // 1-D depthwise convolution with dilation.
  // CHECK: autoglm.conv %{{.*}}, %{{.*}} {dilations = array<i64: 2>, group = 8 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x8x10xf32>, tensor<8x1x3xf32>) -> tensor<1x8x6xf32>
  %dw1 = autoglm.reshape %dw : (tensor<8x1x3x3xf32>) -> tensor<8x1x9xf32>
  %w1 = autoglm.slice %dw1 {starts = array<i64: 0, 0, 0>, ends = array<i64: 8, 1, 3>, steps = array<i64: 1, 1, 1>}
      : (tensor<8x1x9xf32>) -> tensor<8x1x3xf32>
  %2 = autoglm.conv %x1, %w1 {strides = array<i64: 1>, pads = array<i64: 0, 0>,
                              dilations = array<i64: 2>, group = 8 : i64}
      : (tensor<1x8x10xf32>, tensor<8x1x3xf32>) -> tensor<1x8x6xf32>
  return
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<1x16x32x32xf32>, %y: tensor<1x4x5x5xf32>) {
  // CHECK: autoglm.max_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                            pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
  // ceil_mode rounds 5 -> 3 windows of 2 with stride 2 instead of 2.
  // CHECK: autoglm.average_pool %{{.*}} {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  %1 = autoglm.average_pool %y {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>,
                                ceil_mode = true, count_include_pad = true}
      : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  // CHECK: autoglm.global_average_pool %{{.*}} : (tensor<1x16x32x32xf32>) -> tensor<1x16x1x1xf32>
  %2 = autoglm.global_average_pool %x : (tensor<1x16x32x32xf32>) -> tensor<1x16x1x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement and shapes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK: autoglm.constant dense<[1, 32, 256]> : tensor<3xi64>
  %0 = autoglm.constant dense<[1, 32, 256]> : tensor<3xi64>
  // CHECK: autoglm.constant dense<1.500000e+00> : tensor<2x2xf32>
  %1 = autoglm.constant dense<1.5> : tensor<2x2xf32>
  // CHECK: autoglm.constant dense<[true, false]> : tensor<2xi1>
  %2 = autoglm.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: autoglm.constant dense<[200, 7]> : tensor<2xui8>
  %3 = autoglm.constant dense<[200, 7]> : tensor<2xui8>
  // CHECK: autoglm.constant dense_resource<w1> : tensor<2xf32>
  %4 = autoglm.constant dense_resource<w1> : tensor<2xf32>
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<1x32x256xf32>, %v: tensor<8xf32>, %m: tensor<1x8xf32>,
                  %c: tensor<1x32x1x1xf32>) {
  // CHECK: autoglm.shape %{{.*}} {end = 3 : i64, start = 0 : i64} : (tensor<1x32x256xf32>) -> tensor<3xi64>
  %0 = autoglm.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<1x32x256xf32>) -> tensor<3xi64>
  // CHECK: autoglm.shape %{{.*}} {end = 1 : i64, start = 1 : i64} : (tensor<1x32x256xf32>) -> tensor<0xi64>
  %1 = autoglm.shape %x {start = 1 : i64, end = 1 : i64} : (tensor<1x32x256xf32>) -> tensor<0xi64>
  // CHECK: autoglm.reshape %{{.*}} : (tensor<1x32x256xf32>) -> tensor<1x32x4x64xf32>
  %2 = autoglm.reshape %x : (tensor<1x32x256xf32>) -> tensor<1x32x4x64xf32>
  // CHECK: autoglm.unsqueeze %{{.*}} {axes = array<i64: 0, 2>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  %3 = autoglm.unsqueeze %v {axes = array<i64: 0, 2>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  // CHECK: autoglm.squeeze %{{.*}} {axes = array<i64: 0>} : (tensor<1x8xf32>) -> tensor<8xf32>
  %4 = autoglm.squeeze %m {axes = array<i64: 0>} : (tensor<1x8xf32>) -> tensor<8xf32>
  // CHECK: autoglm.flatten %{{.*}} {axis = 1 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>
  %5 = autoglm.flatten %c {axis = 1 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>
  // CHECK: autoglm.flatten %{{.*}} {axis = 0 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>
  %6 = autoglm.flatten %c {axis = 0 : i64} : (tensor<1x32x1x1xf32>) -> tensor<1x32xf32>
  return
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<1x32x4x64xf32>, %a: tensor<2xi64>, %b: tensor<1xi64>,
                         %s: tensor<4x768xf32>, %t: tensor<1000x64xf32>, %ids: tensor<1x8xi64>,
                         %e: tensor<1x8xf32>, %p: tensor<1x3x8x8xf32>) {
  // CHECK: autoglm.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x32x4x64xf32>) -> tensor<1x4x32x64xf32>
  %0 = autoglm.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x32x4x64xf32>) -> tensor<1x4x32x64xf32>
  // CHECK: autoglm.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<5xi64>
  %1 = autoglm.concat %a, %b, %a {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<5xi64>
  // CHECK: autoglm.slice %{{.*}} {ends = array<i64: 4, 256>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<4x768xf32>) -> tensor<4x256xf32>
  %2 = autoglm.slice %s {starts = array<i64: 0, 0>, ends = array<i64: 4, 256>, steps = array<i64: 1, 1>}
      : (tensor<4x768xf32>) -> tensor<4x256xf32>
  // A negative step with end -1 reads through index 0.
  // CHECK: autoglm.slice %{{.*}} {ends = array<i64: -1, 768>, starts = array<i64: 3, 0>, steps = array<i64: -2, 3>} : (tensor<4x768xf32>) -> tensor<2x256xf32>
  %3 = autoglm.slice %s {starts = array<i64: 3, 0>, ends = array<i64: -1, 768>, steps = array<i64: -2, 3>}
      : (tensor<4x768xf32>) -> tensor<2x256xf32>
  // CHECK: autoglm.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<1x8xi64>) -> tensor<1x8x64xf32>
  %4 = autoglm.gather %t, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<1x8xi64>) -> tensor<1x8x64xf32>
  // CHECK: autoglm.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1000x64xf32>, tensor<1x8xi64>) -> tensor<1000x1x8xf32>
  %5 = autoglm.gather %t, %ids {axis = 1 : i64} : (tensor<1000x64xf32>, tensor<1x8xi64>) -> tensor<1000x1x8xf32>
  // CHECK: autoglm.expand %{{.*}} {shape = array<i64: 2, 4, 1>} : (tensor<1x8xf32>) -> tensor<2x4x8xf32>
  %6 = autoglm.expand %e {shape = array<i64: 2, 4, 1>} : (tensor<1x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: autoglm.pad %{{.*}} {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  %7 = autoglm.pad %p {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f64}
      : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
  // Negative amounts crop.
  // CHECK: autoglm.pad %{{.*}} {pads = array<i64: 0, 0, -1, 2, 0, 0, -2, 0>, value = -1.000000e+00 : f64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x10xf32>
  %8 = autoglm.pad %p {pads = array<i64: 0, 0, -1, 2, 0, 0, -2, 0>, value = -1.0 : f64}
      : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x10xf32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      w1: "0x040000000000803F00000040"
    }
  }
#-}
