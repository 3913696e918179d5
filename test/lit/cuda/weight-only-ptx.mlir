// RUN: autoglm-opt %s --autoglm-weight-products-to-gpu="weights=int4 group-size=32 max-gemv-rows=32" --autoglm-externalize-weights=min-bytes=0 --autoglm-stage-cuda="arch=sm_90 format=isa" | FileCheck %s
// RUN: autoglm-opt %s --autoglm-weight-products-to-gpu="weights=int4 group-size=32 max-gemv-rows=32" --autoglm-externalize-weights=min-bytes=0 --autoglm-stage-cuda="arch=sm_90 format=isa" | sed 's/\\0A/\n/g' | FileCheck %s --check-prefix=PTX

// The weight-only decode kernel through the whole GPU stage. The placement
// list rates it by its FLOPs (2 x 2 rows x 24 columns x 64 depths) and its
// 4-bit weights. In the generated code each lane's 16 quantized bytes are one 128-bit
// load (the words 16-byte aligned), so are A's floats; the nibbles become
// floats by integer and/or and a float subtraction (no conversion
// instruction); the sums meet through butterfly shuffles.
// CHECK: autoglm.placement = [{block = array<i64: 256, 1, 1>, {{.*}}flops = 6.144000e+03 : f64, grid = array<i64: 3, 1, 1>, kind = "kernel", {{.*}}operands = "q4"}]
// PTX: .visible .entry k0(
// PTX-NOT: cvt.rn.f32.s
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: or.b32
// PTX-DAG: sub.rn.f32
// PTX-DAG: fma.rn.f32
// PTX-NOT: cvt.rn.f32.s
// PTX-COUNT-10: shfl.sync.bfly.b32

// The same product with 16-bit weights (an fp16 or bf16 build's): 128-bit
// loads of 8 weights; f16 widened by 8 conversions per load, bf16 by a
// shift and a mask per pair (no conversion); FMAs.
// RUN: autoglm-opt %s --autoglm-weight-products-to-gpu="weights=f16" --autoglm-externalize-weights=min-bytes=0 --autoglm-stage-cuda="arch=sm_90 format=isa" | sed 's/\\0A/\n/g' | FileCheck %s --check-prefix=F16
// RUN: autoglm-opt %s --autoglm-weight-products-to-gpu="weights=bf16" --autoglm-externalize-weights=min-bytes=0 --autoglm-stage-cuda="arch=sm_90 format=isa" | sed 's/\\0A/\n/g' | FileCheck %s --check-prefix=BF16
// F16: .visible .entry k0(
// F16: ld.global.v4.b32
// F16-COUNT-8: cvt.f32.f16
// F16: fma.rn.f32
// BF16: .visible .entry k0(
// BF16-NOT: cvt.f32.bf16
// BF16-DAG: ld.global.v4.b32
// BF16-DAG: shl.b32
// BF16-DAG: and.b32
// BF16-DAG: fma.rn.f32
// BF16-NOT: cvt.f32.bf16

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @w : memref<64x24xf32> = dense<0.5>
func.func @decode(%x: memref<2x64xf32>, %y: memref<2x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<64x24xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<2x24xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x64xf32>, memref<64x24xf32>) outs(%y : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
