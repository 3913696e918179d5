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
#include "passes/GpuMachine.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace autoglm {

/// The placement of `report` as a table.
std::string explainGpuPlan(const ModelReport &report,
                           const GpuMachineModel &machine);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_EXPLAINGPU_H
