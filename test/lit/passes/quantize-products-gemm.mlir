// RUN: autoglm-opt %s --autoglm-quantize-products="ranges=-1.0,2.0" | FileCheck %s
// RUN: autoglm-opt %s --autoglm-calibration-outputs | FileCheck %s --check-prefix=PROBE

// A gemm by a constant weight becomes a product the pass quantizes: the
// weight [[1, -2], [0.5, 4]] given transposed (transB) is transposed at
// compile time to [[1, 0.5], [-2, 4]], whose columns get the scales 2/127
// and 4/127; alpha and beta * C become elementwise ops after the product.
// A gemm with A transposed, or by a weight that is no constant, stays.
// CHECK-LABEL: func.func @main
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %arg0
// CHECK: %[[DQ:.*]] = autoglm.dequantize_linear %[[Q]]
// CHECK-DAG: %[[WQ:.*]] = autoglm.constant dense<{{\[\[}}64, 16], [-127, 127]]> : tensor<2x2xi8>
// CHECK-DAG: %[[WS:.*]] = autoglm.constant dense<[0.0157480314, 0.0314960629]> : tensor<2xf32>
// CHECK: %[[W:.*]] = autoglm.dequantize_linear %[[WQ]], %[[WS]]
// CHECK: %[[P:.*]] = autoglm.matmul %[[DQ]], %[[W]]
// CHECK: %[[ALPHA:.*]] = autoglm.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[SCALED:.*]] = autoglm.mul %[[P]], %[[ALPHA]]
// CHECK: %[[BETA:.*]] = autoglm.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[C:.*]] = autoglm.mul %arg2, %[[BETA]]
// CHECK: autoglm.add %[[SCALED]], %[[C]]
// CHECK: autoglm.gemm %arg0, %{{.*}} {transA = true}
// CHECK: autoglm.gemm %arg0, %arg1
// CHECK-NOT: autoglm.gemm
//
// The calibration build sees the same product: one operand's extremes.
// PROBE-LABEL: func.func @main
// PROBE-SAME: tensor<f32> {autoglm.name = "autoglm.calibration.0.min"}, tensor<f32> {autoglm.name = "autoglm.calibration.0.max"})
// PROBE-NOT: autoglm.calibration.1
func.func @main(%x: tensor<2x2xf32>, %v: tensor<2x2xf32>, %c: tensor<2xf32>) -> (tensor<2x2xf32> {autoglm.name = "y"}, tensor<2x2xf32> {autoglm.name = "z"}, tensor<2x2xf32> {autoglm.name = "u"}) {
  %w = autoglm.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %y = autoglm.gemm %x, %w, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transB = true} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %z = autoglm.gemm %x, %w {transA = true} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = autoglm.gemm %x, %v : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y, %z, %u : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
