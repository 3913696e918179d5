// RUN: autoglm-opt %s --autoglm-contractions-to-kernels --autoglm-quantize-weights="format=int8 group-size=32" --canonicalize --cse | FileCheck %s --check-prefix=Q8
// RUN: autoglm-opt %s --autoglm-contractions-to-kernels --autoglm-quantize-weights="format=int4 group-size=64" --canonicalize --cse | FileCheck %s --check-prefix=Q4
// RUN: not autoglm-opt %s --autoglm-quantize-weights="format=int3" 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not autoglm-opt %s --autoglm-quantize-weights="group-size=48" 2>&1 | FileCheck %s --check-prefix=GROUP

// Two products with the same constant 64 x 32 weight (k 64, n 32), one
// with a weight that is an argument. The packed weight (one panel of 32
// columns) is quantized once: per group, 32 float scales (128 bytes) and
// one row per depth, 32 bytes (int8) or 16 (int4). int8, groups of 32:
// 2 x 128 + 64 x 32 = 2304 bytes; int4, one group of 64: 128 + 64 x 16 =
// 1152 bytes. The call passes the quantized weight's address and the group
// size where the packed call passed the packed weight.

// Q8: module attributes {autoglm.weight_only = {bits = 8 : i64, float_bytes = 8192 : i64, format = "int8", group_size = 32 : i64, products = 2 : i64, quantized_bytes = 2304 : i64}}
// Q8-LABEL: func.func @two_products
// Q8-DAG: %[[G32:.*]] = arith.constant 32 : i64
// Q8: %[[W:.*]] = memref.get_global @weight_packed_q8 : memref<2304xi8>
// Q8-NEXT: memref.extract_strided_metadata %[[W]]
// Q8: %[[B:.*]] = llvm.inttoptr
// Q8-NEXT: call @agl_kernel_sgemm_q8(%{{.*}}, %{{.*}}, %[[G32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]], %[[G32]], %{{.*}}, %{{.*}}, %[[G32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// Q8: call @agl_kernel_sgemm_q8(
// Q8: call @agl_kernel_sgemm(
// Q8-NOT: agl_kernel_sgemm_packed
// Q8-DAG: memref.global "private" constant @weight_packed_q8 : memref<2304xi8> = dense<{{.*}}> {alignment = 64 : i64}
// Q8-DAG: func.func private @agl_kernel_sgemm_q8(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
// Q8-NOT: @weight

// Q4: module attributes {autoglm.weight_only = {bits = 4 : i64, float_bytes = 8192 : i64, format = "int4", group_size = 64 : i64, products = 2 : i64, quantized_bytes = 1152 : i64}}
// Q4-LABEL: func.func @two_products
// Q4-DAG: %[[G64:.*]] = arith.constant 64 : i64
// Q4-DAG: memref.get_global @weight_packed_q4 : memref<1152xi8>
// Q4-COUNT-2: call @agl_kernel_sgemm_q4(%{{.*}}, %{{.*}}, %{{.*}}, %[[G64]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G64]],
// Q4-DAG: memref.global "private" constant @weight_packed_q4 : memref<1152xi8>

// BITS: format must be int8, int4, bf16 or fp16, not 'int3'
// GROUP: group-size must be a positive multiple of 32, not 48

#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
module {
  memref.global "private" constant @weight : memref<64x32xf32> = dense<0.25> {alignment = 64 : i64}
  func.func @two_products(%a: memref<1x64xf32>, %other: memref<64x32xf32>, %c: memref<1x32xf32>, %d: memref<1x32xf32>, %e: memref<1x32xf32>) {
    %w = memref.get_global @weight : memref<64x32xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<1x32xf32>)
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
    return
  }
}

