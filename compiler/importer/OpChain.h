//===- OpChain.h - building compositions of autoglm ops ---------*- C++ -*-===//
//
// Operators that are compositions of autoglm ops (Attention, Gelu, layer
// normalization with statistics, ...) are written as straight-line chains.
// OpChain keeps them readable: after the first failure (a diagnostic was
// emitted at the node) every further call returns null and ok() is false, so
// an importer checks once at the end.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_IMPORTER_OPCHAIN_H
#define AUTOGLM_COMPILER_IMPORTER_OPCHAIN_H

#include "compiler/importer/NodeImporter.h"

#include "mlir/IR/TypeUtilities.h"

namespace autoglm {

class OpChain {
public:
  explicit OpChain(NodeImporter &n) : n_(n) {}
  bool ok() const { return ok_; }

  /// An op with an inferred result type (see NodeImporter::create).
  template <typename OpTy, typename... Args>
  mlir::Value op(Args &&...args) {
    if (!ok_)
      return {};
    auto result = n_.create<OpTy>(std::forward<Args>(args)...);
    ok_ = mlir::succeeded(result);
    return ok_ ? *result : mlir::Value();
  }
  /// A same-type unary op.
  template <typename OpTy>
  mlir::Value unary(mlir::Value x) {
    return ok_ ? n_.createTyped<OpTy>(x) : mlir::Value();
  }
  mlir::Value convert(mlir::Value v, mlir::Type element) {
    if (!ok_ || mlir::getElementTypeOrSelf(v.getType()) == element)
      return v;
    return op<CastOp>(v, element);
  }
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape) {
    return ok_ ? n_.reshape(v, shape) : mlir::Value();
  }
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int64_t> perm) {
    return op<TransposeOp>(v, perm);
  }
  /// Elements start, start + step, ... before end along one axis.
  mlir::Value slice(mlir::Value v, int64_t axis, int64_t start, int64_t end,
                    int64_t step) {
    if (!ok_)
      return {};
    auto type = mlir::cast<mlir::RankedTensorType>(v.getType());
    llvm::SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
    llvm::SmallVector<int64_t> ends(type.getShape());
    starts[axis] = start, ends[axis] = end, steps[axis] = step;
    return op<SliceOp>(v, starts, ends, steps);
  }
  mlir::Value clip(mlir::Value v, double lo, double hi) {
    mlir::Builder b(n_.context());
    return ok_ ? n_.createTyped<ClipOp>(v, b.getF64FloatAttr(lo),
                                        b.getF64FloatAttr(hi))
               : mlir::Value();
  }
  /// A rank-0 constant of a float or integer type.
  mlir::Value scalar(mlir::Type element, double v) {
    auto type = mlir::RankedTensorType::get({}, element);
    if (mlir::isa<mlir::FloatType>(element))
      return n_.constant(mlir::DenseElementsAttr::get(
          type, mlir::FloatAttr::get(element, v)));
    return n_.constant(mlir::DenseElementsAttr::get(
        type, mlir::IntegerAttr::get(element, (int64_t)v)));
  }
  /// A tensor of zeros (a splat constant).
  mlir::Value zeros(mlir::Type element, llvm::ArrayRef<int64_t> shape) {
    auto type = mlir::RankedTensorType::get(shape, element);
    return n_.constant(mlir::DenseElementsAttr::get(
        type, mlir::Builder(n_.context()).getZeroAttr(element)));
  }
  /// A float constant whose entries `fn` computes from their indices.
  mlir::Value constant(mlir::Type element, llvm::ArrayRef<int64_t> shape,
                       llvm::function_ref<double(llvm::ArrayRef<int64_t>)> fn) {
    auto type = mlir::RankedTensorType::get(shape, element);
    const auto &semantics = mlir::cast<mlir::FloatType>(element).getFloatSemantics();
    llvm::SmallVector<llvm::APFloat> values;
    llvm::SmallVector<int64_t> index(shape.size(), 0);
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
      llvm::APFloat v(fn(index));
      bool lost;
      v.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
      for (int64_t d = (int64_t)shape.size() - 1; d >= 0 && ++index[d] == shape[d]; --d)
        index[d] = 0;
    }
    return n_.constant(mlir::DenseElementsAttr::get(type, values));
  }

private:
  NodeImporter &n_;
  bool ok_ = true;
};

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_OPCHAIN_H
