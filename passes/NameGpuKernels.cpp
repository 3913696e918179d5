//===- NameGpuKernels.cpp - GPU kernels named after their ONNX nodes ------===//
//
// Outlining names every kernel after the function it came from
// (main_kernel, main_kernel_0, ...). Profilers and cuobjdump show these
// names, so each kernel gets its launch's position and the ONNX node it
// computes instead: k3_fc1_MatMul.
//
//===----------------------------------------------------------------------===//

#include "dialects/NodeNames.h"
#include "passes/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace autoglm {
#define GEN_PASS_DEF_NAMEGPUKERNELS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// `k<index>`, then `_<first ONNX node>` in identifier characters.
std::string kernelName(unsigned index, Location loc) {
  std::string name = llvm::formatv("k{0}", index).str();
  SmallVector<StringRef> nodes = autoglm::onnxNodeNames(loc);
  if (nodes.empty())
    return name;
  name += '_';
  for (char c : nodes.front().take_front(64))
    name += llvm::isAlnum(c) ? c : '_';
  return name;
}

struct NameGpuKernelsPass
    : autoglm::impl::NameGpuKernelsBase<NameGpuKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    // Renamed modules, by their old name, and their new name.
    llvm::StringMap<std::string> renamed;
    llvm::DenseSet<StringRef> taken;
    for (gpu::GPUModuleOp gpuModule : module.getOps<gpu::GPUModuleOp>())
      taken.insert(gpuModule.getSymName());
    unsigned index = 0;
    for (gpu::LaunchFuncOp launch : launches) {
      std::string oldModule = launch.getKernelModuleName().str();
      // A module an earlier launch renamed is found under its new name.
      auto it = renamed.find(oldModule);
      if (it == renamed.end()) {
        auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(oldModule);
        auto kernel = gpuModule ? gpuModule.lookupSymbol<gpu::GPUFuncOp>(
                                      launch.getKernelName())
                                : nullptr;
        if (!kernel)
          continue;
        std::string name = kernelName(index++, launch.getLoc());
        // Outlined modules are main_kernel*, never k<N>...: no clash.
        if (taken.contains(name))
          continue;
        gpuModule.setSymName(name);
        kernel.setName(name);
        it = renamed.try_emplace(oldModule, name).first;
      }
      launch.setKernelAttr(SymbolRefAttr::get(
          context, it->second,
          {FlatSymbolRefAttr::get(context, it->second)}));
    }
  }
};

} // namespace
