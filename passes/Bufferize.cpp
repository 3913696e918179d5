//===- Bufferize.cpp - one-shot bufferization of a whole model ------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

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

/// Model state (results marked `autoglm.state N`) must have been updated in
/// place, in the buffer of argument N; such results then say nothing more
/// and are dropped.
LogicalResult foldStateResults(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    llvm::BitVector drop(func.getNumResults());
    for (unsigned r = 0; r < func.getNumResults(); ++r) {
      auto source = func.getResultAttrOfType<IntegerAttr>(r, "autoglm.state");
      if (!source)
        continue;
      Value buffer = ret.getOperand(r);
      while (auto cast = buffer.getDefiningOp<memref::CastOp>())
        buffer = cast.getSource();
      if (buffer != func.getArgument(source.getInt()))
        return ret.emitError("model state ")
               << func.getArgAttr(source.getInt(), "autoglm.name")
               << " is not updated in place";
      drop.set(r);
    }
    ret->eraseOperands(drop);
    if (failed(func.eraseResults(drop)))
      return failure();
  }
  return success();
}

/// A fill of a new tensor that several ops write into (CSE merges the
/// identical fills of products' accumulators) would bufferize as one fill
/// and a copy per further writer; each writer gets its own fill instead,
/// which costs no more than the copy and leaves the writer's buffer
/// visibly zero (autoglm-contractions-to-kernels then drops the fill).
void fillEachWriter(ModuleOp module) {
  module.walk([](linalg::FillOp fill) {
    if (!fill.hasPureTensorSemantics() ||
        !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return;
    Value filled = fill.getResult(0);
    if (filled.hasOneUse())
      return;
    // Every writer, the first included, gets its fill right before it: a
    // zero fill far from its product (CSE put it before the first) would
    // not be seen as that product's initial value.
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        filled.getUses(), [](OpOperand &use) { return &use; });
    for (OpOperand *use : uses) {
      OpBuilder b(use->getOwner());
      IRMapping mapping;
      Operation *empty = b.clone(*fill.getOutputs()[0].getDefiningOp());
      mapping.map(fill.getOutputs()[0], empty->getResult(0));
      use->set(b.clone(*fill, mapping)->getResult(0));
    }
    Operation *empty = fill.getOutputs()[0].getDefiningOp();
    fill.erase();
    if (empty->use_empty())
      empty->erase();
  });
}

/// A new tensor that several ops write into (CSE merges identical
/// tensor.empty ops) would bufferize as one buffer that they all write, one
/// after the other where each result dies before the next write. Each writer
/// gets its own instead, and the arena planner decides which buffers share
/// memory, after the kernel-call passes: a ResNet block's Add + ReLU could
/// otherwise write the buffer its convolution reads, and could not become
/// that convolution's epilogue.
void emptyEachWriter(ModuleOp module) {
  module.walk([](tensor::EmptyOp empty) {
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        empty->getUses(), [](OpOperand &use) { return &use; });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder b(use->getOwner());
      use->set(b.clone(*empty)->getResult(0));
    }
  });
}

struct BufferizePass : autoglm::impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    emptyEachWriter(getOperation());
    fillEachWriter(getOperation());
    OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        LayoutMapOption::IdentityLayoutMap);
    options.bufferAlignment = 64;
    options.memCpyFn = copyWithLinalg;
    BufferizationState state;
    if (failed(runOneShotModuleBufferize(getOperation(), options, state)))
      return signalPassFailure();

    if (failed(foldStateResults(getOperation())))
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
