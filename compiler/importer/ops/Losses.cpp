//===- Losses.cpp - importers of NegativeLogLikelihoodLoss and ------------===//
//                  SoftmaxCrossEntropyLoss
//
// Both are compositions as the ONNX specification defines them: a gather of
// the target class along axis 1, optional class weights, ignore_index, and a
// none/sum/mean reduction (mean divides by the total weight).
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/NodeImporter.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// Unwraps a FailureOr into `out`; false once something failed.
bool take(FailureOr<Value> result, Value &out) {
  if (failed(result))
    return false;
  out = *result;
  return true;
}

Value scalarLike(NodeImporter &n, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  if (isa<FloatType>(element))
    return n.constant(DenseElementsAttr::get(type, FloatAttr::get(element, value)));
  return n.constant(DenseElementsAttr::get(type, IntegerAttr::get(element, (int64_t)value)));
}

/// The loss of `logProb` [N, C, d...] against `target` [N, d...] with
/// optional class `weight` [C]; nullptr after a diagnostic.
Value negativeLogLikelihood(NodeImporter &n, Value logProb, Value target,
                            Value weight) {
  auto type = cast<RankedTensorType>(logProb.getType());
  Type element = type.getElementType();
  Type indexType = getElementTypeOrSelf(target.getType());
  std::string reduction = n.stringAttr("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    (void)n.unsupported("reduction '" + reduction + "'");
    return {};
  }
  Value mask, safeTarget = target;
  if (n.hasAttr("ignore_index")) {
    Value ignored;
    if (!take(n.create<EqualOp>(target, scalarLike(n, indexType, n.intAttr("ignore_index", 0))),
              ignored))
      return {};
    mask = n.createTyped<NotOp>(ignored);
    // Ignored entries may hold any value: gather class 0 for them instead.
    if (!take(n.create<WhereOp>(mask, target, scalarLike(n, indexType, 0)), safeTarget))
      return {};
  }
  Value picked, loss;
  Value index = n.createTyped<ReshapeOp>(
      cast<RankedTensorType>(target.getType())
          .clone([&] {
            SmallVector<int64_t> shape(cast<RankedTensorType>(target.getType()).getShape());
            shape.insert(shape.begin() + 1, 1);
            return shape;
          }()),
      safeTarget);
  if (!take(n.create<GatherElementsOp>(logProb, index, int64_t(1)), picked))
    return {};
  SmallVector<int64_t> lossShape(cast<RankedTensorType>(target.getType()).getShape());
  loss = n.createTyped<NegOp>(n.reshape(picked, lossShape));
  Value weights; // per-element weight, when the mean needs it
  if (weight && !take(n.create<GatherOp>(weight, safeTarget, int64_t(0)), weights))
    return {};
  if (mask && !weights)
    weights = n.constant(DenseElementsAttr::get(RankedTensorType::get(lossShape, element),
                                                FloatAttr::get(element, 1.0)));
  if (mask && !take(n.create<WhereOp>(mask, weights, scalarLike(n, element, 0)), weights))
    return {};
  if (weights && !take(n.create<MulOp>(loss, weights), loss))
    return {};
  if (reduction == "none")
    return loss;
  Value sum;
  if (!take(n.create<ReduceSumOp>(loss, ArrayRef<int64_t>{}, false), sum))
    return {};
  if (reduction == "sum")
    return sum;
  Value total;
  if (weights) {
    if (!take(n.create<ReduceSumOp>(weights, ArrayRef<int64_t>{}, false), total))
      return {};
  } else {
    int64_t count = 1;
    for (int64_t d : lossShape)
      count *= d;
    total = scalarLike(n, element, (double)count);
  }
  Value mean;
  if (!take(n.create<DivOp>(sum, total), mean))
    return {};
  return mean;
}

LogicalResult importNegativeLogLikelihoodLoss(NodeImporter &n) {
  if (n.inputType(0).getRank() < 2)
    return n.emitError() << "input must have rank >= 2 ([N, C, ...])";
  Value loss = negativeLogLikelihood(n, n.input(0), n.input(1), n.input(2));
  if (!loss)
    return failure();
  n.setOutput(0, loss);
  return success();
}

LogicalResult importSoftmaxCrossEntropyLoss(NodeImporter &n) {
  if (n.inputType(0).getRank() < 2)
    return n.emitError() << "scores must have rank >= 2 ([N, C, ...])";
  Value logProb = n.createTyped<LogSoftmaxOp>(n.input(0), int64_t(1));
  Value loss = negativeLogLikelihood(n, logProb, n.input(1), n.input(2));
  if (!loss)
    return failure();
  n.setOutput(0, loss);
  n.setOutput(1, logProb);
  return success();
}

} // namespace

void autoglm::registerLossImporters(OpImporterTable &t) {
  t["NegativeLogLikelihoodLoss"] = {importNegativeLogLikelihoodLoss, 2};
  t["SoftmaxCrossEntropyLoss"] = {importSoftmaxCrossEntropyLoss, 2};
}
