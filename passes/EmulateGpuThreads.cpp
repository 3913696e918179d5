//===- EmulateGpuThreads.cpp - a block's threads in sequence, on the CPU --===//
//
// The kernels autoglm-map-loops-to-gpu and autoglm-attention-to-gpu make
// synchronize their threads (gpu.barrier) and exchange values
// (gpu.all_reduce, gpu.shuffle), which have no meaning in a CPU loop. For
// tests, this pass turns each thread loop that holds them into what a GPU
// computes, one thread after another: the loop's body is cut at every
// barrier, all_reduce and shuffle into steps, each step a loop over the
// threads; a value that one step makes and a later one uses is kept per
// thread in a buffer, an all_reduce combines the threads' values in order
// into one that every later step reads, and a shuffle hands each thread
// the value of the lane it names. Then the CPU pipeline's lowering can run
// the function (lit tests with mlir-runner compare the kernels with the
// loops they came from).
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

namespace autoglm {
#define GEN_PASS_DEF_EMULATEGPUTHREADS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

bool synchronizes(Operation &op) {
  return isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::ShuffleOp>(op);
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

/// Whether `op` is or holds a barrier, all_reduce or shuffle.
bool holdsSynchronization(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return synchronizes(*nested) ? WalkResult::interrupt()
                                     : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Runs the threads of a thread loop (from 0 by 1, `count` threads) one
/// after another, step by step: each run of ops between synchronizations
/// is a loop over the threads, and a loop that holds synchronizations runs
/// its own steps in each iteration.
class ThreadEmulator {
public:
  ThreadEmulator(scf::ParallelOp lanes, int64_t count)
      : lane(lanes.getInductionVars()[0]), count(count),
        entry(OpBuilder::atBlockBegin(
            &lanes->getParentOfType<FunctionOpInterface>()
                 .getFunctionBody()
                 .front())) {}

  /// Emits, at `b`, the ops of `block` (but its terminator) in steps.
  LogicalResult emitBlock(OpBuilder &b, Block &block);

private:
  Location loc() const { return lane.getLoc(); }
  /// A buffer of one `type` value per thread, made at the function's
  /// entry: blocks run one after another and reuse it.
  Value perThreadBuffer(Type type) {
    return memref::AllocaOp::create(entry, loc(),
                                    MemRefType::get({count}, type));
  }
  /// `value` as thread `thread` sees it: kept per thread, uniform, or
  /// defined outside the thread loop.
  Value lookup(OpBuilder &b, Value value, Value thread) {
    if (Value buffer = kept.lookup(value))
      return memref::LoadOp::create(b, loc(), buffer, ValueRange{thread});
    return uniform.lookupOrDefault(value);
  }
  LogicalResult emitStep(OpBuilder &b, ArrayRef<Operation *> ops,
                         Operation *end);
  LogicalResult exchange(OpBuilder &b, gpu::ShuffleOp shuffle, Value values);
  LogicalResult emitLoop(OpBuilder &b, scf::ForOp loop);

  Value lane;
  int64_t count;
  OpBuilder entry;
  // Per-thread values (a step's results that later steps use, a loop's
  // iteration arguments and results) and the buffers that hold them.
  DenseMap<Value, Value> kept;
  // Values every thread sees alike: combined all_reduce results, the
  // induction variables of loops with barriers.
  IRMapping uniform;
};

LogicalResult ThreadEmulator::emitBlock(OpBuilder &b, Block &block) {
  SmallVector<Operation *> step;
  for (Operation &op : block.without_terminator()) {
    if (!holdsSynchronization(&op)) {
      step.push_back(&op);
      continue;
    }
    if (isa<gpu::BarrierOp>(op)) {
      if (failed(emitStep(b, step, nullptr)))
        return failure();
      step.clear();
      continue;
    }
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
      if (!reduce.getOp() || !reduce.getBody().empty())
        return reduce.emitError("an all_reduce with a body of its own cannot "
                                "be emulated");
      if (failed(emitStep(b, step, reduce)))
        return failure();
      step.clear();
      continue;
    }
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      if (failed(emitStep(b, step, shuffle)))
        return failure();
      step.clear();
      continue;
    }
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return op.emitError("'")
             << op.getName()
             << "' holds a barrier, all_reduce or shuffle, which only the top "
                "level of a thread loop or an scf.for there may hold to be "
                "emulated";
    if (failed(emitStep(b, step, nullptr)) || failed(emitLoop(b, loop)))
      return failure();
    step.clear();
  }
  return emitStep(b, step, nullptr);
}

LogicalResult ThreadEmulator::emitStep(OpBuilder &b, ArrayRef<Operation *> ops,
                                       Operation *end) {
  if (ops.empty() && !end)
    return success();
  Location at = loc();
  Value zero = arith::ConstantIndexOp::create(b, at, 0);
  Value one = arith::ConstantIndexOp::create(b, at, 1);
  Value threads = arith::ConstantIndexOp::create(b, at, count);
  llvm::SmallPtrSet<Operation *, 16> inStep(ops.begin(), ops.end());
  // The value each thread hands to the all_reduce or shuffle that ends
  // the step.
  Value handed = end ? end->getOperand(0) : Value();
  Value partials = end ? perThreadBuffer(handed.getType()) : Value();
  auto loop = scf::ForOp::create(b, at, zero, threads, one);
  OpBuilder inner = OpBuilder::atBlockTerminator(loop.getBody());
  Value thread = loop.getInductionVar();
  IRMapping mapping;
  mapping.map(lane, thread);
  // What the step's ops read from other steps.
  auto read = [&](Value value) {
    if (!mapping.contains(value) &&
        (kept.count(value) || uniform.contains(value)))
      mapping.map(value, lookup(inner, value, thread));
  };
  for (Operation *op : ops)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        read(operand);
    });
  if (end)
    read(handed);
  for (Operation *op : ops) {
    Operation *copy = inner.clone(*op, mapping);
    for (auto [result, copied] :
         llvm::zip(op->getResults(), copy->getResults())) {
      // Kept if something outside the step (but the op that ends it) uses
      // it.
      bool usedLater = llvm::any_of(result.getUsers(), [&](Operation *user) {
        Operation *top = op->getBlock()->findAncestorOpInBlock(*user);
        return !top || (!inStep.contains(top) && top != end);
      });
      if (!usedLater)
        continue;
      Value buffer = perThreadBuffer(result.getType());
      kept[result] = buffer;
      memref::StoreOp::create(inner, at, copied, buffer, ValueRange{thread});
    }
  }
  if (!end)
    return success();
  memref::StoreOp::create(inner, at, mapping.lookupOrDefault(handed), partials,
                          ValueRange{thread});
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(end))
    return exchange(b, shuffle, partials);
  auto reduce = cast<gpu::AllReduceOp>(end);
  // Thread 0's value, then the others' in order.
  Value first = memref::LoadOp::create(b, at, partials, ValueRange{zero});
  bool unknown = false;
  auto fold = scf::ForOp::create(
      b, at, one, threads, one, ValueRange{first},
      [&](OpBuilder &nested, Location l, Value index, ValueRange acc) {
        Value next =
            memref::LoadOp::create(nested, l, partials, ValueRange{index});
        FailureOr<Value> combined =
            combine(nested, l, *reduce.getOp(), acc[0], next);
        if (failed(combined)) {
          unknown = true;
          combined = next;
        }
        scf::YieldOp::create(nested, l, *combined);
      });
  if (unknown)
    return reduce.emitError("this all_reduce cannot be emulated");
  uniform.map(reduce.getResult(), fold.getResult(0));
  return success();
}

/// A shuffle's result, kept per thread: thread t gets the value `values`
/// holds for the lane it names (xor: t ^ offset within its group of
/// `width`; idx: that lane of its group; up and down: t -/+ offset, where
/// valid). The offset and width must be constants.
LogicalResult ThreadEmulator::exchange(OpBuilder &b, gpu::ShuffleOp shuffle,
                                       Value values) {
  std::optional<int64_t> offset = getConstantIntValue(shuffle.getOffset());
  std::optional<int64_t> width = getConstantIntValue(shuffle.getWidth());
  if (!offset || !width || *width <= 0)
    return shuffle.emitError("a shuffle of an offset or width not known at "
                             "compile time cannot be emulated");
  Location at = loc();
  Value zero = arith::ConstantIndexOp::create(b, at, 0);
  Value one = arith::ConstantIndexOp::create(b, at, 1);
  Value threads = arith::ConstantIndexOp::create(b, at, count);
  Value results = perThreadBuffer(shuffle.getShuffleResult().getType());
  Value valid = perThreadBuffer(shuffle.getValid().getType());
  auto loop = scf::ForOp::create(b, at, zero, threads, one);
  OpBuilder inner = OpBuilder::atBlockTerminator(loop.getBody());
  Value thread = loop.getInductionVar();
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(inner, at, v).getResult();
  };
  Value group = arith::MulIOp::create(
      inner, at, arith::DivUIOp::create(inner, at, thread, constant(*width)),
      constant(*width));
  Value lane = arith::SubIOp::create(inner, at, thread, group);
  Value source;
  switch (shuffle.getMode()) {
  case gpu::ShuffleMode::XOR:
    source = arith::XOrIOp::create(inner, at, lane, constant(*offset));
    break;
  case gpu::ShuffleMode::IDX:
    source = constant(*offset);
    break;
  case gpu::ShuffleMode::DOWN:
    source = arith::AddIOp::create(inner, at, lane, constant(*offset));
    break;
  case gpu::ShuffleMode::UP:
    source = arith::SubIOp::create(inner, at, lane, constant(*offset));
    break;
  }
  // Within the group (an index below 0 wrapped around to a large one).
  Value inRange = arith::CmpIOp::create(inner, at, arith::CmpIPredicate::ult,
                                        source, constant(*width));
  Value from = arith::AddIOp::create(
      inner, at, group,
      arith::SelectOp::create(inner, at, inRange, source, lane));
  Value value = memref::LoadOp::create(inner, at, values, ValueRange{from});
  memref::StoreOp::create(inner, at, value, results, ValueRange{thread});
  memref::StoreOp::create(inner, at, inRange, valid, ValueRange{thread});
  kept[shuffle.getShuffleResult()] = results;
  kept[shuffle.getValid()] = valid;
  return success();
}

/// A loop that every thread runs alike (its bounds are thread 0's) and
/// that holds barriers: the loop runs once, each iteration its steps over
/// the threads; its iteration arguments live in per-thread buffers.
LogicalResult ThreadEmulator::emitLoop(OpBuilder &b, scf::ForOp loop) {
  Location at = loc();
  Value zero = arith::ConstantIndexOp::create(b, at, 0);
  Value one = arith::ConstantIndexOp::create(b, at, 1);
  Value threads = arith::ConstantIndexOp::create(b, at, count);
  auto bound = [&](Value v) { return lookup(b, v, zero); };
  SmallVector<Value> buffers;
  for (Value arg : loop.getRegionIterArgs()) {
    buffers.push_back(perThreadBuffer(arg.getType()));
    kept[arg] = buffers.back();
  }
  // Each thread's initial values, then, after each iteration, the values
  // it yields (all read before any is written: one may be another's
  // argument).
  auto copyIn = [&](OpBuilder &builder, ValueRange values) {
    if (values.empty())
      return;
    auto copy = scf::ForOp::create(builder, at, zero, threads, one);
    OpBuilder inner = OpBuilder::atBlockTerminator(copy.getBody());
    Value thread = copy.getInductionVar();
    SmallVector<Value> read = llvm::map_to_vector(
        values, [&](Value v) { return lookup(inner, v, thread); });
    for (auto [value, buffer] : llvm::zip(read, buffers))
      memref::StoreOp::create(inner, at, value, buffer, ValueRange{thread});
  };
  copyIn(b, loop.getInitArgs());
  auto emulated =
      scf::ForOp::create(b, at, bound(loop.getLowerBound()),
                         bound(loop.getUpperBound()), bound(loop.getStep()));
  uniform.map(loop.getInductionVar(), emulated.getInductionVar());
  OpBuilder body = OpBuilder::atBlockTerminator(emulated.getBody());
  if (failed(emitBlock(body, *loop.getBody())))
    return failure();
  copyIn(body, loop.getBody()->getTerminator()->getOperands());
  for (auto [result, buffer] : llvm::zip(loop.getResults(), buffers))
    kept[result] = buffer;
  return success();
}

/// Runs the threads of `lanes` (a thread loop from 0 by 1 whose body holds
/// barriers or all_reduces) one after another, step by step.
LogicalResult emulate(scf::ParallelOp lanes) {
  std::optional<int64_t> count = getConstantIntValue(lanes.getUpperBound()[0]);
  if (!count || getConstantIntValue(lanes.getLowerBound()[0]) != 0 ||
      getConstantIntValue(lanes.getStep()[0]) != 1)
    return lanes.emitError("a thread loop of unknown extent cannot be "
                           "emulated");
  ThreadEmulator emulator(lanes, *count);
  OpBuilder b(lanes);
  if (failed(emulator.emitBlock(b, *lanes.getBody())))
    return failure();
  lanes.erase();
  return success();
}

struct EmulateGpuThreadsPass
    : autoglm::impl::EmulateGpuThreadsBase<EmulateGpuThreadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> threadLoops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() == 1 &&
          llvm::any_of(loop.getBody()->getOperations(), [](Operation &op) {
            return synchronizes(op) ||
                   (isa<scf::ForOp>(op) && holdsSynchronization(&op));
          }))
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
                         << "' outside the top level of a thread loop (or "
                            "of an scf.for there) cannot be emulated";
      return WalkResult::interrupt();
    });
    if (stray.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
