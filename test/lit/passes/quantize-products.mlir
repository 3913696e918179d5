// RUN: autoglm-opt %s --split-input-file --autoglm-quantize-products="ranges=-1.0,2.0" | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-calibration-outputs | FileCheck %s --check-prefix=PROBE
// RUN: autoglm-opt %s --split-input-file --autoglm-calibration-outputs="whole=true" | FileCheck %s --check-prefix=WHOLE

// One left operand (shared by two products with the same weight, and the
// weight of a third product is not a constant): range [-1, 2] gives the
// uint8 scale 3/255 and zero point round(1 / (3/255)) = 85. The weight
// [[1, -2], [0.5, 4]] gets one scale per column, max|w| / 127: 1/127 and
// 4/127, and values round(w / scale).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[S:.*]] = autoglm.constant dense<0.0117647061> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = autoglm.constant dense<85> : tensor<ui8>
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %arg0, %[[S]], %[[Z]] {axis = 1 : i64} : (tensor<3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x2xui8>
// CHECK: %[[DQ:.*]] = autoglm.dequantize_linear %[[Q]], %[[S]], %[[Z]]
// CHECK-DAG: %[[WQ:.*]] = autoglm.constant dense<{{\[\[}}127, -64], [64, 127]]> : tensor<2x2xi8>
// CHECK-DAG: %[[WS:.*]] = autoglm.constant dense<[0.00787401571, 0.0314960629]> : tensor<2xf32>
// CHECK-DAG: %[[WZ:.*]] = autoglm.constant dense<0> : tensor<2xi8>
// CHECK: %[[W:.*]] = autoglm.dequantize_linear %[[WQ]], %[[WS]], %[[WZ]] {axis = 1 : i64}
// CHECK: autoglm.matmul %[[DQ]], %[[W]]
// CHECK: autoglm.matmul %[[DQ]], %[[W]]
// CHECK: autoglm.matmul %arg0, %arg1
//
// The calibration build returns that operand's extremes once, after the
// outputs (with `whole`, the operand itself).
// PROBE-LABEL: func.func @main
// PROBE-SAME: -> (tensor<3x2xf32> {autoglm.name = "y"}, tensor<3x2xf32> {autoglm.name = "z"}, tensor<3x2xf32> {autoglm.name = "u"}, tensor<f32> {autoglm.name = "autoglm.calibration.0.min"}, tensor<f32> {autoglm.name = "autoglm.calibration.0.max"})
// PROBE-DAG: %[[LO:.*]] = autoglm.reduce_min %arg0 {axes = array<i64>, keepdims = false}
// PROBE-DAG: %[[HI:.*]] = autoglm.reduce_max %arg0 {axes = array<i64>, keepdims = false}
// PROBE: return %{{.*}}, %{{.*}}, %{{.*}}, %[[LO]], %[[HI]] :
// WHOLE-LABEL: func.func @main
// WHOLE-SAME: tensor<3x2xf32> {autoglm.name = "autoglm.calibration.0"})
// WHOLE: return %{{.*}}, %{{.*}}, %{{.*}}, %arg0 :
func.func @main(%x: tensor<3x2xf32>, %v: tensor<2x2xf32>) -> (tensor<3x2xf32> {autoglm.name = "y"}, tensor<3x2xf32> {autoglm.name = "z"}, tensor<3x2xf32> {autoglm.name = "u"}) {
  %w = autoglm.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %y = autoglm.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z = autoglm.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %u = autoglm.matmul %x, %v : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y, %z, %u : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

