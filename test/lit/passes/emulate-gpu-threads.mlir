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
      // expected-error @+1 {{'gpu.barrier' outside the top level of a thread loop (or of an scf.for there) cannot be emulated}}
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

// -----

// A loop that every thread runs alike and that holds a barrier runs once,
// its steps over the threads in each iteration: its bound is thread 0's
// (kept per thread like any value of an earlier step), its iteration
// argument lives in a per-thread buffer (each thread's initial value
// copied in, its yielded value copied back after each iteration), and its
// result is read from that buffer afterwards.
// CHECK-LABEL: func.func @loop_with_a_barrier
// CHECK-DAG: %[[COUNT:.*]] = memref.alloca() : memref<32xindex>
// CHECK-DAG: %[[V:.*]] = memref.alloca() : memref<32xf32>
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() : memref<32xf32>
// CHECK-DAG: %[[Y:.*]] = memref.alloca() : memref<32xf32>
// CHECK-DAG: %[[SUM:.*]] = memref.alloca() : memref<32xf32>
// CHECK: scf.for %[[T:.*]] =
// CHECK: memref.store %{{.*}}, %[[V]][%[[T]]]
// CHECK: memref.store %{{.*}}, %[[COUNT]][%[[T]]]
// CHECK: scf.for %[[T1:.*]] =
// CHECK: %[[INIT:.*]] = memref.load %[[V]][%[[T1]]]
// CHECK: memref.store %[[INIT]], %[[ACC]][%[[T1]]]
// CHECK: %[[N:.*]] = memref.load %[[COUNT]][%c0
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %[[N]]
// CHECK: scf.for %[[T2:.*]] =
// CHECK: memref.load %arg0[%[[I]]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[T2]]]
// CHECK: scf.for %[[T3:.*]] =
// CHECK: %[[A:.*]] = memref.load %[[ACC]][%[[T3]]]
// CHECK: %[[B:.*]] = memref.load %[[Y]][%[[T3]]]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK: memref.store %[[S]], %[[SUM]][%[[T3]]]
// CHECK: scf.for %[[T4:.*]] =
// CHECK: %[[NEXT:.*]] = memref.load %[[SUM]][%[[T4]]]
// CHECK: memref.store %[[NEXT]], %[[ACC]][%[[T4]]]
// CHECK: scf.for %[[T5:.*]] =
// CHECK: %[[R:.*]] = memref.load %[[ACC]][%[[T5]]]
// CHECK: memref.store %[[R]], %arg2[%[[T5]]]
// CHECK-NOT: gpu.barrier
func.func @loop_with_a_barrier(%x: memref<32xf32>, %n: memref<1xindex>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %v = memref.load %x[%t] : memref<32xf32>
    %count = memref.load %n[%c0] : memref<1xindex>
    %r = scf.for %i = %c0 to %count step %c1 iter_args(%acc = %v) -> (f32) {
      %y = memref.load %x[%i] : memref<32xf32>
      gpu.barrier
      %s = arith.addf %acc, %y : f32
      scf.yield %s : f32
    }
    memref.store %r, %out[%t] : memref<32xf32>
    scf.reduce
  }
  return
}

// -----

// A shuffle ends a step too: each thread's value is kept, and thread t
// reads the value of the lane it names (xor 1: its neighbour in its group
// of 32), whether that lane is in range.
// CHECK-LABEL: func.func @shuffle_xor
// CHECK: scf.for %[[T:.*]] =
// CHECK: memref.store %{{.*}}, %[[HANDED:.*]][%[[T]]]
// CHECK-NEXT: }
// CHECK: scf.for %[[U:.*]] =
// CHECK: %[[GROUP:.*]] = arith.muli %{{.*}}, %c32
// CHECK: %[[LANE:.*]] = arith.subi %[[U]], %[[GROUP]]
// CHECK: %[[SOURCE:.*]] = arith.xori %[[LANE]], %c1
// CHECK: %[[FROM:.*]] = arith.addi %[[GROUP]]
// CHECK: %[[V:.*]] = memref.load %[[HANDED]][%[[FROM]]]
// CHECK: memref.store %[[V]], %[[RESULT:.*]][%[[U]]]
// CHECK: scf.for %[[W:.*]] =
// CHECK: %[[R:.*]] = memref.load %[[RESULT]][%[[W]]]
// CHECK: memref.store %[[R]], %arg1[%[[W]]]
// CHECK-NOT: gpu.shuffle
func.func @shuffle_xor(%x: memref<64xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %width = arith.constant 32 : i32
  scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %x[%t] : memref<64xf32>
    %r, %valid = gpu.shuffle xor %v, %one, %width : f32
    memref.store %r, %y[%t] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// A warp-level product: the step that builds the fragments keeps each
// lane's A, B and C; then, for each lane, the fragments of the 4 lanes of
// its group (A's rows) and of the groups its two columns name (B), widened
// to f32, are joined along k into 16 values per row and column, and its 4
// sums are C plus the dot products; the result is kept per lane for the
// next step.
// CHECK-LABEL: func.func @warp_product
// CHECK-DAG: %[[A:.*]] = memref.alloca() : memref<32xvector<4x2xf16>>
// CHECK-DAG: %[[B:.*]] = memref.alloca() : memref<32xvector<2x2xf16>>
// CHECK-DAG: %[[C:.*]] = memref.alloca() : memref<32xvector<2x2xf32>>
// CHECK-DAG: %[[D:.*]] = memref.alloca() : memref<32xvector<2x2xf32>>
// CHECK: scf.for %[[T:.*]] =
// CHECK: memref.store %{{.*}}, %[[A]][%[[T]]]
// CHECK: memref.store %{{.*}}, %[[B]][%[[T]]]
// CHECK: memref.store %{{.*}}, %[[C]][%[[T]]]
// CHECK: scf.for %[[U:.*]] =
// CHECK: %[[LANE:.*]] = arith.remui %[[U]], %c32
// CHECK: %[[GROUP:.*]] = arith.divui %[[LANE]], %c4
// CHECK-COUNT-4: memref.load %[[A]]
// CHECK: arith.extf %{{.*}} : vector<4x2xf16> to vector<4x2xf32>
// CHECK: vector.shuffle
// CHECK-COUNT-4: memref.load %[[B]]
// CHECK: memref.load %[[C]][%[[U]]]
// CHECK: %[[PRODUCTS:.*]] = arith.mulf %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>, %[[PRODUCTS]], %{{.*}} : vector<16xf32> into f32
// CHECK-COUNT-3: vector.reduction <add>
// CHECK: %[[SUMS:.*]] = vector.from_elements %{{.*}} : vector<2x2xf32>
// CHECK: memref.store %[[SUMS]], %[[D]][%[[U]]]
// CHECK: scf.for %[[V:.*]] =
// CHECK: memref.load %[[D]][%[[V]]]
// CHECK-NOT: nvgpu.mma.sync
func.func @warp_product(%a: memref<32xvector<4x2xf16>>, %b: memref<32xvector<2x2xf16>>, %out: memref<32xvector<2x2xf32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<2x2xf32>
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %fa = memref.load %a[%t] : memref<32xvector<4x2xf16>>
    %fb = memref.load %b[%t] : memref<32xvector<2x2xf16>>
    %d = nvgpu.mma.sync(%fa, %fb, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    memref.store %d, %out[%t] : memref<32xvector<2x2xf32>>
    scf.reduce
  }
  return
}

// -----

func.func @tf32_product(%fa: vector<4x1xf32>, %fb: vector<2x1xf32>, %fc: vector<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    // expected-error @+1 {{only an mma.sync of shape 16x8x16 with 16-bit operands and f32 sums can be emulated}}
    %d = nvgpu.mma.sync(%fa, %fb, %fc) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
    scf.reduce
  }
  return
}

// -----

// An ldmatrix of two 8x8 matrices, transposed, through the view of the
// buffer in the workgroup space: each lane hands the index of the row it
// points at; then each lane reads its 4 elements at the indices lanes
// 2 x (l % 4) and the next of each matrix (8 more for the second) handed,
// plus l / 4; the result is kept per lane, and the unused view goes.
// CHECK-LABEL: func.func @matrices
// CHECK-DAG: %[[ROWS:.*]] = memref.alloca() : memref<64xindex>
// CHECK-DAG: %[[KEPT:.*]] = memref.alloca() : memref<64xvector<2x2xf16>>
// CHECK: scf.for %[[T:.*]] =
// CHECK: memref.store %{{.*}}, %[[ROWS]][%[[T]]]
// CHECK: scf.for %[[U:.*]] =
// CHECK: %[[LANE:.*]] = arith.remui %[[U]], %c32
// CHECK: %[[WARP:.*]] = arith.subi %[[U]], %[[LANE]]
// CHECK: %[[ROW:.*]] = arith.divui %[[LANE]], %c4
// CHECK-COUNT-4: memref.load %[[ROWS]]
// CHECK: %[[V:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: memref.store %[[V]], %[[KEPT]][%[[U]]]
// CHECK-NOT: memref.memory_space_cast
// CHECK-NOT: nvgpu.ldmatrix
func.func @matrices(%out: memref<64xvector<2x2xf16>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buffer = memref.alloca() : memref<512xf16>
  %shared = memref.memory_space_cast %buffer : memref<512xf16> to memref<512xf16, #gpu.address_space<workgroup>>
  scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
    %c16 = arith.constant 16 : index
    %row = arith.muli %t, %c16 : index
    %m = nvgpu.ldmatrix %shared[%row] {numTiles = 2 : i32, transpose = true} : memref<512xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    memref.store %m, %out[%t] : memref<64xvector<2x2xf16>>
    scf.reduce
  }
  return
}

// -----

func.func @part_of_a_warp(%fa: vector<4x2xf16>, %fb: vector<2x2xf16>, %fc: vector<2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
    // expected-error @+1 {{'nvgpu.mma.sync' in a thread loop of 16 threads (not whole warps) cannot be emulated}}
    %d = nvgpu.mma.sync(%fa, %fb, %fc) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    scf.reduce
  }
  return
}
