//===- ParallelContext.cpp - values passed to a parallel loop body --------===//
//
// A memref crosses as its aligned pointer and the dynamic parts of its
// layout (offset, sizes, strides that its type leaves `?`); the static
// parts are constants on both sides. The body rebuilds an LLVM memref
// descriptor and casts it to the memref type: after the lowering to LLVM
// the cast meets its inverse and both go away (reconcile-unrealized-casts).
//
//===----------------------------------------------------------------------===//

#include "passes/ParallelContext.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace {

/// The layout fields of a memref in descriptor order: offset, sizes,
/// strides (ShapedType::kDynamic where only known at run time).
SmallVector<int64_t> layoutFields(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> fields = {offset};
  llvm::append_range(fields, type.getShape());
  llvm::append_range(fields, strides);
  return fields;
}

Value slotAddress(OpBuilder &b, Location loc, Value context, int64_t slot) {
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             b.getI64Type(), context,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(slot)});
}

/// The bits of a scalar as an i64.
Value toI64(OpBuilder &b, Location loc, Value value) {
  Type i64 = b.getI64Type();
  Type type = value.getType();
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, i64, value);
  if (auto f = dyn_cast<FloatType>(type))
    value = arith::BitcastOp::create(b, loc, b.getIntegerType(f.getWidth()),
                                     value);
  if (value.getType() == i64)
    return value;
  return arith::ExtUIOp::create(b, loc, i64, value);
}

/// A scalar of `type` from its bits in an i64.
Value fromI64(OpBuilder &b, Location loc, Value bits, Type type) {
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, bits);
  unsigned width = type.getIntOrFloatBitWidth();
  Type integer = b.getIntegerType(width);
  if (width < 64)
    bits = arith::TruncIOp::create(b, loc, integer, bits);
  if (isa<FloatType>(type))
    bits = arith::BitcastOp::create(b, loc, type, bits);
  return bits;
}

} // namespace

bool autoglm::fitsContext(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return memref.isStrided() && !memref.getMemorySpace() &&
           memref.getElementType().isIntOrIndexOrFloat();
  if (type.isIndex())
    return true;
  return type.isIntOrFloat() && type.getIntOrFloatBitWidth() <= 64;
}

int64_t autoglm::contextSlots(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return 1;
  return 1 + llvm::count(layoutFields(memref), ShapedType::kDynamic);
}

void autoglm::packContext(OpBuilder &b, Location loc, Value context,
                          ValueRange values) {
  int64_t slot = 0;
  auto store = [&](Value value) {
    LLVM::StoreOp::create(b, loc, toI64(b, loc, value),
                          slotAddress(b, loc, context, slot++));
  };
  for (Value value : values) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type) {
      store(value);
      continue;
    }
    store(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, value));
    SmallVector<int64_t> fields = layoutFields(type);
    if (llvm::none_of(fields, ShapedType::isDynamic))
      continue;
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, value);
    SmallVector<Value> current = {metadata.getOffset()};
    llvm::append_range(current, metadata.getSizes());
    llvm::append_range(current, metadata.getStrides());
    for (auto [field, staticField] : llvm::zip(current, fields))
      if (ShapedType::isDynamic(staticField))
        store(field);
  }
}

SmallVector<Value> autoglm::unpackContext(OpBuilder &b, Location loc,
                                          Value context, TypeRange types) {
  LLVMTypeConverter converter(b.getContext());
  Type i64 = b.getI64Type();
  int64_t slot = 0;
  auto load = [&]() -> Value {
    return LLVM::LoadOp::create(b, loc, i64,
                                slotAddress(b, loc, context, slot++));
  };
  SmallVector<Value> values;
  for (Type type : types) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      values.push_back(fromI64(b, loc, load(), type));
      continue;
    }
    auto descriptor =
        MemRefDescriptor::poison(b, loc, converter.convertType(memref));
    Value pointer = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), load());
    descriptor.setAllocatedPtr(b, loc, pointer);
    descriptor.setAlignedPtr(b, loc, pointer);
    SmallVector<int64_t> fields = layoutFields(memref);
    int64_t rank = memref.getRank();
    for (auto [i, field] : llvm::enumerate(fields)) {
      bool dynamic = ShapedType::isDynamic(field);
      Value value = dynamic ? load() : Value();
      unsigned pos = i == 0 ? 0 : (i - 1) % rank;
      if (i == 0)
        dynamic ? descriptor.setOffset(b, loc, value)
                : descriptor.setConstantOffset(b, loc, field);
      else if (i <= static_cast<size_t>(rank))
        dynamic ? descriptor.setSize(b, loc, pos, value)
                : descriptor.setConstantSize(b, loc, pos, field);
      else
        dynamic ? descriptor.setStride(b, loc, pos, value)
                : descriptor.setConstantStride(b, loc, pos, field);
    }
    values.push_back(UnrealizedConversionCastOp::create(
                         b, loc, TypeRange{memref}, ValueRange{Value(descriptor)})
                         .getResult(0));
  }
  return values;
}
