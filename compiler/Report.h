//===- Report.h - what a compiled model costs in memory and compute -*- C++ -*-===//
#ifndef AUTOGLM_COMPILER_REPORT_H
#define AUTOGLM_COMPILER_REPORT_H

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace autoglm {

struct ModelReport {
  int64_t weightsBytes = 0;
  int64_t arenaBytes = 0;
  int64_t arenaLowerBound = 0;
  struct Buffer {
    int64_t bytes;
    std::string producer; // ONNX node that first writes it
  };
  std::vector<Buffer> largestBuffers;
  std::map<std::string, int64_t> flopsByFamily; // op family -> FLOPs
  /// The plan's kernels in order: the names profiles use, the keys tuning
  /// files use (see passes/PlannedKernels.h).
  struct Kernel {
    std::string name, tuningKey;
    double flops, bytes;
  };
  std::vector<Kernel> kernels;
  /// GEMM weights stored in fewer bits (autoglm.weight_only): the format
  /// (int8, int4: weight-only quantization; bf16, fp16: --precision bf16
  /// or fp16), bits (0: none), group size (int8, int4), products rewritten,
  /// bytes of the float weights they replaced and of their new form.
  struct WeightOnly {
    std::string format;
    int64_t bits = 0, groupSize = 0, products = 0;
    int64_t floatBytes = 0, quantizedBytes = 0;
    /// fp16: finite weights beyond 65504, stored as +-65504.
    int64_t saturated = 0;
  } weightOnly;
  /// The target CPU as tuning files name it (compiler/TuningFile.h).
  std::string tuningTarget;
  /// --target=cuda: what the host code launches, in order
  /// (passes/RecordGpuPlacement.cpp); empty for the CPU.
  struct Launch {
    bool library = false; // a runtime library call (cuBLAS), else a kernel
    std::string host;     // a host section: why it runs there
    std::string name, nodes;
    std::string oneThread; // why a kernel runs in one thread; "": spread
    std::string epilogue;  // what a library call computes after its product
    /// A kernel's launch extents (empty when not constant), and whether its
    /// blocks reduce rows; a library call's operand type ("f32", "f16").
    std::vector<int64_t> grid, block;
    bool rowReduction = false;
    std::string operands;
    /// A product's: why this kernel and not the other (generated GEMV or
    /// cuBLAS), with both estimates.
    std::string choice;
    /// Estimates for --explain (RecordGpuPlacement); negative: unknown.
    double flops = -1, bytes = -1;
  };
  std::vector<Launch> placement;
  /// --target=cuda: the device memory one instance allocates (the layout
  /// of runtime.h's AGL_CUDA_ALIGNMENT): the arena, the input and output
  /// buffers at their largest, the weights, cuBLASLt's workspace if a
  /// product has an epilogue. All zero for the CPU.
  struct DeviceMemory {
    int64_t arena = 0, inputs = 0, outputs = 0, weights = 0, workspace = 0;
    int64_t total() const {
      return arena + inputs + outputs + weights + workspace;
    }
  } deviceMemory;
};

/// Weights and FLOPs per op family, from the graph as imported.
void measureGraph(mlir::ModuleOp graph, ModelReport &report);
/// Arena size, lower bound, largest buffers and kernels, from the planned
/// module.
void measureArena(mlir::ModuleOp planned, ModelReport &report);

/// The GPU placement a CUDA build recorded, from the LLVM-stage module.
void measurePlacement(mlir::ModuleOp lowered, ModelReport &report);

std::string formatReportText(const ModelReport &report);
std::string formatReportJson(const ModelReport &report);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_REPORT_H
