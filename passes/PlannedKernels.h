//===- PlannedKernels.h - the kernels of a compiled plan --------*- C++ -*-===//
//
// After the memref stage a model's function is a sequence of kernels: calls
// of the runtime's GEMM, loop nests (linalg ops), copies, and loops around
// kernel calls. Profiling instruments them and --explain describes them;
// both see the same list, with the same names and costs.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_PLANNEDKERNELS_H
#define AUTOGLM_PASSES_PLANNEDKERNELS_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace autoglm {

struct PlannedKernel {
  mlir::Operation *op;
  /// What runs: the runtime kernel called ("sgemm_packed"), "loop" for a
  /// generic, else the op ("fill", "copy", ...).
  std::string kind;
  /// The ONNX nodes the kernel came from, joined with '+'.
  std::string nodes;
  /// Per call: 2*m*n*k for a GEMM, trip count times the float ops of the
  /// body for a loop (an fma counts two); 0 where an extent is not static.
  double flops = 0;
  /// The sizes of its operands (a GEMM's three matrices).
  double bytes = 0;
  /// The key a tuning file names it by (Tuning.h), "" for a kernel without
  /// knobs (a copy).
  std::string tuningKey;

  /// `kind`, then the nodes.
  std::string name() const { return nodes.empty() ? kind : kind + " " + nodes; }
};

/// The kernels at the top level of every function body, in order.
std::vector<PlannedKernel> collectPlannedKernels(mlir::ModuleOp module);

/// The runtime kernel `op` calls (agl_kernel_<name>), or "".
llvm::StringRef runtimeKernelCalled(mlir::Operation *op);

} // namespace autoglm

#endif // AUTOGLM_PASSES_PLANNEDKERNELS_H
