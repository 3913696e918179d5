//===- FoldAttentionTransposes.cpp - attention reads and writes in place --===//
//
// The GPU's attention kernel reads its operands and writes its output
// through any strides (with contiguous rows). The transposes exported
// models put around attention ([B, S, H, D] <-> [B, H, S, D]), which only
// copy, become views instead: the op reads the transposes' inputs and
// writes the output transpose's destination through memref.transpose, and
// the copies and their buffers go before the arena is planned.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "passes/AttentionOperands.h"
#include "passes/BufferFacts.h"
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace autoglm {
#define GEN_PASS_DEF_FOLDATTENTIONTRANSPOSES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// A view of `operand.buffer` whose dimension d is the buffer's
/// operand.dims[d].
Value transposedView(OpBuilder &b, Location loc, const KernelOperand &operand) {
  auto permutation = AffineMap::getPermutationMap(
      SmallVector<unsigned>(operand.dims.begin(), operand.dims.end()),
      b.getContext());
  return memref::TransposeOp::create(b, loc, operand.buffer,
                                     AffineMapAttr::get(permutation));
}

/// Erases `buffer` and the memref.casts of it when nothing else uses them.
void eraseIfUnused(Value buffer) {
  SmallVector<Operation *> casts;
  for (Operation *user : buffer.getUsers())
    if (isa<memref::CastOp>(user) && user->use_empty())
      casts.push_back(user);
  for (Operation *cast : casts)
    cast->erase();
  if (Operation *def = buffer.getDefiningOp())
    if (isa<memref::AllocOp>(def) && def->use_empty())
      def->erase();
}

void fold(AttentionBuffersOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> inputs;
  for (OpOperand *operand :
       {&op.getQueryMutable(), &op.getKeyMutable(), &op.getValueMutable()}) {
    KernelOperand read = readOperand(operand->get(), op);
    inputs.push_back(read.buffer);
    if (!read.folded)
      continue;
    Value copy = read.folded.getInit();
    operand->assign(transposedView(b, loc, read));
    read.folded.erase();
    eraseIfUnused(copy);
  }
  inputs.push_back(op.getMask());
  KernelOperand write = writeOperand(op.getOutput(), op, inputs);
  if (!write.folded)
    return;
  hoistBefore(write.buffer, op);
  b.setInsertionPoint(op);
  Value output = op.getOutput();
  op.getOutputMutable().assign(transposedView(b, loc, write));
  write.folded.erase();
  eraseIfUnused(output);
}

struct FoldAttentionTransposesPass
    : autoglm::impl::FoldAttentionTransposesBase<FoldAttentionTransposesPass> {
  void runOnOperation() override {
    SmallVector<AttentionBuffersOp> ops;
    getOperation().walk([&](AttentionBuffersOp op) { ops.push_back(op); });
    for (AttentionBuffersOp op : ops)
      fold(op);
  }
};

} // namespace
