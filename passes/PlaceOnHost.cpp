//===- PlaceOnHost.cpp - run chosen op families of a CUDA model on the host
//===//
//
// autoglm-compile --device-hint FAMILY=host keeps a family of ops (matrix
// products, reductions, elementwise loops) off the GPU, to work around a
// kernel, to compare, or where the GPU has nothing to offer. The model's
// buffers stay in device memory; each run of consecutive host ops becomes
// a host section: it copies the device bytes the ops touch into the
// instance's staging memory (agl_cuda_host_staging), runs the ops there as
// loops, and copies what they wrote back. The runtime's copies wait for the
// GPU work queued before them, so the section sees what the kernels before
// it wrote.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferFacts.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

namespace autoglm {
#define GEN_PASS_DEF_PLACEONHOST
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kStaging = "agl_cuda_host_staging";
constexpr llvm::StringLiteral kToHost = "agl_cuda_copy_to_host";
constexpr llvm::StringLiteral kToDevice = "agl_cuda_copy_to_device";
constexpr int64_t kSlotAlignment = 64;

/// The family --device-hint names a top-level op on buffers by: "matmul",
/// "reduction" or "elementwise" (copies, and stores of one element, as a
/// shape's extent computed on the host is written, too); "" for anything
/// else.
StringRef familyOf(Operation *op) {
  if (isa<memref::CopyOp, memref::StoreOp>(op))
    return "elementwise";
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics())
    return "";
  if (linalgOp.getNumReductionLoops() == 0)
    return "elementwise";
  return linalg::isaContractionOpInterface(linalgOp) ? "matmul" : "reduction";
}

/// Whether `operand` is written by its op.
bool writes(OpOperand &operand) {
  if (auto copy = dyn_cast<memref::CopyOp>(operand.getOwner()))
    return operand.get() == copy.getTarget();
  if (auto store = dyn_cast<memref::StoreOp>(operand.getOwner()))
    return operand.get() == store.getMemRef();
  auto linalgOp = cast<linalg::LinalgOp>(operand.getOwner());
  return linalgOp.isDpsInit(&operand);
}

/// The buffers `op` touches: its memref operands and those its body reads
/// or writes without their being operands (a gather's table, a broadcast
/// over symbolic extents, loaded by index), each with whether it is
/// written.
SmallVector<std::pair<Value, bool>> buffersOf(Operation *op) {
  SmallVector<std::pair<Value, bool>> buffers;
  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()))
      buffers.push_back({operand.get(), writes(operand)});
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured) {
    if (!isa<MemRefType>(value.getType()))
      continue;
    bool stored = llvm::any_of(value.getUsers(), [&](Operation *user) {
      auto store = dyn_cast<memref::StoreOp>(user);
      return store && store.getMemRef() == value && op->isAncestor(store);
    });
    buffers.push_back({value, stored});
  }
  return buffers;
}

/// A byte buffer argument (the arena, the weights), viewed at byte offsets.
bool isByteBuffer(Value base) {
  auto type = dyn_cast<MemRefType>(base.getType());
  return type && type.getRank() == 1 && type.getElementType().isInteger(8);
}

/// Device bytes a section copies: [begin, end) of `base`, at `offset` in
/// the staging memory.
struct Slot {
  Value base;
  int64_t begin, end, offset = 0;
  bool written = false;
};

/// A run of consecutive host ops and the device bytes they touch.
struct Section {
  SmallVector<Operation *> ops;
  SmallVector<Slot> slots;
  int64_t bytes = 0;

  const Slot *slotOf(const autoglm::MemoryRange &range) const {
    for (const Slot &slot : slots)
      if (slot.base == range.base && slot.begin <= range.begin &&
          (range.end == std::numeric_limits<int64_t>::max() ||
           range.end <= slot.end))
        return &slot;
    return nullptr;
  }
};

/// The device bytes each operand of the section's ops lies in, merged per
/// buffer where they overlap; an error if one cannot be known.
LogicalResult collectSlots(Section &section) {
  SmallVector<Slot> ranges;
  for (Operation *op : section.ops)
    for (auto [buffer, written] : buffersOf(op)) {
      std::optional<autoglm::MemoryRange> range = autoglm::memoryRange(buffer);
      if (!range || !isa<BlockArgument>(range->base))
        return op->emitError("cannot place '")
               << op->getName()
               << "' on the host: the device bytes of an operand are not "
                  "known statically";
      if (autoglm::isHostArgument(range->base))
        continue;
      int64_t end = range->end;
      if (end == std::numeric_limits<int64_t>::max()) {
        auto baseType = cast<MemRefType>(range->base.getType());
        if (!baseType.hasStaticShape() || !baseType.getLayout().isIdentity())
          return op->emitError("cannot place '")
                 << op->getName()
                 << "' on the host: an operand's buffer has no static shape";
        end = autoglm::bufferBytes(baseType);
      }
      ranges.push_back({range->base, range->begin, end, 0, written});
    }
  // Per buffer (argument), by first byte; overlapping ranges become one
  // slot.
  auto argument = [](const Slot &slot) {
    return cast<BlockArgument>(slot.base).getArgNumber();
  };
  llvm::stable_sort(ranges, [&](const Slot &a, const Slot &b) {
    return std::pair(argument(a), a.begin) < std::pair(argument(b), b.begin);
  });
  for (const Slot &range : ranges) {
    if (!section.slots.empty() && section.slots.back().base == range.base &&
        range.begin < section.slots.back().end) {
      Slot &last = section.slots.back();
      last.end = std::max(last.end, range.end);
      last.written |= range.written;
      continue;
    }
    section.slots.push_back(range);
  }
  for (Slot &slot : section.slots) {
    slot.offset = section.bytes;
    section.bytes += llvm::alignTo(slot.end - slot.begin, kSlotAlignment);
  }
  return success();
}

/// The ops from the section's buffer argument down to `value`, outermost
/// first: views only (collectSlots checked).
SmallVector<Operation *> viewChain(Value value) {
  SmallVector<Operation *> chain;
  while (Operation *def = value.getDefiningOp()) {
    chain.push_back(def);
    value = def->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

class SectionBuilder {
public:
  SectionBuilder(OpBuilder &b, Location loc, const Section &section,
                 Value staging)
      : b(b), loc(loc), section(section), staging(staging) {}

  /// A byte view of `length` bytes of the staging memory at `offset`.
  Value stagingBytes(int64_t offset, int64_t length) {
    return memref::ViewOp::create(
        b, loc, MemRefType::get({length}, b.getI8Type()), staging,
        arith::ConstantIndexOp::create(b, loc, offset), ValueRange{});
  }

  /// The device bytes of `slot` as a byte buffer.
  Value deviceBytes(const Slot &slot) {
    if (!isByteBuffer(slot.base))
      return slot.base;
    return memref::ViewOp::create(
        b, loc, MemRefType::get({slot.end - slot.begin}, b.getI8Type()),
        slot.base, arith::ConstantIndexOp::create(b, loc, slot.begin),
        ValueRange{});
  }

  /// Calls `name`(to, from, bytes) on the two buffers' addresses.
  void copy(StringRef name, Value to, Value from, int64_t bytes) {
    Value args[] = {autoglm::pointerTo(b, loc, to).pointer,
                    autoglm::pointerTo(b, loc, from).pointer,
                    arith::ConstantIntOp::create(b, loc, bytes, 64)};
    auto callee = autoglm::declareRuntimeFunction(
        b.getBlock()->getParentOp()->getParentOfType<ModuleOp>(), name,
        b.getFunctionType(TypeRange(ValueRange(args)), {}));
    func::CallOp::create(b, loc, callee, args);
  }

  /// `value` (a view of device memory) as the same view of the staging
  /// copy.
  Value hostView(Value value) {
    if (Value done = mapping.lookupOrNull(value))
      return done;
    std::optional<autoglm::MemoryRange> range = autoglm::memoryRange(value);
    if (autoglm::isHostArgument(range->base))
      return value;
    const Slot *slot = section.slotOf(*range);
    SmallVector<Operation *> chain = viewChain(value);
    IRMapping local;
    size_t first = 0;
    auto view =
        chain.empty() ? nullptr : dyn_cast<memref::ViewOp>(chain.front());
    if (view && view.getSource() == slot->base) {
      // view(arena, shift) -> view(staging, shift - begin + offset)
      int64_t shift = *getConstantIntValue(view.getByteShift());
      Value moved = memref::ViewOp::create(
          b, loc, view.getType(), staging,
          arith::ConstantIndexOp::create(b, loc,
                                         shift - slot->begin + slot->offset),
          view.getSizes());
      local.map(view.getResult(), moved);
      first = 1;
    } else {
      auto type = cast<MemRefType>(slot->base.getType());
      local.map(slot->base,
                memref::ViewOp::create(
                    b, loc, type, staging,
                    arith::ConstantIndexOp::create(b, loc, slot->offset),
                    ValueRange{}));
    }
    for (Operation *op : ArrayRef(chain).drop_front(first))
      b.clone(*op, local);
    Value host = local.lookup(value);
    mapping.map(value, host);
    return host;
  }

private:
  OpBuilder &b;
  Location loc;
  const Section &section;
  Value staging;
  IRMapping mapping;
};

/// Why the section runs on the host, for the placement report.
std::string reasonOf(const Section &section) {
  llvm::SmallVector<StringRef> families;
  for (Operation *op : section.ops)
    if (!llvm::is_contained(families, familyOf(op)))
      families.push_back(familyOf(op));
  std::string reason;
  for (StringRef family : families)
    reason += (reason.empty() ? "" : ", ") +
              ("--device-hint " + family + "=host").str();
  return reason;
}

struct PlaceOnHostPass : autoglm::impl::PlaceOnHostBase<PlaceOnHostPass> {
  using PlaceOnHostBase::PlaceOnHostBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> hinted;
    for (const std::string &family : families) {
      if (family == "all") {
        for (StringRef each : {"matmul", "reduction", "elementwise"})
          hinted.insert(each);
      } else if (family == "matmul" || family == "reduction" ||
                 family == "elementwise") {
        hinted.insert(family);
      } else {
        module.emitError("unknown op family '")
            << family
            << "' for the host (known: matmul, reduction, elementwise, all)";
        return signalPassFailure();
      }
    }
    SmallVector<Section> sections;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      Section current;
      auto close = [&] {
        if (!current.ops.empty())
          sections.push_back(std::move(current));
        current = Section();
      };
      // A section lies in one block.
      for (Block &block : func.getBody()) {
        for (Operation &op : block) {
          if (hinted.contains(familyOf(&op)))
            current.ops.push_back(&op);
          else if (!isMemoryEffectFree(&op))
            close();
        }
        close();
      }
    }
    int64_t stagingBytes = 0;
    for (Section &section : sections) {
      if (failed(collectSlots(section)))
        return signalPassFailure();
      stagingBytes = std::max(stagingBytes, section.bytes);
    }
    if (sections.empty())
      return;
    auto stagingType = MemRefType::get({std::max<int64_t>(stagingBytes, 1)},
                                       IntegerType::get(&getContext(), 8));
    for (Section &section : sections)
      if (failed(build(module, section, stagingType)))
        return signalPassFailure();
  }

  /// Replaces the section's ops by an scf.execute_region (marked
  /// autoglm.host) that runs them on staged copies when the staging memory
  /// could be had.
  LogicalResult build(ModuleOp module, const Section &section,
                      MemRefType stagingType) {
    MLIRContext *context = module.getContext();
    Location loc = FusedLoc::get(
        context, llvm::map_to_vector(
                     section.ops, [](Operation *op) { return op->getLoc(); }));
    // At the last op: what the ops read is defined before it, and only ops
    // that touch no memory lie between them.
    OpBuilder b(section.ops.back());
    auto region = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
    region->setAttr(autoglm::kHostSectionAttrName,
                    StringAttr::get(context, reasonOf(section)));
    b.setInsertionPointToStart(&region.getRegion().emplaceBlock());
    auto stagingFn = autoglm::declareRuntimeFunction(
        module, kStaging, b.getFunctionType({b.getI64Type()}, {stagingType}));
    Value staging =
        func::CallOp::create(b, loc, stagingFn,
                             ValueRange{arith::ConstantIntOp::create(
                                 b, loc, stagingType.getDimSize(0), 64)})
            .getResult(0);
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, staging);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, address,
                                     arith::ConstantIndexOp::create(b, loc, 0));
    auto ifOk = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);
    scf::YieldOp::create(b, loc);
    b.setInsertionPointToStart(ifOk.thenBlock());
    SectionBuilder host(b, loc, section, staging);
    for (const Slot &slot : section.slots)
      host.copy(kToHost, host.stagingBytes(slot.offset, slot.end - slot.begin),
                host.deviceBytes(slot), slot.end - slot.begin);
    IRRewriter rewriter(context);
    for (Operation *op : section.ops) {
      IRMapping buffers;
      for (auto [buffer, written] : buffersOf(op))
        buffers.map(buffer, host.hostView(buffer));
      Operation *clone = b.clone(*op, buffers);
      if (isa<memref::StoreOp>(clone))
        continue;
      // On the host as loops: copies too (a strided memref.copy would need
      // a library function).
      if (auto copy = dyn_cast<memref::CopyOp>(clone)) {
        rewriter.setInsertionPoint(copy);
        clone = linalg::CopyOp::create(rewriter, copy.getLoc(),
                                       copy.getSource(), copy.getTarget());
        rewriter.eraseOp(copy);
      }
      rewriter.setInsertionPoint(clone);
      if (failed(
              linalg::linalgOpToLoops(rewriter, cast<linalg::LinalgOp>(clone))))
        return clone->emitError("cannot lower to loops on the host");
      rewriter.eraseOp(clone);
    }
    b.setInsertionPoint(ifOk.thenBlock()->getTerminator());
    for (const Slot &slot : section.slots)
      if (slot.written)
        host.copy(kToDevice, host.deviceBytes(slot),
                  host.stagingBytes(slot.offset, slot.end - slot.begin),
                  slot.end - slot.begin);
    for (Operation *op : llvm::reverse(section.ops))
      op->erase();
    return success();
  }
};

} // namespace
