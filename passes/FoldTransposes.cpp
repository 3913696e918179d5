//===- FoldTransposes.cpp - products that write their result transposed ---===//
//
// Attention's context is a batched product over heads, [heads, seq, dim],
// that the model transposes to [seq, heads, dim] before the output
// projection: a copy of the whole tensor. When the transposed buffer is
// what the product's result is for, the product can write it in place,
// through a transposed view of it (cuBLAS takes the strides: the batch
// stride is the head's width, the row stride the token's); the copy and
// the first buffer go.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RowMajorView.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_FOLDTRANSPOSES
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// Folds `transpose` (a copy of `src` into `dst`) into the ops that write
/// `src`, if they are all that touch it and `dst` is free meanwhile.
bool fold(linalg::TransposeOp transpose) {
  Value src = transpose.getInput(), dst = transpose.getInit();
  auto srcAlloc = src.getDefiningOp<memref::AllocOp>();
  auto dstAlloc = dst.getDefiningOp<memref::AllocOp>();
  Block *block = transpose->getBlock();
  if (!srcAlloc || !dstAlloc || srcAlloc->getBlock() != block ||
      dstAlloc->getBlock() != block)
    return false;
  // What writes src: linalg ops before the copy, src their init (a fill,
  // the product accumulating into it).
  SmallVector<OpOperand *> writes;
  for (OpOperand &use : src.getUses()) {
    Operation *user = use.getOwner();
    if (user == transpose)
      continue;
    auto writer = dyn_cast<linalg::LinalgOp>(user);
    if (!writer || user->getBlock() != block ||
        !user->isBeforeInBlock(transpose) || !writer.isDpsInit(&use))
      return false;
    writes.push_back(&use);
  }
  if (writes.empty())
    return false;
  Operation *first = writes.front()->getOwner();
  for (OpOperand *use : writes)
    if (use->getOwner()->isBeforeInBlock(first))
      first = use->getOwner();
  // Nothing touches dst before the copy, which overwrites all of it.
  for (Operation *user : dst.getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top || (top != transpose && top->isBeforeInBlock(transpose)))
      return false;
  }
  // dst is allocated before the first write (its symbolic extents, if any,
  // known by then).
  for (Value size : dstAlloc.getDynamicSizes()) {
    Operation *def = size.getDefiningOp();
    if (def && (def->getBlock() != block || !def->isBeforeInBlock(first)))
      return false;
  }
  // src's dimension j is dst's dimension inverse[j]: a strided view of
  // dst with its sizes and strides so permuted (a view-like op, which the
  // passes that follow buffers through views see through).
  auto srcType = cast<MemRefType>(src.getType());
  auto dstType = cast<MemRefType>(dst.getType());
  if (!dstType.getLayout().isIdentity())
    return false;
  SmallVector<OpFoldResult> srcSizes = srcAlloc.getMixedSizes();
  SmallVector<OpFoldResult> dstSizes = dstAlloc.getMixedSizes();
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  SmallVector<OpFoldResult> sizes(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    sizes[p] = dstSizes[i];
  for (auto [size, srcSize] : llvm::zip(sizes, srcSizes))
    if (!isEqualConstantIntOrValue(size, srcSize))
      return false;
  if (first->isBeforeInBlock(dstAlloc))
    dstAlloc->moveBefore(first);
  OpBuilder b(first);
  SmallVector<OpFoldResult> dstStrides =
      autoglm::rowMajorStrides(b, transpose.getLoc(), dstSizes);
  SmallVector<OpFoldResult> strides(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    strides[p] = dstStrides[i];
  SmallVector<int64_t> staticStrides =
      llvm::map_to_vector(strides, [](OpFoldResult stride) {
        return getConstantIntValue(stride).value_or(ShapedType::kDynamic);
      });
  auto viewType =
      MemRefType::get(srcType.getShape(), srcType.getElementType(),
                      StridedLayoutAttr::get(transpose.getContext(),
                                             /*offset=*/0, staticStrides));
  Value view = memref::ReinterpretCastOp::create(
      b, transpose.getLoc(), viewType, dst, b.getIndexAttr(0), sizes, strides);
  for (OpOperand *use : writes)
    use->set(view);
  transpose.erase();
  if (srcAlloc->use_empty())
    srcAlloc.erase();
  return true;
}

struct FoldTransposesPass
    : autoglm::impl::FoldTransposesBase<FoldTransposesPass> {
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp transpose) {
      transposes.push_back(transpose);
    });
    for (linalg::TransposeOp transpose : transposes)
      (void)fold(transpose);
  }
};

} // namespace
