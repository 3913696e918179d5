//===- ExternalizeWeights.cpp - weights into a mapped file ----------------===//
//
// Large models keep their weights out of the object: the code addresses
// them through one pointer the runtime obtains by mapping the weights file,
// so weights are never copied at start-up and the object stays small. The
// compiler writes the file from the same blobs the importer mapped.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferFacts.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_EXTERNALIZEWEIGHTS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr int64_t kWeightAlignment = 64;

struct ExternalizeWeightsPass
    : autoglm::impl::ExternalizeWeightsBase<ExternalizeWeightsPass> {
  using ExternalizeWeightsBase::ExternalizeWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    llvm::StringMap<int64_t> offsets;
    SmallVector<Attribute> records;
    int64_t size = 0;
    for (auto global : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>())) {
      auto value = dyn_cast_or_null<ElementsAttr>(global.getInitialValueAttr());
      if (!global.getConstant() || !value ||
          autoglm::bufferBytes(global.getType()) < minBytes)
        continue;
      size = llvm::alignTo(size, kWeightAlignment);
      offsets[global.getSymName()] = size;
      records.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("offset", b.getI64IntegerAttr(size)),
           b.getNamedAttr("value", value)}));
      size += autoglm::bufferBytes(global.getType());
    }
    if (records.empty())
      return;

    auto weightsType = MemRefType::get({size}, b.getI8Type());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      unsigned index = func.getNumArguments();
      if (failed(func.insertArgument(index, weightsType,
                                     b.getDictionaryAttr(b.getNamedAttr(
                                         "autoglm.weights", b.getUnitAttr())),
                                     func.getLoc())))
        return signalPassFailure();
      Value weights = func.getArgument(index);
      func.walk([&](memref::GetGlobalOp get) {
        auto it = offsets.find(get.getName());
        if (it == offsets.end())
          return;
        b.setInsertionPoint(get);
        Value shift = arith::ConstantIndexOp::create(b, get.getLoc(), it->second);
        get.replaceAllUsesWith(memref::ViewOp::create(
            b, get.getLoc(), get.getType(), weights, shift, ValueRange{})
                                   .getResult());
        get.erase();
      });
    }
    for (auto global : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (offsets.count(global.getSymName()))
        global.erase();
    module->setAttr("autoglm.external_weights", b.getArrayAttr(records));
    module->setAttr("autoglm.external_weights_size", b.getI64IntegerAttr(size));
  }
};

} // namespace
