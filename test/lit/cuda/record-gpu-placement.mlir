// RUN: autoglm-opt %s --autoglm-record-gpu-placement | FileCheck %s

// In program order: each kernel launch with its ONNX nodes, and why a
// kernel whose work autoglm-map-loops-to-gpu put in one thread runs so;
// each call of a device library function (a cuBLAS product), with the
// epilogue it computes if any; each host section with its reason (and none
// of the calls in it). Other calls, and kernels never launched, are not
// listed.
// CHECK: module attributes {autoglm.placement = [
// CHECK-SAME: {kind = "kernel", name = "k0_fc1_Exp", nodes = "fc1/Exp"},
// CHECK-SAME: {kind = "library", name = "agl_cuda_sgemm", nodes = "fc2/MatMul"},
// CHECK-SAME: {epilogue = "bias+relu", kind = "library", name = "agl_cuda_gemm_epilogue", nodes = "fc3/MatMul+fc3/Add"},
// CHECK-SAME: {kind = "kernel", name = "k1_total", nodes = "total+sum", one_thread = "a loop nest with no parallel dimension"},
// CHECK-SAME: {host = "--device-hint reduction=host", kind = "host", name = "host", nodes = "norm/ReduceMean"},
// CHECK-SAME: {kind = "kernel", name = "k0_fc1_Exp", nodes = "again"}]
module attributes {gpu.container_module} {
  func.func private @agl_cuda_sgemm(memref<4xf32>) attributes {autoglm.device_library}
  func.func private @agl_cuda_gemm_epilogue(memref<4xf32>) attributes {autoglm.device_library}
  func.func private @host_helper(memref<4xf32>)
  func.func @main(%n: index, %buffer: memref<4xf32>) {
    gpu.launch_func @k0_fc1_Exp::@k0_fc1_Exp blocks in (%n, %n, %n) threads in (%n, %n, %n) loc("fc1/Exp")
    call @agl_cuda_sgemm(%buffer) : (memref<4xf32>) -> () loc("fc2/MatMul")
    call @agl_cuda_gemm_epilogue(%buffer) {autoglm.epilogue = "bias+relu"} : (memref<4xf32>) -> () loc(fused["fc3/MatMul", "fc3/Add"])
    call @host_helper(%buffer) : (memref<4xf32>) -> () loc("helper")
    gpu.launch_func @k1_total::@k1_total blocks in (%n, %n, %n) threads in (%n, %n, %n) loc(fused["total", "sum"])
    scf.execute_region {
      func.call @agl_cuda_sgemm(%buffer) : (memref<4xf32>) -> () loc("inside")
      scf.yield
    } {autoglm.host = "--device-hint reduction=host"} loc("norm/ReduceMean")
    gpu.launch_func @k0_fc1_Exp::@k0_fc1_Exp blocks in (%n, %n, %n) threads in (%n, %n, %n) loc("again")
    return
  }
  gpu.module @k0_fc1_Exp {
    gpu.func @k0_fc1_Exp() kernel {
      gpu.return
    }
  }
  gpu.module @k1_total {
    gpu.func @k1_total() kernel {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c4 step %c1 {
      } {autoglm.one_thread = "a loop nest with no parallel dimension"}
      gpu.return
    }
  }
  gpu.module @unused {
    gpu.func @unused() kernel {
      gpu.return
    }
  }
}
