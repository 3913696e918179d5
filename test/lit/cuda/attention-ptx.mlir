// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa" | FileCheck %s
// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa" | sed 's/\\0A/\n/g' | FileCheck %s --check-prefix=PTX

// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa attention-operands=bf16" | sed 's/\\0A/\n/g' | FileCheck %s --check-prefix=BF16

// The attention kernel through the whole GPU stage: one launch of a block
// of 128 threads per 64 query rows and head, its workgroup buffers (the
// staged keys and values) static shared memory aligned to 16 bytes
// (autoglm-align-workgroup-memory), its products the tensor cores'
// mma.sync m16n8k16 (Q x Kᵀ, 8 of them here, then probabilities x V, 4),
// their B fragments read by ldmatrix (the values' transposed), shuffles
// among a row's 4 lanes, barriers around the staging. The placement list
// rates it by its own FLOPs (2 x 2 heads x 20 x 40 x (32 + 16), halved by
// the causal mask) and its 16-bit operands.
// CHECK: autoglm.placement = [{block = array<i64: 128, 1, 1>, bytes = 1.536000e+04 : f64, flops = 7.680000e+04 : f64, grid = array<i64: 1, 2, 1>, kind = "kernel", name = "k0_attn", nodes = "attn", operands = "f16"}]
// CHECK: gpu.launch_func @k0_attn::@k0_attn
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @k0_attn {{.*}}assembly = "
// PTX: .entry k0_attn
// PTX-DAG: .shared .align 16 .b8 __wg_k0_attn_0[2560];
// PTX-DAG: .shared .align 16 .b8 __wg_k0_attn_1[1536];
// PTX-DAG: bar.sync
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: st.shared.v2.b32
// PTX-DAG: cvt.rn.f16x2.f32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: st.global.b32
// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa" | sed 's/\\0A/\n/g' | grep -c "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" | FileCheck %s --check-prefix=PRODUCTS
// PRODUCTS: 12

// In a bf16 build: the same products in bf16.
// BF16: autoglm.placement = [{{.*}}operands = "bf16"}]
// BF16: .entry k0_attn
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa attention-operands=bf16" | sed 's/\\0A/\n/g' | grep -c "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" | FileCheck %s --check-prefix=PRODUCTS
func.func @main(%q: memref<1x2x20x32xf32>, %k: memref<1x1x40x32xf32>, %v: memref<1x1x40x16xf32>, %out: memref<1x2x20x16xf32>) {
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.125 : f32, causal = true}
      : memref<1x2x20x32xf32>, memref<1x1x40x32xf32>, memref<1x1x40x16xf32>, memref<1x2x20x16xf32> loc("attn")
  return
}
