// RUN: autoglm-opt %s --split-input-file --autoglm-emulate-gpu-libraries --verify-diagnostics | FileCheck %s

// The calls of the runtime's CUDA library functions go to their host
// versions; other functions stay as they are.
// CHECK-LABEL: func.func @main
// CHECK: call @agl_emulated_sgemm(%arg0)
// CHECK: call @agl_kernel_other(%arg0)
// CHECK: func.func private @agl_emulated_sgemm(!llvm.ptr){{$}}
// CHECK: func.func private @agl_kernel_other(!llvm.ptr){{$}}
func.func @main(%p: !llvm.ptr) {
  call @agl_cuda_sgemm(%p) : (!llvm.ptr) -> ()
  call @agl_kernel_other(%p) : (!llvm.ptr) -> ()
  return
}
func.func private @agl_cuda_sgemm(!llvm.ptr) attributes {autoglm.device_library}
func.func private @agl_kernel_other(!llvm.ptr)

// -----

// expected-error @+1 {{no host version of the GPU library function 'vendor_gemm'}}
func.func private @vendor_gemm(!llvm.ptr) attributes {autoglm.device_library}
