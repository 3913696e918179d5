// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels --canonicalize --cse | FileCheck %s

// The elementwise loop that reads a product next goes into the GEMM call
// when it computes act(alpha * product + bias[col]) + residual, the
// activation as autoglm-mark-activations marks it (with its input). Arguments
// after the output's strides: accumulate, alpha, bias, activation (2: GELU,
// erf form), residual, its batch and row strides; then the blocking.
// CHECK-LABEL: func.func @bias_gelu
// CHECK-SAME: %{{.*}}: memref<32x64xf32>, %{{.*}}: memref<64x16xf32>, %[[BIASARG:.*]]: memref<16xf32>, %[[CARG:.*]]: memref<32x16xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[GELU:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: memref.extract_strided_metadata %[[CARG]]
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: memref.extract_strided_metadata %[[BIASARG]]
// CHECK: %[[BIAS:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_sgemm({{.*}}, %[[C]], %[[C0]], %{{.*}}, %[[NOACC]], %[[ONE]], %[[BIAS]], %[[GELU]], %[[NULL]], %[[C0]], %[[C0]], %[[NULL]]) {autoglm.epilogue = "bias+gelu_erf"}
// CHECK-NOT: linalg.
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @bias_gelu(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %bias: memref<16xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<32x16xf32>, memref<16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %r2 = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = arith.addf %v, %bb {autoglm.activation_input} : f32
    %d = arith.divf %x, %r2 : f32
    %e = math.erf %d : f32
    %p = arith.addf %e, %one : f32
    %m = arith.mulf %x, %p : f32
    %y = arith.mulf %m, %half {autoglm.activation = "gelu_erf"} : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A scale, a bias broadcast from [1, n], a ReLU and a residual, written to
// another buffer than the product's (an arena buffer read by nothing
// after): the call writes that buffer, and reads the residual with its
// strides (batch 0, rows 16).
// CHECK-LABEL: func.func @scale_bias_relu_residual
// CHECK-SAME: %[[RESARG:[^:]*]]: memref<32x16xf32>, %[[OUTARG:[^:]*]]: memref<32x16xf32>, %{{.*}}: memref<4096xi8>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[EIGHTH:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: memref.extract_strided_metadata %[[OUTARG]]
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: memref.extract_strided_metadata %[[RESARG]]
// CHECK: %[[R:.*]] = llvm.inttoptr
// CHECK: %[[BIAS:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_sgemm({{.*}}, %[[C]], %[[C0]], %[[C16]], %[[NOACC]], %[[EIGHTH]], %[[BIAS]], %[[RELU]], %[[R]], %[[C0]], %[[C16]], %{{.*}}) {autoglm.epilogue = "scale+bias+relu+residual"}
// CHECK-NOT: linalg.
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row0 = affine_map<(m, n) -> (0, n)>
func.func @scale_bias_relu_residual(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %bias: memref<1x16xf32>, %res: memref<32x16xf32>, %out: memref<32x16xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.view %arena[%c0][] : memref<4096xi8> to memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row0, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %bias, %res : memref<32x16xf32>, memref<1x16xf32>, memref<32x16xf32>) outs(%out : memref<32x16xf32>) {
  ^bb0(%v: f32, %bb: f32, %r: f32, %o: f32):
    %eighth = arith.constant 0.125 : f32
    %z = arith.constant 0.0 : f32
    %s = arith.mulf %v, %eighth : f32
    %x = arith.addf %s, %bb {autoglm.activation_input} : f32
    %y = arith.maximumf %x, %z {autoglm.activation = "relu"} : f32
    %w = arith.addf %r, %y : f32
    linalg.yield %w : f32
  }
  return
}

// -----

// A residual updated in place (the add writes the residual's buffer): the
// call accumulates into it. The zeros that the product starts from come
// from a copy of a zero-filled buffer, which goes too.
// CHECK-LABEL: func.func @residual_in_place
// CHECK-SAME: %[[RESARG:[^:]*]]: memref<32x16xf32>, %{{.*}}: memref<4096xi8>
// CHECK-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NOACT:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: memref.extract_strided_metadata %[[RESARG]]
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_sgemm({{.*}}, %[[C]], %{{.*}}, %{{.*}}, %[[ACC]], %{{.*}}, %[[NULL]], %[[NOACT]], %[[NULL]], {{.*}}) {autoglm.epilogue = "residual"}
// CHECK-NOT: linalg.
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @residual_in_place(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %res: memref<32x16xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %z = memref.view %arena[%c2048][] : memref<4096xi8> to memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<32x16xf32>)
  %t = memref.view %arena[%c0][] : memref<4096xi8> to memref<32x16xf32>
  linalg.copy ins(%z : memref<32x16xf32>) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %res : memref<32x16xf32>, memref<32x16xf32>) outs(%res : memref<32x16xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %w = arith.addf %v, %r : f32
    linalg.yield %w : f32
  }
  return
}

// -----

// Left unfused, the loop kept after a plain call:
//  - a residual updated in place after an activation (the kernel would
//    overwrite the residual before reading it);
//  - a residual that shares bytes with the output;
//  - a product read again after the loop (here by the second loop), whose
//    buffer the kernel would no longer write;
//  - a bias per row rather than per column;
//  - an activation that autoglm-mark-activations did not mark (a SiLU;
//    only a ReLU, maximumf(x, 0), needs no mark);
//  - a marked op that does not depend on one value alone.
// CHECK-LABEL: func.func @not_fused
// CHECK: call @agl_kernel_sgemm(
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK: call @agl_kernel_sgemm(
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK: call @agl_kernel_sgemm(
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK-NOT: autoglm.epilogue
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m)>
func.func @not_fused(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %res: memref<32x16xf32>, %out: memref<32x16xf32>, %rowbias: memref<32xf32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.view %arena[%c4096][] : memref<8192xi8> to memref<32x16xf32>
  %o = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x16xf32>
  %o2 = memref.view %arena[%c1024][] : memref<8192xi8> to memref<32x16xf32>
  // A ReLU, then the residual in place.
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %res : memref<32x16xf32>, memref<32x16xf32>) outs(%res : memref<32x16xf32>) {
  ^bb0(%v: f32, %r: f32, %w: f32):
    %y = arith.maximumf %v, %zero {autoglm.activation = "relu"} : f32
    %s = arith.addf %y, %r : f32
    linalg.yield %s : f32
  }
  // The residual %o2 overlaps the output %o.
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %o2 : memref<32x16xf32>, memref<32x16xf32>) outs(%o : memref<32x16xf32>) {
  ^bb0(%v: f32, %r: f32, %w: f32):
    %s = arith.addf %v, %r : f32
    linalg.yield %s : f32
  }
  // The product %t is read again; the bias runs along the rows; the
  // activation is not marked; the marked maximum also reads the residual.
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %rowbias : memref<32x16xf32>, memref<32xf32>) outs(%out : memref<32x16xf32>) {
  ^bb0(%v: f32, %bb: f32, %w: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %v, %bb : f32
    %n = arith.negf %s : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %y = arith.divf %s, %d : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %res : memref<32x16xf32>, memref<32x16xf32>) outs(%o : memref<32x16xf32>) {
  ^bb0(%v: f32, %r: f32, %w: f32):
    %y = arith.maximumf %v, %r {autoglm.activation = "relu"} : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// SwiGLU: silu(gate) * up, the gate projection computed first (%gate): the
// up projection's call takes the loop as a gated epilogue, the gate as its
// residual operand and AGL_ACT_GATED(silu) (0x100 | 4 << 4 = 320) as its
// activation.
// CHECK-LABEL: func.func @swiglu_up
// CHECK-SAME: %{{.*}}: memref<32x64xf32>, %{{.*}}: memref<64x16xf32>, %[[GATEARG:[^:]*]]: memref<32x16xf32>, %[[OUTARG:[^:]*]]: memref<32x16xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[GATED_SILU:.*]] = arith.constant 320 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: memref.extract_strided_metadata %[[OUTARG]]
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: memref.extract_strided_metadata %[[GATEARG]]
// CHECK: %[[G:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_sgemm({{.*}}, %[[C]], %[[C0]], %[[C16]], %{{.*}}, %{{.*}}, %[[NULL]], %[[GATED_SILU]], %[[G]], %[[C0]], %[[C16]], %{{.*}}) {autoglm.epilogue = "gate_silu"}
// CHECK-NOT: linalg.
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @swiglu_up(%a: memref<32x64xf32>, %w: memref<64x16xf32>, %gate: memref<32x16xf32>, %out: memref<32x16xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.view %arena[%c0][] : memref<4096xi8> to memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate, %t : memref<32x16xf32>, memref<32x16xf32>) outs(%out : memref<32x16xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %g, %sig {autoglm.activation = "silu"} : f32
    %y = arith.mulf %silu, %u : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// The other order: the up projection (%up) computed first, the gate's
// product last: its call computes silu(product) * up (4 | 0x100 = 260). And
// a plain elementwise product with another tile: a gate without activation
// (0x100 = 256).
// CHECK-LABEL: func.func @swiglu_gate_and_product
// CHECK-SAME: %{{.*}}: memref<32x64xf32>, %{{.*}}: memref<64x16xf32>, %[[UPARG:[^:]*]]: memref<32x16xf32>, %[[OUTARG:[^:]*]]: memref<32x16xf32>, %[[OUT2ARG:[^:]*]]: memref<32x16xf32>
// CHECK-DAG: %[[SILU_GATED:.*]] = arith.constant 260 : i32
// CHECK-DAG: %[[GATED:.*]] = arith.constant 256 : i32
// CHECK: memref.extract_strided_metadata %[[UPARG]]
// CHECK: %[[U:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_sgemm({{.*}}, %[[SILU_GATED]], %[[U]], {{.*}}) {autoglm.epilogue = "silu+gate"}
// CHECK: call @agl_kernel_sgemm({{.*}}, %[[GATED]], %[[U]], {{.*}}) {autoglm.epilogue = "gate"}
// CHECK-NOT: linalg.
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @swiglu_gate_and_product(%a: memref<32x64xf32>, %w: memref<64x16xf32>, %up: memref<32x16xf32>, %out: memref<32x16xf32>, %out2: memref<32x16xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.view %arena[%c0][] : memref<4096xi8> to memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %up : memref<32x16xf32>, memref<32x16xf32>) outs(%out : memref<32x16xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %g, %sig {autoglm.activation = "silu"} : f32
    %y = arith.mulf %u, %silu : f32
    linalg.yield %y : f32
  }
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %up : memref<32x16xf32>, memref<32x16xf32>) outs(%out2 : memref<32x16xf32>) {
  ^bb0(%v: f32, %u: f32, %o: f32):
    %y = arith.mulf %v, %u : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// Left unfused: a gate that is the output itself (the kernel writes partial
// sums into C before the last block of depths reads the gate), and a gate
// whose activation is not marked.
// CHECK-LABEL: func.func @gate_not_fused
// CHECK: call @agl_kernel_sgemm(
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK: call @agl_kernel_sgemm(
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @gate_not_fused(%a: memref<32x64xf32>, %w: memref<64x16xf32>, %gate: memref<32x16xf32>, %out: memref<32x16xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.view %arena[%c0][] : memref<4096xi8> to memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate, %t : memref<32x16xf32>, memref<32x16xf32>) outs(%gate : memref<32x16xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %y = arith.mulf %g, %u : f32
    linalg.yield %y : f32
  }
  linalg.fill ins(%zero : f32) outs(%t : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<32x64xf32>, memref<64x16xf32>) outs(%t : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate, %t : memref<32x16xf32>, memref<32x16xf32>) outs(%out : memref<32x16xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %g, %sig : f32
    %y = arith.mulf %silu, %u : f32
    linalg.yield %y : f32
  }
  return
}
