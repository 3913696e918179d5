// RUN: autoglm-opt %s --split-input-file --autoglm-transposes-to-kernels --canonicalize --cse | FileCheck %s

// NHWC -> NCHW: the channels (contiguous in the input) are the kernel's
// rows, an image row's pixels its columns, the images and the image rows
// its two plane dimensions (not foldable: the output's rows lie between
// them). Arguments: planes 0 and 1, rows, columns; the input and its plane
// and column strides; the output and its plane and row strides.
// CHECK-LABEL: func.func @nhwc_to_nchw
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C20:.*]] = arith.constant 20 : i64
// CHECK-DAG: %[[C40:.*]] = arith.constant 40 : i64
// CHECK-DAG: %[[C160:.*]] = arith.constant 160 : i64
// CHECK: %[[IN:.*]] = llvm.inttoptr
// CHECK: %[[OUT:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_transpose32(%[[C2]], %[[C4]], %[[C8]], %[[C5]], %[[IN]], %[[C160]], %[[C40]], %[[C8]], %[[OUT]], %[[C160]], %[[C5]], %[[C20]])
// CHECK-NOT: linalg.
// CHECK: func.func private @agl_kernel_transpose32(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64)
func.func @nhwc_to_nchw(%x: memref<2x4x5x8xf32>, %y: memref<2x8x4x5xf32>) {
  linalg.transpose ins(%x : memref<2x4x5x8xf32>) outs(%y : memref<2x8x4x5xf32>) permutation = [0, 3, 1, 2]
  return
}

// -----

// A matrix of i32 transposed by a generic that copies through a permuted
// map: no plane dimensions (both single).
// CHECK-LABEL: func.func @matrix_by_generic
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : i64
// CHECK: call @agl_kernel_transpose32(%[[C1]], %[[C1]], %[[C10]], %[[C6]], %{{.*}}, %[[C0]], %[[C0]], %[[C10]], %{{.*}}, %[[C0]], %[[C0]], %[[C6]])
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matrix_by_generic(%x: memref<6x10xi32>, %y: memref<10x6xi32>) {
  linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<6x10xi32>) outs(%y : memref<10x6xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  }
  return
}

// -----

// The last two dimensions swapped: the two outer ones are one run of
// strides in both buffers, so they fold into one plane dimension of 6.
// CHECK-LABEL: func.func @folded_planes
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i64
// CHECK: call @agl_kernel_transpose32(%[[C1]], %[[C6]], %[[C8]], %[[C4]], %{{.*}}, %[[C0]], %[[C32]], %[[C8]], %{{.*}}, %[[C0]], %[[C32]], %[[C4]])
func.func @folded_planes(%x: memref<2x3x4x8xf32>, %y: memref<2x3x8x4xf32>) {
  linalg.transpose ins(%x : memref<2x3x4x8xf32>) outs(%y : memref<2x3x8x4xf32>) permutation = [0, 1, 3, 2]
  return
}

// -----

// Left alone: the innermost dimension stays innermost (row copies, which
// vectorize); 2-byte elements; three plane dimensions that do not fold; a
// generic that computes rather than copies; buffers that may overlap.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: call
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2, 4, 3]
// CHECK: linalg.generic
// CHECK: arith.negf
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK-NOT: call
#swap = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @left_alone(%a: memref<2x3x4x8xf32>, %b: memref<2x4x3x8xf32>,
                      %c: memref<8x16xf16>, %d: memref<16x8xf16>,
                      %e: memref<2x3x2x3x4xf32>, %f: memref<3x2x2x4x3xf32>,
                      %g: memref<6x10xf32>, %h: memref<10x6xf32>,
                      %arena: memref<1024xi8>) {
  linalg.transpose ins(%a : memref<2x3x4x8xf32>) outs(%b : memref<2x4x3x8xf32>) permutation = [0, 2, 1, 3]
  linalg.transpose ins(%c : memref<8x16xf16>) outs(%d : memref<16x8xf16>) permutation = [1, 0]
  linalg.transpose ins(%e : memref<2x3x2x3x4xf32>) outs(%f : memref<3x2x2x4x3xf32>) permutation = [1, 0, 2, 4, 3]
  linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : memref<6x10xf32>) outs(%h : memref<10x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  // Two views of the arena whose bytes overlap.
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %p = memref.view %arena[%c0][] : memref<1024xi8> to memref<8x8xf32>
  %q = memref.view %arena[%c16][] : memref<1024xi8> to memref<8x8xf32>
  linalg.transpose ins(%p : memref<8x8xf32>) outs(%q : memref<8x8xf32>) permutation = [1, 0]
  return
}
