// RUN: autoglm-opt %s --autoglm-quantize-weights="format=int8 group-size=32" | FileCheck %s --check-prefix=EPI
// RUN: autoglm-opt %s --autoglm-quantize-weights="format=int4 group-size=32" | FileCheck %s --check-prefix=Q4

// The packed calls with epilogue arguments (accumulate, alpha, bias,
// activation, residual and its strides, blocking) are all quantized; the
// quantized kernels take the same epilogue, passed through unchanged: the
// plain one, one with alpha 1 and no bias or residual, and one with a
// scale, a bias, GELU and a residual (o_proj / down_proj with the residual
// add, the MLP's up projection with its activation).
// EPI-LABEL: func.func @epilogue
// EPI-SAME: (%[[A:[^:]*]]: !llvm.ptr, %[[C:[^:]*]]: !llvm.ptr, %[[BIAS:[^:]*]]: !llvm.ptr, %[[RES:[^:]*]]: !llvm.ptr)
// EPI-DAG: %[[RBS:.*]] = arith.constant 96 : i64
// EPI-DAG: %[[N:.*]] = arith.constant 64 : i64
// EPI-DAG: %[[ACC:.*]] = arith.constant 0 : i32
// EPI-DAG: %[[ACT:.*]] = arith.constant 4 : i32
// EPI-DAG: %[[ALPHA:.*]] = arith.constant 1.000000e+00 : f32
// EPI-DAG: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// EPI-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// EPI: call @agl_kernel_sgemm_q8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %[[N]], %[[ACC]], %[[ALPHA]], %[[NULL]], %[[ACT]], %[[NULL]], %{{.*}}, %{{.*}}, %[[NULL]]) :
// EPI: call @agl_kernel_sgemm_q8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %[[N]], %[[ACC]], %[[SCALE]], %[[BIAS]], %[[ACT]], %[[RES]], %[[RBS]], %[[N]], %[[NULL]]) :
// EPI-NOT: call
// EPI-NOT: agl_kernel_sgemm_packed
// EPI: func.func private @agl_kernel_sgemm_q8(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
// EPI-NOT: @w_packed :

// Q4: module attributes {autoglm.weight_only = {bits = 4 : i64, float_bytes = 8192 : i64, format = "int4", group_size = 32 : i64, products = 2 : i64
// Q4-COUNT-2: call @agl_kernel_sgemm_q4(
// Q4-NOT: agl_kernel_sgemm_packed
module {
  memref.global "private" constant @w_packed : memref<2048xf32> = dense<0.5> {alignment = 64 : i64}
  func.func private @agl_kernel_sgemm_packed(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
  func.func @epilogue(%a: !llvm.ptr, %c: !llvm.ptr, %bias: !llvm.ptr, %res: !llvm.ptr) {
    %one = arith.constant 1 : i64
    %n = arith.constant 64 : i64
    %k = arith.constant 32 : i64
    %zero = arith.constant 0 : i64
    %res_bs = arith.constant 96 : i64
    %acc = arith.constant 0 : i32
    %act = arith.constant 4 : i32
    %alpha = arith.constant 1.0 : f32
    %scale = arith.constant 0.125 : f32
    %null = llvm.mlir.zero : !llvm.ptr
    %w = memref.get_global @w_packed : memref<2048xf32>
    %wi = memref.extract_aligned_pointer_as_index %w : memref<2048xf32> -> index
    %wl = arith.index_cast %wi : index to i64
    %wp = llvm.inttoptr %wl : i64 to !llvm.ptr
    func.call @agl_kernel_sgemm_packed(%one, %one, %n, %k, %a, %zero, %k, %one, %wp, %c, %zero, %n, %acc, %alpha, %null, %act, %null, %zero, %zero, %null) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
    func.call @agl_kernel_sgemm_packed(%one, %one, %n, %k, %a, %zero, %k, %one, %wp, %c, %zero, %n, %acc, %scale, %bias, %act, %res, %res_bs, %n, %null) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
    return
  }
}
