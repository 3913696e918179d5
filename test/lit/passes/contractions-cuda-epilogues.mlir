// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels=cuda --canonicalize --cse | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels="cuda cuda-precision=fp16" --canonicalize --cse | FileCheck %s --check-prefix=HALF

// --target=cuda: the elementwise loop after a product goes into the call
// when cuBLASLt's epilogues compute it: agl_cuda_gemm_epilogue, whose
// arguments after agl_cuda_sgemm's are the operands' format (2: float32;
// 0: IEEE half), the bias, the activation (3: GELU, tanh form), the
// residual and its batch and row strides.
// CHECK-LABEL: func.func @bias_gelu_tanh
// CHECK-SAME: %{{.*}}: memref<32x64xf32>, %[[BIASARG:.*]]: memref<16xf32>, %[[CARG:.*]]: memref<32x16xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FLOAT:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[GELU:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: memref.extract_strided_metadata %[[CARG]]
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: memref.extract_strided_metadata %[[BIASARG]]
// CHECK: %[[BIAS:.*]] = llvm.inttoptr
// CHECK: call @agl_cuda_gemm_epilogue({{.*}}, %[[C]], %[[C0]], %{{.*}}, %[[NOACC]], %[[ONE]], %[[FLOAT]], %[[BIAS]], %[[GELU]], %[[NULL]], %[[C0]], %[[C0]]) {autoglm.bytes = 1.440000e+04 : f64, autoglm.epilogue = "bias+gelu_tanh", autoglm.flops = {{.*}} : f64, autoglm.operand_type = "f32"}
// CHECK-NOT: linalg.
// CHECK: func.func private @agl_cuda_gemm_epilogue(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, f32, i32, !llvm.ptr, i32, !llvm.ptr, i64, i64) attributes {autoglm.device_library}
// HALF-LABEL: func.func @bias_gelu_tanh
// HALF-DAG: %[[HALFFMT:.*]] = arith.constant 0 : i32
// HALF-DAG: %[[GELU:.*]] = arith.constant 3 : i32
// HALF: arith.truncf %{{.*}} : f32 to f16
// HALF: call @agl_cuda_gemm_epilogue({{.*}}, %[[HALFFMT]], %{{.*}}, %[[GELU]], {{.*}}) {autoglm.bytes = 8.256000e+03 : f64, autoglm.epilogue = "bias+gelu_tanh", autoglm.flops = {{.*}} : f64, autoglm.operand_type = "f16"}
// HALF-NOT: linalg.generic
// HALF: return
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<0.5>
func.func @bias_gelu_tanh(%a: memref<32x64xf32>, %bias: memref<16xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %b = memref.get_global @weight : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<32x16xf32>, memref<16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %k0 = arith.constant 0.797884583 : f32
    %k1 = arith.constant 0.044715 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %x = arith.addf %v, %bb {autoglm.activation_input} : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %t1 = arith.mulf %x3, %k1 : f32
    %in = arith.addf %x, %t1 : f32
    %sc = arith.mulf %in, %k0 : f32
    %th = math.tanh %sc : f32
    %p = arith.addf %th, %one : f32
    %m = arith.mulf %x, %p : f32
    %y = arith.mulf %m, %half {autoglm.activation = "gelu_tanh"} : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A residual added into another buffer (the product's is an arena buffer
// that nothing reads after): the call writes that buffer and reads the
// residual with its strides (batch 0, rows 16); no bias, no activation.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: %[[RESARG:[^:]*]]: memref<32x16xf32>, %[[OUTARG:[^:]*]]: memref<32x16xf32>, %{{.*}}: memref<4096xi8>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[NOACT:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FLOAT:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: memref.extract_strided_metadata %[[OUTARG]]
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: memref.extract_strided_metadata %[[RESARG]]
// CHECK: %[[R:.*]] = llvm.inttoptr
// CHECK: call @agl_cuda_gemm_epilogue({{.*}}, %[[C]], %[[C0]], %[[C16]], %[[NOACT]], %{{.*}}, %[[FLOAT]], %[[NULL]], %[[NOACT]], %[[R]], %[[C0]], %[[C16]]) {autoglm.bytes = {{.*}} : f64, autoglm.epilogue = "residual", autoglm.flops = {{.*}} : f64, autoglm.operand_type = "{{.*}}"}
// CHECK-NOT: linalg.
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @residual(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %res: memref<32x16xf32>, %out: memref<32x16xf32>, %arena: memref<4096xi8>) {
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
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %res : memref<32x16xf32>, memref<32x16xf32>) outs(%out : memref<32x16xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %w = arith.addf %r, %v : f32
    linalg.yield %w : f32
  }
  return
}

// -----

// Attention scores scaled by a constant into another buffer: cuBLAS's own
// alpha does it, so the call stays agl_cuda_sgemm (alpha 0.125, writing
// the scaled buffer).
// CHECK-LABEL: func.func @scale
// CHECK-SAME: %{{.*}}: memref<4x8x16xf32>, %{{.*}}: memref<4x8x16xf32>, %{{.*}}: memref<4x8x8xf32>, %[[YARG:.*]]: memref<4x8x8xf32>
// CHECK-DAG: %[[EIGHTH:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: memref.extract_strided_metadata %[[YARG]]
// CHECK: %[[Y:.*]] = llvm.inttoptr
// CHECK: call @agl_cuda_sgemm({{.*}}, %[[Y]], %{{.*}}, %{{.*}}, %{{.*}}, %[[EIGHTH]]) {autoglm.bytes = {{.*}} : f64, autoglm.epilogue = "scale", autoglm.flops = {{.*}} : f64, autoglm.operand_type = "{{.*}}"}
// CHECK-NOT: linalg.
#bmk = affine_map<(b, m, k, n) -> (b, m, k)>
#bnk = affine_map<(b, m, k, n) -> (b, n, k)>
#bmn = affine_map<(b, m, k, n) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @scale(%q: memref<4x8x16xf32>, %k: memref<4x8x16xf32>, %c: memref<4x8x8xf32>, %y: memref<4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8x8xf32>)
  linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%q, %k : memref<4x8x16xf32>, memref<4x8x16xf32>) outs(%c : memref<4x8x8xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<4x8x8xf32>) outs(%y : memref<4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %eighth = arith.constant 0.125 : f32
    %r = arith.mulf %v, %eighth : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// GELU in its erf form has no cuBLASLt epilogue, nor does SiLU: the product
// is a plain agl_cuda_sgemm and the loop stays.
// CHECK-LABEL: func.func @gelu_erf
// CHECK: call @agl_cuda_sgemm
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK: math.erf
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @gelu_erf(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r2 = arith.constant 1.41421354 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
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

// A residual after a ReLU is not cuBLASLt's (it adds C before the
// activation): the loop stays.
// CHECK-LABEL: func.func @relu_then_residual
// CHECK: call @agl_cuda_sgemm
// CHECK-NOT: autoglm.epilogue
// CHECK: linalg.generic
// CHECK: arith.maximumf
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @relu_then_residual(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %res: memref<32x16xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %res : memref<32x16xf32>, memref<32x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %v, %z {autoglm.activation = "relu"} : f32
    %w = arith.addf %r, %y : f32
    linalg.yield %w : f32
  }
  return
}
