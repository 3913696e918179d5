//===- ExplainGpu.h - what a CUDA model launches, one by one ---*- C++ -*-===//
//
// `autoglm-compile --target=cuda --explain`: for each kernel launch and
// library call of the plan (the report's placement, in program order), how
// it runs (grid and block; a block per row, one thread; a cuBLAS or
// cuBLASLt product and its operand type), its FLOPs and bytes, and a
// roofline estimate of its time on the GPU the model is compiled for.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_EXPLAINGPU_H
#define AUTOGLM_COMPILER_EXPLAINGPU_H

#include "compiler/Report.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace autoglm {

/// The peaks the estimates are for.
struct GpuMachineModel {
  std::string name;        // the GPU they are of
  double fp32Gflops = 0;   // FP32 on the CUDA cores
  double tensorGflops = 0; // 16-bit operands, float32 sums (tensor cores)
  double bandwidthGBs = 0; // device memory
};

/// The published peaks (dense) of a reference GPU of `arch`: sm_80 an
/// A100 SXM 80 GB, sm_89 an L40S, sm_90 an H100 SXM.
GpuMachineModel referenceGpu(llvm::StringRef arch);

/// The placement of `report` as a table.
std::string explainGpuPlan(const ModelReport &report,
                           const GpuMachineModel &machine);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_EXPLAINGPU_H
