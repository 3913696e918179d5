// RUN: autoglm-opt %s --autoglm-stage-cuda="arch=sm_80 format=isa" | FileCheck %s

// The GPU stage on a planned function (the memref stage's output): each
// loop nest becomes a kernel in its own gpu.binary, compiled for the
// architecture (PTX here, which needs no toolkit; autoglm-compile embeds a
// fatbin), and the entry function, still taking bare pointers, launches
// them in order. Kernels are named after their launch and ONNX node (the
// op's name location). The fill of the scalar and the full reduction that
// follows it (its accumulator loaded, carried in a register, stored) run
// in one one-thread kernel; the output extents are written by host code.

// The placement report's list: the launches in order, and why the fill
// and the reduction run in one thread; with what --explain rates them by:
// the exp of 1024 elements in 2x4 blocks of 128 threads reads and writes
// 4 KiB each; the sum adds 1024 elements (4 KiB) into one.
// CHECK: module attributes {autoglm.placement = [{block = array<i64: 128, 1, 1>, bytes = 8.192000e+03 : f64, flops = 1.024000e+03 : f64, grid = array<i64: 2, 4, 1>, kind = "kernel", name = "k0_fc1_Exp", nodes = "fc1/Exp"},
// CHECK-SAME: {block = array<i64: 1, 1, 1>, bytes = 4.100000e+03 : f64, flops = 1.024000e+03 : f64, grid = array<i64: 1, 1, 1>, kind = "kernel", name = "k1_total", nodes = "total+sum", one_thread = "4 ops outside any parallel loop"}], gpu.container_module
// CHECK: llvm.func @main(%[[X:.*]]: !llvm.ptr, %[[Y:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[DIMS:.*]]: !llvm.ptr {autoglm.output_dims})
// Kernels take memref descriptors (allocated and aligned pointer, offset,
// sizes, strides), built from the bare pointers of the entry function.
// CHECK: gpu.launch_func @k0_fc1_Exp::@k0_fc1_Exp blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64 args(
// CHECK-SAME: %[[X]] : !llvm.ptr, %[[X]] : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %[[Y]] : !llvm.ptr, %[[Y]] : !llvm.ptr,
// CHECK: gpu.launch_func @k1_total::@k1_total blocks in
// CHECK: llvm.store %{{.*}}, %[[DIMS]] : i64, !llvm.ptr
// CHECK: llvm.return
// CHECK: gpu.binary @k0_fc1_Exp [#gpu.object<#nvvm.target<O = 3, chip = "sm_80">, properties = {{.*}}".nv_fatbin"{{.*}}, assembly = "{{.*}}.target sm_80
// CHECK-SAME: .entry k0_fc1_Exp
// CHECK: gpu.binary @k1_total
// CHECK-NOT: gpu.binary
func.func @main(%x: memref<4x256xf32>, %y: memref<4x256xf32>, %total: memref<f32>, %dims: memref<2xi64> {autoglm.output_dims}) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x256xf32>) outs(%y : memref<4x256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } loc("fc1/Exp")
  linalg.fill ins(%zero : f32) outs(%total : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%y : memref<4x256xf32>) outs(%total : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } loc(fused["total", "sum"])
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i64
  %c256 = arith.constant 256 : i64
  memref.store %c4, %dims[%c0] : memref<2xi64>
  memref.store %c256, %dims[%c1] : memref<2xi64>
  return
}
