// RUN: autoglm-opt %s --autoglm-profile-gpu-launches | FileCheck %s

// --profile for --target=cuda: each kernel launch, device library call
// (also one in a batch loop: a bracket per call) and host section (not the
// calls in it) between agl_cuda_profile_begin and agl_cuda_profile_end
// with its index in the kernel table, and in it the FLOPs and bytes the
// placement entry at its position estimates (0 where it has none); other
// calls are not timed.
// CHECK: module attributes {autoglm.kernels = [
// CHECK-SAME: {bytes = 8.192000e+03 : f64, flops = 1.024000e+03 : f64, name = "k0_fc1_Exp fc1/Exp"},
// CHECK-SAME: {bytes = 6.144000e+03 : f64, flops = 2.048000e+03 : f64, name = "agl_cuda_sgemm fc2/MatMul"},
// CHECK-SAME: {bytes = 0.000000e+00 : f64, flops = 0.000000e+00 : f64, name = "host norm/ReduceMean"},
// CHECK-SAME: {bytes = 0.000000e+00 : f64, flops = 0.000000e+00 : f64, name = "k0_fc1_Exp"}]
// CHECK-LABEL: func.func @main
// CHECK: %[[T0:.*]] = call @agl_cuda_profile_begin() : () -> i64
// CHECK-NEXT: gpu.launch_func @k0_fc1_Exp::@k0_fc1_Exp
// CHECK-NEXT: %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @agl_cuda_profile_end(%[[K0]], %[[T0]]) : (i32, i64) -> ()
// CHECK: scf.for
// CHECK-NEXT: %[[T1:.*]] = func.call @agl_cuda_profile_begin()
// CHECK-NEXT: func.call @agl_cuda_sgemm
// CHECK-NEXT: %[[K1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: func.call @agl_cuda_profile_end(%[[K1]], %[[T1]])
// CHECK: call @host_helper
// CHECK-NEXT: %[[T2:.*]] = call @agl_cuda_profile_begin()
// CHECK-NEXT: scf.execute_region
// CHECK-NOT: agl_cuda_profile
// CHECK: autoglm.host
// CHECK-NEXT: %[[K2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @agl_cuda_profile_end(%[[K2]], %[[T2]])
// CHECK: %[[K3:.*]] = arith.constant 3 : i32
// CHECK: func.func private @agl_cuda_profile_begin() -> i64
// CHECK: func.func private @agl_cuda_profile_end(i32, i64)
module attributes {gpu.container_module, autoglm.placement = [
    {bytes = 8192.0 : f64, flops = 1024.0 : f64, kind = "kernel", name = "k0_fc1_Exp", nodes = "fc1/Exp"},
    {bytes = 6144.0 : f64, flops = 2048.0 : f64, kind = "library", name = "agl_cuda_sgemm", nodes = "fc2/MatMul"},
    {host = "--device-hint reduction=host", kind = "host", name = "host", nodes = "norm/ReduceMean"},
    {kind = "kernel", name = "k0_fc1_Exp", nodes = ""}]} {
  func.func private @agl_cuda_sgemm(memref<4xf32>) attributes {autoglm.device_library}
  func.func private @host_helper(memref<4xf32>)
  func.func @main(%n: index, %buffer: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @k0_fc1_Exp::@k0_fc1_Exp blocks in (%n, %n, %n) threads in (%n, %n, %n) loc("fc1/Exp")
    scf.for %i = %c0 to %n step %c1 {
      func.call @agl_cuda_sgemm(%buffer) : (memref<4xf32>) -> () loc("fc2/MatMul")
    }
    call @host_helper(%buffer) : (memref<4xf32>) -> () loc("helper")
    scf.execute_region {
      func.call @agl_cuda_sgemm(%buffer) : (memref<4xf32>) -> () loc("inside")
      scf.yield
    } {autoglm.host = "--device-hint reduction=host"} loc("norm/ReduceMean")
    gpu.launch_func @k0_fc1_Exp::@k0_fc1_Exp blocks in (%n, %n, %n) threads in (%n, %n, %n)
    return
  }
  gpu.module @k0_fc1_Exp {
    gpu.func @k0_fc1_Exp() kernel {
      gpu.return
    }
  }
}
