// RUN: autoglm-opt %s --autoglm-align-workgroup-memory | FileCheck %s

// Workgroup buffers get 16-byte alignment (room for the widest loads);
// one that states its own keeps it.
// CHECK: gpu.func @k(%{{.*}}: memref<4xf32>) workgroup(%{{.*}} : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel
gpu.module @m {
  gpu.func @k(%out: memref<4xf32>) workgroup(%s : memref<64xf16, #gpu.address_space<workgroup>>, %t : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel {
    gpu.return
  }
}
