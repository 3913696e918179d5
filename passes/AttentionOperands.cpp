//===- AttentionOperands.cpp - attention's operands read in place ---------===//

#include "passes/AttentionOperands.h"
#include "passes/BufferFacts.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using autoglm::KernelOperand;

namespace {

/// Whether no memory access strictly between `first` and `last` (in one
/// block) writes `buffer`, nor, with `orReads`, reads it: each is a linalg
/// op on buffers provably disjoint from it (a call may touch anything).
bool untouchedBetween(Operation *first, Operation *last, Value buffer,
                      bool orReads) {
  auto disjointFrom = [&](Value other) {
    return !isa<BaseMemRefType>(other.getType()) ||
           autoglm::disjoint(other, buffer);
  };
  for (Operation *op = autoglm::nextEffect(first); op != last;
       op = autoglm::nextEffect(op)) {
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
    if (!linalgOp ||
        !(orReads ? llvm::all_of(op->getOperands(), disjointFrom)
                  : llvm::all_of(linalgOp.getDpsInits(), disjointFrom)))
      return false;
  }
  return true;
}

/// The one user of `buffer` besides those in `others`: a transpose that
/// keeps the last dimension (the kernel's rows stay contiguous) and takes
/// `buffer` as its destination (`asInit`) or its input, in `op`'s block on
/// the side of `op` that makes it the writer or the reader; else null.
linalg::TransposeOp soleTranspose(Value buffer, bool asInit, Operation *op,
                                  ArrayRef<Operation *> others) {
  linalg::TransposeOp transpose;
  for (Operation *user : buffer.getUsers()) {
    if (llvm::is_contained(others, user))
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || transpose || (asInit ? t.getInit() : t.getInput()) != buffer)
      return nullptr;
    transpose = t;
  }
  if (!transpose || transpose.getPermutation().size() != 4 ||
      transpose.getPermutation().back() != 3 ||
      transpose->getBlock() != op->getBlock() ||
      transpose->isBeforeInBlock(op) != asInit)
    return nullptr;
  return transpose;
}

} // namespace

KernelOperand autoglm::readOperand(Value value, Operation *op) {
  KernelOperand plain{value};
  Value buffer = value;
  auto cast = value.getDefiningOp<memref::CastOp>();
  if (cast) {
    if (!cast->hasOneUse())
      return plain;
    buffer = cast.getSource();
  }
  if (!buffer.getDefiningOp<memref::AllocOp>() ||
      llvm::count(op->getOperands(), value) != 1)
    return plain;
  linalg::TransposeOp transpose =
      soleTranspose(buffer, /*asInit=*/true, op, {cast, op});
  if (!transpose ||
      !untouchedBetween(transpose, op, transpose.getInput(), false))
    return plain;
  // The transposed buffer's dimension d is the input's dimension perm[d].
  ArrayRef<int64_t> perm = transpose.getPermutation();
  return {transpose.getInput(), SmallVector<int64_t, 4>(perm), transpose};
}

KernelOperand autoglm::writeOperand(Value output, Operation *op,
                                    ValueRange inputs) {
  KernelOperand plain{output};
  if (!output.getDefiningOp<memref::AllocOp>())
    return plain;
  linalg::TransposeOp transpose =
      soleTranspose(output, /*asInit=*/false, op, {op});
  if (!transpose)
    return plain;
  Value dest = transpose.getInit();
  if (!untouchedBetween(op, transpose, dest, /*orReads=*/true) ||
      !autoglm::canHoistBefore(dest, op) ||
      !llvm::all_of(inputs, [&](Value input) {
        return !input || autoglm::disjoint(input, dest);
      }))
    return plain;
  // The copy's dimension d is the output's dimension perm[d]: the output's
  // dimension j is the copy's inverse[j].
  SmallVector<int64_t, 4> inverse(4);
  for (auto [d, j] : llvm::enumerate(transpose.getPermutation()))
    inverse[j] = d;
  return {dest, inverse, transpose};
}
