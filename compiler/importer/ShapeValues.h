//===- ShapeValues.h - shape subgraphs as index arithmetic ------*- C++ -*-===//
//
// Exporters compute the shape operands of Reshape (and friends) from the
// input's extents: Shape -> Gather -> Unsqueeze -> Concat, with some Mul and
// Div on the way. With symbolic extents these small tensors are not
// constants; this reads them back as one index value (or constant) per
// element, built from tensor.dim of the tensors whose extents they are.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_IMPORTER_SHAPEVALUES_H
#define AUTOGLM_COMPILER_IMPORTER_SHAPEVALUES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace autoglm {

/// The elements of the 0-D or 1-D integer tensor `value` as constants or
/// index values (created at `b`'s insertion point); nullopt if an element
/// depends on tensor data rather than on extents and constants.
std::optional<llvm::SmallVector<mlir::OpFoldResult>>
shapeElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);

/// Extent `dim` of `value`, traced back through the ops that pass extents on
/// (elementwise ops, MatMul, Transpose, Reshape's sizes) to a constant, a
/// Reshape size or the extent of a graph input, so that equal extents are
/// recognizably equal.
mlir::OpFoldResult extentOf(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value value, int64_t dim);

/// product(numerator) / product(denominator) after cancelling the factors
/// that are the same extent: the `-1` entry of a Reshape. Failure if what
/// remains is constant and does not divide exactly.
mlir::FailureOr<mlir::OpFoldResult>
quotientOfProducts(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<mlir::OpFoldResult> numerator,
                   llvm::ArrayRef<mlir::OpFoldResult> denominator);

/// x * y and x / y (truncating) on constants or index values; constants
/// fold, so static extents stay static.
mlir::OpFoldResult foldedMul(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::OpFoldResult x, mlir::OpFoldResult y);
mlir::OpFoldResult foldedDiv(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::OpFoldResult x, mlir::OpFoldResult y);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_SHAPEVALUES_H
