//===- EmulateGpuThreads.cpp - a block's threads in sequence, on the CPU --===//
//
// The kernels autoglm-map-loops-to-gpu and autoglm-attention-to-gpu make
// synchronize their threads (gpu.barrier) and exchange values
// (gpu.all_reduce, gpu.shuffle, nvgpu.ldmatrix, nvgpu.mma.sync), which
// have no meaning in a CPU loop. For tests, this pass turns each thread
// loop that holds them into what a GPU computes, one thread after another:
// the loop's body is cut at every one of them into steps, each step a loop
// over the threads; a value that one step makes and a later one uses is
// kept per thread in a buffer, an all_reduce combines the threads' values
// in order into one that every later step reads, a shuffle hands each
// thread the value of the lane it names, an ldmatrix gives each lane its
// elements of the rows its warp's lanes point at, and an mma.sync
// computes each lane's share of its warp's product from the fragments all
// of the warp's lanes hold. Then the CPU pipeline's lowering can
// run the function (lit tests with mlir-runner compare the kernels with the
// loops they came from).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <numeric>

namespace autoglm {
#define GEN_PASS_DEF_EMULATEGPUTHREADS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

bool synchronizes(Operation &op) {
  return isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::ShuffleOp,
             nvgpu::LdMatrixOp, nvgpu::MmaSyncOp>(op);
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

/// Whether `op` is or holds a barrier, all_reduce, shuffle, ldmatrix or
/// mma.sync.
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
  using LaneBody =
      function_ref<Value(OpBuilder &, Value thread, Value lane, Value warp)>;
  LogicalResult perLane(OpBuilder &b, Operation *op, Value result,
                        LaneBody body);
  LogicalResult multiply(OpBuilder &b, nvgpu::MmaSyncOp mma, Value aFragments,
                         Value bFragments, Value cFragments);
  LogicalResult loadMatrices(OpBuilder &b, nvgpu::LdMatrixOp load,
                             ArrayRef<Value> rowIndices);
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
    if (isa<gpu::ShuffleOp, nvgpu::LdMatrixOp, nvgpu::MmaSyncOp>(op)) {
      if (failed(emitStep(b, step, &op)))
        return failure();
      step.clear();
      continue;
    }
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return op.emitError("'")
             << op.getName()
             << "' holds a barrier, all_reduce, shuffle, ldmatrix or mma.sync, "
                "which only the top level of a thread loop or an scf.for "
                "there may hold to be emulated";
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
  // The values each thread hands to the op that ends the step: an
  // mma.sync its three fragments, an ldmatrix the indices of the row it
  // points at, the others their first operand.
  SmallVector<Value> handed;
  if (auto load = dyn_cast_if_present<nvgpu::LdMatrixOp>(end))
    handed.assign(load.getIndices().begin(), load.getIndices().end());
  else if (end)
    handed.assign(end->operand_begin(),
                  end->operand_begin() + (isa<nvgpu::MmaSyncOp>(end) ? 3 : 1));
  SmallVector<Value> partials = llvm::map_to_vector(
      handed, [&](Value v) { return perThreadBuffer(v.getType()); });
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
  for (Value value : handed)
    read(value);
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
  for (auto [value, buffer] : llvm::zip(handed, partials))
    memref::StoreOp::create(inner, at, mapping.lookupOrDefault(value), buffer,
                            ValueRange{thread});
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(end))
    return exchange(b, shuffle, partials[0]);
  if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(end))
    return multiply(b, mma, partials[0], partials[1], partials[2]);
  if (auto load = dyn_cast<nvgpu::LdMatrixOp>(end))
    return loadMatrices(b, load, partials);
  auto reduce = cast<gpu::AllReduceOp>(end);
  // Thread 0's value, then the others' in order.
  Value first = memref::LoadOp::create(b, at, partials[0], ValueRange{zero});
  bool unknown = false;
  auto fold = scf::ForOp::create(
      b, at, one, threads, one, ValueRange{first},
      [&](OpBuilder &nested, Location l, Value index, ValueRange acc) {
        Value next =
            memref::LoadOp::create(nested, l, partials[0], ValueRange{index});
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

/// One-dimensional vectors joined end to end.
Value concatenate(OpBuilder &b, Location loc, ArrayRef<Value> parts) {
  SmallVector<Value> level(parts);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      int64_t left = cast<VectorType>(level[i].getType()).getNumElements();
      int64_t right = cast<VectorType>(level[i + 1].getType()).getNumElements();
      SmallVector<int64_t> order(left + right);
      std::iota(order.begin(), order.end(), 0);
      next.push_back(
          vector::ShuffleOp::create(b, loc, level[i], level[i + 1], order));
    }
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

/// `result` of the warp-level `op`, kept per thread: `body` computes each
/// thread's from its index, its index in its warp and its warp's first
/// thread, in a loop over the threads after the step.
LogicalResult ThreadEmulator::perLane(OpBuilder &b, Operation *op, Value result,
                                      LaneBody body) {
  if (count % 32)
    return op->emitError("'")
           << op->getName() << "' in a thread loop of " << count
           << " threads (not whole warps) cannot be emulated";
  Location at = loc();
  Value zero = arith::ConstantIndexOp::create(b, at, 0);
  Value one = arith::ConstantIndexOp::create(b, at, 1);
  Value threads = arith::ConstantIndexOp::create(b, at, count);
  Value results = perThreadBuffer(result.getType());
  auto loop = scf::ForOp::create(b, at, zero, threads, one);
  OpBuilder inner = OpBuilder::atBlockTerminator(loop.getBody());
  Value thread = loop.getInductionVar();
  Value warpSize = arith::ConstantIndexOp::create(inner, at, 32);
  Value laneIndex = arith::RemUIOp::create(inner, at, thread, warpSize);
  Value warp = arith::SubIOp::create(inner, at, thread, laneIndex);
  memref::StoreOp::create(inner, at, body(inner, thread, laneIndex, warp),
                          results, ValueRange{thread});
  kept[result] = results;
  return success();
}

/// An mma.sync's result, kept per thread: each lane's share of its warp's
/// 16x8 D = A x B + C, the fragments spread over the lanes as the PTX ISA
/// lays out mma.m16n8k16 (f16 and bf16 operands, f32 sums). Lane l is in
/// group g = l / 4 at position c = l % 4: its A registers hold row g
/// (registers 0, 2) and row g + 8 (1, 3), columns 2c, 2c + 1 (0, 1) and
/// 8 more (2, 3); its B registers hold column g, rows 2c, 2c + 1 (0) and 8
/// more (1); its C and D registers rows g (0) and g + 8 (1), columns 2c,
/// 2c + 1. So a row of A is spread over the 4 lanes of its group, a column
/// of B over the 4 lanes of the group it names.
LogicalResult ThreadEmulator::multiply(OpBuilder &b, nvgpu::MmaSyncOp mma,
                                       Value aFragments, Value bFragments,
                                       Value cFragments) {
  auto aType = cast<VectorType>(mma.getMatrixA().getType());
  auto cType = cast<VectorType>(mma.getMatrixC().getType());
  if (mma.getMmaShapeAsArray() != std::array<int64_t, 3>{16, 8, 16} ||
      aType.getElementTypeBitWidth() != 16 || !cType.getElementType().isF32())
    return mma.emitError("only an mma.sync of shape 16x8x16 with 16-bit "
                         "operands and f32 sums can be emulated");
  return perLane(
      b, mma, mma.getRes(),
      [&](OpBuilder &inner, Value thread, Value lane, Value warp) {
        Location at = loc();
        auto constant = [&](int64_t v) {
          return arith::ConstantIndexOp::create(inner, at, v).getResult();
        };
        Value group = arith::DivUIOp::create(inner, at, lane, constant(4));
        Value position = arith::RemUIOp::create(inner, at, lane, constant(4));
        auto f32 = inner.getF32Type();
        // The fragments of the 4 lanes of group `g`, widened to f32.
        auto groupFragments = [&](Value buffer, Value g) {
          SmallVector<Value> fragments;
          for (int64_t p = 0; p < 4; ++p) {
            Value source = arith::AddIOp::create(
                inner, at, warp,
                arith::AddIOp::create(
                    inner, at, arith::MulIOp::create(inner, at, g, constant(4)),
                    constant(p)));
            Value fragment =
                memref::LoadOp::create(inner, at, buffer, ValueRange{source});
            auto type = cast<VectorType>(fragment.getType());
            fragments.push_back(arith::ExtFOp::create(
                inner, at, VectorType::get(type.getShape(), f32), fragment));
          }
          return fragments;
        };
        // The 16 values along k held by registers `first` and `second` of the
        // 4 lanes: k = 2 x lane's position + 0, 1 in `first`, 8 more in
        // `second`.
        auto alongK = [&](ArrayRef<Value> fragments, int64_t first,
                          int64_t second) {
          SmallVector<Value> pairs;
          for (int64_t reg : {first, second})
            for (Value fragment : fragments)
              pairs.push_back(vector::ExtractOp::create(
                  inner, at, fragment, ArrayRef<int64_t>{reg}));
          return concatenate(inner, at, pairs);
        };
        SmallVector<Value> aGroup = groupFragments(aFragments, group);
        Value rows[] = {alongK(aGroup, 0, 2), alongK(aGroup, 1, 3)};
        Value columns[2];
        for (int64_t j = 0; j < 2; ++j) {
          Value column = arith::AddIOp::create(
              inner, at,
              arith::MulIOp::create(inner, at, position, constant(2)),
              constant(j));
          columns[j] = alongK(groupFragments(bFragments, column), 0, 1);
        }
        Value c =
            memref::LoadOp::create(inner, at, cFragments, ValueRange{thread});
        SmallVector<Value> sums;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            Value products =
                arith::MulFOp::create(inner, at, rows[i], columns[j]);
            Value acc = vector::ExtractOp::create(inner, at, c,
                                                  ArrayRef<int64_t>{i, j});
            sums.push_back(vector::ReductionOp::create(
                inner, at, vector::CombiningKind::ADD, products, acc));
          }
        return vector::FromElementsOp::create(inner, at, cType, sums)
            .getResult();
      });
}

/// An ldmatrix's result, kept per thread: of each of its 8x8 matrices of
/// 16-bit elements (matrix m's rows start where lanes 8m to 8m + 7 point,
/// along the buffer's last dimension), lane l gets row l / 4, columns
/// 2 x (l % 4) and the next; transposed, rows 2 x (l % 4) and the next,
/// column l / 4.
LogicalResult ThreadEmulator::loadMatrices(OpBuilder &b, nvgpu::LdMatrixOp load,
                                           ArrayRef<Value> rowIndices) {
  // The buffer itself, not its view in the workgroup space (on the CPU,
  // the default space is the only one).
  Value source = load.getSrcMemref();
  if (auto view = source.getDefiningOp<memref::MemorySpaceCastOp>())
    source = view.getSource();
  Operation *threadLoop = lane.getParentRegion()->getParentOp();
  if (threadLoop->isAncestor(source.getParentBlock()->getParentOp()))
    return load.emitError("only an ldmatrix of a buffer defined outside the "
                          "thread loop can be emulated");
  auto type = cast<VectorType>(load.getRes().getType());
  return perLane(
      b, load, load.getRes(),
      [&](OpBuilder &inner, Value thread, Value laneIndex, Value warp) {
        Location at = loc();
        auto constant = [&](int64_t v) {
          return arith::ConstantIndexOp::create(inner, at, v).getResult();
        };
        auto add = [&](Value x, Value y) {
          return arith::AddIOp::create(inner, at, x, y).getResult();
        };
        Value row = arith::DivUIOp::create(inner, at, laneIndex, constant(4));
        Value pair = arith::MulIOp::create(
            inner, at,
            arith::RemUIOp::create(inner, at, laneIndex, constant(4)),
            constant(2));
        SmallVector<Value> elements;
        for (int64_t m = 0; m < load.getNumTiles(); ++m)
          for (int64_t e = 0; e < 2; ++e) {
            // The lane that points at the element's row, and its column there.
            Value pointer = load.getTranspose() ? add(pair, constant(8 * m + e))
                                                : add(row, constant(8 * m));
            Value column = load.getTranspose() ? row : add(pair, constant(e));
            SmallVector<Value> indices;
            for (Value index : rowIndices)
              indices.push_back(memref::LoadOp::create(
                  inner, at, index, ValueRange{add(warp, pointer)}));
            indices.back() = add(indices.back(), column);
            elements.push_back(
                memref::LoadOp::create(inner, at, source, indices));
          }
        return vector::FromElementsOp::create(inner, at, type, elements)
            .getResult();
      });
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
  // A lane's index in its warp: the thread's, modulo 32.
  lanes.walk([&](gpu::LaneIdOp laneId) {
    OpBuilder at(laneId);
    Value warpSize = arith::ConstantIndexOp::create(at, laneId.getLoc(), 32);
    laneId.replaceAllUsesWith(
        arith::RemUIOp::create(at, laneId.getLoc(), lanes.getInductionVars()[0],
                               warpSize)
            .getResult());
    laneId.erase();
  });
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
      return signalPassFailure();
    // The workgroup views that only the ldmatrix ops read
    // (autoglm-emulate-gpu-launches), unused now.
    getOperation().walk([](memref::MemorySpaceCastOp view) {
      if (view->use_empty())
        view->erase();
    });
  }
};

} // namespace
