// RUN: autoglm-opt %s --autoglm-fuse-elementwise --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// A fused generic keeps the ONNX node names of all the ops it came from,
// producers first, so dumps and reports can name every node of a fused loop.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: } -> tensor<4x8xf32> loc(fused["bias/Add", "act/Relu", "scale/Mul"])
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32> loc("bias/Add")
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32> loc("act/Relu")
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%relu : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32> loc("scale/Mul")
  return %scaled : tensor<4x8xf32>
}
