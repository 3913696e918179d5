// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels="cuda cuda-precision=fp16" --canonicalize | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels="cuda cuda-precision=bf16" --canonicalize | FileCheck %s --check-prefix=BF16
// RUN: not autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels="cuda cuda-precision=fp8" 2>&1 | FileCheck %s --check-prefix=BAD

// --target=cuda --precision fp16: the constant weight becomes an IEEE half
// copy (the float one goes), the activation is converted by a loop into a
// new buffer right before the call, and the call is agl_cuda_gemm_half
// with format 0 (bf16: 1).
// CHECK-NOT: memref<64x16xf32>
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[HALF:.*]] = arith.constant 0 : i32
// CHECK: %[[A:.*]] = memref.alloc() : memref<32x64xf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0 : memref<32x64xf32>) outs(%[[A]] : memref<32x64xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.get_global @weight_f16 : memref<64x16xf16>
// CHECK: call @agl_cuda_gemm_half({{.*}}, %[[HALF]])
// CHECK-NOT: memref<64x16xf32>
// CHECK: memref.global "private" constant @weight_f16 : memref<64x16xf16> = dense<1.500000e+00> {alignment = 64 : i64}
// CHECK: func.func private @agl_cuda_gemm_half(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, f32, i32) attributes {autoglm.device_library}
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: call @agl_cuda_gemm_half({{.*}}, %c1_i32)
// BF16: memref.global "private" constant @weight_bf16 : memref<64x16xbf16> = dense<1.500000e+00>
// BAD: cuda-precision must be fp32, fp16 or bf16, not 'fp8'
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<1.5>
func.func @matmul(%a: memref<32x64xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %b = memref.get_global @weight : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The activation comes from an elementwise loop right before the product,
// into a buffer only the product reads: that loop writes the 16-bit buffer
// itself (rounding as it stores), and no conversion loop is left.
// CHECK-LABEL: func.func @producer_writes_half
// CHECK: %[[H:.*]] = memref.alloc() : memref<32x64xf16>
// CHECK-NEXT: linalg.generic
// CHECK-SAME: outs(%[[H]] : memref<32x64xf16>)
// CHECK: arith.mulf
// CHECK-NEXT: %[[T:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK-NOT: linalg.generic
// CHECK: call @agl_cuda_gemm_half
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, k) -> (m, k)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<1.5>
func.func @producer_writes_half(%x: memref<32x64xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<32x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<32x64xf32>) outs(%a : memref<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  }
  %b = memref.get_global @weight : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same, but the float32 activation is read again after the product:
// its loop stays, and a conversion loop makes the 16-bit copy.
// CHECK-LABEL: func.func @activation_read_later
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<32x64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<32x64xf16>)
// CHECK: arith.truncf
// CHECK: call @agl_cuda_gemm_half
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<32x64xf32> to memref<32x64xf32>
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, k) -> (m, k)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<1.5>
func.func @activation_read_later(%x: memref<32x64xf32>, %c: memref<32x16xf32>, %y: memref<32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<32x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<32x64xf32>) outs(%a : memref<32x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  }
  %b = memref.get_global @weight : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  memref.copy %a, %y : memref<32x64xf32> to memref<32x64xf32>
  return
}

// -----

// The loop between two products is the first one's epilogue (bias, then
// ReLU: cuBLASLt's), not the second one's 16-bit writer: the first call
// takes it, and the second product's activation gets a conversion loop.
// CHECK-LABEL: func.func @epilogue_between_products
// CHECK: call @agl_cuda_gemm_epilogue
// CHECK-SAME: {autoglm.bytes = {{.*}} : f64, autoglm.epilogue = "bias+relu", autoglm.flops = {{.*}} : f64, autoglm.operand_type = "{{.*}}"}
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<32x16xf16>)
// CHECK: call @agl_cuda_gemm_half
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
memref.global "private" constant @w1 : memref<64x16xf32> = dense<1.5>
memref.global "private" constant @w2 : memref<16x8xf32> = dense<0.5>
func.func @epilogue_between_products(%x: memref<32x64xf32>, %bias: memref<16xf32>, %c: memref<32x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %b1 = memref.get_global @w1 : memref<64x16xf32>
  %b2 = memref.get_global @w2 : memref<16x8xf32>
  %p = memref.alloc() : memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %b1 : memref<32x64xf32>, memref<64x16xf32>) outs(%p : memref<32x16xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  %h = memref.alloc() : memref<32x16xf32>
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : memref<32x16xf32>, memref<16xf32>) outs(%h : memref<32x16xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %t = arith.addf %v, %bb {autoglm.activation_input} : f32
    %r = arith.maximumf %t, %z {autoglm.activation = "relu"} : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<32x8xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%h, %b2 : memref<32x16xf32>, memref<16x8xf32>) outs(%c : memref<32x8xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A symbolic extent (seq in 1..128): the 16-bit copy of the activation has
// the activation's extents.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK: %[[S:.*]] = memref.dim %arg0, %{{.*}} : memref<?x64xf32>
// CHECK: %[[A:.*]] = memref.alloc(%[[S]]) : memref<?x64xf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0 : memref<?x64xf32>) outs(%[[A]] : memref<?x64xf16>)
// CHECK: call @agl_cuda_gemm_half
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<1.5>
func.func @symbolic_rows(%a: memref<?x64xf32> {autoglm.dim_symbols = array<i32: 0, -1>},
                         %c: memref<?x16xf32> {autoglm.dim_symbols = array<i32: 0, -1>})
    attributes {autoglm.symbols = [{max = 128 : i64, min = 1 : i64, name = "seq"}]} {
  %zero = arith.constant 0.0 : f32
  %b = memref.get_global @weight : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<?x64xf32>, memref<64x16xf32>) outs(%c : memref<?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two activations in a product bound by memory (a decode step's scores:
// one query row against 2048 cached keys, per head) stay float32:
// converting them would cost more than the product itself. The same
// product over 512 query rows is bound by arithmetic: 16-bit operands.
// CHECK-LABEL: func.func @activations
// CHECK: call @agl_cuda_sgemm({{.*}}) {autoglm.bytes = {{.*}} : f64, autoglm.flops = {{.*}} : f64, autoglm.operand_type = "f32"}
// CHECK: call @agl_cuda_gemm_half({{.*}}) {{{.*}}autoglm.operand_type = "f16"}
#bmk = affine_map<(b, m, k, n) -> (b, m, k)>
#bkn = affine_map<(b, m, k, n) -> (b, k, n)>
#bmn = affine_map<(b, m, k, n) -> (b, m, n)>
func.func @activations(%q: memref<32x1x128xf32>, %keys: memref<32x128x2048xf32>, %scores: memref<32x1x2048xf32>,
                       %qs: memref<32x512x128xf32>, %all: memref<32x512x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%scores : memref<32x1x2048xf32>)
  linalg.generic {indexing_maps = [#bmk, #bkn, #bmn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%q, %keys : memref<32x1x128xf32>, memref<32x128x2048xf32>) outs(%scores : memref<32x1x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%all : memref<32x512x2048xf32>)
  linalg.generic {indexing_maps = [#bmk, #bkn, #bmn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%qs, %keys : memref<32x512x128xf32>, memref<32x128x2048xf32>) outs(%all : memref<32x512x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two products read one activation (an RMSNorm's output read by the gate
// and up projections): one conversion, before the first, which both
// calls read. Written again in between, the second product converts it
// anew.
// CHECK-LABEL: func.func @shared_activation
// CHECK: %[[H:.*]] = memref.alloc() : memref<32x64xf16>
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<32x64xf32>) outs(%[[H]] : memref<32x64xf16>)
// CHECK: memref.extract_strided_metadata %[[H]]
// CHECK: call @agl_cuda_gemm_half
// CHECK-NOT: linalg.generic
// CHECK: memref.extract_strided_metadata %[[H]]
// CHECK: call @agl_cuda_gemm_half
// CHECK: linalg.fill {{.*}} outs(%arg0 : memref<32x64xf32>)
// CHECK: %[[H2:.*]] = memref.alloc() : memref<32x64xf16>
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<32x64xf32>) outs(%[[H2]] : memref<32x64xf16>)
// CHECK: call @agl_cuda_gemm_half
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @gate : memref<64x16xf32> = dense<1.5>
memref.global "private" constant @up : memref<64x16xf32> = dense<0.5>
func.func @shared_activation(%x: memref<32x64xf32>, %g: memref<32x16xf32>, %u: memref<32x16xf32>, %v: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %wg = memref.get_global @gate : memref<64x16xf32>
  %wu = memref.get_global @up : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%g : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %wg : memref<32x64xf32>, memref<64x16xf32>) outs(%g : memref<32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%u : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %wu : memref<32x64xf32>, memref<64x16xf32>) outs(%u : memref<32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%x : memref<32x64xf32>)
  linalg.fill ins(%zero : f32) outs(%v : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %wu : memref<32x64xf32>, memref<64x16xf32>) outs(%v : memref<32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
