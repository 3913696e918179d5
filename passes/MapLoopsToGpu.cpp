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
// A row reduction (a loop nest whose body reduces along the rows' unit
// stride into a loop-carried accumulator) gets one block per row instead
// of one thread, together with the nests around it over the same rows
// (RowKernels.h): a normalization or a softmax is one kernel.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferFacts.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/RowKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace autoglm {
#define GEN_PASS_DEF_MAPLOOPSTOGPU
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using autoglm::kOneThreadAttrName;
using autoglm::mapTo;

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

/// A call of a runtime function that queues its own GPU work.
bool isDeviceLibraryCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return callee && callee->hasAttr(autoglm::kDeviceLibraryAttrName);
}

/// Whether `op` (or an op nested in it) reads or writes a device buffer.
bool touchesDeviceMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    // A library call that queues its own GPU work stays on the host.
    if (isDeviceLibraryCall(nested))
      return WalkResult::advance();
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
      if (!value || !autoglm::isHostArgument(rootBuffer(value)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` (or an op nested in it) reads or writes host memory (the
/// run's symbol values or output extents).
bool touchesHostArgument(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const auto &instance : instances)
      if (Value value = instance.getValue();
          value && autoglm::isHostArgument(rootBuffer(value)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` is or holds (a loop over batches, say) a call of a runtime
/// function that queues its own GPU work.
bool holdsDeviceLibraryCall(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    return isDeviceLibraryCall(nested) ? WalkResult::interrupt()
                                       : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` holds work for the GPU: a kernel, a parallel loop or a
/// library call.
bool holdsGpuWork(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    return isa<gpu::LaunchOp, scf::ParallelOp>(nested) ||
                   isDeviceLibraryCall(nested)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `value` is computed on the host: from constants, extents and
/// the run's symbol values, with no load of device memory.
bool computedOnHost(Value value) {
  SmallVector<Value> work{value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !seen.insert(v).second)
      continue;
    if (def->getNumRegions() != 0 ||
        (!isMemoryEffectFree(def) && !touchesHostArgument(def)) ||
        (!isMemoryEffectFree(def) && touchesDeviceMemory(def)))
      return false;
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// Whether `buffer` holds an intermediate of the run (in the arena, or
/// not yet planned), which nothing outside the function sees.
bool isTemporary(Value buffer) {
  Value root = rootBuffer(buffer);
  if (root.getDefiningOp<memref::AllocOp>())
    return true;
  auto arg = dyn_cast<BlockArgument>(root);
  auto func =
      arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  return func && func.getArgAttr(arg.getArgNumber(), "autoglm.arena");
}

/// Whether an op after `store` touches the bytes it writes through another
/// view of them: a library call's pointer up to the last of `loads` (the
/// memory planner may give the bytes to other buffers after it), a host
/// section's copy anywhere after it (its ops read the buffer when the
/// planner saw them; autoglm-place-on-host then made them read a copy).
bool readThroughAnotherView(func::FuncOp func, memref::StoreOp store,
                            ArrayRef<memref::LoadOp> loads) {
  Value bytes = store.getMemref();
  Block &body = func.getBody().front();
  Operation *last = &body.back();
  if (!loads.empty()) {
    last = body.findAncestorOpInBlock(*loads.front());
    for (memref::LoadOp load : loads) {
      Operation *top = body.findAncestorOpInBlock(*load);
      if (last->isBeforeInBlock(top))
        last = top;
    }
  }
  bool inWindow = true;
  for (Operation *top = store->getNextNode(); top; top = top->getNextNode()) {
    const bool section = top->hasAttr(autoglm::kHostSectionAttrName);
    if (!inWindow && !section)
      continue;
    inWindow &= top != last;
    WalkResult result = top->walk([&](Operation *op) {
      if (isa<ViewLikeOpInterface, memref::DimOp>(op) ||
          llvm::is_contained(loads, op))
        return WalkResult::advance();
      for (Value operand : op->getOperands())
        if (isa<MemRefType>(operand.getType()) &&
            !autoglm::disjoint(operand, bytes))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

/// A scalar that the host computes (a shape's extent, say) and stores, at
/// the top level, into a buffer of one element that is otherwise only
/// loaded from, at the same indices: the loads take the value itself (a
/// kernel gets it as an argument) and the store goes, so that no kernel
/// of one thread runs just to write it. The memory planner keeps the
/// buffer's bytes to itself from the store to its last load; nothing may
/// read them through another view then (readThroughAnotherView).
void forwardHostScalars(func::FuncOp func) {
  SmallVector<memref::StoreOp> stores;
  for (auto store : func.getBody().getOps<memref::StoreOp>())
    stores.push_back(store);
  DominanceInfo dominance(func);
  for (memref::StoreOp store : stores) {
    Value buffer = store.getMemref();
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.hasStaticShape() || type.getNumElements() != 1 ||
        !isTemporary(buffer) || !computedOnHost(store.getValue()))
      continue;
    SmallVector<memref::LoadOp> loads;
    bool onlyLoads = llvm::all_of(buffer.getUsers(), [&](Operation *user) {
      if (user == store)
        return true;
      auto load = dyn_cast<memref::LoadOp>(user);
      if (!load || !llvm::equal(load.getIndices(), store.getIndices()) ||
          !dominance.properlyDominates(store.getOperation(), load))
        return false;
      loads.push_back(load);
      return true;
    });
    if (!onlyLoads || readThroughAnotherView(func, store, loads))
      continue;
    for (memref::LoadOp load : loads) {
      load.replaceAllUsesWith(store.getValue());
      load.erase();
    }
    store.erase();
  }
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
    forwardHostScalars(func);
    // Normalizations and softmax: a kernel with a block per row.
    autoglm::fuseRowKernels(func);

    if (failed(mapBlock(func.getBody().front())))
      return signalPassFailure();
  }

  /// Maps the ops of `block`: the function's body, or a branch of a choice
  /// the host makes at run time between kinds of GPU work.
  LogicalResult mapBlock(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    // Runs of ops between parallel loops (and library calls, which queue
    // GPU work in order) become one one-thread kernel each.
    SmallVector<Operation *> run;
    for (Operation *op : ops) {
      // A host section (autoglm-place-on-host) stays host code.
      if (op->hasAttr(autoglm::kHostSectionAttrName)) {
        if (failed(runInOneThread(run)))
          return failure();
        run.clear();
        continue;
      }
      // An scf.if on host values around GPU work (a weight-only product
      // with symbolic rows: its kernel, or cuBLAS): each branch is mapped
      // on its own.
      auto choice = dyn_cast<scf::IfOp>(op);
      if (choice && choice.getNumResults() == 0 && holdsGpuWork(op) &&
          computedOnHost(choice.getCondition())) {
        if (failed(runInOneThread(run)))
          return failure();
        run.clear();
        for (Region &branch : choice->getRegions())
          if (!branch.empty() && failed(mapBlock(branch.front())))
            return failure();
        continue;
      }
      auto loop = dyn_cast<scf::ParallelOp>(op);
      const bool library = !loop && holdsDeviceLibraryCall(op);
      // A kernel already written for the GPU (the attention kernel).
      const bool kernel = isa<gpu::LaunchOp>(op);
      if (!loop && !library && !kernel &&
          !op->hasTrait<OpTrait::IsTerminator>()) {
        run.push_back(op);
        continue;
      }
      if (failed(runInOneThread(run)))
        return failure();
      // The host queues the call: nothing around it may touch tensor data.
      if (library && touchesDeviceMemory(op)) {
        return op->emitError("'")
               << op->getName()
               << "' both queues a library call and touches tensor data; the "
                  "CUDA target cannot run it";
      }
      run.clear();
      if (loop && !loop->hasAttr(gpu::getMappingAttrName()))
        mapParallelLoop(loop);
    }
    return success();
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

  /// Moves what in `run` (consecutive top-level ops outside any parallel
  /// loop) touches device memory or computes from what does, in order, into
  /// one one-iteration parallel loop on block x, a kernel of one thread,
  /// after the last of them: scalar code on tensor data (a dynamic
  /// quantization's scale, say) runs on the GPU whole. The rest (constants,
  /// the output extents the host writes) stays on the host, before it.
  LogicalResult runInOneThread(ArrayRef<Operation *> run) {
    llvm::SetVector<Operation *> moved;
    for (Operation *op : run)
      if (touchesDeviceMemory(op) ||
          llvm::any_of(op->getOperands(), [&](Value v) {
            return moved.contains(v.getDefiningOp());
          }))
        moved.insert(op);
    if (moved.empty())
      return success();
    // The op of the kernel that `op`'s value comes from (for errors).
    auto source = [&](Operation *op) {
      while (!touchesDeviceMemory(op)) {
        auto from = llvm::find_if(op->getOperands(), [&](Value v) {
          return moved.contains(v.getDefiningOp());
        });
        if (from == op->getOperands().end())
          break;
        op = (*from).getDefiningOp();
      }
      return op;
    };
    Block *body = run.front()->getBlock();
    for (Operation *op : moved) {
      bool escapes = llvm::any_of(op->getUsers(), [&](Operation *user) {
        return !moved.contains(body->findAncestorOpInBlock(*user));
      });
      if (escapes || touchesHostArgument(op)) {
        Operation *from = source(op);
        return from->emitError("'")
               << from->getName()
               << "' computes a value from tensor data that host code "
                  "would use after it; the CUDA target cannot run it yet";
      }
    }
    Operation *first = *llvm::find_if(moved, touchesDeviceMemory);
    MLIRContext *context = first->getContext();
    std::string reason =
        moved.size() == 1
            ? oneThreadReason(first)
            : std::to_string(moved.size()) + " ops outside any parallel loop";
    first->setAttr(kOneThreadAttrName, StringAttr::get(context, reason));
    Operation *last = moved.back();
    OpBuilder b(context);
    b.setInsertionPointAfter(last);
    // The kernel takes its name and ONNX nodes from all of them.
    Location loc = FusedLoc::get(
        context,
        llvm::map_to_vector(moved, [](Operation *op) { return op->getLoc(); }));
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                        ValueRange{one}, ValueRange{one});
    for (Operation *op : moved)
      op->moveBefore(loop.getBody()->getTerminator());
    (void)gpu::setMappingAttr(loop, {mapTo(context, gpu::Processor::BlockX)});
    return success();
  }
};

} // namespace
