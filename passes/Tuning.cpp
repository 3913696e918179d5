//===- Tuning.cpp - per-kernel knobs from a tuning file -------------------===//

#include "passes/Tuning.h"
#include "passes/KernelCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace autoglm {

constexpr StringLiteral kBlockingAttrName = "autoglm.blocking";

namespace {
/// An extent in a key: '?' when it is not known at compile time.
std::string extent(int64_t value) {
  return ShapedType::isDynamic(value) ? "?" : std::to_string(value);
}
} // namespace

std::string gemmTuningKey(int64_t batch, int64_t m, int64_t n, int64_t k) {
  return llvm::formatv("sgemm b{0} m{1} n{2} k{3}", extent(batch), extent(m),
                       extent(n), extent(k))
      .str();
}

std::string convTuningKey(const ConvShape &s) {
  return llvm::formatv("conv2d n{0} g{1} c{2} {3}x{4} f{5} k{6}x{7} s{8}x{9} "
                       "o{10}x{11}",
                       s.batch, s.groups, s.channels, s.height, s.width,
                       s.filters, s.kernelH, s.kernelW, s.strideH, s.strideW,
                       s.outH, s.outW)
      .str();
}

std::string loopTuningKey(linalg::LinalgOp op) {
  if (auto stamped = op->getAttrOfType<StringAttr>(kTuningKeyAttrName))
    return stamped.str();
  // Named ops (a fill, a copy) keep their name: they vectorize as loops
  // too, but are other work than a generic of the same shape.
  std::string key = isa<linalg::GenericOp>(op)
                        ? "loop "
                        : op->getName().stripDialect().str() + " ";
  llvm::raw_string_ostream os(key);
  llvm::interleave(
      op.getStaticLoopRanges(), os, [&](int64_t range) { os << extent(range); },
      "x");
  os << ' ';
  for (utils::IteratorType type : op.getIteratorTypesArray())
    os << (type == utils::IteratorType::parallel ? 'p' : 'r');
  return key;
}

DictionaryAttr tuningFor(Operation *op, StringRef key) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  while (module && !module->hasAttr(kTuningAttrName))
    module = module->getParentOfType<ModuleOp>();
  if (!module)
    return nullptr;
  auto table = module->getAttrOfType<DictionaryAttr>(kTuningAttrName);
  return table ? table.getAs<DictionaryAttr>(key) : nullptr;
}

std::optional<int64_t> intKnob(DictionaryAttr knobs, StringRef name) {
  if (auto value = knobs ? knobs.getAs<IntegerAttr>(name) : nullptr)
    return value.getInt();
  return std::nullopt;
}

std::optional<bool> boolKnob(DictionaryAttr knobs, StringRef name) {
  if (auto value = knobs ? knobs.getAs<BoolAttr>(name) : nullptr)
    return value.getValue();
  return std::nullopt;
}

std::optional<StringRef> stringKnob(DictionaryAttr knobs, StringRef name) {
  if (auto value = knobs ? knobs.getAs<StringAttr>(name) : nullptr)
    return value.getValue();
  return std::nullopt;
}

int64_t loopVectorWidth(linalg::LinalgOp op, int64_t fallback) {
  return intKnob(tuningFor(op, loopTuningKey(op)), "vector_width")
      .value_or(fallback);
}

std::optional<bool> loopParallelism(linalg::LinalgOp op) {
  return boolKnob(tuningFor(op, loopTuningKey(op)), "parallel");
}

GemmBlocking tunedBlocking(Operation *op, StringRef key) {
  DictionaryAttr knobs = tuningFor(op, key);
  GemmBlocking blocking;
  blocking.kc = intKnob(knobs, "kc").value_or(0);
  blocking.nc = intKnob(knobs, "nc").value_or(0);
  blocking.mc = intKnob(knobs, "mc").value_or(0);
  return blocking;
}

Value blockingArgument(OpBuilder &b, Location loc, ModuleOp module,
                       const GemmBlocking &blocking) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  if (blocking.isDefault())
    return LLVM::ZeroOp::create(b, loc, ptrType);
  std::string name = llvm::formatv("__agl_blocking_kc{0}_nc{1}_mc{2}",
                                   blocking.kc, blocking.nc, blocking.mc);
  auto type = MemRefType::get({3}, b.getI32Type());
  if (!SymbolTable::lookupSymbolIn(module, name)) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto values = DenseElementsAttr::get(
        RankedTensorType::get({3}, b.getI32Type()),
        ArrayRef<int32_t>{int32_t(blocking.kc), int32_t(blocking.nc),
                          int32_t(blocking.mc)});
    memref::GlobalOp::create(top, loc, name, top.getStringAttr("private"), type,
                             values, /*constant=*/true,
                             /*alignment=*/nullptr);
  }
  Value global = memref::GetGlobalOp::create(b, loc, type, name);
  return pointerTo(b, loc, global).pointer;
}

void recordBlocking(Operation *call, const GemmBlocking &blocking) {
  if (!blocking.isDefault())
    call->setAttr(
        kBlockingAttrName,
        DenseI64ArrayAttr::get(call->getContext(),
                               {blocking.kc, blocking.nc, blocking.mc}));
}

GemmBlocking blockingOfCall(Operation *call) {
  GemmBlocking blocking;
  if (auto values = call->getAttrOfType<DenseI64ArrayAttr>(kBlockingAttrName);
      values && values.size() == 3) {
    blocking.kc = values[0];
    blocking.nc = values[1];
    blocking.mc = values[2];
  }
  return blocking;
}

namespace {
constexpr KnobSpec kGemmKnobs[] = {
    {"kc", KnobType::Block, "depths per packed block (L1)"},
    {"nc", KnobType::Block, "columns of B per packed block (L2)"},
    {"mc", KnobType::Block, "rows of A per packed block (L3)"},
};
constexpr KnobSpec kConvKnobs[] = {
    {"strategy", KnobType::Strategy,
     "implicit-gemm (the convolution kernel) or im2col (gather + GEMM)"},
    {"kc", KnobType::Block, "depths per packed block (L1)"},
    {"nc", KnobType::Block, "filters per packed block (L2)"},
    {"mc", KnobType::Block, "output positions per packed block (L3)"},
};
constexpr KnobSpec kLoopKnobs[] = {
    {"vector_width", KnobType::Lanes,
     "f32 lanes per vector (a power of two up to 16; 1: scalar)"},
    {"parallel", KnobType::Bool, "split across the thread pool"},
};
constexpr StringLiteral kStrategies[] = {"implicit-gemm", "im2col", "winograd"};
/// A generic, and the named linalg ops that reach the loop passes.
constexpr StringLiteral kLoopKinds[] = {
    "loop", "fill", "copy", "map", "reduce", "transpose", "broadcast"};
} // namespace

ArrayRef<KnobSpec> knobsOfKind(StringRef key) {
  StringRef kind = key.split(' ').first;
  if (kind == "sgemm")
    return kGemmKnobs;
  if (kind == "conv2d")
    return kConvKnobs;
  if (llvm::is_contained(kLoopKinds, kind))
    return kLoopKnobs;
  return {};
}

ArrayRef<StringLiteral> convolutionStrategies() { return kStrategies; }

} // namespace autoglm
