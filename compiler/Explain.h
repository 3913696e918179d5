//===- Explain.h - what the compiled plan runs, kernel by kernel -*- C++ -*-===//
//
// `autoglm-compile --explain`: for each kernel of the plan (a fused group
// after the memref stage), the ONNX nodes it came from, how it runs (the
// GEMM kernel and its blocking, or the vector width of a loop nest), its
// threads, FLOPs and bytes, and a roofline estimate of its time on the
// target machine.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_EXPLAIN_H
#define AUTOGLM_COMPILER_EXPLAIN_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace autoglm {

/// The machine the estimates are for.
struct MachineModel {
  double peakGflopsPerThread = 0; // FP32 FMA peak of one core
  /// uint8 x int8 peak of one core in GOP/s, for the int8 GEMMs (0:
  /// unknown, they are estimated at the FP32 peak).
  double int8PeakGopsPerThread = 0;
  double bandwidthGBs = 0;        // read bandwidth from memory
  int threads = 1;                // threads of the runtime's pool
  bool loopsOnPool = true;        // large loop nests split across the pool
  /// The runtime GEMM on this machine: micro-kernel ISA and tile, blocking.
  std::string gemmIsa;
  int mr = 0, nr = 0, kc = 0, nc = 0, mc = 0;
  int64_t l2Bytes = 0; // the L2 the system reports (0: unknown)
};

/// The plan of `module` (after the memref stage) as a table.
std::string explainPlan(mlir::ModuleOp module, const MachineModel &machine);

/// Whether the plan has uint8 x int8 GEMMs, which explainPlan rates against
/// the int8 peak (so that the peak is measured only where it is used).
bool planHasInt8Gemms(mlir::ModuleOp module);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_EXPLAIN_H
