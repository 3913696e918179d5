// RUN: autoglm-opt %s --split-input-file --autoglm-mark-activations | FileCheck %s

// GELU as exporters write it (x * 0.5 * (1 + erf(x / sqrt 2))) after a bias
// add: the op that ends it is marked, and the bias add as its input.
// CHECK-LABEL: func.func @gelu_erf
// CHECK: arith.addf %{{.*}}, %{{.*}} {autoglm.activation_input} : f32
// CHECK-NOT: autoglm.activation
// CHECK: arith.mulf %{{.*}}, %{{.*}} {autoglm.activation = "gelu_erf"} : f32
// CHECK-NEXT: linalg.yield
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @gelu_erf(%t: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %c = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = arith.addf %v, %bias : f32
    %d = arith.divf %x, %c : f32
    %erf = math.erf %d : f32
    %p = arith.addf %erf, %one : f32
    %m = arith.mulf %x, %p : f32
    %y = arith.mulf %m, %half : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// GELU's tanh form, SiLU spelled with a reciprocal, and a ReLU followed by
// a residual add (a side of the final sum is marked). Their inputs are
// block arguments: nothing else is marked.
// CHECK-LABEL: func.func @others
// CHECK: arith.mulf %{{.*}}, %{{.*}} {autoglm.activation = "gelu_tanh"} : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} {autoglm.activation = "silu"} : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} {autoglm.activation = "relu"} : f32
// CHECK-NEXT: arith.addf
#id = affine_map<(m, n) -> (m, n)>
func.func @others(%t: tensor<4x8xf32>, %res: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %k = arith.constant 0.044715 : f32
    %s = arith.constant 0.797884583 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %kx3 = arith.mulf %x3, %k : f32
    %in = arith.addf %x, %kx3 : f32
    %u = arith.mulf %in, %s : f32
    %th = math.tanh %u : f32
    %p = arith.addf %th, %one : f32
    %hx = arith.mulf %half, %x : f32
    %y = arith.mulf %hx, %p : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %si = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %den = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %den : f32
    %y = arith.mulf %x, %sig : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %re = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %res : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %y = arith.maximumf %x, %zero : f32
    %z = arith.addf %y, %r : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  return %g, %si, %re : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Not activations of the runtime: ReLU6, tanh, erf alone, a GELU whose
// constant is off (1.5 for sqrt 2), a product of two inputs.
// CHECK-LABEL: func.func @not_activations
// CHECK-NOT: autoglm.activation
#id = affine_map<(m, n) -> (m, n)>
func.func @not_activations(%t: tensor<4x8xf32>, %u: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %r6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    %a = arith.maximumf %x, %zero : f32
    %y = arith.minimumf %a, %six : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %th = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %er = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.erf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %off = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 1.5 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %d = arith.divf %x, %c : f32
    %erf = math.erf %d : f32
    %p = arith.addf %erf, %one : f32
    %m = arith.mulf %x, %p : f32
    %y = arith.mulf %m, %half : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %two = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %u : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %y = arith.mulf %x, %v : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r6, %th, %er, %off, %two : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// GELU quantized to uint8 at the end of the loop (an int8 product's
// epilogue, quantizing the next product's input): the GELU is marked.
// CHECK-LABEL: func.func @gelu_quantized
// CHECK: arith.addf %{{.*}}, %{{.*}} {autoglm.activation_input} : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} {autoglm.activation = "gelu_erf"} : f32
// CHECK-NEXT: arith.divf
// CHECK: arith.fptoui
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @gelu_quantized(%t: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xi8> {
  %e = tensor.empty() : tensor<4x8xi8>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xi8>) {
  ^bb0(%v: f32, %bias: f32, %o: i8):
    %c = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %qs = arith.constant 0.02 : f32
    %qz = arith.constant 7.0 : f32
    %zero = arith.constant 0.0 : f32
    %top = arith.constant 255.0 : f32
    %x = arith.addf %v, %bias : f32
    %d = arith.divf %x, %c : f32
    %erf = math.erf %d : f32
    %p = arith.addf %erf, %one : f32
    %m = arith.mulf %x, %p : f32
    %y = arith.mulf %m, %half : f32
    %s = arith.divf %y, %qs : f32
    %n = math.roundeven %s : f32
    %z = arith.addf %n, %qz : f32
    %lo = arith.maximumf %z, %zero : f32
    %hi = arith.minimumf %lo, %top : f32
    %u = arith.fptoui %hi : f32 to i8
    linalg.yield %u : i8
  } -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

// SwiGLU, silu(gate) * up, as exporters write it (Mul(Mul(g, Sigmoid(g)),
// up)): a side of the final product is marked, for a gated epilogue.
// CHECK-LABEL: func.func @swiglu
// CHECK: %[[SILU:.*]] = arith.mulf %{{.*}}, %{{.*}} {autoglm.activation = "silu"} : f32
// CHECK-NEXT: arith.mulf %[[SILU]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield
#id = affine_map<(m, n) -> (m, n)>
func.func @swiglu(%gate: tensor<4x8xf32>, %up: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %one : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %g, %sig : f32
    %y = arith.mulf %silu, %u : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
