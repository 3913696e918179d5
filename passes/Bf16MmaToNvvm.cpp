//===- Bf16MmaToNvvm.cpp - warp-level bf16 products for the NVVM lowering -===//
//
// MLIR 22's nvgpu-to-nvvm lowering of nvgpu.mma.sync knows f16, tf32, f64
// and integer operands but not bf16, which the op and the tensor cores
// (sm_80 and later) take. This pass lowers the bf16 ones to nvvm.mma.sync
// itself, each fragment register a 32-bit pair of bf16 values, as the
// PTX instruction takes them; the rest is left to convert-nvgpu-to-nvvm.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_BF16MMATONVVM
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

struct Bf16MmaSync : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    VectorType aType = op.getMatrixA().getType();
    VectorType cType = op.getMatrixC().getType();
    if (!aType.getElementType().isBF16())
      return failure();
    if (op.getMmaShapeAsArray() != std::array<int64_t, 3>{16, 8, 16} ||
        !cType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not m16n8k16 with f32 sums");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    // Each row of a [registers x 2] fragment is one 32-bit register.
    auto registers = [&](Value fragment) {
      SmallVector<Value> packed;
      auto type = cast<VectorType>(fragment.getType());
      for (int64_t r = 0; r < type.getDimSize(0); ++r)
        packed.push_back(LLVM::BitcastOp::create(
            rewriter, loc, i32,
            vector::ExtractOp::create(rewriter, loc, fragment,
                                      ArrayRef<int64_t>{r})));
      return packed;
    };
    SmallVector<Value> a = registers(op.getMatrixA());
    SmallVector<Value> b = registers(op.getMatrixB());
    SmallVector<Value> sums;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        sums.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                                 ArrayRef<int64_t>{i, j}));
    auto result = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                   {f32, f32, f32, f32});
    auto mma = NVVM::MmaOp::create(
        rewriter, loc, result, a, b, sums, ArrayRef<int64_t>{16, 8, 16},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    for (int64_t k = 0; k < 4; ++k)
      sums[k] = LLVM::ExtractValueOp::create(rewriter, loc, mma, k);
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, cType, sums);
    return success();
  }
};

struct Bf16MmaToNvvmPass : autoglm::impl::Bf16MmaToNvvmBase<Bf16MmaToNvvmPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Bf16MmaSync>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
