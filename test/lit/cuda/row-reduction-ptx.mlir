// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_90 format=isa" | FileCheck %s

// A row sum (RMSNorm's sum of squares over rows of 512) through the whole
// GPU stage: one kernel with a block of 128 threads for each of the 16
// rows, where the first thread fills the accumulator, a barrier, each
// thread's partial sum (carried in a register) combined by warp shuffles,
// one value per warp through shared memory (32 floats) and barriers, and
// thread 0's store.
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : index) : i64
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : index) : i64
// CHECK: gpu.launch_func @k0_norm_Fill::@k0_norm_Fill blocks in (%[[C16]], %{{.*}}, %{{.*}}) threads in (%[[C128]], %{{.*}}, %{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @k0_norm_Fill {{.*}}assembly = "
// CHECK-SAME: .entry k0_norm_Fill
// CHECK-SAME: .shared .align 4 .b8 __wg_k0_norm_Fill_0[128];
// CHECK-SAME: st.global.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
func.func @main(%x: memref<16x512xf32>, %sum: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>) loc("norm/Fill")
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x512xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } loc("norm/ReduceSum")
  return
}
