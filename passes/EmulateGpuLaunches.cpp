//===- EmulateGpuLaunches.cpp - gpu.launch kernels as CPU loops -----------===//
//
// Kernels written directly as gpu.launch (the attention kernel) have no
// loop form for autoglm-emulate-gpu-threads to run. For tests, this pass
// gives them one: a parallel loop over the blocks, each allocating its
// workgroup memory, around a parallel loop over the threads. Their
// warp-level matrix operations, whose fragments are spread over a warp's
// threads in a layout only the GPU knows, become vector operations that
// every thread computes in full: the same values, each thread holding the
// whole 16x16 tile.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace autoglm {
#define GEN_PASS_DEF_EMULATEGPULAUNCHES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// `type` in the CPU's default memory space.
MemRefType withoutMemorySpace(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout());
}

LogicalResult emulateLaunch(gpu::LaunchOp launch) {
  Location loc = launch.getLoc();
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  std::optional<int64_t> threads = getConstantIntValue(blockSize.x);
  if (!threads || getConstantIntValue(blockSize.y) != 1 ||
      getConstantIntValue(blockSize.z) != 1)
    return launch.emitError("only a launch of blocks of constant x extent "
                            "(y and z 1) can be emulated");
  if (launch.getBody().getBlocks().size() != 1 ||
      !launch.getPrivateAttributions().empty())
    return launch.emitError("only a launch of one block without private "
                            "memory can be emulated");
  OpBuilder b(launch);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  gpu::KernelDim3 gridSize = launch.getGridSizeOperandValues();
  auto blocks =
      scf::ParallelOp::create(b, loc, ValueRange{zero, zero, zero},
                              ValueRange{gridSize.x, gridSize.y, gridSize.z},
                              ValueRange{one, one, one});
  b.setInsertionPointToStart(blocks.getBody());
  // The block's workgroup memory, freed when the block ends.
  auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange{});
  Block *scopeBody = b.createBlock(&scope.getBodyRegion());
  b.setInsertionPointToStart(scopeBody);
  IRMapping mapping;
  for (Value memory : launch.getWorkgroupAttributions())
    mapping.map(
        memory,
        memref::AllocaOp::create(
            b, loc, withoutMemorySpace(cast<MemRefType>(memory.getType()))));
  Value count = arith::ConstantIndexOp::create(b, loc, *threads);
  auto lanes = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                       ValueRange{count}, ValueRange{one});
  memref::AllocaScopeReturnOp::create(b, loc);
  gpu::KernelDim3 blockIds = launch.getBlockIds(),
                  threadIds = launch.getThreadIds(),
                  gridDims = launch.getGridSize(),
                  blockDims = launch.getBlockSize();
  mapping.map(blockIds.x, blocks.getInductionVars()[0]);
  mapping.map(blockIds.y, blocks.getInductionVars()[1]);
  mapping.map(blockIds.z, blocks.getInductionVars()[2]);
  mapping.map(threadIds.x, lanes.getInductionVars()[0]);
  mapping.map(threadIds.y, zero);
  mapping.map(threadIds.z, zero);
  mapping.map(gridDims.x, gridSize.x);
  mapping.map(gridDims.y, gridSize.y);
  mapping.map(gridDims.z, gridSize.z);
  mapping.map(blockDims.x, count);
  mapping.map(blockDims.y, one);
  mapping.map(blockDims.z, one);
  b.setInsertionPoint(lanes.getBody()->getTerminator());
  for (Operation &op : launch.getBody().front().without_terminator())
    b.clone(op, mapping);
  launch.erase();
  return success();
}

/// The 16x16 tile a fragment load or store touches: a view of the 1-D
/// buffer from `offset`, rows `stride` elements apart.
FailureOr<Value> tileView(OpBuilder &b, Location loc, Value buffer,
                          ValueRange indices, int64_t stride,
                          ArrayRef<int64_t> shape, Operation *op) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 1 || !type.getLayout().isIdentity() ||
      indices.size() != 1)
    return op->emitError("only fragments of one-dimensional buffers can be "
                         "emulated");
  return memref::ReinterpretCastOp::create(
             b, loc, buffer, OpFoldResult(indices[0]),
             {b.getIndexAttr(shape[0]), b.getIndexAttr(shape[1])},
             {b.getIndexAttr(stride), b.getIndexAttr(1)})
      .getResult();
}

struct LoadFragment : OpConversionPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    FailureOr<Value> view =
        tileView(rewriter, loc, adaptor.getSrcMemref(), adaptor.getIndices(),
                 op.getLeadDimension().getZExtValue(), type.getShape(), op);
    if (failed(view))
      return failure();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value padding = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    // A transposed load reads the rows of the transposed tile.
    Value tile = vector::TransferReadOp::create(rewriter, loc, type, *view,
                                                ValueRange{zero, zero}, padding,
                                                ArrayRef<bool>{true, true});
    if (op.getTranspose())
      tile = vector::TransposeOp::create(rewriter, loc, tile,
                                         ArrayRef<int64_t>{1, 0});
    rewriter.replaceOp(op, tile);
    return success();
  }
};

struct StoreFragment : OpConversionPattern<gpu::SubgroupMmaStoreMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tile = adaptor.getSrc();
    if (op.getTranspose())
      tile = vector::TransposeOp::create(rewriter, loc, tile,
                                         ArrayRef<int64_t>{1, 0});
    auto type = cast<VectorType>(tile.getType());
    FailureOr<Value> view =
        tileView(rewriter, loc, adaptor.getDstMemref(), adaptor.getIndices(),
                 op.getLeadDimension().getZExtValue(), type.getShape(), op);
    if (failed(view))
      return failure();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    vector::TransferWriteOp::create(rewriter, loc, tile, *view,
                                    ValueRange{zero, zero},
                                    ArrayRef<bool>{true, true});
    rewriter.eraseOp(op);
    return success();
  }
};

struct ComputeFragment : OpConversionPattern<gpu::SubgroupMmaComputeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value acc = adaptor.getOpC();
    auto accType = cast<VectorType>(acc.getType());
    // The tensor cores' products are exact; their sums are the
    // accumulator's type.
    auto widen = [&](Value operand) -> Value {
      auto type = cast<VectorType>(operand.getType());
      if (type.getElementType() == accType.getElementType())
        return operand;
      return arith::ExtFOp::create(
          rewriter, loc, type.clone(accType.getElementType()), operand);
    };
    MLIRContext *context = rewriter.getContext();
    AffineExpr m, n, k;
    bindDims(context, m, n, k);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {m, k}, context),
                                   AffineMap::get(3, 0, {k, n}, context),
                                   AffineMap::get(3, 0, {m, n}, context)};
    auto iterators = rewriter.getArrayAttr(
        {vector::IteratorTypeAttr::get(context, vector::IteratorType::parallel),
         vector::IteratorTypeAttr::get(context, vector::IteratorType::parallel),
         vector::IteratorTypeAttr::get(context,
                                       vector::IteratorType::reduction)});
    rewriter.replaceOpWithNewOp<vector::ContractionOp>(
        op, widen(adaptor.getOpA()), widen(adaptor.getOpB()), acc,
        rewriter.getAffineMapArrayAttr(maps), iterators);
    return success();
  }
};

struct ConstantFragment
    : OpConversionPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(
        op, getTypeConverter()->convertType(op.getType()), adaptor.getValue());
    return success();
  }
};

struct ElementwiseFragment
    : OpConversionPattern<gpu::SubgroupMmaElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange args = adaptor.getArgs();
    Location loc = op.getLoc();
    Value result;
    switch (op.getOpType()) {
    case gpu::MMAElementwiseOp::ADDF:
      result = arith::AddFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::SUBF:
      result = arith::SubFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MULF:
      result = arith::MulFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVF:
      result = arith::DivFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MAXF:
      result = arith::MaximumFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MINF:
      result = arith::MinimumFOp::create(rewriter, loc, args[0], args[1]);
      break;
    default:
      return op.emitError("this elementwise fragment operation cannot be "
                          "emulated");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EmulateGpuLaunchesPass
    : autoglm::impl::EmulateGpuLaunchesBase<EmulateGpuLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk(
        [&](gpu::LaunchOp launch) { launches.push_back(launch); });
    if (launches.empty())
      return;
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(launch)))
        return signalPassFailure();

    MLIRContext *context = &getContext();
    TypeConverter fragments;
    fragments.addConversion([](Type type) { return type; });
    fragments.addConversion([](gpu::MMAMatrixType type) -> Type {
      return VectorType::get(type.getShape(), type.getElementType());
    });
    RewritePatternSet patterns(context);
    patterns.add<LoadFragment, StoreFragment, ComputeFragment, ConstantFragment,
                 ElementwiseFragment>(fragments, context);
    ConversionTarget target(*context);
    target.addIllegalOp<
        gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
        gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
        gpu::SubgroupMmaElementwiseOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // Loops that carry fragments carry vectors.
    scf::populateSCFStructuralTypeConversionsAndLegality(fragments, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
