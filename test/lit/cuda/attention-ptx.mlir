// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa" | FileCheck %s
// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa" | sed 's/\\0A/\n/g' | FileCheck %s --check-prefix=PTX

// The attention kernel through the whole GPU stage: one launch of a block
// of 128 threads per 64 query rows and head, its workgroup buffers static
// shared memory aligned to 32 bytes (autoglm-align-workgroup-memory: the
// fragments' loads and stores need 256-bit aligned addresses), its fragments the tensor cores' WMMA instructions on
// shared memory (Q x Kᵀ with K loaded column-major, probabilities x V),
// warp shuffles between the two lanes of a row, barriers between the
// steps. The placement list rates it by its own FLOPs
// (2 x 2 heads x 20 x 40 x (32 + 16), halved by the causal mask) and its
// 16-bit operands.
// CHECK: autoglm.placement = [{block = array<i64: 128, 1, 1>, bytes = 1.536000e+04 : f64, flops = 7.680000e+04 : f64, grid = array<i64: 1, 2, 1>, kind = "kernel", name = "k0_attn", nodes = "attn", operands = "f16"}]
// CHECK: gpu.launch_func @k0_attn::@k0_attn
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @k0_attn {{.*}}assembly = "
// PTX: .entry k0_attn
// PTX-DAG: .shared .align 32 .b8 __wg_k0_attn_0[4096];
// PTX-DAG: .shared .align 32 .b8 __wg_k0_attn_1[9216];
// PTX-DAG: .shared .align 32 .b8 __wg_k0_attn_2[5120];
// PTX-DAG: .shared .align 32 .b8 __wg_k0_attn_3[4096];
// PTX-DAG: bar.sync
// PTX-DAG: wmma.load.a.sync.aligned.row.m16n16k16.shared.f16
// PTX-DAG: wmma.load.b.sync.aligned.col.m16n16k16.shared.f16
// PTX-DAG: wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32
// PTX-DAG: wmma.store.d.sync.aligned.row.m16n16k16.shared.f32
// PTX-DAG: wmma.load.c.sync.aligned.row.m16n16k16.shared.f32
// PTX-DAG: wmma.load.b.sync.aligned.row.m16n16k16.shared.f16
// PTX-DAG: wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: st.global.b32
func.func @main(%q: memref<1x2x20x32xf32>, %k: memref<1x1x40x32xf32>, %v: memref<1x1x40x16xf32>, %out: memref<1x2x20x16xf32>) {
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.125 : f32, causal = true}
      : memref<1x2x20x32xf32>, memref<1x1x40x32xf32>, memref<1x1x40x16xf32>, memref<1x2x20x16xf32> loc("attn")
  return
}
