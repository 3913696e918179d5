// RUN: autoglm-opt %s --split-input-file --autoglm-recognize-norms --canonicalize | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-recognize-norms --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// RMSNorm as exporters write it: Pow, ReduceMean, Add, Sqrt, Reciprocal,
// Mul, Mul by the weight. One op remains; its location names every node.
// CHECK-LABEL: func.func @rms_reciprocal
// CHECK-NEXT: %[[W:.*]] = autoglm.constant
// CHECK-NEXT: %[[N:.*]] = autoglm.rms_norm %arg0, %[[W]] {axis = 2 : i64, epsilon = 9.99999997E-7 : f32}
// CHECK-NEXT: return %[[N]]
// LOC-LABEL: func.func @rms_reciprocal
// LOC: autoglm.rms_norm {{.*}} loc(fused["pow", "mean", "add", "sqrt", "recip", "mul", "mul_w"])
func.func @rms_reciprocal(%x: tensor<1x8x64xf32>) -> tensor<1x8x64xf32> {
  %w = autoglm.constant dense<1.5> : tensor<64xf32>
  %two = autoglm.constant dense<2.0> : tensor<f32>
  %eps = autoglm.constant dense<1.0e-6> : tensor<f32>
  %sq = autoglm.pow %x, %two : (tensor<1x8x64xf32>, tensor<f32>) -> tensor<1x8x64xf32> loc("pow")
  %m = autoglm.reduce_mean %sq {axes = array<i64: 2>} : (tensor<1x8x64xf32>) -> tensor<1x8x1xf32> loc("mean")
  %s = autoglm.add %m, %eps : (tensor<1x8x1xf32>, tensor<f32>) -> tensor<1x8x1xf32> loc("add")
  %r = autoglm.sqrt %s : tensor<1x8x1xf32> loc("sqrt")
  %i = autoglm.reciprocal %r : tensor<1x8x1xf32> loc("recip")
  %n = autoglm.mul %x, %i : (tensor<1x8x64xf32>, tensor<1x8x1xf32>) -> tensor<1x8x64xf32> loc("mul")
  %y = autoglm.mul %w, %n : (tensor<64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32> loc("mul_w")
  return %y : tensor<1x8x64xf32>
}

// -----

// The Div form, with the square as a self-Mul, over the last two axes.
// CHECK-LABEL: func.func @rms_div
// CHECK: autoglm.rms_norm %arg0, %arg1 {axis = 1 : i64} :
// CHECK-NOT: autoglm.div
func.func @rms_div(%x: tensor<2x4x16xf32>, %w: tensor<4x16xf32>) -> tensor<2x4x16xf32> {
  %eps = autoglm.constant dense<1.0e-5> : tensor<1xf32>
  %sq = autoglm.mul %x, %x : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %m = autoglm.reduce_mean %sq {axes = array<i64: 1, 2>} : (tensor<2x4x16xf32>) -> tensor<2x1x1xf32>
  %s = autoglm.add %eps, %m : (tensor<1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = autoglm.sqrt %s : tensor<2x1x1xf32>
  %n = autoglm.div %x, %r : (tensor<2x4x16xf32>, tensor<2x1x1xf32>) -> tensor<2x4x16xf32>
  %y = autoglm.mul %n, %w : (tensor<2x4x16xf32>, tensor<4x16xf32>) -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// LayerNorm written out: mean, centered, variance, divide, scale, bias
// (epsilon 1e-5, the default, is not printed).
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[N:.*]] = autoglm.layer_norm %arg0, %arg1, %arg2 {axis = 1 : i64} :
// CHECK-NEXT: return %[[N]]
func.func @layer_norm(%x: tensor<8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %two = autoglm.constant dense<2.0> : tensor<f32>
  %eps = autoglm.constant dense<1.0e-5> : tensor<f32>
  %mean = autoglm.reduce_mean %x {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %d = autoglm.sub %x, %mean : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %sq = autoglm.pow %d, %two : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %var = autoglm.reduce_mean %sq {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %s = autoglm.add %var, %eps : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xf32>
  %r = autoglm.sqrt %s : tensor<8x1xf32>
  %n = autoglm.div %d, %r : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %scaled = autoglm.mul %n, %g : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %y = autoglm.add %b, %scaled : (tensor<32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Not normalizations: a mean over a leading axis, a cube, and a scale that
// varies along a non-normalized axis are left alone.
// CHECK-LABEL: func.func @not_norms
// CHECK-NOT: rms_norm
// CHECK-NOT: layer_norm
// CHECK: return
func.func @not_norms(%x: tensor<8x32xf32>, %w: tensor<32xf32>, %v: tensor<8x1xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %two = autoglm.constant dense<2.0> : tensor<f32>
  %three = autoglm.constant dense<3.0> : tensor<f32>
  %eps = autoglm.constant dense<1.0e-5> : tensor<f32>
  %sq = autoglm.pow %x, %two : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %m0 = autoglm.reduce_mean %sq {axes = array<i64: 0>} : (tensor<8x32xf32>) -> tensor<1x32xf32>
  %s0 = autoglm.add %m0, %eps : (tensor<1x32xf32>, tensor<f32>) -> tensor<1x32xf32>
  %r0 = autoglm.sqrt %s0 : tensor<1x32xf32>
  %n0 = autoglm.div %x, %r0 : (tensor<8x32xf32>, tensor<1x32xf32>) -> tensor<8x32xf32>
  %y0 = autoglm.mul %n0, %w : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %cube = autoglm.pow %x, %three : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %m1 = autoglm.reduce_mean %cube {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %s1 = autoglm.add %m1, %eps : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xf32>
  %r1 = autoglm.sqrt %s1 : tensor<8x1xf32>
  %n1 = autoglm.div %x, %r1 : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %y1 = autoglm.mul %n1, %w : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %m2 = autoglm.reduce_mean %sq {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %s2 = autoglm.add %m2, %eps : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xf32>
  %r2 = autoglm.sqrt %s2 : tensor<8x1xf32>
  %n2 = autoglm.div %x, %r2 : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %y2 = autoglm.mul %n2, %v : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  return %y0, %y1, %y2 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A symbolic token axis (a decoder compiled for any length): the normalized
// axis is static, so the mean's count is known.
// CHECK-LABEL: func.func @rms_symbolic_tokens
// CHECK-NEXT: %[[N:.*]] = autoglm.rms_norm %arg0, %arg1 {axis = 2 : i64} : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
// CHECK-NEXT: return %[[N]]
func.func @rms_symbolic_tokens(%x: tensor<1x?x8xf32>, %w: tensor<8xf32>) -> tensor<1x?x8xf32> {
  %two = autoglm.constant dense<2.0> : tensor<f32>
  %eps = autoglm.constant dense<1.0e-5> : tensor<f32>
  %sq = autoglm.pow %x, %two : (tensor<1x?x8xf32>, tensor<f32>) -> tensor<1x?x8xf32>
  %mean = autoglm.reduce_mean %sq {axes = array<i64: 2>} : (tensor<1x?x8xf32>) -> tensor<1x?x1xf32>
  %s = autoglm.add %mean, %eps : (tensor<1x?x1xf32>, tensor<f32>) -> tensor<1x?x1xf32>
  %r = autoglm.sqrt %s : tensor<1x?x1xf32>
  %inv = autoglm.reciprocal %r : tensor<1x?x1xf32>
  %n = autoglm.mul %x, %inv : (tensor<1x?x8xf32>, tensor<1x?x1xf32>) -> tensor<1x?x8xf32>
  %y = autoglm.mul %n, %w : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  return %y : tensor<1x?x8xf32>
}

// -----

// A symbolic normalized axis: no count to divide by at compile time; the
// primitive ops stay.
// CHECK-LABEL: func.func @rms_symbolic_features
// CHECK-NOT: autoglm.rms_norm
// CHECK: return
func.func @rms_symbolic_features(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %two = autoglm.constant dense<2.0> : tensor<f32>
  %eps = autoglm.constant dense<1.0e-5> : tensor<f32>
  %w = autoglm.constant dense<1.5> : tensor<f32>
  %sq = autoglm.pow %x, %two : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  %mean = autoglm.reduce_mean %sq {axes = array<i64: 1>} : (tensor<2x?xf32>) -> tensor<2x1xf32>
  %s = autoglm.add %mean, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = autoglm.sqrt %s : tensor<2x1xf32>
  %inv = autoglm.reciprocal %r : tensor<2x1xf32>
  %n = autoglm.mul %x, %inv : (tensor<2x?xf32>, tensor<2x1xf32>) -> tensor<2x?xf32>
  %y = autoglm.mul %n, %w : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}
