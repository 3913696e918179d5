//===- InstrumentKernels.cpp - time every kernel of the plan --------------===//
//
// For `autoglm-compile --profile`: each kernel of a model's plan (a GEMM
// call, a loop nest, a copy) is bracketed by calls of the runtime's
// agl_profile_begin/agl_profile_end, which record one event per call while
// an instance profiles. The kernels' names and FLOPs go into the module's
// `autoglm.kernels` attribute, from which the artifact's kernel table is
// written.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/PlannedKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_INSTRUMENTKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kBegin = "agl_profile_begin";
constexpr StringLiteral kEnd = "agl_profile_end";

struct InstrumentKernelsPass
    : autoglm::impl::InstrumentKernelsBase<InstrumentKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<autoglm::TimedKernel> timed;
    for (const autoglm::PlannedKernel &kernel :
         autoglm::collectPlannedKernels(module))
      timed.push_back({kernel.op, kernel.name(), kernel.flops, kernel.bytes});
    autoglm::bracketKernels(module, kBegin, kEnd, timed);
  }
};

} // namespace
