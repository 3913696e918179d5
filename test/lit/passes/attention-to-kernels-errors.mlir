// RUN: autoglm-opt %s --autoglm-attention-to-kernels --verify-diagnostics

// The kernel needs contiguous rows.
func.func @strided(%q: memref<1x1x2x4xf32, strided<[8, 8, 4, 2]>>, %k: memref<1x1x2x4xf32>, %v: memref<1x1x2x4xf32>, %out: memref<1x1x2x4xf32>) {
  // expected-error @+1 {{the kernel needs contiguous rows; operand has stride 2 along its last dimension}}
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.5 : f32} : memref<1x1x2x4xf32, strided<[8, 8, 4, 2]>>, memref<1x1x2x4xf32>, memref<1x1x2x4xf32>, memref<1x1x2x4xf32>
  return
}
