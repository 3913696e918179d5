//===- LowerToLinalg.cpp - the autoglm-lower-to-linalg pass ---------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

namespace autoglm {
#define GEN_PASS_DEF_LOWERTOLINALG
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

struct LowerToLinalgPass : autoglm::impl::LowerToLinalgBase<LowerToLinalgPass> {
  using LowerToLinalgBase::LowerToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SignlessTypeConverter converter;

    RewritePatternSet patterns(ctx);
    populateElementwiseLowering(converter, patterns);
    populateLinearAlgebraLowering(converter, patterns);
    populateReductionLowering(converter, patterns);
    populateConvPoolLowering(converter, patterns);
    populateDataMovementLowering(converter, patterns);
    populateQuantizationLowering(converter, patterns);
    populateAttentionLowering(converter, patterns, attentionKernel,
                              gpuAttention);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<AutoGLMDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    if (attentionKernel || gpuAttention) {
      target.addLegalOp<AttentionBuffersOp, bufferization::ToBufferOp,
                        bufferization::ToTensorOp, memref::AllocOp>();
    }
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp r) { return converter.isLegal(r); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Extents read from an autoglm value (tensor.dim at import) read the
    // lowered, signless value instead; the cast back to the signed type is
    // then dead.
    module.walk([](tensor::DimOp dim) {
      if (auto cast = dim.getSource().getDefiningOp<UnrealizedConversionCastOp>())
        if (cast->getNumOperands() == 1 &&
            isa<RankedTensorType>(cast->getOperand(0).getType()))
          dim.getSourceMutable().assign(cast->getOperand(0));
    });
    module.walk([](UnrealizedConversionCastOp cast) {
      if (cast->use_empty())
        cast->erase();
    });

    // Inputs are the caller's memory: bufferization must not write to them.
    // Model state (a KV cache) is the model's own, updated in place.
    for (auto func : module.getOps<func::FuncOp>())
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (!func.getArgAttr(i, "autoglm.state"))
          func.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(ctx, false));
  }
};

} // namespace
