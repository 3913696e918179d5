//===- LoweringUtils.cpp - building blocks of the linalg lowering ---------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/StorageTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

Type autoglm::signlessElement(Type type) {
  if (isStorageOnlyType(type))
    return IntegerType::get(type.getContext(), 8);
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || intType.isSignless())
    return type;
  return IntegerType::get(type.getContext(), intType.getWidth());
}

RankedTensorType autoglm::signless(RankedTensorType type) {
  Type element = signlessElement(type.getElementType());
  return element == type.getElementType() ? type : type.clone(element);
}

SignlessTypeConverter::SignlessTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t) -> Type { return signless(t); });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Value autoglm::buildElementwise(OpBuilder &b, Location loc,
                                RankedTensorType resultType, ValueRange inputs,
                                ScalarBody body, ValueRange sizes) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value in : inputs) {
    auto type = cast<RankedTensorType>(in.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      bool broadcast =
          type.getDimSize(d) == 1 && resultType.getDimSize(d + offset) != 1;
      exprs.push_back(broadcast ? b.getAffineConstantExpr(0)
                                : b.getAffineDimExpr(d + offset));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(
      b, loc, resultType,
      sizes.empty() ? dynamicSizes(b, loc, resultType, inputs)
                    : SmallVector<Value>(sizes));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
      });
  return generic.getResult(0);
}

Value autoglm::buildReduction(OpBuilder &b, Location loc, Value input,
                              ArrayRef<int64_t> axes, TypedAttr init,
                              ScalarBody combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> reducedShape, keptShape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    keptShape.push_back(reduced ? 1 : type.getDimSize(d));
    if (!reduced) {
      reducedShape.push_back(type.getDimSize(d));
      outExprs.push_back(b.getAffineDimExpr(d));
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(b, loc, input, d));
    }
  }
  auto outType = type.clone(reducedShape);
  Value acc = filledTensor(b, loc, outType, init, sizes);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outExprs, b.getContext())};
  auto generic = linalg::GenericOp::create(
      b, loc, outType, input, acc, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, combine(nb, l, {args[1], args[0]}));
      });
  return reshapeTensor(b, loc, generic.getResult(0), keptShape);
}

SmallVector<Value> autoglm::dynamicSizes(OpBuilder &b, Location loc,
                                         RankedTensorType type,
                                         ValueRange sources) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    [[maybe_unused]] size_t before = sizes.size();
    for (Value source : sources) {
      auto sourceType = cast<RankedTensorType>(source.getType());
      int64_t at = d - (type.getRank() - sourceType.getRank());
      if (at >= 0 && sourceType.isDynamicDim(at)) {
        sizes.push_back(tensor::DimOp::create(b, loc, source, at));
        break;
      }
    }
    assert(sizes.size() == before + 1 && "no source has this symbolic extent");
  }
  return sizes;
}

Value autoglm::reshapeToExtents(OpBuilder &b, Location loc, Value value,
                                ArrayRef<OpFoldResult> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  auto [staticShape, sizes] = decomposeMixedValues(SmallVector<OpFoldResult>(shape));
  if (sizes.empty() && type.hasStaticShape())
    return reshapeTensor(b, loc, value, staticShape);
  // Through the 1-D view, with the extents given to the expansion.
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  Value flat = value;
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, type.clone({1}), value,
                                         SmallVector<ReassociationIndices>{});
  else if (type.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, value,
                                           SmallVector<ReassociationIndices>{all});
  auto target = type.clone(staticShape);
  if (shape.size() == 1)
    return tensor::CastOp::create(b, loc, target, flat);
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           SmallVector<ReassociationIndices>{});
  ReassociationIndices group;
  for (size_t d = 0; d < shape.size(); ++d)
    group.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       SmallVector<ReassociationIndices>{group},
                                       shape);
}

Value autoglm::reshapeTensor(OpBuilder &b, Location loc, Value value,
                             ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape && type.getNumDynamicDims() <= 1)
    return value;
  if (!type.hasStaticShape() || ShapedType::isDynamicShape(shape)) {
    SmallVector<OpFoldResult> extents;
    SmallVector<Value> symbolic;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        symbolic.push_back(tensor::DimOp::create(b, loc, value, d));
    size_t next = 0;
    for (int64_t extent : shape)
      extents.push_back(ShapedType::isDynamic(extent)
                            ? OpFoldResult(symbolic[next++])
                            : OpFoldResult(b.getIndexAttr(extent)));
    assert(next == symbolic.size() && "reshape changes a symbolic extent");
    return reshapeToExtents(b, loc, value, extents);
  }
  auto allDims = [](int64_t rank) {
    ReassociationIndices all;
    for (int64_t d = 0; d < rank; ++d)
      all.push_back(d);
    return SmallVector<ReassociationIndices>{all};
  };
  // Through the 1-D view: a collapse then an expand is always valid. Rank 0
  // has no dims to group, hence the empty reassociations.
  Value flat = value;
  if (type.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, type.clone({1}), value,
                                         SmallVector<ReassociationIndices>{});
  else if (type.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, value,
                                           allDims(type.getRank()));
  auto target = type.clone(shape);
  if (shape.size() == 1)
    return flat;
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           SmallVector<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       allDims(shape.size()));
}

Value autoglm::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                            TypedAttr value, ValueRange sizes) {
  Value empty = tensor::EmptyOp::create(b, loc, type, sizes);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

Value autoglm::scalarConstant(OpBuilder &b, Location loc, Type type,
                              double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, value));
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, (int64_t)value));
}

TypedAttr autoglm::lowestValue(Type type, bool isUnsigned) {
  Builder b(type.getContext());
  if (auto f = dyn_cast<FloatType>(type))
    return b.getFloatAttr(
        f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.getIntegerAttr(type, isUnsigned ? APInt::getMinValue(width)
                                           : APInt::getSignedMinValue(width));
}

TypedAttr autoglm::highestValue(Type type, bool isUnsigned) {
  Builder b(type.getContext());
  if (auto f = dyn_cast<FloatType>(type))
    return b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics()));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.getIntegerAttr(type, isUnsigned ? APInt::getMaxValue(width)
                                           : APInt::getSignedMaxValue(width));
}

Value autoglm::emitAdd(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value autoglm::emitMul(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value autoglm::emitMax(OpBuilder &b, Location loc, Value x, Value y,
                       bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value autoglm::emitMin(OpBuilder &b, Location loc, Value x, Value y,
                       bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

Value autoglm::emitConvert(OpBuilder &b, Location loc, Value x, Type from,
                           Type to, bool saturate, StringRef roundMode) {
  if (from == to)
    return x;
  Type f32 = b.getF32Type();
  // float8/float4 go through float32, where every value they hold is exact.
  if (isNarrowFloat(from))
    return emitConvert(b, loc, emitNarrowFloatToF32(b, loc, x, from), f32, to);
  if (isNarrowFloat(to))
    return emitF32ToNarrowFloat(b, loc, emitConvert(b, loc, x, from, f32), to,
                                saturate, roundMode);
  // A sub-byte integer's byte holds its value, so it converts as 8 bits.
  if (isSubByteInteger(from))
    from = IntegerType::get(b.getContext(), 8,
                            from.isUnsignedInteger() ? IntegerType::Unsigned
                                                     : IntegerType::Signless);
  if (isSubByteInteger(to)) {
    // Wrap to the width (as numpy/ml_dtypes casts do), then widen back to
    // the byte: floats truncate toward zero first.
    Type i32 = b.getI32Type();
    Value wide = isa<FloatType>(from)
                     ? (Value)arith::FPToSIOp::create(b, loc, i32, x)
                     : emitConvert(b, loc, x, from, i32);
    Value narrow = arith::TruncIOp::create(
        b, loc, b.getIntegerType(to.getIntOrFloatBitWidth()), wide);
    if (to.isUnsignedInteger())
      return arith::ExtUIOp::create(b, loc, b.getI8Type(), narrow);
    return arith::ExtSIOp::create(b, loc, b.getI8Type(), narrow);
  }
  if (from == to)
    return x;
  auto signlessOf = [&](Type t) -> Type {
    if (auto i = dyn_cast<IntegerType>(t))
      return b.getIntegerType(i.getWidth());
    return t;
  };
  Type target = signlessOf(to);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  bool fromUnsigned = from.isUnsignedInteger() || from.isInteger(1);
  if (to.isInteger(1)) { // x != 0
    Value zero = scalarConstant(b, loc, x.getType(), 0);
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, target, x);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, target, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, target, wide);
  }
  if (!fromFloat && toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, target, x);
    return arith::SIToFPOp::create(b, loc, target, x);
  }
  if (fromFloat) {
    if (to.isUnsignedInteger())
      return arith::FPToUIOp::create(b, loc, target, x);
    return arith::FPToSIOp::create(b, loc, target, x);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth(),
           toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth == toWidth)
    return x;
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, target, x);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, target, x);
  return arith::ExtSIOp::create(b, loc, target, x);
}
