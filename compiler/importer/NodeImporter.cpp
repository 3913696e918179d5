//===- NodeImporter.cpp - what an op importer sees of one node ------------===//

#include "compiler/importer/NodeImporter.h"

#include "mlir/IR/Matchers.h"

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
    return emitError() << "input '" << what
                       << "' must be a compile-time integer constant "
                          "(data-dependent shapes are not supported)";
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<double> NodeImporter::constantScalar(size_t i, StringRef what) {
  DenseElementsAttr attr = constantInput(i);
  if (!attr || attr.getNumElements() != 1)
    return emitError() << "input '" << what
                       << "' must be a compile-time scalar constant";
  Attribute v = *attr.getValues<Attribute>().begin();
  if (auto f = dyn_cast<FloatAttr>(v))
    return f.getValueAsDouble();
  auto i64 = cast<IntegerAttr>(v);
  return attr.getElementType().isUnsignedInteger()
             ? (double)i64.getValue().getZExtValue()
             : (double)i64.getValue().getSExtValue();
}

std::optional<SmallVector<int64_t>>
NodeImporter::declaredOutputShape(size_t i) const {
  if (i >= (size_t)node_.output_size() || node_.output(i).empty())
    return std::nullopt;
  const auto &graph = model_.proto().graph();
  auto shapeOf = [&](const onnx::ValueInfoProto &info)
      -> std::optional<SmallVector<int64_t>> {
    const auto &type = info.type();
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
      return std::nullopt;
    SmallVector<int64_t> shape;
    for (const auto &dim : type.tensor_type().shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0)
        return std::nullopt;
      shape.push_back(dim.dim_value());
    }
    return shape;
  };
  for (const auto &info : graph.output())
    if (info.name() == node_.output(i))
      return shapeOf(info);
  for (const auto &info : graph.value_info())
    if (info.name() == node_.output(i))
      return shapeOf(info);
  return std::nullopt;
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
