//===- NodeImporter.cpp - what an op importer sees of one node ------------===//

#include "compiler/importer/NodeImporter.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace autoglm;

size_t NodeImporter::numInputs() const {
  size_t n = node_.input_size();
  while (n > 0 && node_.input(n - 1).empty())
    --n;
  return n;
}

Value NodeImporter::input(size_t i) const {
  if (i >= (size_t)node_.input_size() || node_.input(i).empty())
    return {};
  return lookup_(node_.input(i));
}

RankedTensorType NodeImporter::inputType(size_t i) const {
  Value v = input(i);
  return v ? cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

bool NodeImporter::outputUsed(size_t i) const {
  return i < (size_t)node_.output_size() && !node_.output(i).empty() &&
         isConsumed_(node_.output(i));
}

void NodeImporter::setOutput(size_t i, Value value) {
  if (i < (size_t)node_.output_size() && !node_.output(i).empty())
    sink_(node_.output(i), value);
}

const onnx::AttributeProto *NodeImporter::attribute(StringRef name) const {
  for (const auto &attr : node_.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t NodeImporter::intAttr(StringRef name, int64_t fallback) const {
  const auto *attr = attribute(name);
  return attr ? attr->i() : fallback;
}

float NodeImporter::floatAttr(StringRef name, float fallback) const {
  const auto *attr = attribute(name);
  return attr ? attr->f() : fallback;
}

std::string NodeImporter::stringAttr(StringRef name, StringRef fallback) const {
  const auto *attr = attribute(name);
  return attr ? attr->s() : fallback.str();
}

SmallVector<int64_t> NodeImporter::intsAttr(StringRef name) const {
  const auto *attr = attribute(name);
  if (!attr)
    return {};
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

DenseElementsAttr NodeImporter::constantInput(size_t i) const {
  Value v = input(i);
  DenseElementsAttr attr;
  if (v && matchPattern(v, m_Constant(&attr)))
    return attr;
  return {};
}

FailureOr<SmallVector<int64_t>> NodeImporter::constantInts(size_t i,
                                                          StringRef what) {
  DenseElementsAttr attr = constantInput(i);
  if (!attr || !isa<IntegerType>(attr.getElementType()))
    return needsConstant(i, "input '" + what +
                                "' must be a compile-time integer constant "
                                "(data-dependent shapes are not supported)");
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<double> NodeImporter::constantScalar(size_t i, StringRef what) {
  DenseElementsAttr attr = constantInput(i);
  if (!attr || attr.getNumElements() != 1)
    return needsConstant(i, "input '" + what +
                                "' must be a compile-time scalar constant "
                                "(data-dependent shapes are not supported)");
  Attribute v = *attr.getValues<Attribute>().begin();
  if (auto f = dyn_cast<FloatAttr>(v))
    return f.getValueAsDouble();
  auto i64 = cast<IntegerAttr>(v);
  return attr.getElementType().isUnsignedInteger()
             ? (double)i64.getValue().getZExtValue()
             : (double)i64.getValue().getSExtValue();
}

LogicalResult NodeImporter::needsConstant(size_t i, const Twine &message) {
  InFlightDiagnostic diag = emitError() << message;
  // Graph inputs carry their ONNX name; a deployment usually knows such
  // values (axes, pads, sizes) before it runs the model.
  if (auto arg = dyn_cast_or_null<BlockArgument>(input(i)))
    if (auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp()))
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        "autoglm.name"))
        diag.attachNote() << "its value is graph input '" << name.getValue()
                          << "'; fix it at compile time with --bind "
                          << name.getValue() << "=FILE (.npy or .pb)";
  return diag;
}

FailureOr<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitError() << "axis " << axis << " is out of range for rank "
                       << rank;
  return axis < 0 ? axis + rank : axis;
}

Value NodeImporter::reshape(Value value, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType()).clone(shape);
  return createTyped<ReshapeOp>(type, value);
}

Value NodeImporter::constant(DenseElementsAttr value) {
  return createTyped<ConstantOp>(cast<ElementsAttr>(value));
}

Value NodeImporter::scalarZeroPoint(size_t operand, size_t zeroPoint) {
  if (!input(zeroPoint)) {
    auto type = RankedTensorType::get({}, inputType(operand).getElementType());
    return constant(DenseElementsAttr::get(
        type, cast<Attribute>(
                  Builder(context()).getZeroAttr(type.getElementType()))));
  }
  if (inputType(zeroPoint).getNumElements() != 1)
    return {};
  return reshape(input(zeroPoint), {});
}

Value NodeImporter::insertAndFold(Operation *op) {
  builder_.insert(op);
  SmallVector<Value> folded;
  if (succeeded(builder_.tryFold(op, folded)) && !folded.empty() &&
      folded.front().getDefiningOp() != op) {
    op->erase();
    return folded.front();
  }
  return op->getResult(0);
}

InFlightDiagnostic NodeImporter::emitError() {
  // The location holds the node name, or a made-up one for unnamed nodes.
  std::string name = node_.name();
  if (auto nameLoc = dyn_cast<NameLoc>(loc_))
    name = nameLoc.getName().str();
  return mlir::emitError(loc_) << node_.op_type() << " node '" << name
                               << "': ";
}

LogicalResult NodeImporter::unsupported(const Twine &what) {
  return emitError() << what << " is not supported (opset " << opset_ << ")";
}
