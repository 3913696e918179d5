//===- LinearAlgebra.cpp - importers of MatMul and Gemm -------------------===//

#include "compiler/importer/NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

LogicalResult importMatMul(NodeImporter &n) {
  auto out = n.create<MatMulOp>(n.input(0), n.input(1));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importGemm(NodeImporter &n) {
  Value c = n.input(2);
  float alpha = n.floatAttr("alpha", 1.0f), beta = n.floatAttr("beta", 1.0f);
  Type element = n.inputType(0).getElementType();
  if (n.inputType(1).getElementType() != element ||
      (c && n.inputType(2).getElementType() != element))
    return n.emitError() << "A, B and C must have the same element type";
  // Integer gemms scale in their own type, which only integral factors allow.
  if (isa<IntegerType>(element) &&
      (alpha != std::floor(alpha) || beta != std::floor(beta)))
    return n.unsupported("integer Gemm with fractional alpha or beta");
  auto out = n.create<GemmOp>(n.input(0), n.input(1), c,
                              llvm::APFloat(alpha),
                              llvm::APFloat(beta),
                              n.intAttr("transA", 0) != 0,
                              n.intAttr("transB", 0) != 0);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

} // namespace

void autoglm::registerLinearAlgebraImporters(OpImporterTable &t) {
  t["MatMul"] = {importMatMul, 2};
  t["Gemm"] = {importGemm, 2};
}
