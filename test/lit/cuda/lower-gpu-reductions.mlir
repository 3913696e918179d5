// RUN: autoglm-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(autoglm-lower-gpu-reductions))' --verify-diagnostics | FileCheck %s

// A block-wide sum: butterfly shuffles in each warp, each warp's first lane
// writes its sum to shared memory, the first warp sums those after a
// barrier and shares the total through shared memory.
// CHECK-LABEL: gpu.func @block_sum
// CHECK-SAME: workgroup(%[[SHARED:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[SHARED]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SHARED]]
// CHECK: gpu.barrier
// CHECK: %[[TOTAL:.*]] = memref.load %[[SHARED]]
// CHECK: memref.store %[[TOTAL]], %arg1
gpu.module @kernels {
  gpu.func @block_sum(%a: memref<128xf32>, %out: memref<1xf32>) kernel {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%t] : memref<128xf32>
    %sum = gpu.all_reduce add %x uniform {} : (f32) -> (f32)
    memref.store %sum, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @not_uniform(%a: memref<128xf32>, %out: memref<1xf32>) kernel {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%t] : memref<128xf32>
    // expected-error @+1 {{a block-wide reduction that is not uniform}}
    %sum = gpu.all_reduce add %x {} : (f32) -> (f32)
    memref.store %sum, %out[%c0] : memref<1xf32>
    gpu.return
  }
}
