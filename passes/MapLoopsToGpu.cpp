//===- MapLoopsToGpu.cpp - parallel loops to GPU blocks and threads -------===//
//
// The CUDA pipeline turns every loop nest of the planned model into a
// kernel with upstream passes (convert-parallel-loops-to-gpu, outlining);
// this pass decides how: which loops become threads and blocks, and it
// moves whatever else touches tensor data into a one-thread kernel, since
// the function's buffers live in device memory that host code cannot read.
// Calls of runtime functions that queue their own GPU work on device
// pointers (cuBLAS products) stay in host code.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace autoglm {
#define GEN_PASS_DEF_MAPLOOPSTOGPU
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using autoglm::kOneThreadAttrName;

namespace {

/// The buffer a view was taken from, through any chain of views.
Value rootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// The run's symbol values and output extents are host memory that the
/// runtime passes as is; every other buffer argument is device memory.
bool isHostArgument(Value buffer) {
  auto arg = dyn_cast<BlockArgument>(buffer);
  if (!arg)
    return false;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return func && (func.getArgAttr(arg.getArgNumber(), "autoglm.symbol_values") ||
                  func.getArgAttr(arg.getArgNumber(), "autoglm.output_dims"));
}

/// Whether `op` (or an op nested in it) reads or writes a device buffer.
bool touchesDeviceMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    // A library call that queues its own GPU work stays on the host.
    if (auto call = dyn_cast<func::CallOp>(nested)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (callee && callee->hasAttr(autoglm::kDeviceLibraryAttrName))
        return WalkResult::advance();
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      // An op with unknown effects (a call) could touch anything.
      if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          !isa<scf::YieldOp, scf::ReduceOp, scf::ReduceReturnOp>(nested))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const auto &instance : instances) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect()))
        continue;
      Value value = instance.getValue();
      if (!value || !isHostArgument(rootBuffer(value)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Why `op`, which touches device memory outside any parallel loop, runs
/// in one GPU thread.
std::string oneThreadReason(Operation *op) {
  if (isa<scf::ForOp, scf::WhileOp>(op))
    return "a loop nest with no parallel dimension";
  if (isa<memref::StoreOp>(op))
    return "one element"; // a fill of a 0-d buffer, say
  return "'" + op->getName().getStringRef().str() +
         "' outside any parallel loop";
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *context,
                                      gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                              identity);
}

struct MapLoopsToGpuPass
    : autoglm::impl::MapLoopsToGpuBase<MapLoopsToGpuPass> {
  using MapLoopsToGpuBase::MapLoopsToGpuBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Kernels cannot read host globals; the CUDA pipeline externalizes
    // every constant into the device weights buffer first.
    WalkResult globals = func.walk([](memref::GetGlobalOp get) {
      get.emitError("constant '")
          << get.getName()
          << "' is host memory, which a GPU kernel cannot read (the CUDA "
             "pipeline expects every constant in the weights buffer)";
      return WalkResult::interrupt();
    });
    if (globals.wasInterrupted())
      return signalPassFailure();

    SmallVector<Operation *> topLevel;
    for (Operation &op : func.getBody().getOps())
      topLevel.push_back(&op);
    for (Operation *op : topLevel) {
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        mapParallelLoop(loop);
        continue;
      }
      if (op->hasTrait<OpTrait::IsTerminator>() || !touchesDeviceMemory(op))
        continue;
      if (failed(runInOneThread(op)))
        return signalPassFailure();
    }
  }

  /// Tiles the innermost loop by the block size and maps the tile to
  /// threads, the tiles to blocks.
  void mapParallelLoop(scf::ParallelOp loop) {
    MLIRContext *context = loop.getContext();
    unsigned rank = loop.getNumLoops();
    auto tripCount = [&](unsigned d) -> std::optional<int64_t> {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[d]);
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[d]);
      std::optional<int64_t> st = getConstantIntValue(loop.getStep()[d]);
      if (!lb || !ub || !st || *st <= 0)
        return std::nullopt;
      return std::max<int64_t>(0, (*ub - *lb + *st - 1) / *st);
    };
    int64_t tile = blockSize;
    if (std::optional<int64_t> extent = tripCount(rank - 1))
      tile = std::max<int64_t>(1, std::min(tile, *extent));
    // CUDA grids hold at most 65535 blocks along y and z; a longer loop
    // (or one of unknown extent) runs sequentially in each block instead.
    constexpr int64_t kMaxGridYZ = 65535;
    SmallVector<bool> fitsGridYZ;
    for (unsigned d = 0; d < rank; ++d) {
      std::optional<int64_t> extent = tripCount(d);
      fitsGridYZ.push_back(extent && *extent <= kMaxGridYZ);
    }
    SmallVector<int64_t> tileSizes(rank, 1);
    tileSizes.back() = tile;
    auto [tiles, inner] =
        scf::tileParallelLoop(loop, tileSizes, /*noMinMaxBounds=*/true);

    static constexpr gpu::Processor blocks[] = {
        gpu::Processor::BlockX, gpu::Processor::BlockY, gpu::Processor::BlockZ};
    SmallVector<gpu::ParallelLoopDimMappingAttr> outer, threads;
    for (unsigned d = 0; d < rank; ++d) {
      unsigned fromInnermost = rank - 1 - d;
      bool fits = fromInnermost == 0 || (fromInnermost < 3 && fitsGridYZ[d]);
      outer.push_back(mapTo(context, fits ? blocks[fromInnermost]
                                          : gpu::Processor::Sequential));
      threads.push_back(mapTo(context, fromInnermost == 0
                                           ? gpu::Processor::ThreadX
                                           : gpu::Processor::Sequential));
    }
    (void)gpu::setMappingAttr(tiles, outer);
    (void)gpu::setMappingAttr(inner, threads);
  }

  /// Moves `op` into a one-iteration parallel loop on block x: a kernel of
  /// one thread.
  LogicalResult runInOneThread(Operation *op) {
    for (Value result : op->getResults())
      if (!result.use_empty())
        return op->emitError("'")
               << op->getName()
               << "' computes a value from tensor data that host code "
                  "would use after it; the CUDA target cannot run it yet";
    op->setAttr(kOneThreadAttrName,
                StringAttr::get(op->getContext(), oneThreadReason(op)));
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{one}, ValueRange{one});
    op->moveBefore(loop.getBody()->getTerminator());
    (void)gpu::setMappingAttr(
        loop, {mapTo(op->getContext(), gpu::Processor::BlockX)});
    return success();
  }
};

} // namespace
