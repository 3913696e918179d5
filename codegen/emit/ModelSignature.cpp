//===- ModelSignature.cpp - names, dtypes and shapes of a model -----------===//

#include "codegen/emit/ModelSignature.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"

#include <cctype>

using namespace mlir;
using namespace autoglm;

static int32_t dtypeCode(Type t) {
  if (t.isF32()) return 1;
  if (t.isF64()) return 11;
  if (t.isF16()) return 10;
  if (t.isBF16()) return 16;
  if (t.isInteger(1)) return 9;
  // float8/float4 and 2-/4-bit integers: one element per byte (runtime.h).
  if (isa<Float8E4M3FNType>(t)) return 17;
  if (isa<Float8E4M3FNUZType>(t)) return 18;
  if (isa<Float8E5M2Type>(t)) return 19;
  if (isa<Float8E5M2FNUZType>(t)) return 20;
  if (isa<Float4E2M1FNType>(t)) return 23;
  if (isa<Float8E8M0FNUType>(t)) return 24;
  auto i = cast<IntegerType>(t);
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 2: return u ? 25 : 26;
  case 4: return u ? 21 : 22;
  case 8: return u ? 2 : 3;
  case 16: return u ? 4 : 5;
  case 32: return u ? 12 : 6;
  default: return u ? 13 : 7;
  }
}

int64_t TensorSignature::numBytes() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  switch (dtype) {
  case 2: case 3: case 9: return n;
  case 17: case 18: case 19: case 20: case 21: case 22: case 23: case 24:
  case 25: case 26: return n;
  case 4: case 5: case 10: case 16: return 2 * n;
  case 1: case 6: case 12: return 4 * n;
  default: return 8 * n;
  }
}

static std::vector<SymbolSignature> readSymbols(func::FuncOp func) {
  std::vector<SymbolSignature> symbols;
  auto array = func->getAttrOfType<ArrayAttr>("autoglm.symbols");
  if (!array)
    return symbols;
  for (Attribute entry : array) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
    auto min = dict ? dict.getAs<IntegerAttr>("min") : IntegerAttr();
    auto max = dict ? dict.getAs<IntegerAttr>("max") : IntegerAttr();
    // A malformed entry keeps its place (indices refer to it) and an empty
    // range, which verifySignature reports.
    symbols.push_back({name ? name.str() : std::string(),
                       min ? min.getInt() : 1, max ? max.getInt() : 0});
  }
  return symbols;
}

/// One input or output. `dims` is its autoglm.dim_symbols attribute, if
/// any; dynamic extents take their symbol's max, or -1 while unknown.
/// Empty tensors that cross the ABI flattened keep their shape in
/// `shapeAttr` (autoglm.shape).
static TensorSignature describe(Type type, Attribute nameAttr, Attribute dims,
                                Attribute shapeAttr,
                                const std::vector<SymbolSignature> &symbols) {
  auto tensor = cast<RankedTensorType>(type);
  auto name = dyn_cast_or_null<StringAttr>(nameAttr);
  ArrayRef<int64_t> shape = tensor.getShape();
  if (auto declared = dyn_cast_or_null<DenseI64ArrayAttr>(shapeAttr))
    shape = declared.asArrayRef();
  TensorSignature sig{name ? name.str() : std::string(),
                      dtypeCode(tensor.getElementType()),
                      std::vector<int64_t>(shape.begin(), shape.end()),
                      {}};
  if (tensor.hasStaticShape())
    return sig;
  auto listed = dyn_cast_or_null<DenseI32ArrayAttr>(dims);
  sig.dimSymbols.assign(sig.shape.size(), kDimStatic);
  for (size_t d = 0; d < sig.shape.size(); ++d) {
    if (!ShapedType::isDynamic(sig.shape[d]))
      continue;
    int32_t symbol = listed && d < size_t(listed.size()) ? listed[d]
                                                         : kDimComputed;
    bool known = symbol >= 0 && size_t(symbol) < symbols.size();
    // An unknown index stays, for verifySignature to report.
    sig.dimSymbols[d] = symbol;
    sig.shape[d] = known ? symbols[symbol].max : -1;
  }
  return sig;
}

ModelSignature autoglm::readSignature(func::FuncOp func, StringRef name) {
  ModelSignature sig;
  sig.name = toCIdentifier(name);
  sig.symbols = readSymbols(func);
  auto cache = func->getAttrOfType<DictionaryAttr>("autoglm.kv_cache");
  if (cache) {
    KVCacheSignature kv;
    if (auto capacity = cache.getAs<IntegerAttr>("capacity"))
      kv.capacity = capacity.getInt();
    if (auto step = cache.getAs<IntegerAttr>("step"))
      kv.step = step.getInt();
    if (auto symbol = cache.getAs<IntegerAttr>("step_symbol"))
      kv.stepSymbol = symbol.getInt();
    if (auto slot = cache.getAs<IntegerAttr>("length_slot"))
      kv.lengthSlot = slot.getInt();
    sig.kvCache = kv;
  }
  // Model state (the KV cache and its length) is not an input or output.
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    TensorSignature tensor = describe(
        func.getArgument(i).getType(), func.getArgAttr(i, "autoglm.name"),
        func.getArgAttr(i, "autoglm.dim_symbols"),
        func.getArgAttr(i, "autoglm.shape"), sig.symbols);
    auto state = func.getArgAttrOfType<StringAttr>(i, "autoglm.state");
    if (func.getArgAttr(i, "autoglm.symbol_slot"))
      continue; // read from the symbol values
    if (!func.getArgAttr(i, "autoglm.state"))
      sig.inputs.push_back(tensor);
    else if (sig.kvCache && state && state.getValue() == "cache")
      sig.kvCache->caches.push_back(tensor);
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (!func.getResultAttr(i, "autoglm.state"))
      sig.outputs.push_back(describe(func.getResultTypes()[i],
                                   func.getResultAttr(i, "autoglm.name"),
                                   func.getResultAttr(i, "autoglm.dim_symbols"),
                                   func.getResultAttr(i, "autoglm.shape"),
                                   sig.symbols));
  return sig;
}

void autoglm::setStateOffsets(ModelSignature &sig, func::FuncOp planned) {
  auto records = planned->getAttrOfType<ArrayAttr>("autoglm.state_offsets");
  if (!sig.kvCache || !records)
    return;
  KVCacheSignature &kv = *sig.kvCache;
  kv.cacheOffsets.assign(kv.caches.size(), 0);
  for (auto record : records.getAsRange<DictionaryAttr>()) {
    auto name = record.getAs<StringAttr>("name");
    auto kind = record.getAs<StringAttr>("kind");
    uint64_t offset = record.getAs<IntegerAttr>("offset").getInt();
    if (kind && kind.getValue() == "length")
      kv.lengthOffset = offset;
    for (auto [i, cache] : llvm::enumerate(kv.caches))
      if (name && name.getValue() == cache.name)
        kv.cacheOffsets[i] = offset;
  }
}

void autoglm::setOutputBounds(ModelSignature &sig, size_t output,
                              ArrayRef<int64_t> maxShape,
                              ArrayRef<int32_t> dimSymbols) {
  TensorSignature &tensor = sig.outputs[output];
  tensor.shape.assign(maxShape.begin(), maxShape.end());
  bool allStatic = llvm::all_of(dimSymbols,
                                [](int32_t s) { return s == kDimStatic; });
  if (allStatic)
    tensor.dimSymbols.clear();
  else
    tensor.dimSymbols.assign(dimSymbols.begin(), dimSymbols.end());
}

static llvm::Error invalid(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Error verifyTensor(const ModelSignature &sig,
                                const TensorSignature &t, StringRef kind) {
  std::string what = (kind + " '" + t.name + "'").str();
  if (!t.dimSymbols.empty() && t.dimSymbols.size() != t.shape.size())
    return invalid(what + " has " + Twine(t.dimSymbols.size()) +
                   " dimension symbols for rank " + Twine(t.shape.size()));
  for (auto [d, extent] : llvm::enumerate(t.shape)) {
    int32_t symbol = t.dimSymbols.empty() ? kDimStatic : t.dimSymbols[d];
    if (extent < 0)
      return invalid(what + " has no known extent" +
                     (symbol == kDimComputed ? " bound" : "") +
                     " in dimension " + Twine(d));
    if (symbol == kDimStatic || (symbol == kDimComputed && kind == "output"))
      continue;
    if (symbol < 0 || size_t(symbol) >= sig.symbols.size())
      return invalid(what + " ties dimension " + Twine(d) + " to symbol " +
                     Twine(symbol) + ", which does not exist");
    if (extent != sig.symbols[symbol].max)
      return invalid(what + " has extent " + Twine(extent) + " in dimension " +
                     Twine(d) + ", but symbol '" + sig.symbols[symbol].name +
                     "' goes up to " + Twine(sig.symbols[symbol].max));
  }
  return llvm::Error::success();
}

void autoglm::setPlannedOutputBounds(ModelSignature &signature,
                                     func::FuncOp planned) {
  auto maxShapes = planned->getAttrOfType<ArrayAttr>("autoglm.output_max_shapes");
  if (!maxShapes)
    return;
  for (auto [i, output] : llvm::enumerate(signature.outputs)) {
    if (output.dimSymbols.empty() || i >= maxShapes.size())
      continue;
    std::vector<int32_t> dims(output.dimSymbols.size(), kDimStatic);
    for (size_t d = 0; d < dims.size(); ++d)
      if (output.dimSymbols[d] != kDimStatic)
        dims[d] = kDimComputed;
    setOutputBounds(signature, i,
                    cast<DenseI64ArrayAttr>(maxShapes[i]).asArrayRef(), dims);
  }
}

llvm::Error autoglm::verifySignature(const ModelSignature &sig) {
  for (auto [k, symbol] : llvm::enumerate(sig.symbols)) {
    if (symbol.name.empty())
      return invalid("symbol " + Twine(k) + " has no name");
    if (symbol.min < 0 || symbol.min > symbol.max)
      return invalid("symbol '" + symbol.name + "' has the empty or negative "
                     "range " + Twine(symbol.min) + ".." + Twine(symbol.max));
  }
  for (const TensorSignature &t : sig.inputs)
    if (auto e = verifyTensor(sig, t, "input"))
      return e;
  for (const TensorSignature &t : sig.outputs)
    if (auto e = verifyTensor(sig, t, "output"))
      return e;
  if (sig.kvCache) {
    const KVCacheSignature &kv = *sig.kvCache;
    if (kv.capacity <= 0 || kv.caches.empty() ||
        kv.cacheOffsets.size() != kv.caches.size())
      return invalid("the KV cache has no capacity, caches or placement");
    if (kv.stepSymbol >= (int64_t)sig.symbols.size() ||
        (kv.stepSymbol < 0 && kv.step <= 0))
      return invalid("the KV cache grows by an unknown number of positions");
    if (kv.lengthSlot >= 0 && kv.lengthSlot != (int64_t)sig.symbols.size())
      return invalid("the KV cache length is not the value after the "
                     "symbols");
  }
  for (auto [k, symbol] : llvm::enumerate(sig.symbols)) {
    bool named = llvm::any_of(sig.inputs, [&](const TensorSignature &t) {
      return llvm::is_contained(t.dimSymbols, int32_t(k));
    });
    if (!named)
      return invalid("symbol '" + symbol.name +
                     "' is the extent of no input dimension");
  }
  return llvm::Error::success();
}

std::string autoglm::toCIdentifier(StringRef name) {
  std::string id;
  for (char c : name)
    id += std::isalnum((unsigned char)c) ? c : '_';
  if (id.empty() || std::isdigit((unsigned char)id[0]))
    id = "m_" + id;
  return id;
}
