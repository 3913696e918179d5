//===- RowMajorView.cpp - a contiguous buffer seen with other extents -----===//

#include "passes/RowMajorView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;

SmallVector<OpFoldResult>
autoglm::rowMajorStrides(OpBuilder &b, Location loc,
                         ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size());
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    if (d == 0)
      break; // the outermost extent strides nothing
    auto s = getConstantIntValue(stride), n = getConstantIntValue(sizes[d]);
    stride = s && n ? OpFoldResult(b.getIndexAttr(*s * *n))
                    : OpFoldResult(arith::MulIOp::create(
                                       b, loc,
                                       getValueOrCreateConstantIndexOp(b, loc, stride),
                                       getValueOrCreateConstantIndexOp(b, loc, sizes[d]))
                                       .getResult());
  }
  return strides;
}

Value autoglm::rowMajorView(OpBuilder &b, Location loc, Value source,
                            MemRefType type, ArrayRef<OpFoldResult> sizes) {
  return memref::ReinterpretCastOp::create(b, loc, type, source,
                                           b.getIndexAttr(0), sizes,
                                           rowMajorStrides(b, loc, sizes));
}
