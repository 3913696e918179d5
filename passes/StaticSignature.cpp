//===- StaticSignature.cpp - the plain-pointer signature of a model -------===//
//
// The ABI passes inputs and outputs as bare pointers, which the LLVM
// lowering allows only for statically shaped memrefs. A symbolic input is
// therefore passed as the flat buffer of its largest size and viewed inside
// with the extents that the caller's symbol values give; a symbolic output
// is viewed the same way where the model copies its result into it (or where
// the result's arena view is made, which it then replaces), and its extents
// are written back for the caller.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RowMajorView.h"
#include "passes/SizeBounds.h"

#include "mlir/IR/Builders.h"

namespace autoglm {
#define GEN_PASS_DEF_STATICSIGNATURE
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A result computed in an arena view of its own and only copied into the
/// output at the end: computed in the output instead (a view of it with
/// the same extents), and the copy goes, as a static result's buffer is
/// the output itself. The arena keeps the bytes it planned for it.
bool computeInOutput(
    linalg::CopyOp copy, Value out, int64_t offset,
    llvm::function_ref<void(OpBuilder &, Value, int64_t)> storeExtent) {
  Value result = copy.getInputs()[0];
  auto arenaView = result.getDefiningOp<memref::ViewOp>();
  if (!arenaView || arenaView->getBlock() != copy->getBlock())
    return false;
  // Nothing touches the result after the copy.
  for (Operation *user : result.getUsers()) {
    Operation *top = copy->getBlock()->findAncestorOpInBlock(*user);
    if (!top || copy->isBeforeInBlock(top))
      return false;
  }
  auto type = cast<MemRefType>(result.getType());
  OpBuilder after(arenaView->getContext());
  after.setInsertionPointAfter(arenaView);
  SmallVector<OpFoldResult> sizes;
  unsigned dynamic = 0;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(arenaView.getSizes()[dynamic++])
                        : after.getIndexAttr(type.getDimSize(d)));
  Value view = rowMajorView(after, copy.getLoc(), out, type, sizes);
  OpBuilder here(copy);
  for (auto [d, size] : llvm::enumerate(sizes))
    storeExtent(here,
                getValueOrCreateConstantIndexOp(here, copy.getLoc(), size),
                offset + d);
  result.replaceAllUsesExcept(view, copy);
  copy.erase();
  return true;
}

struct StaticSignaturePass
    : autoglm::impl::StaticSignatureBase<StaticSignaturePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    OpBuilder b(func.getContext());
    Location loc = func.getLoc();
    Block &entry = func.getBody().front();
    auto symbols = func->getAttrOfType<ArrayAttr>("autoglm.symbols");
    int64_t numSymbols = symbols ? symbols.size() : 0;

    SmallVector<BlockArgument> inputs, outputs, slotted;
    int64_t numValues = numSymbols;
    for (BlockArgument arg : func.getArguments()) {
      if (auto slot = func.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), "autoglm.symbol_slot")) {
        slotted.push_back(arg);
        numValues = std::max(numValues, slot.getInt() + 1);
        continue;
      }
      (func.getArgAttr(arg.getArgNumber(), "bufferize.result") ? outputs
                                                               : inputs)
          .push_back(arg);
    }
    int64_t numDims = 0;
    for (BlockArgument out : outputs)
      numDims += cast<MemRefType>(out.getType()).getRank();

    // The two trailing arguments.
    unsigned at = func.getNumArguments();
    auto i64 = b.getI64Type();
    if (failed(func.insertArguments(
            {at, at},
            {MemRefType::get({numValues}, i64),
             MemRefType::get({numDims}, i64)},
            {b.getDictionaryAttr(
                 b.getNamedAttr("autoglm.symbol_values", b.getUnitAttr())),
             b.getDictionaryAttr(
                 b.getNamedAttr("autoglm.output_dims", b.getUnitAttr()))},
            {loc, loc})))
      return signalPassFailure();
    Value symbolValues = func.getArgument(at), outputDims = func.getArgument(at + 1);

    // Values kept after the symbols (a GPU model's KV cache length): their
    // arguments' loads read the slot instead.
    llvm::BitVector slottedArgs(func.getNumArguments());
    for (BlockArgument arg : slotted) {
      auto type = cast<MemRefType>(arg.getType());
      if (type.getShape() != ArrayRef<int64_t>{1} ||
          type.getElementType() != i64) {
        func.emitError("argument ")
            << arg.getArgNumber()
            << " read from a symbol slot is not a memref<1xi64>";
        return signalPassFailure();
      }
      int64_t slot = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                        "autoglm.symbol_slot")
                         .getInt();
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        auto load = dyn_cast<memref::LoadOp>(user);
        if (!load) {
          user->emitError("a value read from a symbol slot is only loaded");
          return signalPassFailure();
        }
        OpBuilder at(load);
        load.replaceAllUsesWith(
            memref::LoadOp::create(at, load.getLoc(), symbolValues,
                                   ValueRange{arith::ConstantIndexOp::create(
                                       at, load.getLoc(), slot)})
                .getResult());
        load.erase();
      }
      slottedArgs.set(arg.getArgNumber());
    }
    if (failed(func.eraseArguments(slottedArgs)))
      return signalPassFailure();

    b.setInsertionPointToStart(&entry);
    SmallVector<Value> symbol;
    for (int64_t k = 0; k < numSymbols; ++k) {
      Value v = memref::LoadOp::create(
          b, loc, symbolValues, ValueRange{arith::ConstantIndexOp::create(b, loc, k)});
      symbol.push_back(arith::IndexCastOp::create(b, loc, b.getIndexType(), v));
    }

    // Symbolic inputs: the flat buffer, viewed with the symbols' values.
    for (BlockArgument in : inputs) {
      auto type = cast<MemRefType>(in.getType());
      if (type.hasStaticShape())
        continue;
      auto dimSymbols = func.getArgAttrOfType<DenseI32ArrayAttr>(
          in.getArgNumber(), "autoglm.dim_symbols");
      SmallVector<OpFoldResult> sizes;
      SmallVector<int64_t> largest;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d)) {
          sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
          largest.push_back(type.getDimSize(d));
          continue;
        }
        int32_t k = dimSymbols && d < (int64_t)dimSymbols.size() ? dimSymbols[d] : -1;
        auto range = symbolRange(func, k);
        if (k < 0 || k >= numSymbols || !range) {
          func.emitError("input ") << in.getArgNumber() << " has a symbolic "
                                   << "extent without a declared range";
          return signalPassFailure();
        }
        sizes.push_back(symbol[k]);
        largest.push_back(range->hi);
      }
      in.setType(MemRefType::get({product(largest)}, type.getElementType()));
      Value view = rowMajorView(b, loc, in, type, sizes);
      in.replaceAllUsesExcept(view, view.getDefiningOp());
    }

    // Outputs: extents written back; symbolic ones viewed where the result
    // is copied in.
    SmallVector<Attribute> maxShapes;
    int64_t offset = 0;
    auto storeExtent = [&](OpBuilder &at, Value extent, int64_t position) {
      Value wide = arith::IndexCastOp::create(at, loc, i64, extent);
      memref::StoreOp::create(at, loc, wide, outputDims,
                              ValueRange{arith::ConstantIndexOp::create(at, loc, position)});
    };
    for (BlockArgument out : outputs) {
      auto type = cast<MemRefType>(out.getType());
      if (type.hasStaticShape()) {
        OpBuilder end = OpBuilder::atBlockTerminator(&entry);
        for (int64_t d = 0; d < type.getRank(); ++d)
          storeExtent(end, arith::ConstantIndexOp::create(end, loc, type.getDimSize(d)),
                      offset + d);
        maxShapes.push_back(b.getDenseI64ArrayAttr(type.getShape()));
        offset += type.getRank();
        continue;
      }
      auto copy = out.hasOneUse() ? dyn_cast<linalg::CopyOp>(*out.getUsers().begin())
                                  : linalg::CopyOp();
      if (!copy || copy.getOutputs()[0] != out) {
        func.emitError("output ") << out.getArgNumber()
                                  << " has symbolic extents but is not written "
                                     "by one copy";
        return signalPassFailure();
      }
      Value result = copy.getInputs()[0];
      auto largest = maxShape(result);
      if (!largest) {
        copy.emitError("the extents of this output cannot be bounded from the "
                       "declared symbol ranges");
        return signalPassFailure();
      }
      out.setType(MemRefType::get({product(*largest)}, type.getElementType()));
      if (computeInOutput(copy, out, offset, storeExtent)) {
        maxShapes.push_back(b.getDenseI64ArrayAttr(*largest));
        offset += type.getRank();
        continue;
      }
      OpBuilder here(copy);
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        Value extent = memref::DimOp::create(here, loc, result, d);
        sizes.push_back(type.isDynamicDim(d) ? OpFoldResult(extent)
                                             : here.getIndexAttr(type.getDimSize(d)));
        storeExtent(here, extent, offset + d);
      }
      Value view = rowMajorView(here, loc, out, type, sizes);
      copy.getOutputsMutable()[0].set(view);
      maxShapes.push_back(b.getDenseI64ArrayAttr(*largest));
      offset += type.getRank();
    }
    func->setAttr("autoglm.output_max_shapes", b.getArrayAttr(maxShapes));
    func.setType(FunctionType::get(func.getContext(),
                                   entry.getArgumentTypes(),
                                   func.getResultTypes()));
  }
};

} // namespace
