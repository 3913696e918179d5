//===- RowKernels.cpp - row-wise loop nests as one GPU kernel -------------===//
//
// A run of loop nests over the same rows becomes one nest mapped to a block
// per row:
//
//   rows (blocks) { threads t {
//     fill / per-row arithmetic:  if t == 0 { body }
//     reduction:  partial = for j = t .. n step T (from neutral) { ... }
//                 total = gpu.all_reduce partial
//                 if t == 0 { store combine(initial, total) }
//     along the row:  for j = t .. n step T { body }
//     gpu.barrier between steps
//   } }
//
// The barrier orders what one thread of the row wrote and another reads;
// nothing orders blocks, so every byte that a step writes must belong to
// its row alone in every step that touches it: loads and stores indexed by
// the row's loop indices, in buffers laid out row after row alike.
//
//===----------------------------------------------------------------------===//

#include "passes/RowKernels.h"
#include "passes/BufferFacts.h"
#include "passes/SizeBounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;

gpu::ParallelLoopDimMappingAttr autoglm::mapTo(MLIRContext *context,
                                               gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                              identity);
}

namespace {

/// The block-wide reduction that combines partial results as `combiner`
/// does, if gpu.all_reduce has one.
std::optional<gpu::AllReduceOperation> allReduceKind(Operation *combiner) {
  using Kind = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(combiner)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
      .Case([](arith::MinUIOp) { return Kind::MINUI; })
      .Case([](arith::AndIOp) { return Kind::AND; })
      .Case([](arith::OrIOp) { return Kind::OR; })
      .Case([](arith::XOrIOp) { return Kind::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `value` is computed (inside `scope`) from `source`.
bool dependsOn(Value value, Value source, Region &scope) {
  SmallVector<Value> work{value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == source)
      return true;
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (def && scope.isAncestor(def->getParentRegion()))
      llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// Whether `op` and what it holds touch memory only by memref.load and
/// memref.store.
bool onlyLoadsAndStores(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (isa<memref::LoadOp, memref::StoreOp>(nested))
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested))
      return effects.hasNoEffect() ? WalkResult::advance()
                                   : WalkResult::interrupt();
    return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                   nested->hasTrait<OpTrait::IsTerminator>()
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

bool writesMemory(Operation *op) {
  bool writes = false;
  op->walk([&](memref::StoreOp) { writes = true; });
  return writes;
}

/// A row reduction in the body of a parallel loop nest: the one loop of
/// the body, whose iteration arguments are accumulators, each combined
/// with a value computed from the iteration alone; nothing before the
/// loop or in it writes memory (every thread of the row's block runs it).
struct RowReduction {
  scf::ForOp loop;
  SmallVector<Operation *> combiners; // one per iteration argument
};

std::optional<RowReduction> matchRowReduction(scf::ParallelOp nest) {
  RowReduction row;
  for (Operation &op : nest.getBody()->without_terminator()) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (row.loop)
        return std::nullopt;
      row.loop = loop;
      continue;
    }
    if (op.getNumRegions() != 0 || (!row.loop && writesMemory(&op)))
      return std::nullopt;
  }
  scf::ForOp loop = row.loop;
  if (!loop || loop.getNumRegionIterArgs() == 0 || writesMemory(loop) ||
      nest.getNumReductions() != 0 ||
      !loop.getInductionVar().getType().isIndex())
    return std::nullopt;
  // What the warp shuffles carry: 32- and 64-bit integers and floats.
  for (Type type : loop.getResultTypes())
    if (!(type.isF32() || type.isF64() || type.isInteger(32) ||
          type.isInteger(64)))
      return std::nullopt;
  // Worth a block: at least a warp's worth of iterations.
  if (std::optional<APInt> trips = loop.getStaticTripCount();
      trips && trips->getSExtValue() < 32)
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [index, accumulator] : llvm::enumerate(loop.getRegionIterArgs())) {
    if (!accumulator.hasOneUse())
      return std::nullopt;
    Operation *combiner = *accumulator.getUsers().begin();
    if (combiner->getBlock() != loop.getBody() ||
        combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
        !allReduceKind(combiner) || !arith::getNeutralElement(combiner) ||
        !combiner->getResult(0).hasOneUse() ||
        yield.getOperand(index) != combiner->getResult(0))
      return std::nullopt;
    Value other = combiner->getOperand(combiner->getOperand(0) == accumulator);
    for (BlockArgument any : loop.getRegionIterArgs())
      if (dependsOn(other, any, loop.getRegion()))
        return std::nullopt;
    row.combiners.push_back(combiner);
  }
  // The rows' unit stride runs along the loop: some load's last index
  // follows the loop's index. (Else a thread per row reads coalesced.)
  bool alongRows = false;
  loop.getBody()->walk([&](memref::LoadOp load) {
    if (!load.getIndices().empty() &&
        dependsOn(load.getIndices().back(), loop.getInductionVar(),
                  loop.getRegion()))
      alongRows = true;
  });
  if (!alongRows)
    return std::nullopt;
  return row;
}

/// Extents of rows: constants, or index values (symbolic extents).
using Extents = SmallVector<OpFoldResult>;

OpFoldResult resolved(OpFoldResult extent);

/// Extent `d` of `buffer`: a constant, or the size its view or allocation
/// was made with; null when neither shows it.
OpFoldResult extentOf(Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(d))
    return IntegerAttr::get(IndexType::get(buffer.getContext()),
                            type.getDimSize(d));
  Operation *def = buffer.getDefiningOp();
  if (auto reinterpret = dyn_cast_or_null<memref::ReinterpretCastOp>(def))
    return reinterpret.getMixedSizes()[d];
  if (auto view = dyn_cast_or_null<memref::ViewOp>(def))
    return view.getSizes()[type.getDynamicDimIndex(d)];
  if (auto alloc = dyn_cast_or_null<memref::AllocOp>(def))
    return alloc.getDynamicSizes()[type.getDynamicDimIndex(d)];
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(def))
    return expand.getMixedOutputShape()[d];
  return {};
}

/// `extent` with each memref.dim of a view taken for the size the view was
/// made with: one symbolic extent then compares equal whichever view it
/// was read from.
OpFoldResult resolved(OpFoldResult extent) {
  while (auto value = dyn_cast_if_present<Value>(extent)) {
    auto dim = value.getDefiningOp<memref::DimOp>();
    std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
    OpFoldResult source = index ? extentOf(dim.getSource(), *index) : nullptr;
    if (!source)
      break;
    extent = source;
  }
  return extent;
}

bool sameExtent(OpFoldResult a, OpFoldResult b) {
  return a && b && isEqualConstantIntOrValue(resolved(a), resolved(b));
}

bool sameExtents(ArrayRef<OpFoldResult> a, ArrayRef<OpFoldResult> b) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return sameExtent(std::get<0>(pair), std::get<1>(pair));
         });
}

/// The largest value `extent` takes (SizeBounds.h), if bounded.
std::optional<int64_t> largest(OpFoldResult extent) {
  extent = resolved(extent);
  if (std::optional<int64_t> constant = getConstantIntValue(extent))
    return constant;
  std::optional<autoglm::Interval> bounds =
      autoglm::boundsOf(cast<Value>(extent));
  return bounds ? std::optional<int64_t>(bounds->hi) : std::nullopt;
}

/// The extents of a nest that runs from 0 by 1.
std::optional<Extents> extents(scf::ParallelOp nest) {
  Extents result;
  for (unsigned d = 0; d < nest.getNumLoops(); ++d) {
    std::optional<int64_t> lb = getConstantIntValue(nest.getLowerBound()[d]);
    std::optional<int64_t> step = getConstantIntValue(nest.getStep()[d]);
    OpFoldResult ub = getAsOpFoldResult(nest.getUpperBound()[d]);
    if (lb != 0 || step != 1 || getConstantIntValue(ub).value_or(0) < 0)
      return std::nullopt;
    result.push_back(ub);
  }
  return result;
}

/// How a nest takes part in a row kernel.
enum class Step {
  PerRow,    // one iteration per row: the first thread runs it
  Reduction, // a reduction along the row: all threads, then all_reduce
  AlongRow,  // one more loop, along the row: the threads stride through it
};

struct Member {
  scf::ParallelOp nest;
  Step step;
  std::optional<RowReduction> reduction;
};

bool hasNestedRegions(scf::ParallelOp nest) {
  return llvm::any_of(nest.getBody()->without_terminator(),
                      [](Operation &op) { return op.getNumRegions() != 0; });
}

/// How `nest` fits a row kernel over `rows`, if it does.
std::optional<Member> classify(scf::ParallelOp nest,
                               ArrayRef<OpFoldResult> rows) {
  std::optional<Extents> shape = extents(nest);
  if (!shape || nest.getNumReductions() != 0 ||
      nest->hasAttr(gpu::getMappingAttrName()) || !onlyLoadsAndStores(nest))
    return std::nullopt;
  ArrayRef<OpFoldResult> all(*shape);
  if (sameExtents(all, rows)) {
    if (std::optional<RowReduction> reduction = matchRowReduction(nest))
      return Member{nest, Step::Reduction, reduction};
    if (!hasNestedRegions(nest))
      return Member{nest, Step::PerRow, std::nullopt};
    return std::nullopt;
  }
  if (all.size() == rows.size() + 1 && sameExtents(all.drop_back(), rows) &&
      !hasNestedRegions(nest))
    return Member{nest, Step::AlongRow, std::nullopt};
  return std::nullopt;
}

/// The rows of a row reduction that a block per row can take: at most
/// three dimensions, y and z within CUDA's 65535 (symbolic ones, for every
/// value they may take).
std::optional<Extents> reductionRows(scf::ParallelOp nest) {
  std::optional<Extents> rows = extents(nest);
  if (!rows || rows->size() > 3 || !classify(nest, *rows) ||
      classify(nest, *rows)->step != Step::Reduction)
    return std::nullopt;
  for (OpFoldResult extent : ArrayRef<OpFoldResult>(*rows).drop_back())
    if (largest(extent).value_or(INT64_MAX) > 65535)
      return std::nullopt;
  return rows;
}

/// A load or store in a member of a row kernel.
struct Access {
  Operation *op;
  unsigned member;
  bool write;
  Value memref() const {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return load.getMemref();
    return cast<memref::StoreOp>(op).getMemref();
  }
  ValueRange indices() const {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return load.getIndices();
    return cast<memref::StoreOp>(op).getIndices();
  }
};

/// Whether `access` in `nest` touches its own row only: its first indices
/// are the row's loop indices over a buffer of the rows' extents, and the
/// others do not depend on them.
bool inOwnRow(const Access &access, scf::ParallelOp nest,
              ArrayRef<OpFoldResult> rows) {
  auto type = cast<MemRefType>(access.memref().getType());
  ValueRange indices = access.indices();
  if (type.getRank() < static_cast<int64_t>(rows.size()))
    return false;
  for (auto [d, extent] : llvm::enumerate(rows))
    if (!sameExtent(extentOf(access.memref(), d), extent))
      return false;
  for (auto [d, index] : llvm::enumerate(indices)) {
    if (d < rows.size()) {
      if (index != nest.getInductionVars()[d])
        return false;
      continue;
    }
    for (unsigned r = 0; r < rows.size(); ++r)
      if (dependsOn(index, nest.getInductionVars()[r], nest.getRegion()))
        return false;
  }
  return true;
}

/// Whether `p` is `a * b`: constants, a factor of 1, or an arith.muli of
/// the two.
bool isProduct(OpFoldResult p, OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a);
  std::optional<int64_t> cb = getConstantIntValue(b);
  if (ca && cb)
    return getConstantIntValue(p) == *ca * *cb;
  if (ca == 1)
    return sameExtent(p, b);
  if (cb == 1)
    return sameExtent(p, a);
  auto value = dyn_cast<Value>(p);
  auto mul = value ? value.getDefiningOp<arith::MulIOp>() : nullptr;
  return mul && ((sameExtent(mul.getLhs(), a) && sameExtent(mul.getRhs(), b)) ||
                 (sameExtent(mul.getLhs(), b) && sameExtent(mul.getRhs(), a)));
}

/// A reinterpret_cast that views a contiguous buffer from its first element
/// with row-major strides: a reshape of symbolic extents
/// (autoglm-contiguous-reshapes, RowMajorView.h).
bool isRowMajorReshape(memref::ReinterpretCastOp view) {
  auto source = view.getSource();
  SmallVector<OpFoldResult> sizes = view.getMixedSizes();
  SmallVector<OpFoldResult> strides = view.getMixedStrides();
  if (!cast<MemRefType>(source.getType()).getLayout().isIdentity() ||
      getConstantIntValue(view.getMixedOffsets()[0]) != 0 ||
      (!strides.empty() && getConstantIntValue(strides.back()) != 1))
    return false;
  for (size_t d = 0; d + 1 < strides.size(); ++d)
    if (!isProduct(strides[d], sizes[d + 1], strides[d + 1]))
      return false;
  return true;
}

/// The buffer that `buffer`, a contiguous row-major buffer, reshapes (or
/// itself): reshapes keep both the first byte and the order of elements.
Value reshapedBuffer(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto view = buffer.getDefiningOp<memref::ReinterpretCastOp>();
  if (!memref::isStaticShapeAndContiguousRowMajor(type) &&
      !type.getLayout().isIdentity() && !(view && isRowMajorReshape(view)))
    return {};
  while (Operation *def = buffer.getDefiningOp()) {
    auto reshape = dyn_cast<memref::ReinterpretCastOp>(def);
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def) &&
        !(reshape && isRowMajorReshape(reshape)))
      break;
    buffer = def->getOperand(0);
  }
  return buffer;
}

/// The tensor a buffer views: its view of the arena (or its allocation,
/// or the model's argument), through any other views.
Value tensorOf(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || isa<memref::ViewOp>(def))
      break;
    buffer = view.getViewSource();
  }
  return buffer;
}

/// Whether two accesses, each in its own row, put every row in the same
/// bytes: reshapes of one contiguous buffer (or of views at the same
/// byte), with as many elements per row, of the same type.
bool sameRows(Value a, Value b, unsigned rank) {
  auto typeA = cast<MemRefType>(a.getType());
  auto typeB = cast<MemRefType>(b.getType());
  Value rootA = reshapedBuffer(a), rootB = reshapedBuffer(b);
  if (!rootA || !rootB || typeA.getElementType() != typeB.getElementType())
    return false;
  // As many elements per row: constant counts, or the same extents.
  auto perRow = [&](Value buffer) {
    Extents extents;
    for (int64_t d = rank; d < cast<MemRefType>(buffer.getType()).getRank();
         ++d)
      extents.push_back(extentOf(buffer, d));
    return extents;
  };
  auto count = [](ArrayRef<OpFoldResult> extents) -> std::optional<int64_t> {
    int64_t elements = 1;
    for (OpFoldResult extent : extents) {
      std::optional<int64_t> constant = getConstantIntValue(extent);
      if (!constant)
        return std::nullopt;
      elements *= *constant;
    }
    return elements;
  };
  Extents rowA = perRow(a), rowB = perRow(b);
  std::optional<int64_t> countA = count(rowA), countB = count(rowB);
  if (countA && countB ? *countA != *countB : !sameExtents(rowA, rowB))
    return false;
  if (rootA == rootB)
    return true;
  std::optional<autoglm::MemoryRange> rangeA = autoglm::memoryRange(rootA);
  std::optional<autoglm::MemoryRange> rangeB = autoglm::memoryRange(rootB);
  return rangeA && rangeB && rangeA->base == rangeB->base &&
         rangeA->begin == rangeB->begin &&
         isa<memref::ViewOp>(rootA.getDefiningOp()) &&
         isa<memref::ViewOp>(rootB.getDefiningOp());
}

/// Whether `nest` writes every element of `buffer` (through the same view)
/// and reads none of it: a fill as a loop nest, one store per point of a
/// nest over the buffer's extents (symbolic ones as its view was made).
bool fillsWhole(scf::ParallelOp nest, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (nest.getNumLoops() != static_cast<unsigned>(type.getRank()))
    return false;
  for (auto [d, lower, upper, step] : llvm::enumerate(
           nest.getLowerBound(), nest.getUpperBound(), nest.getStep()))
    if (!isConstantIntValue(lower, 0) || !isConstantIntValue(step, 1) ||
        !sameExtent(getAsOpFoldResult(upper), extentOf(buffer, d)))
      return false;
  bool stores = false, other = false;
  nest.getBody()->walk([&](Operation *op) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (store && store.getMemRef() == buffer &&
        llvm::equal(store.getIndices(), nest.getInductionVars()) &&
        store->getBlock() == nest.getBody())
      stores = true;
    else if (llvm::is_contained(op->getOperands(), buffer))
      other = true;
  });
  return stores && !other;
}

/// Per-row values that need no memory in the kernel: buffers (taken
/// through reshapes, by their SSA root: the memory planner gives each
/// tensor a view of its own) with one element per row, every access to
/// which in the kernel is in its own row, first written by a per-row step
/// or a reduction's result at the top level of its nest, and which
/// nothing after the kernel reads (a view CSE merged with another buffer's
/// at the same bytes may be filled later). The kernel keeps them in
/// registers: a
/// load takes the value last stored, and the stores go. (A fill and a
/// reduction's accumulator, a normalization's statistics.)
llvm::DenseSet<Value> perRowValues(MutableArrayRef<Member> members,
                                   ArrayRef<OpFoldResult> rows) {
  // Each tensor's accesses, in order; null for one that cannot stay in a
  // register (another row's element, a row of several elements, a view
  // that is not a reshape).
  llvm::MapVector<Value, SmallVector<std::pair<Operation *, unsigned>>> roots;
  for (auto [index, member] : llvm::enumerate(members))
    member.nest.getBody()->walk([&](Operation *op) {
      if (!isa<memref::LoadOp, memref::StoreOp>(op))
        return;
      Access access{op, static_cast<unsigned>(index), isa<memref::StoreOp>(op)};
      auto type = cast<MemRefType>(access.memref().getType());
      int64_t perRow = 1;
      for (int64_t extent : type.getShape().drop_front(
               std::min<size_t>(rows.size(), type.getRank())))
        perRow = ShapedType::isDynamic(extent) ? 0 : perRow * extent;
      Value root = tensorOf(access.memref());
      bool scalar = perRow == 1 && reshapedBuffer(access.memref()) == root &&
                    inOwnRow(access, member.nest, rows);
      roots[root].push_back({scalar ? op : nullptr, index});
    });
  llvm::DenseSet<Value> values;
  Operation *last = members.back().nest;
  for (auto &[root, accesses] : roots) {
    if (isa<BlockArgument>(root))
      continue; // an input or output of the model
    auto fits = [&](std::pair<Operation *, unsigned> access) {
      auto [op, index] = access;
      if (!op)
        return false;
      Member &member = members[index];
      if (!isa<memref::StoreOp>(op))
        return true;
      // Stored once per row, by every thread alike.
      return member.step != Step::AlongRow &&
             op->getBlock() == member.nest.getBody();
    };
    if (!llvm::all_of(accesses, fits) ||
        !isa<memref::StoreOp>(accesses.front().first))
      continue;
    // Nothing after the kernel reads it: the first later op that uses the
    // buffer or a view of it (if any) overwrites it whole first. (One view
    // may serve several buffers that the planner put at the same bytes at
    // different times, CSE having merged their views.)
    Operation *next = nullptr;
    SmallVector<Value> work{root};
    while (!work.empty()) {
      Value value = work.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (isa<ViewLikeOpInterface>(user))
          llvm::append_range(work, user->getResults());
        Operation *top = last->getBlock()->findAncestorOpInBlock(*user);
        if (top && last->isBeforeInBlock(top) &&
            (!next || top->isBeforeInBlock(next)))
          next = top;
      }
    }
    auto fill = dyn_cast_or_null<scf::ParallelOp>(next);
    if (!next || (fill && fillsWhole(fill, root)))
      values.insert(root);
  }
  return values;
}

/// Whether the members can share a kernel: every byte that one writes is,
/// wherever the members touch it, in the same row; within one member, at
/// the same element.
bool rowsApart(MutableArrayRef<Member> members, ArrayRef<OpFoldResult> rows) {
  // Values kept in registers touch no memory.
  llvm::DenseSet<Value> inRegisters = perRowValues(members, rows);
  SmallVector<Access> accesses;
  for (auto [index, member] : llvm::enumerate(members))
    member.nest.getBody()->walk([&](Operation *op) {
      if (!isa<memref::LoadOp, memref::StoreOp>(op))
        return;
      Access access{op, static_cast<unsigned>(index), isa<memref::StoreOp>(op)};
      if (!inRegisters.contains(tensorOf(access.memref())))
        accesses.push_back(access);
    });
  for (const Access &write : accesses) {
    if (!write.write)
      continue;
    for (const Access &other : accesses) {
      if (autoglm::disjoint(write.memref(), other.memref()))
        continue;
      scf::ParallelOp writer = members[write.member].nest;
      scf::ParallelOp toucher = members[other.member].nest;
      if (!inOwnRow(write, writer, rows) || !inOwnRow(other, toucher, rows) ||
          !sameRows(write.memref(), other.memref(), rows.size()))
        return false;
      if (write.member == other.member &&
          (write.memref() != other.memref() ||
           !llvm::equal(write.indices(), other.indices())))
        return false;
    }
  }
  return true;
}

/// Threads per row: about four iterations each, from a warp to 1024.
int64_t threadsFor(std::optional<int64_t> iterations) {
  if (!iterations)
    return 256;
  int64_t quarter = (*iterations + 3) / 4;
  return std::clamp<int64_t>(llvm::alignTo(quarter, 32), 32, 1024);
}

/// Builds the row kernel of `members` before the last of them, and erases
/// them.
void buildRowKernel(MutableArrayRef<Member> members,
                    ArrayRef<OpFoldResult> rows) {
  scf::ParallelOp last = members.back().nest;
  MLIRContext *context = last.getContext();
  unsigned rank = rows.size();
  int64_t threads = 32;
  for (Member &member : members) {
    if (member.step == Step::Reduction) {
      std::optional<APInt> trips = member.reduction->loop.getStaticTripCount();
      threads = std::max(threads, threadsFor(trips ? std::optional<int64_t>(
                                                         trips->getSExtValue())
                                                   : std::nullopt));
    } else if (member.step == Step::AlongRow) {
      threads = std::max(threads, threadsFor(getConstantIntValue(
                                      member.nest.getUpperBound().back())));
    }
  }
  // The kernel takes its name and ONNX nodes from all of them.
  Location loc =
      FusedLoc::get(context, llvm::map_to_vector(members, [](Member &member) {
                      return Location(member.nest.getLoc());
                    }));

  OpBuilder b(last);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::ConstantIndexOp::create(b, loc, threads);
  SmallVector<Value> zeros(rank, zero), ones(rank, one), bounds;
  for (OpFoldResult extent : rows)
    bounds.push_back(getValueOrCreateConstantIndexOp(b, loc, extent));
  auto blocks = scf::ParallelOp::create(b, loc, zeros, bounds, ones);
  b.setInsertionPointToStart(blocks.getBody());
  auto lanes = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                       ValueRange{count}, ValueRange{one});
  Value lane = lanes.getInductionVars()[0];
  b.setInsertionPoint(lanes.getBody()->getTerminator());
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  // Per-row values kept in registers: each one's last value stored.
  llvm::DenseSet<Value> inRegisters = perRowValues(members, rows);
  llvm::DenseMap<Value, Value> registers;
  // The loads and stores of the step being built.
  int loads = 0, stores = 0;
  auto tally = [&](Operation *copy) {
    copy->walk([&](Operation *nested) {
      loads += isa<memref::LoadOp>(nested);
      stores += isa<memref::StoreOp>(nested);
    });
  };
  // Clones `op` at `at`: a load of a value in a register takes it, a store
  // into one sets it; other stores are the first thread's if `once`.
  auto cloneOp = [&](OpBuilder &at, Operation &op, IRMapping &mapping,
                     bool once) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (Value value = registers.lookup(tensorOf(load.getMemref()))) {
        mapping.map(load.getResult(), value);
        return;
      }
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value tensor = tensorOf(store.getMemref());
      if (inRegisters.contains(tensor)) {
        registers[tensor] = mapping.lookupOrDefault(store.getValue());
        return;
      }
      if (once) {
        auto guard = scf::IfOp::create(at, loc, first, false);
        tally(
            OpBuilder::atBlockTerminator(guard.thenBlock()).clone(op, mapping));
        return;
      }
    }
    tally(at.clone(op, mapping));
  };

  // Loads and stores since the last barrier.
  bool loaded = false, stored = false;
  for (auto [index, member] : llvm::enumerate(members)) {
    // A barrier first, kept if this step's accesses may meet another
    // thread's since the last one (read after write, write after read or
    // write).
    auto barrier = index ? gpu::BarrierOp::create(b, loc) : nullptr;
    loads = stores = 0;
    IRMapping mapping;
    for (unsigned d = 0; d < rank; ++d)
      mapping.map(member.nest.getInductionVars()[d],
                  blocks.getInductionVars()[d]);
    Block *body = member.nest.getBody();
    switch (member.step) {
    case Step::PerRow: {
      // Every thread computes the row's values; the first stores them.
      for (Operation &op : body->without_terminator())
        cloneOp(b, op, mapping, /*once=*/true);
      break;
    }
    case Step::AlongRow: {
      // Each thread takes every `threads`-th element of the row.
      auto along = scf::ForOp::create(
          b, loc, lane, member.nest.getUpperBound().back(), count);
      mapping.map(member.nest.getInductionVars().back(),
                  along.getInductionVar());
      OpBuilder inner = OpBuilder::atBlockTerminator(along.getBody());
      for (Operation &op : body->without_terminator())
        cloneOp(inner, op, mapping, /*once=*/false);
      break;
    }
    case Step::Reduction: {
      scf::ForOp loop = member.reduction->loop;
      auto before = llvm::make_range(body->begin(), Block::iterator(loop));
      for (Operation &op : before)
        cloneOp(b, op, mapping, /*once=*/false);
      // Each thread takes every `threads`-th iteration, from neutral
      // values (-0.0, not upstream's 0.0, leaves every sum as it is).
      SmallVector<Value> neutral;
      for (Operation *combiner : member.reduction->combiners) {
        TypedAttr value = *arith::getNeutralElement(combiner);
        if (isa<arith::AddFOp>(combiner))
          value = FloatAttr::get(value.getType(), -0.0);
        neutral.push_back(arith::ConstantOp::create(b, loc, value));
      }
      Value step = mapping.lookupOrDefault(loop.getStep());
      Value offset = b.createOrFold<arith::MulIOp>(loc, lane, step);
      Value lower = b.createOrFold<arith::AddIOp>(
          loc, mapping.lookupOrDefault(loop.getLowerBound()), offset);
      Value stride = b.createOrFold<arith::MulIOp>(loc, step, count);
      auto strided = scf::ForOp::create(
          b, loc, lower, mapping.lookupOrDefault(loop.getUpperBound()), stride,
          neutral,
          [&](OpBuilder &inner, Location, Value index, ValueRange partials) {
            mapping.map(loop.getInductionVar(), index);
            mapping.map(loop.getRegionIterArgs(), partials);
            for (Operation &op : *loop.getBody())
              cloneOp(inner, op, mapping, /*once=*/false);
          });
      // The block's total, combined with the accumulator's value before.
      for (auto [i, combiner] : llvm::enumerate(member.reduction->combiners)) {
        auto kind =
            gpu::AllReduceOperationAttr::get(context, *allReduceKind(combiner));
        auto total = gpu::AllReduceOp::create(b, loc, strided.getResult(i),
                                              kind, b.getUnitAttr());
        Value accumulator = loop.getRegionIterArgs()[i];
        IRMapping combine;
        for (Value operand : combiner->getOperands())
          combine.map(operand,
                      operand == accumulator
                          ? mapping.lookupOrDefault(loop.getInitArgs()[i])
                          : total.getResult());
        mapping.map(loop.getResult(i),
                    b.clone(*combiner, combine)->getResult(0));
      }
      // What follows: every thread has the total; the first stores.
      for (Operation &op : llvm::make_range(std::next(Block::iterator(loop)),
                                            body->without_terminator().end()))
        cloneOp(b, op, mapping, /*once=*/true);
      break;
    }
    }
    if (barrier && !((stored && (loads || stores)) || (loaded && stores))) {
      barrier.erase();
    } else if (barrier) {
      loaded = stored = false;
    }
    loaded |= loads > 0;
    stored |= stores > 0;
  }

  static constexpr gpu::Processor grid[] = {
      gpu::Processor::BlockX, gpu::Processor::BlockY, gpu::Processor::BlockZ};
  SmallVector<gpu::ParallelLoopDimMappingAttr> blockMapping;
  for (unsigned d = 0; d < rank; ++d)
    blockMapping.push_back(autoglm::mapTo(context, grid[rank - 1 - d]));
  (void)gpu::setMappingAttr(blocks, blockMapping);
  (void)gpu::setMappingAttr(lanes,
                            {autoglm::mapTo(context, gpu::Processor::ThreadX)});
  for (Member &member : members)
    member.nest.erase();
}

/// Whether `op`, between two members, can stay where it is while the
/// members' work moves after it: no memory access, no nested code.
bool movesNothing(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

} // namespace

void autoglm::fuseRowKernels(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().getOps())
    ops.push_back(&op);
  llvm::DenseSet<Operation *> taken;
  SmallVector<std::pair<SmallVector<Member>, Extents>> kernels;
  for (size_t i = 0; i < ops.size(); ++i) {
    auto anchor = dyn_cast<scf::ParallelOp>(ops[i]);
    if (!anchor || taken.contains(anchor))
      continue;
    std::optional<Extents> rows = reductionRows(anchor);
    if (!rows)
      continue;
    // Grows the run around the anchor over the nests before and after it
    // that fit, one side first. Which per-row values stay in registers
    // depends on the steps after them, and so which earlier steps may
    // join: both orders are tried, the longer run kept.
    auto growRun = [&](bool forwardFirst) {
      SmallVector<Member> members{*classify(anchor, *rows)};
      auto grow = [&](Operation *op, bool before) {
        auto nest = dyn_cast<scf::ParallelOp>(op);
        if (!nest || taken.contains(nest))
          return false;
        std::optional<Member> member = classify(nest, *rows);
        if (!member)
          return false;
        auto at = before ? members.begin() : members.end();
        at = members.insert(at, *member);
        if (rowsApart(members, *rows))
          return true;
        members.erase(at);
        return false;
      };
      auto forward = [&] {
        for (size_t j = i + 1; j < ops.size(); ++j)
          if (!movesNothing(ops[j]) && !grow(ops[j], /*before=*/false))
            break;
      };
      auto backward = [&] {
        for (size_t j = i; j-- > 0;)
          if (!movesNothing(ops[j]) && !grow(ops[j], /*before=*/true))
            break;
      };
      if (forwardFirst) {
        forward();
        backward();
      } else {
        backward();
        forward();
      }
      return members;
    };
    SmallVector<Member> members = growRun(/*forwardFirst=*/true);
    SmallVector<Member> other = growRun(/*forwardFirst=*/false);
    if (other.size() > members.size())
      members = std::move(other);
    for (Member &member : members)
      taken.insert(member.nest);
    kernels.emplace_back(std::move(members), std::move(*rows));
  }
  for (auto &[members, rows] : kernels)
    buildRowKernel(members, rows);
}
