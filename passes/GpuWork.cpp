//===- GpuWork.cpp - what a CUDA model's host code queues -----------------===//

#include "passes/GpuWork.h"
#include "passes/KernelCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

void autoglm::walkGpuWork(
    ModuleOp module, llvm::function_ref<void(Operation *, GpuWork)> visit) {
  for (auto func : module.getOps<func::FuncOp>())
    func.walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      if (op->hasAttr(kHostSectionAttrName)) {
        visit(op, GpuWork::Host);
        return WalkResult::skip();
      }
      if (isa<gpu::LaunchFuncOp>(op)) {
        visit(op, GpuWork::Kernel);
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (callee && callee->hasAttr(kDeviceLibraryAttrName))
          visit(op, GpuWork::Library);
      }
      return WalkResult::advance();
    });
}
