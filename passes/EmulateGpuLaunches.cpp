//===- EmulateGpuLaunches.cpp - gpu.launch kernels as CPU loops -----------===//
//
// Kernels written directly as gpu.launch (the attention kernel) have no
// loop form for autoglm-emulate-gpu-threads to run. For tests, this pass
// gives them one: a parallel loop over the blocks, each allocating its
// workgroup memory, around a parallel loop over the threads (whose
// barriers, shuffles and warp-level products autoglm-emulate-gpu-threads
// then runs).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

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
  // Aligned as autoglm-align-workgroup-memory aligns them on the GPU (the
  // kernels' vector loads and stores count on it). An ldmatrix, which
  // takes shared memory only, reads the buffer through a cast to the
  // workgroup space (autoglm-emulate-gpu-threads reads through it).
  IRMapping mapping;
  SmallVector<std::pair<Value, Value>> sharedViews;
  for (Value memory : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(memory.getType());
    Value buffer = memref::AllocaOp::create(b, loc, withoutMemorySpace(type),
                                            b.getI64IntegerAttr(16));
    mapping.map(memory, buffer);
    if (llvm::any_of(memory.getUsers(), llvm::IsaPred<nvgpu::LdMatrixOp>))
      sharedViews.emplace_back(
          buffer, memref::MemorySpaceCastOp::create(b, loc, type, buffer));
  }
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
  for (auto [buffer, view] : sharedViews)
    buffer.replaceUsesWithIf(view, [](OpOperand &use) {
      return isa<nvgpu::LdMatrixOp>(use.getOwner());
    });
  launch.erase();
  return success();
}

struct EmulateGpuLaunchesPass
    : autoglm::impl::EmulateGpuLaunchesBase<EmulateGpuLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk(
        [&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(launch)))
        return signalPassFailure();
  }
};

} // namespace
