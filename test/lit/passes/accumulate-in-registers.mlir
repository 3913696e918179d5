// RUN: autoglm-opt %s --split-input-file --convert-linalg-to-parallel-loops --autoglm-accumulate-in-registers | FileCheck %s

// A row sum: the accumulator is loaded once before the reduction loop,
// carried through it and stored once after it.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[I]]]
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK-NOT: memref.store
// CHECK: %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK: %[[NEXT:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK: scf.yield %[[NEXT]]
// CHECK: memref.store %[[SUM]], %arg1[%[[I]]]
func.func @row_sum(%a: memref<8x64xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x64xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two reduction loops: promoted from the inside out, so that the outer
// loop carries the accumulator too.
// CHECK-LABEL: func.func @two_reductions
// CHECK: %[[INIT:.*]] = memref.load %arg1[%{{.*}}]
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]])
// CHECK: %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[B:.*]] = %[[A]])
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK: scf.yield %[[INNER]]
// CHECK: memref.store %[[OUTER]], %arg1
func.func @two_reductions(%a: memref<4x8x16xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : memref<4x8x16xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The input and the accumulator share the arena, in byte ranges that do
// not overlap: promoted.
// CHECK-LABEL: func.func @arena_disjoint
// CHECK: scf.for {{.*}} iter_args
func.func @arena_disjoint(%arena: memref<512xi8>) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<4x16xf32>
  %out = memref.view %arena[%c256][] : memref<512xi8> to memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x16xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Byte ranges that overlap (or that cannot be told apart) may hold the
// accumulator: the loop keeps reading and writing memory.
// CHECK-LABEL: func.func @arena_overlap
// CHECK-NOT: iter_args
// CHECK: memref.load
// CHECK: memref.store
func.func @arena_overlap(%arena: memref<512xi8>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<4x16xf32>
  %out = memref.view %arena[%c128][] : memref<512xi8> to memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x16xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An address that changes in the loop is no accumulator.
// CHECK-LABEL: func.func @moving_address
// CHECK-NOT: iter_args
func.func @moving_address(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<16xf32>
  }
  return
}

// -----

// A full reduction outside any parallel loop (a one-thread kernel on a
// GPU, which takes the load, the loop and the store together).
// CHECK-LABEL: func.func @full_sum
// CHECK: %[[INIT:.*]] = memref.load %arg1[]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32)
// CHECK: memref.store %{{.*}}, %arg1[]
func.func @full_sum(%a: memref<64xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a : memref<64xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
