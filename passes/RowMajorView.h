//===- RowMajorView.h - a contiguous buffer seen with other extents -*- C++ -*-===//
#ifndef AUTOGLM_PASSES_ROWMAJORVIEW_H
#define AUTOGLM_PASSES_ROWMAJORVIEW_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace autoglm {

/// The row-major strides of a buffer of extents `sizes`: constants where
/// the extents inside are, else index products.
llvm::SmallVector<mlir::OpFoldResult>
rowMajorStrides(mlir::OpBuilder &b, mlir::Location loc,
                llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// `source` (a contiguous buffer, identity layout) viewed as `type` with the
/// extents `sizes`: a memref.reinterpret_cast with row-major strides, folded
/// to constants where the extents are static.
mlir::Value rowMajorView(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value source, mlir::MemRefType type,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes);

} // namespace autoglm

#endif // AUTOGLM_PASSES_ROWMAJORVIEW_H
