//===- PlanArena.cpp - place intermediate buffers in one arena ------------===//
//
// The contract with the runtime: a compiled function never allocates. Each
// intermediate buffer becomes a view at a fixed offset of one arena that the
// caller provides, so the memory a model needs is a compile-time constant.
//
// Buffers whose live ranges do not overlap share memory. A buffer with
// symbolic extents gets the slot of its largest size (SizeBounds.h). Placement is greedy
// by size (largest first), each buffer going into the smallest gap left by
// the already placed buffers it is live together with (best fit). The lower
// bound any placement must respect, the largest total size live at one
// point, is recorded next to the result. (In-place updates of elementwise ops
// are already decided by bufferization, which writes such results into the
// operand's buffer when that operand dies.)
//
//===----------------------------------------------------------------------===//

#include "dialects/NodeNames.h"
#include "passes/BufferFacts.h"
#include "passes/Passes.h"
#include "passes/SizeBounds.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace autoglm {
#define GEN_PASS_DEF_PLANARENA
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// One intermediate buffer: live from the first to the last top-level op
/// that touches it (directly or through a view), inclusive.
struct Buffer {
  memref::AllocOp alloc;
  int64_t size = 0; // rounded up to the alignment
  int64_t first = 0, last = -1;
  Operation *producer = nullptr; // first op that uses it
  int64_t offset = 0;

  bool liveWith(const Buffer &other) const {
    return first <= other.last && other.first <= last;
  }
  bool overlapsInMemory(const Buffer &other) const {
    return offset < other.offset + other.size &&
           other.offset < offset + size;
  }
};

/// The ops that use what `values` compute, through ops without effects.
void usersThrough(ValueRange values, SmallVectorImpl<Operation *> &users) {
  for (Value value : values)
    for (Operation *user : value.getUsers()) {
      users.push_back(user);
      if (isMemoryEffectFree(user) && user->getNumRegions() == 0)
        usersThrough(user->getResults(), users);
    }
}

/// Where the address that `op` takes of a buffer is used (the pointer
/// arithmetic between it and a kernel call, the call). Only the address:
/// a buffer's extents (memref.dim) say nothing of its contents.
void addressUsers(Operation *op, SmallVectorImpl<Operation *> &users) {
  if (isa<memref::ExtractAlignedPointerAsIndexOp>(op))
    usersThrough(op->getResults(), users);
}

/// Positions each use of `alloc`, following view-like ops, at its top-level
/// ancestor in `body`.
void computeLiveRange(Buffer &buffer, Block &body,
                      const DenseMap<Operation *, int64_t> &position) {
  SmallVector<Value> worklist = {buffer.alloc.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        // Its views; not what else it returns (extract_strided_metadata's
        // extents, which say nothing of the contents).
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
        continue;
      }
      if (isa<memref::DeallocOp>(user))
        continue;
      // An address taken from the buffer (for a kernel call made before
      // planning) uses it where the address is used.
      SmallVector<Operation *> users = {user};
      addressUsers(user, users);
      for (Operation *op : users) {
        Operation *top = body.findAncestorOpInBlock(*op);
        int64_t at = position.lookup(top);
        if (buffer.last < buffer.first || at < buffer.first) {
          if (buffer.last < buffer.first)
            buffer.last = at;
          buffer.first = at;
          buffer.producer = top;
        }
        buffer.last = std::max(buffer.last, at);
      }
    }
  }
}

/// Best fit among the gaps that buffers live together with `buffer` leave.
int64_t bestFitOffset(const Buffer &buffer, ArrayRef<const Buffer *> placed) {
  SmallVector<const Buffer *> conflicts;
  for (const Buffer *other : placed)
    if (buffer.liveWith(*other))
      conflicts.push_back(other);
  llvm::sort(conflicts, [](const Buffer *a, const Buffer *b) {
    return a->offset < b->offset;
  });
  int64_t cursor = 0, best = -1, bestGap = INT64_MAX;
  for (const Buffer *other : conflicts) {
    int64_t gap = other->offset - cursor;
    if (gap >= buffer.size && gap < bestGap)
      best = cursor, bestGap = gap;
    cursor = std::max(cursor, other->offset + other->size);
  }
  return best >= 0 ? best : cursor;
}

struct PlanArenaPass : autoglm::impl::PlanArenaBase<PlanArenaPass> {
  using PlanArenaBase::PlanArenaBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;

    std::vector<Buffer> buffers;
    WalkResult walk = func.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      // Symbolic extents: the slot holds the largest size they can take.
      auto largest = maxShape(alloc.getResult());
      if (!largest || !type.getLayout().isIdentity()) {
        alloc.emitError("buffer of type ")
            << type << " has no size bounded by the declared symbol ranges; "
            << "it cannot be placed in the arena";
        return WalkResult::interrupt();
      }
      Buffer buffer;
      buffer.alloc = alloc;
      buffer.size = llvm::alignTo(autoglm::bufferBytes(MemRefType::get(
                                      *largest, type.getElementType())),
                                  alignment);
      computeLiveRange(buffer, body, position);
      buffers.push_back(buffer);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    // Greedy best fit in a few orders, each deterministic (ties in program
    // order); the smallest arena wins, the earlier order on a tie. Largest
    // first is usually best; where lifetimes differ much, the largest
    // size x lifetime or program order can pack tighter.
    using Before = bool (*)(const Buffer *, const Buffer *);
    const Before orders[] = {
        [](const Buffer *a, const Buffer *b) {
          return a->size != b->size ? a->size > b->size : a->first < b->first;
        },
        [](const Buffer *a, const Buffer *b) {
          int64_t x = a->size * (a->last - a->first + 1),
                  y = b->size * (b->last - b->first + 1);
          return x != y ? x > y : a->first < b->first;
        },
        [](const Buffer *a, const Buffer *b) { return a->first < b->first; },
    };
    int64_t arenaSize = -1;
    SmallVector<int64_t> offsets;
    for (Before before : orders) {
      std::vector<Buffer *> order;
      for (Buffer &b : buffers)
        order.push_back(&b);
      llvm::stable_sort(order, before);
      int64_t size = place(order);
      if (arenaSize < 0 || size < arenaSize) {
        arenaSize = size;
        offsets = llvm::map_to_vector(buffers,
                                      [](const Buffer &b) { return b.offset; });
      }
    }
    for (auto [buffer, offset] : llvm::zip(buffers, offsets))
      buffer.offset = offset;

    if (verify && failed(verifyPlan(func, buffers, arenaSize)))
      return signalPassFailure();
    rewriteAllocs(func, buffers, arenaSize);
  }

  /// The largest total size of buffers live at one op: no plan can do better.
  static int64_t lowerBound(ArrayRef<Buffer> buffers) {
    std::map<int64_t, int64_t> delta; // position -> change of live bytes
    for (const Buffer &b : buffers)
      if (b.first <= b.last) {
        delta[b.first] += b.size;
        delta[b.last + 1] -= b.size;
      }
    int64_t live = 0, peak = 0;
    for (auto [at, change] : delta)
      peak = std::max(peak, live += change);
    return peak;
  }

  /// Places the buffers in `order`, each at its best fit; returns the
  /// arena size.
  static int64_t place(ArrayRef<Buffer *> order) {
    SmallVector<const Buffer *> placed;
    int64_t arenaSize = 0;
    for (Buffer *buffer : order) {
      buffer->offset = bestFitOffset(*buffer, placed);
      arenaSize = std::max(arenaSize, buffer->offset + buffer->size);
      placed.push_back(buffer);
    }
    return arenaSize;
  }

  /// No two buffers live at the same time share a byte, and every buffer
  /// lies inside the arena.
  LogicalResult verifyPlan(func::FuncOp func, ArrayRef<Buffer> buffers,
                           int64_t arenaSize) {
    for (size_t i = 0; i < buffers.size(); ++i) {
      const Buffer &a = buffers[i];
      if (a.offset < 0 || a.offset % alignment != 0 ||
          a.offset + a.size > arenaSize)
        return memref::AllocOp(a.alloc).emitError("memory plan places this buffer at [")
               << a.offset << ", " << a.offset + a.size
               << "), outside the arena of " << arenaSize << " bytes";
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        const Buffer &b = buffers[j];
        if (a.liveWith(b) && a.overlapsInMemory(b))
          return memref::AllocOp(a.alloc).emitError("memory plan overlaps this buffer [")
                 << a.offset << ", " << a.offset + a.size
                 << ") with another live buffer [" << b.offset << ", "
                 << b.offset + b.size << ")";
      }
    }
    return success();
  }

  /// Model state (arguments marked `autoglm.state`, a KV cache) lives at
  /// the start of the arena, where no buffer of a run goes, so that it
  /// persists from run to run. Returns its bytes; records each state's
  /// offset in `autoglm.state_offsets`.
  int64_t placeState(func::FuncOp func, Value arena) {
    OpBuilder b(func.getContext());
    b.setInsertionPointToStart(&func.getBody().front());
    int64_t cursor = 0;
    SmallVector<Attribute> records;
    llvm::BitVector drop(func.getNumArguments());
    for (BlockArgument arg : func.getArguments()) {
      if (!func.getArgAttr(arg.getArgNumber(), "autoglm.state"))
        continue;
      auto type = cast<MemRefType>(arg.getType());
      Value offset = arith::ConstantIndexOp::create(b, arg.getLoc(), cursor);
      Value view = memref::ViewOp::create(b, arg.getLoc(), type, arena, offset,
                                          ValueRange{});
      arg.replaceAllUsesWith(view);
      records.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("name",
                          func.getArgAttr(arg.getArgNumber(), "autoglm.name")),
           b.getNamedAttr("kind",
                          func.getArgAttr(arg.getArgNumber(), "autoglm.state")),
           b.getNamedAttr("offset", b.getI64IntegerAttr(cursor)),
           b.getNamedAttr("bytes",
                          b.getI64IntegerAttr(autoglm::bufferBytes(type)))}));
      cursor += llvm::alignTo(autoglm::bufferBytes(type), alignment);
      drop.set(arg.getArgNumber());
    }
    if (records.empty())
      return 0;
    (void)func.eraseArguments(drop);
    func->setAttr("autoglm.state_offsets", b.getArrayAttr(records));
    return cursor;
  }

  void rewriteAllocs(func::FuncOp func, MutableArrayRef<Buffer> buffers,
                     int64_t arenaSize) {
    OpBuilder b(func.getContext());
    auto arenaType = MemRefType::get({arenaSize}, b.getI8Type());
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, arenaType,
                                   b.getDictionaryAttr(b.getNamedAttr(
                                       "autoglm.arena", b.getUnitAttr())),
                                   func.getLoc())))
      return signalPassFailure();
    Value arena = func.getArgument(index);
    int64_t stateBytes = placeState(func, arena);
    arenaSize += stateBytes;
    arenaType = MemRefType::get({arenaSize}, b.getI8Type());
    arena.setType(arenaType);
    func.setType(FunctionType::get(func.getContext(),
                                   func.getBody().front().getArgumentTypes(),
                                   func.getResultTypes()));
    SmallVector<Attribute> records;
    for (Buffer &buffer : buffers) {
      buffer.offset += stateBytes;
      memref::AllocOp alloc = buffer.alloc;
      b.setInsertionPoint(alloc);
      Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), buffer.offset);
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                          arena, shift, alloc.getDynamicSizes());
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(view);
      alloc.erase();
      Location where = buffer.producer ? buffer.producer->getLoc() : view.getLoc();
      std::string producer = autoglm::onnxNodeLabel(where);
      records.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("bytes", b.getI64IntegerAttr(buffer.size)),
           b.getNamedAttr("offset", b.getI64IntegerAttr(buffer.offset)),
           b.getNamedAttr("live", b.getDenseI64ArrayAttr({buffer.first, buffer.last})),
           b.getNamedAttr("producer", b.getStringAttr(producer))}));
    }
    func->setAttr("autoglm.arena_size", b.getI64IntegerAttr(arenaSize));
    func->setAttr("autoglm.arena_lower_bound",
                  b.getI64IntegerAttr(stateBytes + lowerBound(buffers)));
    func->setAttr("autoglm.arena_buffers", b.getArrayAttr(records));
  }
};

} // namespace
