// RUN: autoglm-opt %s --autoglm-contractions-to-kernels="partial-panels=1" --autoglm-quantize-weights="format=fp16" --canonicalize --cse | FileCheck %s

// format=fp16 (--precision fp16): as bf16 (quantize-weights-bf16.mlir),
// every product with a constant weight calls agl_kernel_sgemm_f16 with the
// packed call's arguments, the IEEE half weight's address in place of the
// packed float one (no group size), in the same layout and sizes: the
// shared 64 x 32 weight rounded once, 4096 bytes; the 64 x 40 weight in two
// panels, 8192 bytes. Its -70000 is beyond half's range: the 2560 weights
// saturate to -65504, counted for the report. The product with a weight
// that is an argument stays a float GEMM.
// CHECK: module attributes {autoglm.weight_only = {bits = 16 : i64, float_bytes = 24576 : i64, format = "fp16", products = 3 : i64, quantized_bytes = 12288 : i64, saturated = 2560 : i64}}
// CHECK-LABEL: func.func @products
// CHECK-DAG: %[[N32:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[N40:.*]] = arith.constant 40 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 64 : i64
// CHECK: %[[W:.*]] = memref.get_global @weight_packed_f16 : memref<4096xi8>
// CHECK: %[[B:.*]] = llvm.inttoptr
// CHECK-NEXT: call @agl_kernel_sgemm_f16(%{{.*}}, %{{.*}}, %[[N32]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B]], %{{.*}}, %{{.*}}, %[[N32]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
// CHECK: call @agl_kernel_sgemm_f16(
// CHECK: call @agl_kernel_sgemm(
// CHECK: memref.get_global @wide_packed_f16 : memref<8192xi8>
// CHECK: call @agl_kernel_sgemm_f16(%{{.*}}, %{{.*}}, %[[N40]], %[[K]],
// CHECK-NOT: agl_kernel_sgemm_packed
// The stored bytes, little-endian: 0.1 rounds to 0x2E66 in half
// (0.0999755859375); -70000 saturates to -65504, 0xFBFF.
// CHECK-DAG: memref.global "private" constant @weight_packed_f16 : memref<4096xi8> = dense<"0x662E662E662E{{.*}}"> {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" constant @wide_packed_f16 : memref<8192xi8> = dense<"0xFFFBFFFBFFFB{{.*}}"> {alignment = 64 : i64}
// CHECK-DAG: func.func private @agl_kernel_sgemm_f16(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
// CHECK-NOT: @weight_packed :
// CHECK-NOT: @wide_packed :

#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
module {
  memref.global "private" constant @weight : memref<64x32xf32> = dense<0.1> {alignment = 64 : i64}
  memref.global "private" constant @wide : memref<64x40xf32> = dense<-70000.0> {alignment = 64 : i64}
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
