// RUN: autoglm-opt %s --split-input-file --convert-linalg-to-parallel-loops --autoglm-accumulate-in-registers --autoglm-map-loops-to-gpu | FileCheck %s

// A row maximum (softmax's first step) over rows of 512: a block per row,
// 128 threads that each take every 128th element from -inf, a block-wide
// maximum, combined with the accumulator's value before, stored by the
// first thread.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.parallel (%[[ROW:.*]]) = (%[[C0:.*]]) to (%c16{{.*}}) step
// CHECK: scf.parallel (%[[T:.*]]) = (%[[C0]]) to (%c128) step
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %[[C0]]
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[ROW]]]
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PART:.*]] = scf.for %[[J:.*]] = %[[T]] to %c512 step %c128{{.*}} iter_args(%[[ACC:.*]] = %[[NEG_INF]])
// CHECK: memref.load %arg0[%[[ROW]], %[[J]]]
// CHECK: arith.maximumf
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce maximumf %[[PART]] uniform
// CHECK: %[[RESULT:.*]] = arith.maximumf %[[TOTAL]], %[[INIT]] : f32
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[RESULT]], %arg1[%[[ROW]]]
// CHECK: processor = thread_x
// CHECK: processor = block_x
func.func @row_max(%a: memref<16x512xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<16x512xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Rows of three dimensions take the grid's three; long rows (RMSNorm's
// sum of squares over 4096) get 1024 threads, and a sum starts from -0.0.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1024)
// CHECK: %[[NEG_ZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: scf.for {{.*}} step %c1024{{.*}} iter_args(%{{.*}} = %[[NEG_ZERO]])
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gpu.all_reduce add
// CHECK: processor = thread_x
// CHECK: processor = block_z{{.*}}processor = block_y{{.*}}processor = block_x
func.func @sum_of_squares(%a: memref<2x3x5x4096xf32>, %out: memref<2x3x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a : memref<2x3x5x4096xf32>) outs(%out : memref<2x3x5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Short rows (fewer iterations than a warp) keep a thread per row.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: gpu.all_reduce
// CHECK: processor = thread_x
func.func @short_rows(%a: memref<256x16xf32>, %out: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<256x16xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction over columns: a thread per column reads rows coalesced, so
// the mapping stays.
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT: gpu.all_reduce
// CHECK: processor = thread_x
func.func @column_sum(%a: memref<512x256xf32>, %out: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<512x256xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An accumulator still in memory (it may share bytes with the input) is
// no row reduction.
// CHECK-LABEL: func.func @aliased
// CHECK-NOT: gpu.all_reduce
func.func @aliased(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a = memref.view %arena[%c0][] : memref<4096xi8> to memref<4x256xf32>
  %out = memref.view %arena[%c64][] : memref<4096xi8> to memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x256xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Warp shuffles carry 32- and 64-bit values: a half-precision sum keeps a
// thread per row.
// CHECK-LABEL: func.func @half_sum
// CHECK-NOT: gpu.all_reduce
// CHECK: processor = thread_x
func.func @half_sum(%a: memref<8x512xf16>, %out: memref<8xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x512xf16>) outs(%out : memref<8xf16>) {
  ^bb0(%x: f16, %acc: f16):
    %s = arith.addf %x, %acc : f16
    linalg.yield %s : f16
  }
  return
}
