// RUN: autoglm-opt %s --autoglm-quantize-products="ranges=-1.0,2.0,0.0,4.0" | FileCheck %s
// RUN: autoglm-opt %s --autoglm-calibration-outputs | FileCheck %s --check-prefix=PROBE

// Convolutions of one group by a constant filter are quantized like matrix
// products, numbered with them in program order: the input of the first
// (%x, range [-1, 2]: scale 3/255, zero point 85), then the input of the
// second (%y, range [0, 4]: scale 4/255, zero point 0). Each filter gets
// one symmetric scale per output channel (axis 0), max|w| / 127: filter 0
// of the first has max 1, filter 1 max 4; values round(w / scale), halves
// to even. The depthwise convolution (two groups) stays float32.
// CHECK-LABEL: func.func @main
// CHECK: %[[S0:.*]] = autoglm.constant dense<0.0117647061> : tensor<f32>
// CHECK: %[[Z0:.*]] = autoglm.constant dense<85> : tensor<ui8>
// CHECK: %[[Q0:.*]] = autoglm.quantize_linear %arg0, %[[S0]], %[[Z0]]
// CHECK: %[[X:.*]] = autoglm.dequantize_linear %[[Q0]], %[[S0]], %[[Z0]]
// CHECK: %[[W1Q:.*]] = autoglm.constant dense<{{\[\[\[\[}}127, -64], [32, 0]]], {{\[\[\[}}127, 64], [-32, 16]]]]> : tensor<2x1x2x2xi8>
// CHECK: %[[W1S:.*]] = autoglm.constant dense<[0.00787401571, 0.0314960629]> : tensor<2xf32>
// CHECK: %[[W1Z:.*]] = autoglm.constant dense<0> : tensor<2xi8>
// CHECK: %[[W1:.*]] = autoglm.dequantize_linear %[[W1Q]], %[[W1S]], %[[W1Z]] {axis = 0 : i64} : (tensor<2x1x2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x2x2xf32>
// CHECK: %[[W2Q:.*]] = autoglm.constant dense<{{\[\[\[\[}}127]], {{\[\[}}-64]]]]> : tensor<1x2x1x1xi8>
// CHECK: %[[W2S:.*]] = autoglm.constant dense<0.00393700786> : tensor<1xf32>
// CHECK: %[[W2:.*]] = autoglm.dequantize_linear %[[W2Q]], %[[W2S]], %{{.*}} {axis = 0 : i64}
// CHECK: %[[Y:.*]] = autoglm.conv %[[X]], %[[W1]], %{{.*}} {{.*}} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[S1:.*]] = autoglm.constant dense<0.0156862754> : tensor<f32>
// CHECK: %[[Z1:.*]] = autoglm.constant dense<0> : tensor<ui8>
// CHECK: %[[Q1:.*]] = autoglm.quantize_linear %[[Y]], %[[S1]], %[[Z1]]
// CHECK: %[[YQ:.*]] = autoglm.dequantize_linear %[[Q1]], %[[S1]], %[[Z1]]
// CHECK: autoglm.conv %[[YQ]], %[[W2]] {dilations = array<i64: 1, 1>, pads
// CHECK: autoglm.conv %[[Y]], %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64
//
// The calibration build returns both inputs' extremes, in that order.
// PROBE-LABEL: func.func @main
// PROBE-SAME: tensor<f32> {autoglm.name = "autoglm.calibration.0.min"}, tensor<f32> {autoglm.name = "autoglm.calibration.0.max"}, tensor<f32> {autoglm.name = "autoglm.calibration.1.min"}, tensor<f32> {autoglm.name = "autoglm.calibration.1.max"})
// PROBE-DAG: autoglm.reduce_min %arg0
// PROBE-DAG: autoglm.reduce_max %arg0
// PROBE-DAG: autoglm.reduce_min %[[Y:[0-9]+]]
// PROBE-DAG: autoglm.reduce_max %[[Y]]
func.func @main(%x: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32> {autoglm.name = "z"}, tensor<1x2x2x2xf32> {autoglm.name = "d"}) {
  %w1 = autoglm.constant dense<[[[[1.0, -0.5], [0.25, 0.0]]], [[[4.0, 2.0], [-1.0, 0.5]]]]> : tensor<2x1x2x2xf32>
  %b1 = autoglm.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %w2 = autoglm.constant dense<[[[[0.5]], [[-0.25]]]]> : tensor<1x2x1x1xf32>
  %wd = autoglm.constant dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %y = autoglm.conv %x, %w1, %b1 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %z = autoglm.conv %y, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x2x2xf32>
  %d = autoglm.conv %y, %wd {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %z, %d : tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>
}
