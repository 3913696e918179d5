//===- ProfileGpuLaunches.cpp - time the GPU work of a CUDA model ---------===//
//
// `autoglm-compile --target=cuda --profile`: each kernel launch, library
// call and host section of the host code is bracketed by calls of the
// runtime's agl_cuda_profile_begin/_end, which record a pair of CUDA
// events on the run's stream while an instance profiles. The kernels'
// names (what runs, then its ONNX nodes) and the FLOPs and bytes that
// autoglm-record-gpu-placement estimated go into the module's
// `autoglm.kernels` attribute, from which the artifact's kernel table is
// written, as the CPU's autoglm-instrument-kernels does.
//
//===----------------------------------------------------------------------===//

#include "dialects/NodeNames.h"
#include "passes/GpuWork.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_PROFILEGPULAUNCHES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kBegin = "agl_cuda_profile_begin";
constexpr StringLiteral kEnd = "agl_cuda_profile_end";

/// What runs: the kernel, the library function, or "host".
std::string workName(Operation *op, autoglm::GpuWork work) {
  switch (work) {
  case autoglm::GpuWork::Kernel:
    return cast<gpu::LaunchFuncOp>(op).getKernelName().str();
  case autoglm::GpuWork::Library:
    return cast<func::CallOp>(op).getCallee().str();
  case autoglm::GpuWork::Host:
    return "host";
  }
  llvm_unreachable("unknown GPU work");
}

struct ProfileGpuLaunchesPass
    : autoglm::impl::ProfileGpuLaunchesBase<ProfileGpuLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The estimates autoglm-record-gpu-placement made, launch by launch in
    // the same order.
    auto placement = module->getAttrOfType<ArrayAttr>("autoglm.placement");
    auto estimate = [&](size_t index, StringRef field) {
      auto entry = placement && index < placement.size()
                       ? dyn_cast<DictionaryAttr>(placement[index])
                       : DictionaryAttr();
      auto value = entry ? entry.getAs<FloatAttr>(field) : FloatAttr();
      return value ? value.getValueAsDouble() : 0.0;
    };
    SmallVector<autoglm::TimedKernel> timed;
    autoglm::walkGpuWork(module, [&](Operation *op, autoglm::GpuWork kind) {
      std::string nodes = autoglm::onnxNodeLabel(op->getLoc());
      std::string name = workName(op, kind);
      size_t index = timed.size();
      timed.push_back({op, nodes.empty() ? name : name + " " + nodes,
                       estimate(index, "flops"), estimate(index, "bytes")});
    });
    autoglm::bracketKernels(module, kBegin, kEnd, timed);
  }
};

} // namespace
