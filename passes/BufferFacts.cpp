//===- BufferFacts.cpp - what the kernel-call passes know of buffers ------===//

#include "passes/BufferFacts.h"
#include "passes/SizeBounds.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>
#include <limits>

using namespace mlir;

std::optional<autoglm::MemoryRange> autoglm::memoryRange(Value buffer) {
  while (true) {
    if (isa<BlockArgument>(buffer))
      return MemoryRange{buffer};
    Operation *op = buffer.getDefiningOp();
    if (auto view = dyn_cast<memref::ViewOp>(op)) {
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      auto type = view.getType();
      // Symbolic extents: the bytes at their upper bounds, which hold
      // whatever the run's extents are.
      std::optional<SmallVector<int64_t>> shape =
          type.hasStaticShape() ? SmallVector<int64_t>(type.getShape())
                                : autoglm::maxShape(view.getResult());
      if (!shift || !shape || !isa<BlockArgument>(view.getSource()))
        return std::nullopt;
      int64_t elements = 1;
      for (int64_t extent : *shape)
        elements *= extent;
      return MemoryRange{
          view.getSource(), *shift,
          *shift + elements * autoglm::elementBytes(type.getElementType())};
    }
    if (isa<memref::GetGlobalOp>(op))
      return MemoryRange{buffer}; // constant: never written
    if (isa<memref::AllocOp>(op))
      return MemoryRange{buffer}; // before the arena is planned
    if (!isa<ViewLikeOpInterface>(op) || op->getNumOperands() < 1)
      return std::nullopt;
    buffer = op->getOperand(0);
  }
}

bool autoglm::isHostArgument(Value buffer) {
  auto arg = dyn_cast<BlockArgument>(buffer);
  auto func =
      arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  return func &&
         (func.getArgAttr(arg.getArgNumber(), "autoglm.symbol_values") ||
          func.getArgAttr(arg.getArgNumber(), "autoglm.output_dims"));
}

namespace {

/// The ops that touch memory through what `op` computes (an address taken
/// from a buffer, passed on to a kernel call).
void collectEffectfulUsers(Operation *op,
                           SmallVectorImpl<Operation *> &accesses) {
  for (Value result : op->getResults())
    for (Operation *user : result.getUsers()) {
      if (isMemoryEffectFree(user))
        collectEffectfulUsers(user, accesses);
      else
        accesses.push_back(user);
    }
}

/// The ops that read or write `buffer` (through views of it, or through
/// its address: a kernel call), besides the views themselves.
void collectAccesses(Value buffer, SmallVectorImpl<Operation *> &accesses) {
  for (Operation *user : buffer.getUsers()) {
    if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
        isMemoryEffectFree(user))
      collectAccesses(user->getResult(0), accesses);
    else if (isMemoryEffectFree(user) && user->getNumRegions() == 0)
      collectEffectfulUsers(user, accesses);
    else
      accesses.push_back(user);
  }
}

} // namespace

namespace autoglm {

int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

int64_t bufferBytes(MemRefType type) {
  return type.getNumElements() * elementBytes(type.getElementType());
}

std::optional<SmallVector<int64_t>> staticStrides(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  auto [strides, offset] = type.getStridesAndOffset();
  if (llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return SmallVector<int64_t>(strides);
}

/// A linalg op that only writes one constant into `buffer` (a fill, or a
/// map or generic without inputs that yields a constant), for which
/// `isValue` holds.
bool isConstantFill(Operation *op, Value buffer,
                    function_ref<bool(Value)> isValue) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs()[0] == buffer && isValue(fill.getInputs()[0]);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 0 ||
      linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInits()[0] != buffer ||
      op->getNumRegions() != 1 || op->getRegion(0).empty())
    return false;
  Block &body = op->getRegion(0).front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return yield && body.getOperations().size() == 1 &&
         yield.getValues().size() == 1 &&
         matchPattern(yield.getValues()[0], m_Constant()) &&
         isValue(yield.getValues()[0]);
}

bool isZeroFill(Operation *op, Value buffer) {
  return isConstantFill(op, buffer, [](Value v) {
    return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
  });
}

bool disjoint(Value a, Value b) {
  std::optional<MemoryRange> ra = memoryRange(a), rb = memoryRange(b);
  if (!ra || !rb)
    return false;
  if (ra->base != rb->base)
    return true;
  return ra->end <= rb->begin || rb->end <= ra->begin;
}

bool deadAfter(Value buffer, Operation *point,
               ArrayRef<Operation *> overwriters) {
  SmallVector<Operation *> accesses;
  collectAccesses(buffer, accesses);
  Operation *next = nullptr;
  for (Operation *op : accesses) {
    if (op->getBlock() != point->getBlock())
      return false;
    if (point->isBeforeInBlock(op) && (!next || op->isBeforeInBlock(next)))
      next = op;
  }
  if (!next || isConstantFill(next, buffer, [](Value) { return true; }) ||
      llvm::is_contained(overwriters, next))
    return true;
  // A linalg op that writes all of it (a reshape of it at most) without
  // reading what it held.
  auto linalgOp = dyn_cast<linalg::LinalgOp>(next);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1 ||
      llvm::is_contained(linalgOp.getDpsInputs(), buffer))
    return false;
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  Value written = init->get();
  while (written != buffer) {
    Operation *def = written.getDefiningOp();
    if (!isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      return false;
    written = def->getOperand(0);
  }
  for (Value input : linalgOp.getDpsInputs())
    if (!disjoint(input, buffer))
      return false;
  return linalgOp.getNumParallelLoops() == linalgOp.getNumLoops() &&
         linalgOp.getMatchingIndexingMap(init).isPermutation() &&
         !linalgOp.payloadUsesValueFromOperand(init);
}

/// Whether `op` touches no memory that exists already: free of effects, or
/// a new buffer's allocation (before the arena is planned).
static bool touchesNoMemory(Operation *op) {
  return isMemoryEffectFree(op) || isa<memref::AllocOp>(op);
}

Operation *previousEffect(Operation *op) {
  for (op = op->getPrevNode(); op; op = op->getPrevNode())
    if (!touchesNoMemory(op))
      return op;
  return nullptr;
}

Operation *nextEffect(Operation *op) {
  for (op = op->getNextNode(); op; op = op->getNextNode())
    if (!touchesNoMemory(op))
      return op;
  return nullptr;
}

bool canHoistBefore(Value value, Operation *point) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getBlock() != point->getBlock() ||
      op->isBeforeInBlock(point))
    return true;
  if (op == point || !touchesNoMemory(op) || op->getNumRegions())
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return canHoistBefore(operand, point);
  });
}

void hoistBefore(Value value, Operation *point) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getBlock() != point->getBlock() ||
      op->isBeforeInBlock(point))
    return;
  for (Value operand : op->getOperands())
    hoistBefore(operand, point);
  op->moveBefore(point);
}

bool zeroAt(Value buffer, Operation *point, Operation *&init) {
  for (Operation *op = previousEffect(point); op; op = previousEffect(op)) {
    if (isZeroFill(op, buffer)) {
      init = op;
      return true;
    }
    if (auto copy = dyn_cast<linalg::CopyOp>(op);
        copy && copy.getOutputs()[0] == buffer) {
      Operation *sourceInit = nullptr;
      if (!disjoint(copy.getInputs()[0], buffer) ||
          !zeroAt(copy.getInputs()[0], copy, sourceInit))
        return false;
      init = op;
      return true;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !llvm::all_of(linalgOp.getDpsInits(), [&](Value init) {
          return disjoint(init, buffer);
        }))
      return false;
  }
  return false;
}

} // namespace autoglm
