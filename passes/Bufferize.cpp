//===- Bufferize.cpp - one-shot bufferization of a whole model ------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"

namespace autoglm {
#define GEN_PASS_DEF_BUFFERIZE
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace mlir::bufferization;

namespace {

/// linalg.copy lowers to loops; memref.copy of a strided view would need a
/// runtime library function.
LogicalResult copyWithLinalg(OpBuilder &b, Location loc, Value from, Value to) {
  linalg::CopyOp::create(b, loc, from, to);
  return success();
}

struct BufferizePass : autoglm::impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        LayoutMapOption::IdentityLayoutMap);
    options.bufferAlignment = 64;
    options.memCpyFn = copyWithLinalg;
    BufferizationState state;
    if (failed(runOneShotModuleBufferize(getOperation(), options, state)))
      return signalPassFailure();

    // Results become caller-provided output buffers; a result computed in
    // its own buffer is computed straight into the caller's instead. That
    // replacement assumes each buffer is returned once (it erases the
    // allocation), so a buffer returned again is copied first.
    getOperation().walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 4> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        if (!type || seen.insert(operand.get()).second)
          continue;
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            sizes.push_back(
                memref::DimOp::create(b, ret.getLoc(), operand.get(), d));
        Value copy = memref::AllocOp::create(b, ret.getLoc(), type, sizes,
                                             b.getI64IntegerAttr(64));
        linalg::CopyOp::create(b, ret.getLoc(), operand.get(), copy);
        operand.set(copy);
      }
    });
    BufferResultsToOutParamsOpts outParams;
    outParams.modifyPublicFunctions = true;
    outParams.hoistStaticAllocs = true;
    outParams.memCpyFn = copyWithLinalg;
    outParams.addResultAttribute = true; // marks the outputs for later passes
    if (failed(promoteBufferResultsToOutParams(getOperation(), outParams)))
      signalPassFailure();
  }
};

} // namespace
