//===- GpuWork.h - what a CUDA model's host code queues ---------*- C++ -*-===//
//
// The host function of a CUDA model, once its kernels are outlined, queues
// three kinds of work on the run's stream: kernel launches, calls of
// runtime functions that queue their own GPU work (cuBLAS products), and
// host sections. The placement report lists them and --profile times them,
// in the same order.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_GPUWORK_H
#define AUTOGLM_PASSES_GPUWORK_H

#include "mlir/IR/BuiltinOps.h"

namespace autoglm {

enum class GpuWork { Kernel, Library, Host };

/// Visits each `gpu.launch_func`, each call of a function marked
/// `autoglm.device_library` and each op marked as a host section (not
/// what is inside it) of `module`'s functions, in program order.
void walkGpuWork(mlir::ModuleOp module,
                 llvm::function_ref<void(mlir::Operation *, GpuWork)> visit);

} // namespace autoglm

#endif // AUTOGLM_PASSES_GPUWORK_H
