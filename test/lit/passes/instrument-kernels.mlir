// RUN: autoglm-opt %s --autoglm-instrument-kernels --mlir-print-local-scope | FileCheck %s

// Every kernel at the top level of the body is bracketed by the profiling
// hooks, numbered in order; views, constants and the return are not kernels.
// The table names each kernel after what runs and its ONNX nodes, with its
// FLOPs (2*m*n*k for the GEMM call; trip count times float ops for a loop,
// an fma counting two) and operand bytes. A GEMM call's name shows the
// epilogue it computes (its residual counts as one more matrix read).
// CHECK: autoglm.kernels = [
// CHECK-SAME: {bytes = 5.120000e+02 : f64, flops = 0.000000e+00 : f64, name = "fill mm/MatMul"}
// CHECK-SAME: {bytes = 3.584000e+03 : f64, flops = 8.192000e+03 : f64, name = "sgemm_packed mm/MatMul"}
// CHECK-SAME: {bytes = 1.024000e+03 : f64, flops = 3.840000e+02 : f64, name = "loop bias/Add+act/Gelu"}
// CHECK-SAME: {bytes = 1.024000e+04 : f64, flops = 1.638400e+04 : f64, name = "sgemm+bias+silu+residual"}
// CHECK-LABEL: func.func @plan
// CHECK: %[[T0:.*]] = call @agl_profile_begin() : () -> i64
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @agl_profile_end(%[[K0]], %[[T0]]) : (i32, i64) -> ()
// CHECK: %[[T1:.*]] = call @agl_profile_begin()
// CHECK-NEXT: call @agl_kernel_sgemm_packed
// CHECK-NEXT: %[[K1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @agl_profile_end(%[[K1]], %[[T1]])
// CHECK: %[[T2:.*]] = call @agl_profile_begin()
// CHECK-NEXT: linalg.generic
// CHECK: %[[K2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @agl_profile_end(%[[K2]], %[[T2]])
// CHECK: %[[T3:.*]] = call @agl_profile_begin()
// CHECK-NEXT: scf.for
// CHECK: call @agl_kernel_sgemm(
// CHECK: %[[K3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: call @agl_profile_end(%[[K3]], %[[T3]])
// CHECK-NEXT: return
// CHECK: func.func private @agl_profile_begin() -> i64
// CHECK: func.func private @agl_profile_end(i32, i64)
module {
  func.func private @agl_kernel_sgemm_packed(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, i32)
  func.func private @agl_kernel_sgemm(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, i32)
  func.func @plan(%x: memref<8x16xf32>, %y: memref<8x16xf32>, %p: !llvm.ptr) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %i0 = arith.constant 0 : i64
    %i1 = arith.constant 1 : i64
    %i8 = arith.constant 8 : i64
    %i16 = arith.constant 16 : i64
    %i32 = arith.constant 32 : i64
    %n0 = arith.constant 0 : i32
    linalg.fill ins(%zero : f32) outs(%y : memref<8x16xf32>) loc("mm/MatMul")
    call @agl_kernel_sgemm_packed(%i1, %i8, %i16, %i32, %p, %i0, %i32, %i1, %p, %p, %i0, %i16, %n0, %n0) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, i32) -> () loc("mm/MatMul")
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      %f = math.fma %s, %s, %s : f32
      linalg.yield %f : f32
    } loc(fused["bias/Add", "act/Gelu"])
    scf.for %b = %c0 to %c4 step %c1 {
      func.call @agl_kernel_sgemm(%i1, %i8, %i16, %i16, %p, %i0, %i16, %i1, %p, %i0, %i16, %i1, %p, %i0, %i16, %n0, %n0) {autoglm.epilogue = "bias+silu+residual"} : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, i32) -> ()
    }
    return
  }
}
