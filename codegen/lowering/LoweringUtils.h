//===- LoweringUtils.h - building blocks of the linalg lowering -*- C++ -*-===//
//
// Every autoglm op lowers to a few linalg.generic ops on tensors. The helpers
// here build the recurring shapes: broadcasting elementwise maps, reductions,
// reshapes, and scalar arithmetic that respects signedness (the linalg level
// only has signless integers, so the autoglm type says what a value means).
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_CODEGEN_LOWERING_LOWERINGUTILS_H
#define AUTOGLM_CODEGEN_LOWERING_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace autoglm {

using ScalarBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// `tensor<...xui8>` -> `tensor<...xi8>`: the linalg level is signless.
/// float8, float4 and 2-/4-bit integer elements become one byte (`i8`);
/// signed sub-byte integers are sign-extended into it.
mlir::Type signlessElement(mlir::Type type);
mlir::RankedTensorType signless(mlir::RankedTensorType type);

/// The type converter of the lowering (`signless` on every tensor). Create
/// one per pass run: a TypeConverter caches converted types, which must not
/// outlive the MLIRContext they belong to.
class SignlessTypeConverter : public mlir::TypeConverter {
public:
  SignlessTypeConverter();
};

/// A linalg.generic producing `resultType` from `inputs` broadcast to it with
/// numpy rules; `body` maps the input scalars to the result scalar. The
/// result's symbolic extents are `sizes` if given, else the inputs'.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange inputs, ScalarBody body,
                             mlir::ValueRange sizes = {});

/// Reduces `input` over `axes` (sorted) with `combine(acc, x)` starting from
/// `init`; the result keeps the reduced axes as extent 1.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value input, llvm::ArrayRef<int64_t> axes,
                           mlir::TypedAttr init, ScalarBody combine);

/// Same elements, new shape (collapse/expand views, no copy). Symbolic
/// extents of `shape` are taken, in order, from those of `value`: right for
/// the reshapes that only add or drop extent-1 axes.
mlir::Value reshapeTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, llvm::ArrayRef<int64_t> shape);
/// Same elements, new shape with the given (static or symbolic) extents.
mlir::Value reshapeToExtents(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value value,
                             llvm::ArrayRef<mlir::OpFoldResult> shape);

/// The sizes of the symbolic extents of `type` (tensor.empty's operands),
/// each read from the first of `sources` that has a symbolic extent there
/// (sources aligned to `type` at their last axis, as in broadcasting).
llvm::SmallVector<mlir::Value> dynamicSizes(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            mlir::RankedTensorType type,
                                            mlir::ValueRange sources);

/// A tensor of `type` filled with `value`; `sizes` as for tensor.empty.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type, mlir::TypedAttr value,
                         mlir::ValueRange sizes = {});

/// Scalar constant of `type` (float or integer) holding `value`.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double value);

/// Lowest (or highest) value of a scalar type, -inf/+inf for floats: the
/// identity of max (min) reductions and the padding of max pooling.
mlir::TypedAttr lowestValue(mlir::Type type, bool isUnsigned);
mlir::TypedAttr highestValue(mlir::Type type, bool isUnsigned);

// Signedness-aware scalar arithmetic; `isUnsigned` comes from the autoglm type.
mlir::Value emitAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value y);
mlir::Value emitMul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value y);
mlir::Value emitMax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value y, bool isUnsigned = false);
mlir::Value emitMin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value y, bool isUnsigned = false);
/// ONNX Cast semantics between any two supported element types. `saturate`
/// applies to float8 targets, `roundMode` to f8E8M0FNU ones.
mlir::Value emitConvert(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        mlir::Type from, mlir::Type to, bool saturate = true,
                        llvm::StringRef roundMode = "up");

/// A float8/float4 element (its byte) as the f32 it encodes (exact).
mlir::Value emitNarrowFloatToF32(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value byte, mlir::Type format);
/// An f32 encoded as float8/float4 `format` (the byte), rounding to nearest
/// even (E8M0: by `roundMode`).
mlir::Value emitF32ToNarrowFloat(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value x, mlir::Type format,
                                 bool saturate, llvm::StringRef roundMode);

/// The exact integer product sum_k (lhs - lhs_zero_point) * (rhs -
/// rhs_zero_point) of 8-bit tensors (numpy matmul shapes), in i32:
/// `lhsElement` / `rhsElement` are their autoglm element types (which say
/// how to widen them) and a null zero point is 0, left out of the body:
/// the form the int8 GEMM kernel takes. The zero points are tensors of one
/// element. With `transposedResult` the product's last two dimensions come
/// swapped (batch.., n, m), as the int8 GEMM can store them.
mlir::Value lowerIntegerMatMul(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value lhs, mlir::Value rhs,
                               mlir::Type lhsElement, mlir::Type rhsElement,
                               mlir::Value lhsZeroPoint,
                               mlir::Value rhsZeroPoint,
                               llvm::ArrayRef<int64_t> resultShape,
                               bool transposedResult = false);

// Pattern sets, one per op family (one file each).
void populateElementwiseLowering(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateLinearAlgebraLowering(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateReductionLowering(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateConvPoolLowering(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);
void populateDataMovementLowering(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateQuantizationLowering(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// autoglm.attention becomes autoglm.attention_buffers with `kernel` (for
/// the runtime's attention kernel) or `gpuKernel` (for the GPU's,
/// autoglm-attention-to-gpu) where that kernel takes it; otherwise the
/// primitive ops it stands for.
void populateAttentionLowering(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns, bool kernel,
                               bool gpuKernel);

} // namespace autoglm

#endif // AUTOGLM_CODEGEN_LOWERING_LOWERINGUTILS_H
