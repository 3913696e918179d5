//===- RecordGpuPlacement.cpp - where each part of a CUDA model runs ------===//
//
// After the kernels are outlined and named, lists in program order what
// the host code launches: each GPU kernel (spread over blocks and threads,
// or in one thread, and why) and each runtime library call that queues its
// own GPU work (cuBLAS products, with the epilogue each computes), and
// each host section (--device-hint, autoglm-place-on-host) with its reason.
// The compile report prints the list.
//
//===----------------------------------------------------------------------===//

#include "dialects/NodeNames.h"
#include "passes/GpuWork.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace autoglm {
#define GEN_PASS_DEF_RECORDGPUPLACEMENT
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// The reason the kernel runs in one thread, or null if it is spread.
StringAttr oneThreadReason(gpu::GPUFuncOp kernel) {
  StringAttr reason;
  kernel.walk([&](Operation *op) {
    reason = op->getAttrOfType<StringAttr>(autoglm::kOneThreadAttrName);
    return reason ? WalkResult::interrupt() : WalkResult::advance();
  });
  return reason;
}

struct RecordGpuPlacementPass
    : autoglm::impl::RecordGpuPlacementBase<RecordGpuPlacementPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    SmallVector<Attribute> entries;
    auto record = [&](StringRef kind, StringRef name, Location loc,
                      StringAttr reason, StringAttr epilogue = {},
                      StringAttr host = {}) {
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("kind", b.getStringAttr(kind)),
          b.getNamedAttr("name", b.getStringAttr(name)),
          b.getNamedAttr("nodes",
                         b.getStringAttr(autoglm::onnxNodeLabel(loc)))};
      if (reason)
        fields.push_back(b.getNamedAttr("one_thread", reason));
      if (epilogue)
        fields.push_back(b.getNamedAttr("epilogue", epilogue));
      if (host)
        fields.push_back(b.getNamedAttr("host", host));
      entries.push_back(b.getDictionaryAttr(fields));
    };
    autoglm::walkGpuWork(module, [&](Operation *op, autoglm::GpuWork work) {
      switch (work) {
      case autoglm::GpuWork::Host:
        record("host", "host", op->getLoc(), StringAttr(), StringAttr(),
               op->getAttrOfType<StringAttr>(autoglm::kHostSectionAttrName));
        break;
      case autoglm::GpuWork::Kernel: {
        auto launch = cast<gpu::LaunchFuncOp>(op);
        auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
            launch, launch.getKernel());
        record("kernel", launch.getKernelName().getValue(), launch.getLoc(),
               kernel ? oneThreadReason(kernel) : StringAttr());
        break;
      }
      case autoglm::GpuWork::Library:
        record("library", cast<func::CallOp>(op).getCallee(), op->getLoc(),
               StringAttr(),
               op->getAttrOfType<StringAttr>(autoglm::kEpilogueAttrName));
        break;
      }
    });
    module->setAttr("autoglm.placement", b.getArrayAttr(entries));
  }
};

} // namespace
