// RUN: autoglm-opt %s --split-input-file --autoglm-emulate-gpu-launches --cse --verify-diagnostics | FileCheck %s

// A launch of 2 blocks of 32 threads with workgroup memory: a loop over
// the blocks allocates each block's buffers (16-byte aligned) in a scope
// of its own, around a loop over the threads; the thread and block ids are
// the loops' indices, the block size the thread count. The barrier, the
// shuffle, the ldmatrix (which reads a buffer through a cast to the
// workgroup space) and the warp-level product stay for
// autoglm-emulate-gpu-threads.
// CHECK-LABEL: func.func @reversed
// CHECK: scf.parallel (%[[BX:.*]], %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c2, %c1, %c1)
// CHECK: memref.alloca_scope {
// CHECK: %[[A:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32xf32>
// CHECK: %[[H:.*]] = memref.alloca() {alignment = 16 : i64} : memref<256xf16>
// CHECK: %[[SHARED:.*]] = memref.memory_space_cast %[[H]] : memref<256xf16> to memref<256xf16, #gpu.address_space<workgroup>>
// CHECK: scf.parallel (%[[T:.*]]) = (%c0) to (%c32)
// CHECK: memref.store %{{.*}}, %[[A]][%[[T]]] : memref<32xf32>
// CHECK: gpu.barrier
// CHECK: %[[R:.*]] = arith.subi %c31, %[[T]]
// CHECK: memref.load %[[A]][%[[R]]] : memref<32xf32>
// CHECK: gpu.shuffle
// CHECK: nvgpu.ldmatrix %[[SHARED]]
// CHECK: nvgpu.mma.sync
// CHECK: memref.store %{{.*}}, %arg1[%[[BX]], %[[T]]]
// CHECK-NOT: gpu.launch
func.func @reversed(%x: memref<2x32xf32>, %y: memref<2x32xf32>, %fa: vector<4x2xf16>, %fc: vector<2x2xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %c1_i32 = arith.constant 1 : i32
  %c32_i32 = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%a : memref<32xf32, #gpu.address_space<workgroup>>, %h : memref<256xf16, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%bx, %tx] : memref<2x32xf32>
    memref.store %v, %a[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = arith.subi %c31, %tx : index
    %w = memref.load %a[%r] : memref<32xf32, #gpu.address_space<workgroup>>
    %s, %valid = gpu.shuffle xor %w, %c1_i32, %c32_i32 : f32
    %fl = nvgpu.ldmatrix %h[%tx] {numTiles = 2 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %d = nvgpu.mma.sync(%fa, %fl, %fc) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %e = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %sum = arith.addf %s, %e : f32
    memref.store %sum, %y[%bx, %tx] : memref<2x32xf32>
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
