//===- FlattenConstants.cpp - constant globals as flat arrays -------------===//
//
// LLVM's translation turns a multi-dimensional constant into one constant
// array per innermost row: a [512, 512, 3, 3] filter becomes 786432 arrays
// of 3 floats (of 1 for a 1x1 filter), which took seconds to translate and
// emit. Each such global is made one-dimensional, and every read of it
// expands the flat buffer back to the shape its users see: the same bytes,
// one array.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace autoglm {
#define GEN_PASS_DEF_FLATTENCONSTANTS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// The initial value with a flat shape, or null where it cannot be reshaped
/// (a value of another kind).
Attribute flatValue(Attribute value, ShapedType flat) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.reshape(flat);
  if (auto blob = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(flat, blob.getRawHandle());
  return nullptr;
}

struct FlattenConstantsPass
    : autoglm::impl::FlattenConstantsBase<FlattenConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<memref::GlobalOp> flattened;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      MemRefType type = global.getType();
      auto value = dyn_cast_or_null<ElementsAttr>(global.getInitialValueAttr());
      if (!global.getConstant() || !value || type.getRank() < 2 ||
          !type.hasStaticShape() || !type.getLayout().isIdentity())
        continue;
      auto flatType =
          MemRefType::get({type.getNumElements()}, type.getElementType(),
                          nullptr, type.getMemorySpace());
      Attribute flat =
          flatValue(value, RankedTensorType::get(flatType.getShape(),
                                                 type.getElementType()));
      if (!flat)
        continue;
      global.setType(flatType);
      global.setInitialValueAttr(flat);
      flattened[global.getSymName()] = global;
    }
    if (flattened.empty())
      return;
    SmallVector<memref::GetGlobalOp> reads;
    module.walk([&](memref::GetGlobalOp get) {
      if (flattened.contains(get.getName()))
        reads.push_back(get);
    });
    for (memref::GetGlobalOp get : reads) {
      auto shaped = cast<MemRefType>(get.getType());
      OpBuilder b(get);
      auto flat = memref::GetGlobalOp::create(
          b, get.getLoc(), flattened[get.getName()].getType(), get.getName());
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, shaped.getRank()));
      auto expanded = memref::ExpandShapeOp::create(
          b, get.getLoc(), shaped, flat, ArrayRef<ReassociationIndices>{all});
      get.replaceAllUsesWith(expanded.getResult());
      get.erase();
    }
  }
};

} // namespace
