// RUN: autoglm-opt %s --split-input-file --autoglm-record-gpu-placement | FileCheck %s

// In program order: each kernel launch with its ONNX nodes, and why a
// kernel whose work autoglm-map-loops-to-gpu put in one thread runs so;
// each call of a device library function (a cuBLAS product), with the
// epilogue it computes if any; each host section with its reason (and none
// of the calls in it). Other calls, and kernels never launched, are not
// listed.
// (Kernels passed no buffer move no bytes; launch extents known only at
// run time give no grid, block or FLOPs.)
// CHECK: module attributes {autoglm.placement = [
// CHECK-SAME: {bytes = 0.000000e+00 : f64, kind = "kernel", name = "k0_fc1_Exp", nodes = "fc1/Exp"},
// CHECK-SAME: {kind = "library", name = "agl_cuda_sgemm", nodes = "fc2/MatMul"},
// CHECK-SAME: {epilogue = "bias+relu", kind = "library", name = "agl_cuda_gemm_epilogue", nodes = "fc3/MatMul+fc3/Add"},
// CHECK-SAME: {bytes = 0.000000e+00 : f64, kind = "kernel", name = "k1_total", nodes = "total+sum", one_thread = "a loop nest with no parallel dimension"},
// CHECK-SAME: {host = "--device-hint reduction=host", kind = "host", name = "host", nodes = "norm/ReduceMean"},
// CHECK-SAME: {bytes = 0.000000e+00 : f64, kind = "kernel", name = "k0_fc1_Exp", nodes = "again"}]
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

// -----

// What --explain rates each launch by. A row kernel: grid and block from
// the launch's constants (affine.apply folded), 8 rows of 256 elements
// whose 64 threads stride through the row from their own index (counted
// from 0: 4 iterations of a multiply and an add each), one division per
// thread after the block-wide sum (row_reduction), an if counted by its
// longer branch; bytes: its two buffers once each (the row buffer passed
// twice counts once). FLOPs: (4 * 2 + 1 + 1) * 64 threads * 8 blocks. A
// library call keeps the FLOPs, bytes and operand type it was given.
// CHECK: module attributes {autoglm.placement = [
// CHECK-SAME: {block = array<i64: 64, 1, 1>, bytes = 8.224000e+03 : f64, flops = 5.120000e+03 : f64, grid = array<i64: 8, 1, 1>, kind = "kernel", name = "k0_norm", nodes = "norm", row_reduction},
// CHECK-SAME: {bytes = 6.144000e+03 : f64, flops = 8.192000e+03 : f64, kind = "library", name = "agl_cuda_gemm_half", nodes = "mm", operands = "f16"}]
#thread = affine_map<(d0)[s0, s1] -> (d0 * s1 + s0)>
module attributes {gpu.container_module} {
  func.func private @agl_cuda_gemm_half(memref<4xf32>) attributes {autoglm.device_library}
  func.func @main(%rows: memref<8x256xf32>, %out: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %blocks = affine.apply #thread(%c8)[%c0, %c1]
    %threads = affine.apply #thread(%c64)[%c0, %c1]
    gpu.launch_func @k0_norm::@k0_norm blocks in (%blocks, %c1, %c1) threads in (%threads, %c1, %c1) args(%rows : memref<8x256xf32>, %rows : memref<8x256xf32>, %out : memref<8xf32>, %c256 : index, %c64 : index) loc("norm")
    %view = memref.alloc() : memref<4xf32>
    call @agl_cuda_gemm_half(%view) {autoglm.bytes = 6.144000e+03 : f64, autoglm.flops = 8.192000e+03 : f64, autoglm.operand_type = "f16"} : (memref<4xf32>) -> () loc("mm")
    return
  }
  gpu.module @k0_norm {
    gpu.func @k0_norm(%rows: memref<8x256xf32>, %same: memref<8x256xf32>, %out: memref<8xf32>, %n: index, %step: index) kernel {
      %row = gpu.block_id x
      %tid = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      %sum = scf.for %i = %tid to %n step %step iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %rows[%row, %i] : memref<8x256xf32>
        %sq = arith.mulf %x, %x : f32
        %next = arith.addf %acc, %sq : f32
        scf.yield %next : f32
      }
      %total = gpu.all_reduce add %sum uniform {} : (f32) -> f32
      %mean = arith.divf %total, %total : f32
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %scaled = arith.mulf %mean, %mean : f32
        memref.store %scaled, %out[%row] : memref<8xf32>
      }
      gpu.return
    }
  }
}
