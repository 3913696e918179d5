// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels=cuda --canonicalize --cse | FileCheck %s

// --target=cuda: a product of int8 operands without zero points (as
// autoglm-integer-matmuls makes them with signed-activations) becomes one
// agl_cuda_gemm_int8 call, cuBLASLt's integer product. Its constant weight
// (k x n = 8 x 4) is copied column by column, (n, k) row-major, which is
// what cuBLASLt reads: B's strides are 1 along k and 8 along n. Arguments:
// batch, m, n, k; a, its batch/row/column strides; b, likewise; c, its
// batch/row strides; accumulate. The weight's values
// [[0, 1, 2, 3], [4, 5, 6, 7], ...] are [[0, 4, 8, ...], [1, 5, 9, ...], ...]
// in the copy, which replaces the weight.
// CHECK-NOT: @weight :
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK: memref.get_global @weight_columns : memref<4x8xi8>
// CHECK: %[[A:.*]] = llvm.inttoptr
// CHECK: %[[B:.*]] = llvm.inttoptr
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: call @agl_cuda_gemm_int8(%[[C1]], %[[C2]], %[[C4]], %[[C8]], %[[A]], %[[C0]], %[[C8]], %[[C1]], %[[B]], %[[C0]], %[[C1]], %[[C8]], %[[C]], %[[C0]], %[[C4]], %[[NOACC]]) {autoglm.bytes = 8.000000e+01 : f64, autoglm.flops = 1.280000e+02 : f64, autoglm.operand_type = "i8"}
// CHECK: memref.global "private" constant @weight_columns : memref<4x8xi8> = dense<{{\[}}[0, 4, 8, 12, 16, 20, 24, 28], [1, 5, 9, 13, 17, 21, 25, 29], [2, 6, 10, 14, 18, 22, 26, 30], [3, 7, 11, 15, 19, 23, 27, 31]]>
// CHECK: func.func private @agl_cuda_gemm_int8(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32) attributes {autoglm.device_library}
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @weight : memref<8x4xi8> = dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23], [24, 25, 26, 27], [28, 29, 30, 31]]>
func.func @matmul(%a: memref<2x8xi8>, %c: memref<2x4xi32>) {
  %zero = arith.constant 0 : i32
  %b = memref.get_global @weight : memref<8x4xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<2x4xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<2x8xi8>, memref<8x4xi8>) outs(%c : memref<2x4xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %wi = arith.extsi %w : i8 to i32
    %p = arith.muli %xi, %wi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// What cuBLASLt's integer products cannot take keeps its loops: n = 6 is
// not a multiple of 4; an unsigned left operand with a zero point (the
// CPU's form) is not theirs either.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: call
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @narrow : memref<8x6xi8> = dense<1>
memref.global "private" constant @wide : memref<8x4xi8> = dense<1>
func.func @kept(%a: memref<2x8xi8>, %c: memref<2x6xi32>, %d: memref<2x4xi32>) {
  %zero = arith.constant 0 : i32
  %zp = arith.constant 3 : i32
  %b = memref.get_global @narrow : memref<8x6xi8>
  %w = memref.get_global @wide : memref<8x4xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<2x6xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<2x8xi8>, memref<8x6xi8>) outs(%c : memref<2x6xi32>) {
  ^bb0(%x: i8, %v: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %vi = arith.extsi %v : i8 to i32
    %p = arith.muli %xi, %vi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.fill ins(%zero : i32) outs(%d : memref<2x4xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %w : memref<2x8xi8>, memref<8x4xi8>) outs(%d : memref<2x4xi32>) {
  ^bb0(%x: i8, %v: i8, %acc: i32):
    %xi = arith.extui %x : i8 to i32
    %xz = arith.subi %xi, %zp : i32
    %vi = arith.extsi %v : i8 to i32
    %p = arith.muli %xz, %vi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// A convolution's product, its sums stored transposed ([F, positions], the
// output's NCHW): the call computes C^T = B^T A^T, so the filter's copy
// (F x window = 4 x 8, column by column) is cuBLASLt's A and the gathered
// windows (positions x window = 12 x 8) its B: m = 4 filters, n = 12
// positions, k = 8; A's rows 8 apart, B's columns 8 apart (its window
// rows), C's rows 12 apart.
// CHECK-LABEL: func.func @transposed_sums
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : i64
// CHECK: %[[W:.*]] = memref.get_global @filter_columns : memref<4x8xi8>
// CHECK: memref.extract_strided_metadata %[[W]]
// CHECK: %[[A:.*]] = llvm.inttoptr
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: %[[B:.*]] = llvm.inttoptr
// CHECK: %[[C:.*]] = llvm.inttoptr
// CHECK: call @agl_cuda_gemm_int8(%[[C1]], %[[C4]], %[[C12]], %[[C8]], %[[A]], %[[C0]], %[[C8]], %[[C1]], %[[B]], %[[C0]], %[[C1]], %[[C8]], %[[C]], %[[C0]], %[[C12]], %{{.*}})
#rows = affine_map<(n, p, k, f) -> (n, p, k)>
#filter = affine_map<(n, p, k, f) -> (k, f)>
#sums = affine_map<(n, p, k, f) -> (n, f, p)>
memref.global "private" constant @filter : memref<8x4xi8> = dense<1>
func.func @transposed_sums(%col: memref<1x12x8xi8>, %out: memref<1x4x12xi32>) {
  %zero = arith.constant 0 : i32
  %w = memref.get_global @filter : memref<8x4xi8>
  linalg.fill ins(%zero : i32) outs(%out : memref<1x4x12xi32>)
  linalg.generic {indexing_maps = [#rows, #filter, #sums], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%col, %w : memref<1x12x8xi8>, memref<8x4xi8>) outs(%out : memref<1x4x12xi32>) {
  ^bb0(%x: i8, %v: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %vi = arith.extsi %v : i8 to i32
    %p = arith.muli %xi, %vi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Symbolic rows (--dim seq=1..64): the batch stride of the activations, seq * 8, is
// a multiple of 4 whatever seq is (the extents inside it, 8, are), so the
// product is cuBLASLt's too: a batch of 2 products sharing the weight
// (batch stride 0), seq rows each, read at run time.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK: %[[SEQ:.*]] = memref.dim %arg0, %c1
// CHECK: %[[M:.*]] = arith.index_cast %[[SEQ]] : index to i64
// CHECK: %[[AB:.*]] = arith.index_cast %{{.*}}#0 : index to i64
// CHECK: call @agl_cuda_gemm_int8(%[[C2]], %[[M]], %{{.*}}, %{{.*}}, %{{.*}}, %[[AB]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C0]], {{.*}}) {autoglm.operand_type = "i8"}
// CHECK-NOT: linalg.generic
#mk = affine_map<(b, m, k, n) -> (b, m, k)>
#kn = affine_map<(b, m, k, n) -> (k, n)>
#mn = affine_map<(b, m, k, n) -> (b, m, n)>
memref.global "private" constant @shared : memref<8x4xi8> = dense<1>
func.func @symbolic_rows(%a: memref<2x?x8xi8> {autoglm.dim_symbols = array<i32: -1, 0, -1>},
                         %c: memref<2x?x4xi32> {autoglm.dim_symbols = array<i32: -1, 0, -1>})
    attributes {autoglm.symbols = [{max = 64 : i64, min = 1 : i64, name = "seq"}]} {
  %zero = arith.constant 0 : i32
  %w = memref.get_global @shared : memref<8x4xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<2x?x4xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %w : memref<2x?x8xi8>, memref<8x4xi8>) outs(%c : memref<2x?x4xi32>) {
  ^bb0(%x: i8, %v: i8, %acc: i32):
    %xi = arith.extsi %x : i8 to i32
    %vi = arith.extsi %v : i8 to i32
    %p = arith.muli %xi, %vi : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
