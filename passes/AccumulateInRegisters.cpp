//===- AccumulateInRegisters.cpp - reduction accumulators out of memory ---===//
//
// convert-linalg-to-parallel-loops turns a reduction into a loop that loads
// its accumulator from the output buffer, combines and stores it back on
// every iteration. On a GPU each such round trip through global memory
// costs hundreds of cycles, on the loop's critical path. When the address
// does not change in the loop and nothing else in the loop can touch those
// bytes, the accumulator becomes a loop-carried value: one load before the
// loop, one store after it.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferFacts.h"
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace autoglm {
#define GEN_PASS_DEF_ACCUMULATEINREGISTERS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// Whether every op nested in `loop` other than `load` and `store` provably
/// leaves `buffer`'s bytes alone.
bool othersLeaveAlone(scf::ForOp loop, Value buffer, Operation *load,
                      Operation *store) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == load || op == store)
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          op->hasTrait<OpTrait::IsTerminator>())
        return WalkResult::advance();
      return WalkResult::interrupt(); // unknown effects
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect()))
        continue;
      Value value = instance.getValue();
      if (!value || !autoglm::disjoint(value, buffer))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// A load of the loop's body block at a loop-invariant address, stored to
/// later in the same block, that nothing else in the loop touches.
std::pair<memref::LoadOp, memref::StoreOp> findAccumulator(scf::ForOp loop) {
  Block *body = loop.getBody();
  for (auto load : body->getOps<memref::LoadOp>()) {
    Value buffer = load.getMemRef();
    if (!loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(load.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    memref::StoreOp store;
    for (auto candidate : body->getOps<memref::StoreOp>())
      if (candidate.getMemRef() == buffer &&
          candidate.getIndices() == load.getIndices() &&
          load->isBeforeInBlock(candidate))
        store = candidate;
    if (store && othersLeaveAlone(loop, buffer, load, store))
      return {load, store};
  }
  return {};
}

/// Moves one accumulator of `loop` into its iteration arguments; returns
/// the new loop, or null when there is none.
scf::ForOp promoteOne(RewriterBase &rewriter, scf::ForOp loop) {
  auto [load, store] = findAccumulator(loop);
  if (!load)
    return nullptr;
  rewriter.setInsertionPoint(loop);
  auto initial = memref::LoadOp::create(rewriter, load.getLoc(),
                                        load.getMemRef(), load.getIndices());
  Value stored = store.getValueToStore();
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{initial.getResult()},
      /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{stored};
      });
  if (failed(grown))
    return nullptr;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  rewriter.replaceAllUsesWith(load.getResult(),
                              newLoop.getRegionIterArgs().back());
  rewriter.eraseOp(load);
  rewriter.setInsertionPointAfter(newLoop);
  memref::StoreOp::create(rewriter, store.getLoc(), newLoop.getResults().back(),
                          store.getMemRef(), store.getIndices());
  rewriter.eraseOp(store);
  return newLoop;
}

struct AccumulateInRegistersPass
    : autoglm::impl::AccumulateInRegistersBase<AccumulateInRegistersPass> {
  void runOnOperation() override {
    // Innermost loops first: an accumulator promoted out of an inner loop
    // is then a load and a store in its parent's body.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      while (scf::ForOp grown = promoteOne(rewriter, loop))
        loop = grown;
  }
};

} // namespace
