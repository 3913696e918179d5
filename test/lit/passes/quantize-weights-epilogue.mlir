// RUN: autoglm-opt %s --autoglm-quantize-weights="bits=8 group-size=32" | FileCheck %s --check-prefix=EPI

// The packed call with epilogue arguments (accumulate, alpha, bias,
// activation, residual and its strides, blocking): quantized when alpha is
// 1 and there is neither bias nor residual, kept otherwise.
// EPI-LABEL: func.func @epilogue
// EPI: call @agl_kernel_sgemm_q8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ACT:.*]], %{{.*}}) :
// EPI: call @agl_kernel_sgemm_packed({{.*}}, %[[BIAS:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// EPI-NOT: call
module {
  memref.global "private" constant @w_packed : memref<2048xf32> = dense<0.5> {alignment = 64 : i64}
  func.func private @agl_kernel_sgemm_packed(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
  func.func @epilogue(%a: !llvm.ptr, %c: !llvm.ptr, %bias: !llvm.ptr) {
    %one = arith.constant 1 : i64
    %n = arith.constant 64 : i64
    %k = arith.constant 32 : i64
    %zero = arith.constant 0 : i64
    %acc = arith.constant 0 : i32
    %act = arith.constant 4 : i32
    %alpha = arith.constant 1.0 : f32
    %null = llvm.mlir.zero : !llvm.ptr
    %w = memref.get_global @w_packed : memref<2048xf32>
    %wi = memref.extract_aligned_pointer_as_index %w : memref<2048xf32> -> index
    %wl = arith.index_cast %wi : index to i64
    %wp = llvm.inttoptr %wl : i64 to !llvm.ptr
    func.call @agl_kernel_sgemm_packed(%one, %one, %n, %k, %a, %zero, %k, %one, %wp, %c, %zero, %n, %acc, %alpha, %null, %act, %null, %zero, %zero, %null) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
    func.call @agl_kernel_sgemm_packed(%one, %one, %n, %k, %a, %zero, %k, %one, %wp, %c, %zero, %n, %acc, %alpha, %bias, %act, %null, %zero, %zero, %null) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
    return
  }
}
