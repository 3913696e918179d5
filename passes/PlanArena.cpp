//===- PlanArena.cpp - place intermediate buffers in one arena ------------===//
//
// The contract with the runtime: a compiled function never allocates. Each
// intermediate buffer becomes a view at a fixed offset of one arena that the
// caller provides, so the memory a model needs is a compile-time constant.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_PLANARENA
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

int64_t byteSize(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

struct PlanArenaPass : autoglm::impl::PlanArenaBase<PlanArenaPass> {
  using PlanArenaBase::PlanArenaBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });

    SmallVector<int64_t> offsets;
    int64_t size = 0;
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        alloc.emitError("buffer of type ")
            << type << " has no static size; it cannot be placed in the arena";
        return signalPassFailure();
      }
      size = llvm::alignTo(size, alignment);
      offsets.push_back(size);
      size += byteSize(type);
    }
    size = llvm::alignTo(size, alignment);

    OpBuilder b(func.getContext());
    auto arenaType = MemRefType::get({size}, b.getI8Type());
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, arenaType,
                                   b.getDictionaryAttr(b.getNamedAttr(
                                       "autoglm.arena", b.getUnitAttr())),
                                   func.getLoc())))
      return signalPassFailure();
    Value arena = func.getArgument(index);
    for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
      b.setInsertionPoint(alloc);
      Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                          arena, shift, ValueRange{});
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    func->setAttr("autoglm.arena_size", b.getI64IntegerAttr(size));
  }
};

} // namespace
