// RUN: autoglm-opt %s --autoglm-instrument-kernels --mlir-print-local-scope | FileCheck %s

// The int8 GEMM's entry in the kernel table: 2*m*n*k operations (a
// multiply and an add per product, as for floats), and its bytes: A in
// uint8 (8 x 64), C in 4-byte elements (8 x 32), the packed B once
// (agl_s8_packed_bytes(64, 32) = 128 bytes of column sums + 16 quads x 128).
// CHECK: autoglm.kernels = [{bytes = 3.712000e+03 : f64, flops = 3.276800e+04 : f64, name = "gemm_u8s8 fc/MatMul"}]
// CHECK: call @agl_profile_begin()
// CHECK-NEXT: call @agl_kernel_gemm_u8s8
module {
  func.func private @agl_kernel_gemm_u8s8(i64, i64, i64, i64, !llvm.ptr, i64, i64, i32, !llvm.ptr, !llvm.ptr, i64, i64, f32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
  func.func @plan(%p: !llvm.ptr) {
    %i0 = arith.constant 0 : i64
    %i1 = arith.constant 1 : i64
    %i8 = arith.constant 8 : i64
    %i32 = arith.constant 32 : i64
    %i64 = arith.constant 64 : i64
    %z = arith.constant 128 : i32
    %n0 = arith.constant 0 : i32
    %one = arith.constant 1.0 : f32
    call @agl_kernel_gemm_u8s8(%i1, %i8, %i32, %i64, %p, %i0, %i64, %z, %p, %p, %i0, %i32, %one, %p, %p, %n0, %p, %i0, %i0, %p) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i32, !llvm.ptr, !llvm.ptr, i64, i64, f32, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> () loc("fc/MatMul")
    return
  }
}
