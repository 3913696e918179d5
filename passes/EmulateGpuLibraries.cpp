//===- EmulateGpuLibraries.cpp - the CUDA library calls, on the host ------===//
//
// --target=cuda-emulated compiles the CUDA target's code for the CPU. Its
// host code calls the runtime's CUDA library functions (cuBLAS and
// cuBLASLt products, marked autoglm.device_library), which need a GPU;
// the runtime has host versions of them with the same arguments
// (runtime/src/cuda/emulated_blas.c): agl_emulated_X for agl_cuda_X.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace autoglm {
#define GEN_PASS_DEF_EMULATEGPULIBRARIES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

struct EmulateGpuLibrariesPass
    : autoglm::impl::EmulateGpuLibrariesBase<EmulateGpuLibrariesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto callee :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      StringRef name = callee.getSymName();
      if (!callee->hasAttr(autoglm::kDeviceLibraryAttrName))
        continue;
      if (!name.starts_with("agl_cuda_")) {
        callee.emitError("no host version of the GPU library function '")
            << name << "'";
        return signalPassFailure();
      }
      std::string emulated =
          ("agl_emulated_" + name.drop_front(StringRef("agl_cuda_").size()))
              .str();
      if (failed(symbols.rename(callee, emulated)))
        return signalPassFailure();
      callee->removeAttr(autoglm::kDeviceLibraryAttrName);
    }
  }
};

} // namespace
