//===- AlignWorkgroupMemory.cpp - shared buffers for wide loads -----------===//
//
// A kernel's workgroup buffers become shared-memory arrays aligned only to
// their element type. The attention kernel loads its fragments' 16-bit
// pairs 32 bits at a time, which a 2-byte aligned array would fault on, so
// every workgroup buffer of an outlined kernel is aligned to 16 bytes, the
// widest load (offsets inside are the kernel's own business).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace autoglm {
#define GEN_PASS_DEF_ALIGNWORKGROUPMEMORY
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr int64_t kWideLoadAlignment = 16;

struct AlignWorkgroupMemoryPass
    : autoglm::impl::AlignWorkgroupMemoryBase<AlignWorkgroupMemoryPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    StringRef align = LLVM::LLVMDialect::getAlignAttrName();
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      for (unsigned i = 0; i < kernel.getNumWorkgroupAttributions(); ++i)
        if (!kernel.getWorkgroupAttributionAttr(i, align))
          kernel.setWorkgroupAttributionAttr(
              i, align, b.getI64IntegerAttr(kWideLoadAlignment));
    });
  }
};

} // namespace
