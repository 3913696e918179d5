// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg="attention-kernel=true" | FileCheck %s --check-prefix=KERNEL
// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg | FileCheck %s --check-prefix=LOOPS

// For the runtime's kernel: the operands' buffers (read only), a new
// output buffer written by autoglm.attention_buffers, read back as the
// result. The operands may be views (strided rows), which the kernel reads
// in place.
// KERNEL-LABEL: func.func @grouped
// KERNEL-DAG: %[[Q:.*]] = bufferization.to_buffer %arg0 read_only : tensor<1x4x3x8xf32> to memref<1x4x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>
// KERNEL-DAG: %[[K:.*]] = bufferization.to_buffer %arg1 read_only : tensor<1x2x5x8xf32> to memref<1x2x5x8xf32, strided<[?, ?, ?, 1], offset: ?>>
// KERNEL-DAG: %[[V:.*]] = bufferization.to_buffer %arg2 read_only : tensor<1x2x5x16xf32> to memref<1x2x5x16xf32, strided<[?, ?, ?, 1], offset: ?>>
// KERNEL-DAG: %[[M:.*]] = bufferization.to_buffer %arg3 read_only : tensor<3x5xf32> to memref<3x5xf32, strided<[?, 1], offset: ?>>
// KERNEL: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x3x16xf32>
// KERNEL: autoglm.attention_buffers %[[Q]], %[[K]], %[[V]], %[[M]] into %[[OUT]] {causal = true, scale = 2.500000e-01 : f32}
// KERNEL: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// KERNEL: return %[[R]]
// Without it: the primitive ops, lowered. K and V heads repeated (a
// broadcast copy each), Q·Kᵀ, scale, mask, causal bias, softmax (max,
// exp-sum, divide), the guard for rows with no key, ·V.
// LOOPS-LABEL: func.func @grouped
// LOOPS-NOT: autoglm.
// LOOPS-NOT: bufferization.to
// LOOPS: linalg.generic {{.*}}reduction
// LOOPS: math.exp
// LOOPS: arith.cmpf oeq
// LOOPS: arith.select
// LOOPS: return
func.func @grouped(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x16xf32>, %mask: tensor<3x5xf32>) -> tensor<1x4x3x16xf32> {
  %y = autoglm.attention %q, %k, %v, %mask {scale = 0.25 : f32, causal = true} : (tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x16xf32>, tensor<3x5xf32>) -> tensor<1x4x3x16xf32>
  return %y : tensor<1x4x3x16xf32>
}

// -----

// No mask, causal with Sk >= Sq: no row can be empty, so no guard.
// KERNEL-LABEL: func.func @plain
// KERNEL: autoglm.attention_buffers %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {scale = 1.250000e-01 : f32}
// LOOPS-LABEL: func.func @plain
// LOOPS-NOT: arith.cmpf oeq
// LOOPS: return
func.func @plain(%q: tensor<1x2x1x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x1x8xf32> {
  %y = autoglm.attention %q, %k, %v {scale = 0.125 : f32} : (tensor<1x2x1x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x1x8xf32>
  return %y : tensor<1x2x1x8xf32>
}

// -----

// Symbolic lengths (a decoder compiled for any prompt and cache length):
// the output takes Q's length; without the kernel, the repeated heads take
// the symbolic extents as operands.
// KERNEL-LABEL: func.func @symbolic
// KERNEL: %[[SQ:.*]] = tensor.dim %arg0, %c2
// KERNEL: %[[OUT:.*]] = memref.alloc(%[[SQ]]) {alignment = 64 : i64} : memref<1x4x?x8xf32>
// KERNEL: autoglm.attention_buffers {{.*}} into %[[OUT]] {scale = 1.250000e-01 : f32} : {{.*}}memref<1x1x?x?xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x4x?x8xf32>
// LOOPS-LABEL: func.func @symbolic
// LOOPS-NOT: autoglm.
// LOOPS: math.exp
// LOOPS: return
func.func @symbolic(%q: tensor<1x4x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>, %mask: tensor<1x1x?x?xf32>) -> tensor<1x4x?x8xf32> {
  %y = autoglm.attention %q, %k, %v, %mask {scale = 0.125 : f32} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x1x?x?xf32>) -> tensor<1x4x?x8xf32>
  return %y : tensor<1x4x?x8xf32>
}
