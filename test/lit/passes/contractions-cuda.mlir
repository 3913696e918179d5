// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels=cuda --canonicalize --cse | FileCheck %s

// --target=cuda: a matmul after a zero fill becomes one agl_cuda_sgemm call
// (cuBLAS on device buffers) with accumulate = 0, the fill gone; the
// weight is not packed. Arguments: batch, m, n, k; a, its batch/row/column
// strides; b, likewise; c, its batch/row strides; accumulate; alpha.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: memref.get_global @weight : memref<64x16xf32>
// CHECK: %[[A:.*]] = llvm.inttoptr
// CHECK: %[[B:.*]] = llvm.inttoptr
// CHECK: %[[C:.*]] = llvm.inttoptr
// The call's FLOPs (2 m n k) are for --profile's kernel table.
// CHECK: call @agl_cuda_sgemm(%[[C1]], %[[C32]], %[[C16]], %[[C64]], %[[A]], %[[C0]], %[[C64]], %[[C1]], %[[B]], %[[C0]], %[[C16]], %[[C1]], %[[C]], %[[C0]], %[[C16]], %[[NOACC]], %[[ONE]]) {autoglm.bytes = 1.433600e+04 : f64, autoglm.flops = 6.553600e+04 : f64, autoglm.operand_type = "f32"}
// CHECK-NOT: linalg.
// CHECK: func.func private @agl_cuda_sgemm(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, f32) attributes {autoglm.device_library}
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<1.0>
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

// Batched attention scores: q [4 heads, 8, 16] by a transposed view of k
// (row stride 1, column stride 16: cuBLAS transposes it), accumulating
// onto what c holds; the epilogue after it stays a loop.
// CHECK-LABEL: func.func @batched_transposed
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK: call @agl_cuda_sgemm(%[[C4]], %[[C8]], %[[C8]], %[[C16]], %{{.*}}, %[[C128]], %[[C16]], %[[C1]], %{{.*}}, %[[C128]], %[[C1]], %[[C16]], %{{.*}}, %[[C64]], %[[C8]], %[[ACC]], %{{.*}}) {autoglm.bytes = 6.144000e+03 : f64, autoglm.flops = 8.192000e+03 : f64, autoglm.operand_type = "f32"}
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : memref<4x8x8xf32>)
#bmk = affine_map<(b, m, k, n) -> (b, m, k)>
#bnk = affine_map<(b, m, k, n) -> (b, n, k)>
#bmn = affine_map<(b, m, k, n) -> (b, m, n)>
#id = affine_map<(b, m, n) -> (b, m, n)>
func.func @batched_transposed(%q: memref<4x8x16xf32>, %k: memref<4x8x16xf32>, %c: memref<4x8x8xf32>, %y: memref<4x8x8xf32>) {
  linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%q, %k : memref<4x8x16xf32>, memref<4x8x16xf32>) outs(%c : memref<4x8x8xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<4x8x8xf32>) outs(%y : memref<4x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An operand with no unit stride (every other element of each row) is not
// for cuBLAS: the product keeps its loops.
// CHECK-LABEL: func.func @strided_operand
// CHECK-NOT: call @agl_cuda_sgemm
// CHECK: linalg.generic
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @strided_operand(%a: memref<8x16xf32, strided<[32, 2]>>, %b: memref<16x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<8x16xf32, strided<[32, 2]>>, memref<16x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Symbolic extents (seq in 1..128): the call takes them at run time. The
// scores' row stride is seq itself, a leading dimension that covers the
// columns in every run since the buffer is contiguous.
// CHECK-LABEL: func.func @symbolic_scores
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[QS:.*]]:3 = memref.extract_strided_metadata %arg0
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[KS:.*]]:3 = memref.extract_strided_metadata %arg1
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[CS:.*]]:3 = memref.extract_strided_metadata %arg2
// CHECK: %[[M:.*]] = memref.dim %arg0, %{{.*}} : memref<4x?x16xf32>
// CHECK: %[[N:.*]] = memref.dim %arg1, %{{.*}} : memref<4x?x16xf32>
// CHECK: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[QB:.*]] = arith.index_cast %[[QS]]#0 : index to i64
// CHECK: %[[KB:.*]] = arith.index_cast %[[KS]]#0 : index to i64
// CHECK: %[[CB:.*]] = arith.index_cast %[[CS]]#0 : index to i64
// CHECK: %[[CR:.*]] = arith.index_cast %[[CS]]#1 : index to i64
// CHECK: call @agl_cuda_sgemm(%[[C4]], %[[M64]], %[[N64]], %[[C16]], %{{.*}}, %[[QB]], %[[C16]], %[[C1]], %{{.*}}, %[[KB]], %[[C1]], %[[C16]], %{{.*}}, %[[CB]], %[[CR]], %{{.*}}, %{{.*}}) {autoglm.operand_type = "f32"} :
// CHECK-NOT: linalg.generic
#bmk = affine_map<(b, m, k, n) -> (b, m, k)>
#bnk = affine_map<(b, m, k, n) -> (b, n, k)>
#bmn = affine_map<(b, m, k, n) -> (b, m, n)>
func.func @symbolic_scores(%q: memref<4x?x16xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>},
                           %k: memref<4x?x16xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>},
                           %c: memref<4x?x?xf32> {autoglm.dim_symbols = array<i32: -1, 0, 0>})
    attributes {autoglm.symbols = [{max = 128 : i64, min = 1 : i64, name = "seq"}]} {
  linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%q, %k : memref<4x?x16xf32>, memref<4x?x16xf32>) outs(%c : memref<4x?x?xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A symbolic extent that nothing bounds (no declared range), and a view
// whose row stride is only known at run time: cuBLAS might not take
// them, so both products keep their loops.
// CHECK-LABEL: func.func @unproven_layouts
// CHECK-NOT: call @agl_cuda_sgemm
// CHECK: linalg.generic
// CHECK: linalg.generic
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @unproven_layouts(%a: memref<?x16xf32>, %v: memref<8x16xf32, strided<[?, 1]>>, %b: memref<16x8xf32>, %c: memref<?x8xf32>, %d: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<?x16xf32>, memref<16x8xf32>) outs(%c : memref<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%v, %b : memref<8x16xf32, strided<[?, 1]>>, memref<16x8xf32>) outs(%d : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
