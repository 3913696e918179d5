//===- LinearAlgebra.cpp - importers of MatMul and Gemm -------------------===//

#include "compiler/importer/NodeImporter.h"

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
  float beta = n.floatAttr("beta", 1.0f);
  auto out = n.create<GemmOp>(n.input(0), n.input(1), c,
                              llvm::APFloat(n.floatAttr("alpha", 1.0f)),
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
