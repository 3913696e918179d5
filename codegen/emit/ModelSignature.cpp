//===- ModelSignature.cpp - names, dtypes and shapes of a model -----------===//

#include "codegen/emit/ModelSignature.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

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

ModelSignature autoglm::readSignature(func::FuncOp func, StringRef name) {
  ModelSignature sig;
  sig.name = toCIdentifier(name);
  // Empty tensors that cross the ABI flattened keep their shape in
  // `autoglm.shape`.
  auto describe = [](Type type, Attribute nameAttr, Attribute shapeAttr) {
    auto tensor = cast<RankedTensorType>(type);
    ArrayRef<int64_t> shape = tensor.getShape();
    if (auto declared = dyn_cast_or_null<DenseI64ArrayAttr>(shapeAttr))
      shape = declared.asArrayRef();
    return TensorSignature{cast<StringAttr>(nameAttr).str(),
                           dtypeCode(tensor.getElementType()),
                           std::vector<int64_t>(shape.begin(), shape.end())};
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    sig.inputs.push_back(describe(func.getArgument(i).getType(),
                                  func.getArgAttr(i, "autoglm.name"),
                                  func.getArgAttr(i, "autoglm.shape")));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    sig.outputs.push_back(describe(func.getResultTypes()[i],
                                   func.getResultAttr(i, "autoglm.name"),
                                   func.getResultAttr(i, "autoglm.shape")));
  return sig;
}

std::string autoglm::toCIdentifier(StringRef name) {
  std::string id;
  for (char c : name)
    id += std::isalnum((unsigned char)c) ? c : '_';
  if (id.empty() || std::isdigit((unsigned char)id[0]))
    id = "m_" + id;
  return id;
}
