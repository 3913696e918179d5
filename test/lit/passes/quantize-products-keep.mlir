// RUN: autoglm-opt %s --autoglm-quantize-products="ranges=-1.0,2.0 keep=head" --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: autoglm-opt %s --autoglm-calibration-outputs="keep=head" | FileCheck %s --check-prefix=PROBE

// --keep-fp32: the product of node "head" stays float32 and is not
// numbered; the other one takes the ranges.
// CHECK-LABEL: func.func @main
// CHECK: %[[Q:.*]] = autoglm.quantize_linear %arg0
// CHECK: autoglm.matmul %{{.*}}, %{{.*}} : {{.*}} loc("body")
// CHECK: autoglm.matmul %arg1, %{{.*}} : {{.*}} loc("head")
func.func @main(%x: tensor<3x2xf32>, %h: tensor<3x2xf32>) -> (tensor<3x2xf32> {autoglm.name = "y"}, tensor<3x2xf32> {autoglm.name = "z"}) {
  %w = autoglm.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %y = autoglm.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32> loc("body")
  %z = autoglm.matmul %h, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32> loc("head")
  return %y, %z : tensor<3x2xf32>, tensor<3x2xf32>
}
//
// PROBE-LABEL: func.func @main
// PROBE-SAME: {autoglm.name = "autoglm.calibration.0.min"}, tensor<f32> {autoglm.name = "autoglm.calibration.0.max"})
// PROBE-NOT: autoglm.calibration.1
