//===- Normalization.cpp - importers of Softmax, reductions and norms -----===//

#include "compiler/importer/NodeImporter.h"
#include "dialects/ShapeUtils.h"

using namespace mlir;
using namespace autoglm;

namespace {

template <typename OpTy>
LogicalResult importReduce(NodeImporter &n) {
  auto type = n.inputType(0);
  // Axes moved from an attribute to an input: ReduceSum at 13, others at 18.
  bool axesAsInput =
      n.opset() >= (n.node().op_type() == "ReduceSum" ? 13 : 18);
  SmallVector<int64_t> axes;
  if (axesAsInput && n.input(1)) {
    auto values = n.constantInts(1, "axes");
    if (failed(values))
      return failure();
    axes = *values;
  } else if (!axesAsInput) {
    axes = n.intsAttr("axes");
  }
  if (axes.empty() && n.intAttr("noop_with_empty_axes", 0)) {
    n.setOutput(0, n.input(0));
    return success();
  }
  for (int64_t &axis : axes) {
    auto normalized = n.normalizeAxis(axis, type.getRank());
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  auto out = n.create<OpTy>(n.input(0), axes, n.intAttr("keepdims", 1) != 0);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importSoftmax(NodeImporter &n) {
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  auto axis = n.normalizeAxis(n.intAttr("axis", n.opset() < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  if (n.opset() >= 13 || *axis == rank - 1) {
    n.setOutput(0, n.createTyped<SoftmaxOp>(n.input(0), *axis));
    return success();
  }
  // Before opset 13, Softmax normalized the input viewed as a 2-D matrix
  // [prod(dims[:axis]), prod(dims[axis:])] along its rows.
  auto dims = type.getShape();
  Value flat = n.reshape(n.input(0), {product(dims.take_front(*axis)),
                                      product(dims.drop_front(*axis))});
  Value soft = n.createTyped<SoftmaxOp>(flat, int64_t(1));
  n.setOutput(0, n.reshape(soft, dims));
  return success();
}

LogicalResult importLayerNorm(NodeImporter &n) {
  if (n.outputUsed(1) || n.outputUsed(2))
    return n.unsupported("LayerNormalization's Mean/InvStdDev outputs");
  auto axis = n.normalizeAxis(n.intAttr("axis", -1), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  auto out = n.create<LayerNormOp>(n.input(0), n.input(1), n.input(2), *axis,
                                   llvm::APFloat(n.floatAttr("epsilon", 1e-5f)));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importBatchNorm(NodeImporter &n) {
  if (n.intAttr("training_mode", 0) || n.outputUsed(1) || n.outputUsed(2) ||
      n.outputUsed(3) || n.outputUsed(4))
    return n.unsupported("BatchNormalization in training mode");
  auto out = n.create<BatchNormOp>(n.input(0), n.input(1), n.input(2),
                                   n.input(3), n.input(4),
                                   llvm::APFloat(n.floatAttr("epsilon", 1e-5f)));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

} // namespace

void autoglm::registerNormalizationImporters(OpImporterTable &t) {
  t["ReduceMean"] = {importReduce<ReduceMeanOp>, 1};
  t["ReduceSum"] = {importReduce<ReduceSumOp>, 1};
  t["ReduceMax"] = {importReduce<ReduceMaxOp>, 1};
  t["ReduceMin"] = {importReduce<ReduceMinOp>, 1};
  t["Softmax"] = {importSoftmax, 1};
  t["LayerNormalization"] = {importLayerNorm, 2};
  t["BatchNormalization"] = {importBatchNorm, 5};
}
