//===- ContiguousReshapes.cpp - symbolic reshapes as reinterpret_cast -----===//

#include "passes/Passes.h"
#include "passes/RowMajorView.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_CONTIGUOUSRESHAPES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

bool contiguous(Type type) {
  auto memref = cast<MemRefType>(type);
  return memref.getLayout().isIdentity() && !memref.hasStaticShape();
}

struct ContiguousReshapesPass
    : autoglm::impl::ContiguousReshapesBase<ContiguousReshapesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> reshapes;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op) &&
          contiguous(op->getOperand(0).getType()) &&
          contiguous(op->getResult(0).getType()))
        reshapes.push_back(op);
    });
    for (Operation *op : reshapes) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto type = cast<MemRefType>(op->getResult(0).getType());
      SmallVector<OpFoldResult> sizes;
      if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
        sizes = expand.getMixedOutputShape();
      } else {
        auto collapse = cast<memref::CollapseShapeOp>(op);
        for (const ReassociationIndices &group :
             collapse.getReassociationIndices()) {
          OpFoldResult size = b.getIndexAttr(1);
          for (int64_t d : group) {
            OpFoldResult extent = memref::getMixedSize(b, loc, collapse.getSrc(), d);
            auto s = getConstantIntValue(size), e = getConstantIntValue(extent);
            size = s && e ? OpFoldResult(b.getIndexAttr(*s * *e))
                          : OpFoldResult(arith::MulIOp::create(
                                             b, loc,
                                             getValueOrCreateConstantIndexOp(b, loc, size),
                                             getValueOrCreateConstantIndexOp(b, loc, extent))
                                             .getResult());
          }
          sizes.push_back(size);
        }
      }
      Value view = rowMajorView(b, loc, op->getOperand(0), type, sizes);
      op->getResult(0).replaceAllUsesWith(view);
      op->erase();
    }
  }
};

} // namespace
