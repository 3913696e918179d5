//===- LinearAlgebra.cpp - importers of MatMul and Gemm -------------------===//

#include "compiler/importer/OpChain.h"

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

/// Largest matrix Det expands by permutations (5! = 120 terms).
constexpr int64_t kMaxDetSize = 5;

LogicalResult importDet(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2))
    return n.emitError() << "input must be a batch of square matrices";
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return n.unsupported("Det of a non-float input");
  int64_t size = type.getDimSize(rank - 1);
  if (size > kMaxDetSize)
    return n.unsupported("Det of matrices larger than " +
                         Twine(kMaxDetSize) + "x" + Twine(kMaxDetSize));
  // The Leibniz formula: sum over permutations p of sign(p) * prod_i
  // a[i, p(i)], in f64 for the cancellations of larger matrices.
  OpChain c(n);
  Type f64 = Float64Type::get(n.context());
  Value a = c.convert(n.input(0), f64);
  auto batch = type.getShape().drop_back(2);
  SmallVector<SmallVector<Value>> entries(size);
  for (int64_t i = 0; i < size; ++i)
    for (int64_t j = 0; j < size; ++j)
      entries[i].push_back(c.reshape(
          c.slice(c.slice(a, rank - 2, i, i + 1, 1), rank - 1, j, j + 1, 1),
          batch));
  if (size == 0) {
    // The determinant of the empty matrix is 1.
    Value one = c.convert(c.constant(f64, batch, [](ArrayRef<int64_t>) {
                            return 1.0;
                          }),
                          element);
    if (!c.ok())
      return failure();
    n.setOutput(0, one);
    return success();
  }
  SmallVector<int64_t> p = llvm::to_vector(llvm::seq<int64_t>(0, size));
  Value det;
  do {
    int64_t inversions = 0;
    for (int64_t i = 0; i < size; ++i)
      for (int64_t j = i + 1; j < size; ++j)
        inversions += p[i] > p[j];
    Value term = entries[0][p[0]];
    for (int64_t i = 1; i < size; ++i)
      term = c.op<MulOp>(term, entries[i][p[i]]);
    // The first permutation, the identity, is even.
    det = !det               ? term
          : inversions % 2 ? c.op<SubOp>(det, term)
                           : c.op<AddOp>(det, term);
  } while (std::next_permutation(p.begin(), p.end()));
  det = c.convert(det, element);
  if (!c.ok())
    return failure();
  n.setOutput(0, det);
  return success();
}

} // namespace

void autoglm::registerLinearAlgebraImporters(OpImporterTable &t) {
  t["MatMul"] = {importMatMul, 2};
  t["Gemm"] = {importGemm, 2};
  t["Det"] = {importDet, 1};
}
