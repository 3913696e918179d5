//===- GpuMachine.h - the peaks of the GPUs the CUDA target supports -*- C++
//-*-===//
//
// The published dense peaks of a reference GPU per architecture: what
// `--explain` rates launches by, and what the passes that choose between a
// generated kernel and a cuBLAS call for a product compare them by.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_GPUMACHINE_H
#define AUTOGLM_PASSES_GPUMACHINE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace autoglm {

struct GpuMachineModel {
  std::string name;        // the GPU they are of
  double fp32Gflops = 0;   // FP32 on the CUDA cores
  double tensorGflops = 0; // 16-bit operands, float32 sums (tensor cores)
  double bandwidthGBs = 0; // device memory
  double int8Gops = 0;     // int8 operands, int32 sums (tensor cores)
};

/// sm_80 an A100 SXM 80 GB, sm_89 an L40S, sm_90 (and anything else) an
/// H100 SXM.
inline GpuMachineModel referenceGpu(llvm::StringRef arch) {
  if (arch == "sm_80")
    return {"A100 SXM 80 GB (sm_80)", 19.5e3, 312e3, 2039, 624e3};
  if (arch == "sm_89")
    return {"L40S (sm_89)", 91.6e3, 362e3, 864, 733e3};
  return {"H100 SXM (sm_90)", 67e3, 989e3, 3350, 1979e3};
}

} // namespace autoglm

#endif // AUTOGLM_PASSES_GPUMACHINE_H
