// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels="cuda cuda-precision=fp16" --canonicalize | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels="cuda cuda-precision=bf16" --canonicalize | FileCheck %s --check-prefix=BF16
// RUN: not autoglm-opt %s --autoglm-contractions-to-kernels="cuda cuda-precision=fp8" 2>&1 | FileCheck %s --check-prefix=BAD

// --target=cuda --precision fp16: the constant weight becomes an IEEE half
// copy (the float one goes), the activation is converted by a loop into a
// new buffer right before the call, and the call is agl_cuda_gemm_half
// with format 0 (bf16: 1).
// CHECK-NOT: memref<64x16xf32>
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[HALF:.*]] = arith.constant 0 : i32
// CHECK: %[[A:.*]] = memref.alloc() : memref<32x64xf16>
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0 : memref<32x64xf32>) outs(%[[A]] : memref<32x64xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.get_global @weight_f16 : memref<64x16xf16>
// CHECK: call @agl_cuda_gemm_half({{.*}}, %[[HALF]])
// CHECK-NOT: memref<64x16xf32>
// CHECK: memref.global "private" constant @weight_f16 : memref<64x16xf16> = dense<1.500000e+00> {alignment = 64 : i64}
// CHECK: func.func private @agl_cuda_gemm_half(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, f32, i32) attributes {autoglm.device_library}
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: call @agl_cuda_gemm_half({{.*}}, %c1_i32)
// BF16: memref.global "private" constant @weight_bf16 : memref<64x16xbf16> = dense<1.500000e+00>
// BAD: cuda-precision must be fp32, fp16 or bf16, not 'fp8'
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
memref.global "private" constant @weight : memref<64x16xf32> = dense<1.5>
func.func @matmul(%a: memref<32x64xf32>, %c: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %b = memref.get_global @weight : memref<64x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
