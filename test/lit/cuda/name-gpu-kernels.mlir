// RUN: autoglm-opt %s --autoglm-name-gpu-kernels | FileCheck %s

// Outlined kernels take their launch's position and first ONNX node (in
// identifier characters); a launch of an already renamed module reuses its
// name, and a launch without a node name is just k<N>.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func @k0_fc1_MatMul::@k0_fc1_MatMul
// CHECK: gpu.launch_func @k1::@k1
// CHECK: gpu.launch_func @k0_fc1_MatMul::@k0_fc1_MatMul
// CHECK: gpu.module @k0_fc1_MatMul
// CHECK: gpu.func @k0_fc1_MatMul
// CHECK: gpu.module @k1
// CHECK: gpu.func @k1
module attributes {gpu.container_module} {
  func.func @main(%n: index) {
    gpu.launch_func @main_kernel::@main_kernel blocks in (%n, %n, %n) threads in (%n, %n, %n) loc(fused["fc1/MatMul", "fc1/Add"])
    gpu.launch_func @main_kernel_0::@main_kernel blocks in (%n, %n, %n) threads in (%n, %n, %n)
    gpu.launch_func @main_kernel::@main_kernel blocks in (%n, %n, %n) threads in (%n, %n, %n) loc("again")
    return
  }
  gpu.module @main_kernel {
    gpu.func @main_kernel() kernel {
      gpu.return
    }
  }
  gpu.module @main_kernel_0 {
    gpu.func @main_kernel() kernel {
      gpu.return
    }
  }
}
