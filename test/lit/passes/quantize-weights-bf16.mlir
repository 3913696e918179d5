// RUN: autoglm-opt %s --autoglm-contractions-to-kernels="partial-panels=1" --autoglm-quantize-weights="format=bf16" --canonicalize --cse | FileCheck %s --check-prefix=BF16
// RUN: autoglm-opt %s --autoglm-contractions-to-kernels --autoglm-quantize-weights="format=int8 group-size=32" --canonicalize --cse | FileCheck %s --check-prefix=INT8
// RUN: not autoglm-opt %s --autoglm-quantize-weights="format=fp8" 2>&1 | FileCheck %s --check-prefix=FORMAT

// format=bf16 (--precision bf16): every product with a constant weight
// calls agl_kernel_sgemm_bf16 with the packed call's arguments, the
// bfloat16 weight's address in place of the packed float one (no group
// size). The 64 x 32 weight shared by two products is rounded once: one
// panel of 64 rows of 64 bytes, 4096 bytes. The 64 x 40 weight (n not a
// multiple of 32, packed with partial-panels, as --precision bf16 asks)
// takes two panels, the second zero past column 40: 8192 bytes (its packed
// float form: 64 x 64 floats, 16384 bytes). The product
// with a weight that is an argument stays a float GEMM.
// BF16: module attributes {autoglm.weight_only = {bits = 16 : i64, float_bytes = 24576 : i64, format = "bf16", products = 3 : i64, quantized_bytes = 12288 : i64}}
// BF16-LABEL: func.func @products
// BF16-DAG: %[[N32:.*]] = arith.constant 32 : i64
// BF16-DAG: %[[N40:.*]] = arith.constant 40 : i64
// BF16-DAG: %[[K:.*]] = arith.constant 64 : i64
// BF16: %[[W:.*]] = memref.get_global @weight_packed_bf16 : memref<4096xi8>
// BF16: %[[B:.*]] = llvm.inttoptr
// BF16-NEXT: call @agl_kernel_sgemm_bf16(%{{.*}}, %{{.*}}, %[[N32]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %[[N32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
// BF16: call @agl_kernel_sgemm_bf16(
// BF16: call @agl_kernel_sgemm(
// BF16: memref.get_global @wide_packed_bf16 : memref<8192xi8>
// BF16: call @agl_kernel_sgemm_bf16(%{{.*}}, %{{.*}}, %[[N40]], %[[K]],
// BF16-NOT: agl_kernel_sgemm_packed
// The stored bytes: 0.25 is 0x3E80 in bfloat16, little-endian.
// BF16-DAG: memref.global "private" constant @weight_packed_bf16 : memref<4096xi8> = dense<"0x803E803E803E{{.*}}"> {alignment = 64 : i64}
// BF16-DAG: memref.global "private" constant @wide_packed_bf16 : memref<8192xi8> = dense<"0x{{.*}}"> {alignment = 64 : i64}
// BF16-DAG: func.func private @agl_kernel_sgemm_bf16(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
// BF16-NOT: @weight_packed :
// BF16-NOT: @wide_packed :

// Without partial-panels the 64 x 40 weight is not packed, and stays a
// float GEMM (int8 takes whole panels of 32 columns only).
// INT8: module attributes {autoglm.weight_only = {bits = 8 : i64, float_bytes = 8192 : i64, format = "int8", group_size = 32 : i64, products = 2 : i64
// INT8-COUNT-2: call @agl_kernel_sgemm_q8(
// INT8: call @agl_kernel_sgemm(
// INT8: call @agl_kernel_sgemm(
// INT8-NOT: agl_kernel_sgemm_packed

// FORMAT: format must be int8, int4, bf16 or fp16, not 'fp8'

#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
module {
  memref.global "private" constant @weight : memref<64x32xf32> = dense<0.25> {alignment = 64 : i64}
  memref.global "private" constant @wide : memref<64x40xf32> = dense<-1.5> {alignment = 64 : i64}
  func.func @products(%a: memref<1x64xf32>, %other: memref<64x32xf32>, %c: memref<1x32xf32>, %d: memref<1x32xf32>, %e: memref<1x32xf32>, %f: memref<1x40xf32>) {
    %w = memref.get_global @weight : memref<64x32xf32>
    %v = memref.get_global @wide : memref<64x40xf32>
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<1x64xf32>, memref<64x32xf32>) outs(%c : memref<1x32xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<1x64xf32>, memref<64x32xf32>) outs(%d : memref<1x32xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %other : memref<1x64xf32>, memref<64x32xf32>) outs(%e : memref<1x32xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %v : memref<1x64xf32>, memref<64x40xf32>) outs(%f : memref<1x40xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    return
  }
}
