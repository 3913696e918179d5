//===- Elementwise.cpp - importers of elementwise ONNX operators ----------===//

#include "compiler/importer/NodeImporter.h"
#include "compiler/importer/TensorConversion.h"

#include <cfloat>

using namespace mlir;
using namespace autoglm;

namespace {

template <typename OpTy>
LogicalResult importUnary(NodeImporter &n) {
  n.setOutput(0, n.createTyped<OpTy>(n.input(0)));
  return success();
}

/// Binary ops; variadic ones (Min, Max, Sum) fold their inputs left to right.
template <typename OpTy>
LogicalResult importBinary(NodeImporter &n) {
  Value acc = n.input(0);
  for (size_t i = 1; i < n.numInputs(); ++i) {
    auto next = n.create<OpTy>(acc, n.input(i));
    if (failed(next))
      return failure();
    acc = *next;
  }
  n.setOutput(0, acc);
  return success();
}

LogicalResult importIdentity(NodeImporter &n) {
  // Dropout at inference is the identity; its mask output is all true.
  if (n.node().op_type() == "Dropout") {
    if (n.outputUsed(1))
      return n.unsupported("Dropout's mask output");
    DenseElementsAttr training = n.constantInput(2);
    bool inference = !n.input(2) || (training && training.isSplat() &&
                                     !training.getSplatValue<bool>());
    if (!inference || n.intAttr("is_test", 1) == 0)
      return n.unsupported("Dropout in training mode");
  }
  n.setOutput(0, n.input(0));
  return success();
}

LogicalResult importClip(NodeImporter &n) {
  std::optional<double> lo, hi;
  Value x = n.input(0);
  if (n.opset() < 11) {
    lo = n.floatAttr("min", -FLT_MAX);
    hi = n.floatAttr("max", FLT_MAX);
  } else {
    for (size_t i : {1, 2}) {
      if (!n.input(i))
        continue;
      if (n.constantInput(i)) {
        auto bound = n.constantScalar(i, i == 1 ? "min" : "max");
        if (failed(bound))
          return failure();
        (i == 1 ? lo : hi) = *bound;
        continue;
      }
      // A bound known only at run time: max(x, min), then min(x, max).
      auto bounded = i == 1 ? n.create<MaxOp>(x, n.input(i))
                            : n.create<MinOp>(x, n.input(i));
      if (failed(bounded))
        return failure();
      x = *bounded;
    }
  }
  Builder b(n.context());
  FloatAttr minAttr = lo ? b.getF64FloatAttr(*lo) : FloatAttr();
  FloatAttr maxAttr = hi ? b.getF64FloatAttr(*hi) : FloatAttr();
  n.setOutput(0, lo || hi ? n.createTyped<ClipOp>(x, minAttr, maxAttr) : x);
  return success();
}

LogicalResult importCast(NodeImporter &n) {
  int64_t to = n.intAttr("to", 0);
  Type type = convertElementType(to, n.context());
  if (!type)
    return n.unsupported("Cast to " + onnxTypeName(to));
  auto out = n.create<CastOp>(n.input(0), type);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importWhere(NodeImporter &n) {
  auto out = n.create<WhereOp>(n.input(0), n.input(1), n.input(2));
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

} // namespace

void autoglm::registerElementwiseImporters(OpImporterTable &t) {
  t["Add"] = {importBinary<AddOp>, 2};
  t["Sub"] = {importBinary<SubOp>, 2};
  t["Mul"] = {importBinary<MulOp>, 2};
  t["Div"] = {importBinary<DivOp>, 2};
  t["Pow"] = {importBinary<PowOp>, 2};
  t["Min"] = {importBinary<MinOp>, 1};
  t["Max"] = {importBinary<MaxOp>, 1};
  t["Sum"] = {importBinary<AddOp>, 1};
  t["Equal"] = {importBinary<EqualOp>, 2};
  t["Less"] = {importBinary<LessOp>, 2};
  t["Greater"] = {importBinary<GreaterOp>, 2};
  t["Not"] = {importUnary<NotOp>, 1};
  t["Sqrt"] = {importUnary<SqrtOp>, 1};
  t["Reciprocal"] = {importUnary<ReciprocalOp>, 1};
  t["Erf"] = {importUnary<ErfOp>, 1};
  t["Tanh"] = {importUnary<TanhOp>, 1};
  t["Sigmoid"] = {importUnary<SigmoidOp>, 1};
  t["Exp"] = {importUnary<ExpOp>, 1};
  t["Log"] = {importUnary<LogOp>, 1};
  t["Round"] = {importUnary<RoundOp>, 1};
  t["Relu"] = {importUnary<ReluOp>, 1};
  t["Neg"] = {importUnary<NegOp>, 1};
  t["Abs"] = {importUnary<AbsOp>, 1};
  t["Identity"] = {importIdentity, 1};
  t["Dropout"] = {importIdentity, 1};
  t["Clip"] = {importClip, 1};
  t["Cast"] = {importCast, 1};
  t["Where"] = {importWhere, 3};
}
