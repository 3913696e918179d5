//===- EmulateGpuThreads.cpp - a block's threads in sequence, on the CPU --===//
//
// The kernels autoglm-map-loops-to-gpu makes synchronize their threads
// (gpu.barrier) and combine their values (gpu.all_reduce), which have no
// meaning in a CPU loop. For tests, this pass turns each thread loop that
// holds them into what a GPU computes, one thread after another: the
// loop's body is cut at every barrier and all_reduce into steps, each step
// a loop over the threads; a value that one step makes and a later one
// uses is kept per thread in a buffer, and an all_reduce combines the
// threads' values in order into one that every later step reads. Then the
// CPU pipeline's lowering can run the function (lit tests with mlir-runner
// compare the kernels with the loops they came from).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace autoglm {
#define GEN_PASS_DEF_EMULATEGPUTHREADS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

bool synchronizes(Operation &op) {
  return isa<gpu::BarrierOp, gpu::AllReduceOp>(op);
}

/// `a` combined with `b` as the all_reduce `kind` combines values.
FailureOr<Value> combine(OpBuilder &b, Location loc,
                         gpu::AllReduceOperation kind, Value lhs, Value rhs) {
  using Kind = gpu::AllReduceOperation;
  const bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case Kind::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MUL:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs).getResult();
  case Kind::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs).getResult();
  }
  return failure();
}

/// Runs the threads of `lanes` (a thread loop from 0 by 1 whose body holds
/// barriers or all_reduces at its top level) one after another, step by
/// step.
LogicalResult emulate(scf::ParallelOp lanes) {
  Location loc = lanes.getLoc();
  Block *body = lanes.getBody();
  Value lane = lanes.getInductionVars()[0];
  // The steps, and the all_reduce that ends each (or null).
  SmallVector<SmallVector<Operation *>> steps(1);
  SmallVector<gpu::AllReduceOp> ends;
  for (Operation &op : body->without_terminator()) {
    if (!synchronizes(op)) {
      steps.back().push_back(&op);
      continue;
    }
    auto reduce = dyn_cast<gpu::AllReduceOp>(op);
    if (reduce && (!reduce.getOp() || !reduce.getBody().empty()))
      return reduce.emitError("an all_reduce with a body of its own cannot "
                              "be emulated");
    ends.push_back(reduce);
    steps.emplace_back();
  }
  ends.push_back(nullptr);
  // The step of each top-level op (an all_reduce's: the step it ends).
  llvm::DenseMap<Operation *, unsigned> stepOf;
  for (auto [index, step] : llvm::enumerate(steps)) {
    for (Operation *op : step)
      stepOf[op] = index;
    if (ends[index])
      stepOf[ends[index]] = index;
  }

  std::optional<int64_t> count = getConstantIntValue(lanes.getUpperBound()[0]);
  if (!count || getConstantIntValue(lanes.getLowerBound()[0]) != 0 ||
      getConstantIntValue(lanes.getStep()[0]) != 1)
    return lanes.emitError("a thread loop of unknown extent cannot be "
                           "emulated");
  // The per-thread buffers, made once at the function's entry: blocks run
  // one after another and reuse them.
  auto func = lanes->getParentOfType<FunctionOpInterface>();
  OpBuilder entry = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
  auto perThread = [&](Type type) {
    return memref::AllocaOp::create(entry, loc,
                                    MemRefType::get({*count}, type));
  };
  OpBuilder b(lanes);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads = arith::ConstantIndexOp::create(b, loc, *count);
  // Values that a later step uses, kept per thread.
  llvm::MapVector<Value, Value> kept;
  for (auto [index, step] : llvm::enumerate(steps))
    for (Operation *op : step)
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers()) {
          Operation *top = body->findAncestorOpInBlock(*user);
          bool later = top && stepOf.lookup(top) > index;
          if (later && !kept.count(result))
            kept[result] = perThread(result.getType());
        }
  // What every thread sees alike: the combined values.
  IRMapping uniform;
  for (auto [index, step] : llvm::enumerate(steps)) {
    gpu::AllReduceOp end = ends[index];
    Value partials = end ? Value(perThread(end.getValue().getType())) : Value();
    auto loop = scf::ForOp::create(b, loc, zero, threads, one);
    OpBuilder inner = OpBuilder::atBlockTerminator(loop.getBody());
    Value thread = loop.getInductionVar();
    IRMapping mapping = uniform;
    mapping.map(lane, thread);
    for (auto [value, buffer] : kept)
      if (stepOf.lookup(value.getDefiningOp()) < index)
        mapping.map(value, memref::LoadOp::create(inner, loc, buffer,
                                                  ValueRange{thread}));
    for (Operation *op : step) {
      Operation *copy = inner.clone(*op, mapping);
      for (auto [result, copied] :
           llvm::zip(op->getResults(), copy->getResults()))
        if (Value buffer = kept.lookup(result))
          memref::StoreOp::create(inner, loc, copied, buffer,
                                  ValueRange{thread});
    }
    if (!end)
      continue;
    memref::StoreOp::create(inner, loc, mapping.lookupOrDefault(end.getValue()),
                            partials, ValueRange{thread});
    // Thread 0's value, then the others' in order.
    Value first = memref::LoadOp::create(b, loc, partials, ValueRange{zero});
    auto fold = scf::ForOp::create(
        b, loc, one, threads, one, ValueRange{first},
        [&](OpBuilder &nested, Location at, Value index, ValueRange acc) {
          Value next =
              memref::LoadOp::create(nested, at, partials, ValueRange{index});
          FailureOr<Value> combined =
              combine(nested, at, *end.getOp(), acc[0], next);
          scf::YieldOp::create(nested, at, *combined);
        });
    uniform.map(end.getResult(), fold.getResult(0));
  }
  lanes.erase();
  return success();
}

struct EmulateGpuThreadsPass
    : autoglm::impl::EmulateGpuThreadsBase<EmulateGpuThreadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> threadLoops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() == 1 &&
          llvm::any_of(loop.getBody()->getOperations(), synchronizes))
        threadLoops.push_back(loop);
    });
    for (scf::ParallelOp loop : threadLoops)
      if (failed(emulate(loop)))
        return signalPassFailure();
    // Nothing synchronizes anywhere else.
    WalkResult stray = getOperation().walk([](Operation *op) {
      if (!synchronizes(*op))
        return WalkResult::advance();
      op->emitError("'") << op->getName()
                         << "' outside the top level of a thread loop "
                            "cannot be emulated";
      return WalkResult::interrupt();
    });
    if (stray.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
