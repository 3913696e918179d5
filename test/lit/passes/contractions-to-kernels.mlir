// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels --canonicalize --cse | FileCheck %s

// A matmul after a zero fill: one call with accumulate = 0, the fill gone.
// Arguments: batch, m, n, k; a, its batch/row/column strides; b, likewise;
// c, its batch/row strides; accumulate; the epilogue (alpha, bias,
// activation, residual and its batch/row strides); the blocking.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[A:.*]] = llvm.inttoptr
// CHECK: %[[B:.*]] = llvm.inttoptr
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_sgemm(%[[C1]], %[[C32]], %[[C16]], %[[C64]], %[[A]], %[[C0]], %[[C64]], %[[C1]], %[[B]], %[[C0]], %[[C16]], %[[C1]], %[[C]], %[[C0]], %[[C16]], %[[NOACC]], %[[ONE]], %[[NULL]], %[[NOACC]], %[[NULL]], %[[C0]], %[[C0]], %[[NULL]])
// CHECK-NOT: linalg.
// CHECK: func.func private @agl_kernel_sgemm(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @matmul(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
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

// Without a zero fill the call accumulates onto what c holds (a bias or a
// residual). The rhs is a transposed view: row stride 1, column stride 64.
// The lhs's unit batch extent is broadcast: batch stride 0.
// CHECK-LABEL: func.func @accumulate_transposed
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[C1024:.*]] = arith.constant 1024 : i64
// CHECK-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NOACT:.*]] = arith.constant 0 : i32
// CHECK: call @agl_kernel_sgemm(%[[C3]], %[[C8]], %[[C16]], %[[C64]], %{{.*}}, %[[C0]], %[[C64]], %[[C1]], %{{.*}}, %[[C1024]], %[[C1]], %[[C64]], %{{.*}}, %[[C128]], %[[C16]], %[[ACC]], %{{.*}}, %{{.*}}, %[[NOACT]], %{{.*}})
#bmk = affine_map<(b, m, k, n) -> (0, m, k)>
#bnk = affine_map<(b, m, k, n) -> (b, n, k)>
#bmn = affine_map<(b, m, k, n) -> (b, m, n)>
func.func @accumulate_transposed(%a: memref<1x8x64xf32>, %b: memref<3x16x64xf32>, %c: memref<3x8x16xf32>) {
  linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : memref<1x8x64xf32>, memref<3x16x64xf32>) outs(%c : memref<3x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two batch loops: the outer one becomes an scf.for stepping the three
// addresses by their strides, the inner one is the kernel's batch.
// CHECK-LABEL: func.func @two_batch_loops
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-COUNT-3: llvm.getelementptr
// CHECK: call @agl_kernel_sgemm
// CHECK-NEXT: }
#m5a = affine_map<(b0, b1, m, k, n) -> (b0, b1, m, k)>
#m5b = affine_map<(b0, b1, m, k, n) -> (b0, b1, k, n)>
#m5c = affine_map<(b0, b1, m, k, n) -> (b0, b1, m, n)>
func.func @two_batch_loops(%a: memref<2x4x8x16xf32>, %b: memref<2x4x16x8xf32>, %c: memref<2x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4x8x8xf32>)
  linalg.generic {indexing_maps = [#m5a, #m5b, #m5c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : memref<2x4x8x16xf32>, memref<2x4x16x8xf32>) outs(%c : memref<2x4x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Symbolic extents are read from the buffers.
// CHECK-LABEL: func.func @symbolic
// CHECK-SAME: %[[A:.*]]: memref<?x64xf32>
// CHECK: %[[M:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x64xf32>
// CHECK: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: call @agl_kernel_sgemm(%{{.*}}, %[[M64]],
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @symbolic(%a: memref<?x64xf32>, %b: memref<64x16xf32>, %c: memref<?x16xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<?x64xf32>, memref<64x16xf32>) outs(%c : memref<?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: an f16 contraction, one whose output rows are strided, a
// max-reduction, and a contraction that also scales its product.
// CHECK-LABEL: func.func @not_kernels
// CHECK-NOT: call
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: agl_kernel_sgemm
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @not_kernels(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf16>,
                       %x: memref<8x8xf32>, %y: memref<8x8xf32>, %z: memref<8x8xf32, strided<[1, 8]>>, %w: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<8x8xf16>, memref<8x8xf16>) outs(%c : memref<8x8xf16>) {
  ^bb0(%p: f16, %q: f16, %acc: f16):
    %0 = arith.mulf %p, %q : f16
    %1 = arith.addf %acc, %0 : f16
    linalg.yield %1 : f16
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %y : memref<8x8xf32>, memref<8x8xf32>) outs(%z : memref<8x8xf32, strided<[1, 8]>>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %y : memref<8x8xf32>, memref<8x8xf32>) outs(%w : memref<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.maximumf %p, %q : f32
    %1 = arith.maximumf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %y : memref<8x8xf32>, memref<8x8xf32>) outs(%w : memref<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// A constant B (a weight) with whole panels of 32 columns is packed at
// compile time: here the transposed weight [n = 32, k = 2], read with a
// permuted map, becomes its one panel, k rows of 32: [0, 2, 4, ..., 62],
// then [1, 3, ..., 63]. The call takes the panels and no B strides, and the
// original weight is gone. A weight with 3 columns would need padding: it
// stays as it is, with a plain call.
// CHECK-LABEL: func.func @packed_weight
// CHECK: %[[W:.*]] = memref.get_global @weight_t_packed : memref<64xf32>
// CHECK: memref.extract_strided_metadata %[[W]]
// CHECK: call @agl_kernel_sgemm_packed(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: memref.get_global @narrow : memref<2x3xf32>
// CHECK: call @agl_kernel_sgemm(
// CHECK-NOT: @weight_t :
// CHECK-DAG: func.func private @agl_kernel_sgemm_packed(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
// CHECK-DAG: memref.global "private" constant @weight_t_packed : memref<64xf32> = dense<[0.000000e+00, 2.000000e+00, 4.000000e+00, {{.*}}, 6.200000e+01, 1.000000e+00, 3.000000e+00, {{.*}}, 6.300000e+01]> {alignment = 64 : i64}
memref.global "private" constant @weight_t : memref<32x2xf32> = dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0], [30.0, 31.0], [32.0, 33.0], [34.0, 35.0], [36.0, 37.0], [38.0, 39.0], [40.0, 41.0], [42.0, 43.0], [44.0, 45.0], [46.0, 47.0], [48.0, 49.0], [50.0, 51.0], [52.0, 53.0], [54.0, 55.0], [56.0, 57.0], [58.0, 59.0], [60.0, 61.0], [62.0, 63.0]]>
memref.global "private" constant @narrow : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#nk = affine_map<(m, k, n) -> (n, k)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @packed_weight(%a: memref<4x2xf32>, %c: memref<4x32xf32>, %d: memref<4x3xf32>) {
  %wt = memref.get_global @weight_t : memref<32x2xf32>
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %wt : memref<4x2xf32>, memref<32x2xf32>) outs(%c : memref<4x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %w = memref.get_global @narrow : memref<2x3xf32>
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<4x2xf32>, memref<2x3xf32>) outs(%d : memref<4x3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Unit batch loops (n = 1 here) need no loop around the call; g = 2 is the
// kernel's batch.
// CHECK-LABEL: func.func @unit_batch_loop
// CHECK-NOT: scf.for
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: call @agl_kernel_sgemm(%[[TWO]],
#w = affine_map<(n, g, f, r, o) -> (g, f, r)>
#col = affine_map<(n, g, f, r, o) -> (n, g, r, o)>
#out = affine_map<(n, g, f, r, o) -> (n, g, f, o)>
func.func @unit_batch_loop(%w: memref<2x4x8xf32>, %col: memref<1x2x8x16xf32>, %c: memref<1x2x4x16xf32>) {
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%w, %col : memref<2x4x8xf32>, memref<1x2x8x16xf32>) outs(%c : memref<1x2x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
