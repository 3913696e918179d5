//===- CudaPipeline.h - the GPU stage of --target=cuda ----------*- C++ -*-===//
//
// For --target=cuda the planned model (memref stage) becomes host code that
// launches generated kernels, with the kernels compiled by the CUDA
// toolkit and embedded in the object as a fatbin. Pipeline.cpp calls this
// in place of the CPU's LLVM stage.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_CUDAPIPELINE_H
#define AUTOGLM_COMPILER_CUDAPIPELINE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace autoglm {

struct CudaOptions {
  /// The GPU architecture the cubin is built for ("sm_90").
  std::string arch = "sm_90";
  /// The CUDA toolkit whose ptxas and fatbinary build the binary.
  std::string toolkit = "/usr/local/cuda";
  /// What is embedded: "fatbin" (cubin for `arch` plus PTX), "bin" (cubin)
  /// or "isa" (PTX text, which needs no toolkit).
  std::string format = "fatbin";
  /// The 16-bit type the attention kernel's products take (f16, bf16).
  std::string attentionOperands = "f16";
  /// Threads per block along a kernel's innermost loop.
  int64_t blockSize = 128;
  /// Op families that run on the host (--device-hint FAMILY=host):
  /// matmul, reduction, elementwise, all.
  std::vector<std::string> hostFamilies;
  /// --profile: each launch, library call and host section timed with
  /// CUDA events (autoglm-profile-gpu-launches).
  bool profile = false;
};

/// The architectures --gpu-arch accepts.
llvm::ArrayRef<llvm::StringRef> supportedGpuArchs();

/// The toolkit to use: $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda.
std::string defaultCudaToolkit();

/// Takes a module from the memref stage (compiled without the runtime's
/// CPU kernels, every constant in the weights argument) to the LLVM
/// dialect: loop nests become kernels in gpu.binary ops, the entry
/// function launches them.
void buildCudaStagePipeline(mlir::OpPassManager &pm, const CudaOptions &options);

/// The first steps of the CUDA stage: the loop nests as parallel loops
/// mapped to blocks and threads (and the host sections of
/// `options.hostFamilies`). Also the start of the CPU's LLVM stage for
/// --target=cuda-emulated, which then runs each block's threads in
/// sequence.
void buildGpuMappingPipeline(mlir::OpPassManager &pm,
                             const CudaOptions &options);

/// The GPU and NVVM dialects, the NVVM target and the translations of
/// gpu.binary and gpu.launch_func to LLVM IR.
void registerCudaDialects(mlir::DialectRegistry &registry);

/// `autoglm-stage-cuda{arch=sm_90 format=isa}` for autoglm-opt.
void registerCudaPipeline();

} // namespace autoglm

#endif // AUTOGLM_COMPILER_CUDAPIPELINE_H
