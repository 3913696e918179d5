// RUN: autoglm-opt %s --split-input-file --autoglm-emulate-gpu-launches --cse --verify-diagnostics | FileCheck %s

// A launch of 2 blocks of 32 threads (one warp) with workgroup memory and
// warp-level matrix operations: a loop over the blocks allocates each
// block's buffers in a scope of its own, around a loop over the threads;
// the thread and block ids are the loops' indices. Each thread computes
// the warp's fragments whole: a load reads the 16x16 tile (rows
// leadDimension apart; transposed when asked), compute is a contraction
// in float32 of the widened operands, the fragment carried through a loop
// is a vector, a constant fragment a broadcast, an elementwise product an
// arith.mulf, a store writes the tile.
// CHECK-LABEL: func.func @tile_product
// CHECK: scf.parallel (%[[BX:.*]], %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c2, %c1, %c1)
// CHECK: memref.alloca_scope {
// CHECK: %[[A:.*]] = memref.alloca() : memref<512xf16>
// CHECK: %[[C:.*]] = memref.alloca() : memref<256xf32>
// CHECK: scf.parallel (%[[T:.*]]) = (%c0) to (%c32)
// CHECK: memref.store %{{.*}}, %[[A]][%[[T]]] : memref<512xf16>
// CHECK: gpu.barrier
// CHECK: %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<16x16xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<16x16xf32>)
// CHECK: %[[AV:.*]] = memref.reinterpret_cast %[[A]] to offset: [%c0], sizes: [16, 16], strides: [16, 1]
// CHECK: %[[AT:.*]] = vector.transfer_read %[[AV]]{{.*}} : memref<16x16xf16, strided<[16, 1], offset: ?>>, vector<16x16xf16>
// CHECK: %[[BV:.*]] = memref.reinterpret_cast %[[A]] to offset: [%c256], sizes: [16, 16], strides: [16, 1]
// CHECK: %[[BR:.*]] = vector.transfer_read %[[BV]]
// CHECK: %[[BT:.*]] = vector.transpose %[[BR]], [1, 0]
// CHECK-DAG: %[[AW:.*]] = arith.extf %[[AT]] : vector<16x16xf16> to vector<16x16xf32>
// CHECK-DAG: %[[BW:.*]] = arith.extf %[[BT]] : vector<16x16xf16> to vector<16x16xf32>
// CHECK: %[[D:.*]] = vector.contract {{.*}} %[[AW]], %[[BW]], %[[ACC]]
// CHECK: scf.yield %[[D]] : vector<16x16xf32>
// CHECK: %[[CV:.*]] = memref.reinterpret_cast %[[C]] to offset: [%c0], sizes: [16, 16], strides: [16, 1]
// CHECK: %[[F:.*]] = vector.transfer_read %[[CV]]
// CHECK: %[[M:.*]] = arith.mulf %[[SUM]], %[[F]] : vector<16x16xf32>
// CHECK: vector.transfer_write %[[M]], %[[CV]]
// CHECK: memref.load %[[C]][%[[T]]]
// CHECK: memref.store %{{.*}}, %arg1[%[[BX]], %[[T]]]
// CHECK-NOT: gpu.launch
// CHECK-NOT: gpu.subgroup_mma
func.func @tile_product(%x: memref<2x32xf16>, %y: memref<2x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<512xf16, #gpu.address_space<workgroup>>, %c : memref<256xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%bx, %tx] : memref<2x32xf16>
    memref.store %v, %a[%tx] : memref<512xf16, #gpu.address_space<workgroup>>
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %init = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %ta = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<512xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %tb = gpu.subgroup_mma_load_matrix %a[%c256] {leadDimension = 16 : index, transpose} : memref<512xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %ta, %tb, %acc {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    %f = gpu.subgroup_mma_load_matrix %c[%c0] {leadDimension = 16 : index} : memref<256xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m = gpu.subgroup_mma_elementwise mulf %sum, %f : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %m, %c[%c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<256xf32, #gpu.address_space<workgroup>>
    %r = memref.load %c[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %r, %y[%bx, %tx] : memref<2x32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @two_dimensional_blocks() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{only a launch of blocks of constant x extent (y and z 1) can be emulated}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c8, %sz = %c1) {
    gpu.terminator
  }
  return
}
