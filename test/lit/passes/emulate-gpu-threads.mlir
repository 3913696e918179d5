// RUN: autoglm-opt %s --split-input-file --autoglm-emulate-gpu-threads --verify-diagnostics | FileCheck %s

// A block of 32 threads: the first step (up to the all_reduce) is a loop
// over the threads that keeps each one's partial value and its `first`
// flag; the partial values are combined in thread order; the next step
// (after the all_reduce, up to the barrier) and the last are loops over the
// threads again, reading the flag back and the combined value directly.
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[FIRST:.*]] = memref.alloca() : memref<32xi1>
// CHECK-DAG: %[[PARTIALS:.*]] = memref.alloca() : memref<32xf32>
// CHECK: scf.parallel (%[[ROW:.*]]) =
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[F:.*]] = arith.cmpi eq, %[[T]]
// CHECK: memref.store %[[F]], %[[FIRST]][%[[T]]]
// CHECK: memref.load %arg0[%[[ROW]], %[[T]]]
// CHECK: memref.store %{{.*}}, %[[PARTIALS]][%[[T]]]
// CHECK: %[[FIRST_VALUE:.*]] = memref.load %[[PARTIALS]][%c0
// CHECK: %[[TOTAL:.*]] = scf.for %[[U:.*]] = %c1{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST_VALUE]])
// CHECK: %[[NEXT:.*]] = memref.load %[[PARTIALS]][%[[U]]]
// CHECK: arith.addf %[[ACC]], %[[NEXT]]
// CHECK: scf.for %[[T2:.*]] =
// CHECK: %[[F2:.*]] = memref.load %[[FIRST]][%[[T2]]]
// CHECK: scf.if %[[F2]] {
// CHECK: memref.store %[[TOTAL]], %arg1[%[[ROW]]]
// CHECK: scf.for %[[T3:.*]] =
// CHECK: memref.load %[[FIRST]][%[[T3]]]
// CHECK-NOT: gpu.
func.func @row_sum(%x: memref<4x32xf32>, %sum: memref<4xf32>, %count: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%row) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      %first = arith.cmpi eq, %t, %c0 : index
      %v = memref.load %x[%row, %t] : memref<4x32xf32>
      %total = gpu.all_reduce add %v uniform {} : (f32) -> f32
      scf.if %first {
        memref.store %total, %sum[%row] : memref<4xf32>
      }
      gpu.barrier
      scf.if %first {
        memref.store %one, %count[%row] : memref<4xf32>
      }
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

func.func @barrier_in_a_branch(%flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    scf.if %flag {
      // expected-error @+1 {{'gpu.barrier' outside the top level of a thread loop cannot be emulated}}
      gpu.barrier
    }
    scf.reduce
  }
  return
}

// -----

func.func @reduction_with_a_body(%x: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %v = memref.load %x[%t] : memref<32xf32>
    // expected-error @+1 {{an all_reduce with a body of its own cannot be emulated}}
    %r = gpu.all_reduce %v {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield %s : f32
    } : (f32) -> f32
    scf.reduce
  }
  return
}

// -----

// A value of the first step that the second step's all_reduce combines is
// kept per thread too.
// CHECK-LABEL: func.func @reduce_a_kept_value
// CHECK-DAG: %[[KEPT:.*]] = memref.alloca() : memref<32xf32>
// CHECK-DAG: %[[PARTIALS:.*]] = memref.alloca() : memref<32xf32>
// CHECK: scf.for %[[T:.*]] =
// CHECK: %[[V:.*]] = memref.load %arg0[%[[T]]]
// CHECK: memref.store %[[V]], %[[KEPT]][%[[T]]]
// CHECK: scf.for %[[T2:.*]] =
// CHECK: %[[V2:.*]] = memref.load %[[KEPT]][%[[T2]]]
// CHECK: memref.store %[[V2]], %[[PARTIALS]][%[[T2]]]
// CHECK: arith.maximumf
func.func @reduce_a_kept_value(%x: memref<32xf32>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %v = memref.load %x[%t] : memref<32xf32>
    gpu.barrier
    %m = gpu.all_reduce maximumf %v uniform {} : (f32) -> f32
    memref.store %m, %out[%c0] : memref<1xf32>
    scf.reduce
  }
  return
}
