//===- Importer.cpp - ONNX graph to an autoglm function -------------------===//

#include "compiler/importer/Importer.h"
#include "compiler/importer/NodeImporter.h"
#include "compiler/importer/TensorConversion.h"
#include "dialects/StorageTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include <unordered_map>

using namespace mlir;
using namespace autoglm;

namespace {

const OpImporterTable &importerTable() {
  static const OpImporterTable table = [] {
    OpImporterTable t;
    registerElementwiseImporters(t);
    registerLinearAlgebraImporters(t);
    registerNormalizationImporters(t);
    registerConvPoolImporters(t);
    registerShapeImporters(t);
    registerQuantizationImporters(t);
    registerAttentionImporters(t);
    registerLossImporters(t);
    registerRecurrentImporters(t);
    registerSamplingImporters(t);
    registerSignalImporters(t);
    return t;
  }();
  return table;
}

class GraphImporter {
public:
  GraphImporter(OnnxModel &model, MLIRContext &ctx, const ImportOptions &opts)
      : model_(model), graph_(model.proto().graph()), ctx_(ctx), opts_(opts),
        builder_(&ctx) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  FailureOr<RankedTensorType> convertValueType(const onnx::ValueInfoProto &info,
                                               StringRef role);
  FailureOr<ElementsAttr> convertBoundInput(const onnx::ValueInfoProto &info);
  LogicalResult importNode(const onnx::NodeProto &node, size_t index);
  FailureOr<SmallVector<const onnx::NodeProto *>> sortNodes();
  Location nodeLoc(const onnx::NodeProto &node, size_t index);

  OnnxModel &model_;
  const onnx::GraphProto &graph_;
  MLIRContext &ctx_;
  const ImportOptions &opts_;
  OpBuilder builder_;
  /// Symbols with a range, in order of first use, and per converted value
  /// type which symbol each dim is (-1 static).
  SmallVector<std::string> symbols_;
  SmallVector<SmallVector<int32_t>> dimSymbols_;
  int32_t symbolIndex(StringRef symbol) {
    auto it = llvm::find(symbols_, symbol);
    if (it != symbols_.end())
      return it - symbols_.begin();
    symbols_.push_back(symbol.str());
    return symbols_.size() - 1;
  }
  std::unordered_map<std::string, Value> values_;
  llvm::StringSet<> consumed_;
};

} // namespace

Location GraphImporter::nodeLoc(const onnx::NodeProto &node, size_t index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  return NameLoc::get(StringAttr::get(&ctx_, name));
}

FailureOr<RankedTensorType>
GraphImporter::convertValueType(const onnx::ValueInfoProto &info,
                                StringRef role) {
  Location loc = NameLoc::get(StringAttr::get(&ctx_, info.name()));
  if (!info.type().has_tensor_type())
    return emitError(loc) << role << " '" << info.name()
                          << "' is not a tensor (sequences, maps and "
                             "optionals are not supported)";
  const auto &tensorType = info.type().tensor_type();
  Type element = convertElementType(tensorType.elem_type(), &ctx_);
  if (!element)
    return emitError(loc) << role << " '" << info.name() << "' has type "
                          << onnxTypeName(tensorType.elem_type())
                          << ", which is not supported";
  if (!tensorType.has_shape())
    return emitError(loc) << role << " '" << info.name()
                          << "' has no declared shape";
  SmallVector<int64_t> shape;
  dimSymbols_.emplace_back(tensorType.shape().dim_size(), -1);
  for (const auto &dim : tensorType.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    std::string symbol = dim.has_dim_param() ? dim.dim_param() : "?";
    auto it = opts_.dims.find(symbol);
    if (it == opts_.dims.end())
      return emitError(loc)
             << role << " '" << info.name() << "' has symbolic dimension '"
             << symbol << "'; give it a value or a range with --dim "
             << symbol << "=N or --dim " << symbol << "=MIN..MAX";
    if (it->second.min == it->second.max) {
      shape.push_back(it->second.min);
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    dimSymbols_.back()[shape.size() - 1] = symbolIndex(symbol);
  }
  return RankedTensorType::get(shape, element);
}

FailureOr<ElementsAttr>
GraphImporter::convertBoundInput(const onnx::ValueInfoProto &info) {
  Location loc = NameLoc::get(StringAttr::get(&ctx_, info.name()));
  const onnx::TensorProto &tensor = opts_.boundInputs.at(info.name());
  auto value = convertTensor(tensor, model_, &ctx_, loc);
  if (failed(value))
    return failure();
  auto type = cast<RankedTensorType>(value->getType());
  auto mismatch = [&]() {
    return emitError(loc) << "--bind " << info.name() << ": the value is a "
                          << type << ", but the input is declared as ";
  };
  if (!info.type().has_tensor_type())
    return emitError(loc) << "--bind " << info.name()
                          << ": the input is not a tensor";
  const auto &declared = info.type().tensor_type();
  if (convertElementType(declared.elem_type(), &ctx_) != type.getElementType())
    return mismatch() << onnxTypeName(declared.elem_type());
  if (declared.has_shape()) {
    bool same = declared.shape().dim_size() == type.getRank();
    for (int d = 0; same && d < declared.shape().dim_size(); ++d)
      if (declared.shape().dim(d).has_dim_value())
        same = declared.shape().dim(d).dim_value() == type.getDimSize(d);
    if (!same) {
      std::string dims;
      for (const auto &dim : declared.shape().dim())
        dims += (dims.empty() ? "" : "x") +
                (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                     : dim.dim_param().empty() ? "?"
                                                               : dim.dim_param());
      return mismatch() << "[" << dims << "]";
    }
  }
  return *value;
}

FailureOr<SmallVector<const onnx::NodeProto *>> GraphImporter::sortNodes() {
  // Kahn's algorithm: exporters do emit nodes out of order.
  llvm::StringSet<> available;
  for (const auto &t : graph_.initializer())
    available.insert(t.name());
  for (const auto &in : graph_.input())
    available.insert(in.name());
  SmallVector<const onnx::NodeProto *> pending, sorted;
  for (const auto &node : graph_.node())
    pending.push_back(&node);
  while (!pending.empty()) {
    size_t before = pending.size();
    SmallVector<const onnx::NodeProto *> blocked;
    for (const onnx::NodeProto *node : pending) {
      bool ready = llvm::all_of(node->input(), [&](const std::string &in) {
        return in.empty() || available.contains(in);
      });
      if (!ready) {
        blocked.push_back(node);
        continue;
      }
      sorted.push_back(node);
      for (const auto &out : node->output())
        available.insert(out);
    }
    pending = std::move(blocked);
    if (pending.size() == before) {
      const onnx::NodeProto *node = pending.front();
      auto loc = cast<NameLoc>(nodeLoc(*node, sorted.size()));
      for (const auto &in : node->input())
        if (!in.empty() && !available.contains(in))
          return emitError(loc)
                 << node->op_type() << " node '" << loc.getName().getValue()
                 << "' reads '" << in
                 << "', which no node, input or initializer produces (or "
                    "the graph has a cycle)";
    }
  }
  return sorted;
}

/// float8, float4 and 2-/4-bit integer tensors are converted and moved,
/// never computed on: other operators would compute on their storage bytes.
static LogicalResult checkStorageOnlyUse(NodeImporter &importer, Type type) {
  static const llvm::StringSet<> accepting = {
      "Cast",    "CastLike",  "QuantizeLinear", "DequantizeLinear",
      "Identity", "Reshape",  "Flatten",        "Squeeze",
      "Unsqueeze", "Transpose", "Constant"};
  Type element = getElementTypeOrSelf(type);
  if (!isStorageOnlyType(element) ||
      accepting.contains(importer.node().op_type()))
    return success();
  std::string name;
  llvm::raw_string_ostream os(name);
  os << element;
  return importer.unsupported(importer.node().op_type() + " on " + name);
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        size_t index) {
  Location loc = nodeLoc(node, index);
  int64_t opset = model_.defaultOpset();
  NodeImporter importer(
      node, opset, builder_, loc,
      [&](const std::string &name) { return values_.at(name); },
      [&](const std::string &name, Value v) { values_[name] = v; },
      [&](const std::string &name) { return consumed_.contains(name); },
      model_);
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return importer.emitError()
           << "operator domain '" << node.domain() << "' is not supported";
  auto it = importerTable().find(node.op_type());
  if (it == importerTable().end())
    return importer.emitError() << "operator " << node.op_type()
                                << " is not supported (opset " << opset << ")";
  for (size_t i = 0; i < it->second.requiredInputs; ++i)
    if (!importer.input(i))
      return importer.emitError() << "required input " << i << " is missing";
  for (size_t i = 0; i < (size_t)node.input_size(); ++i)
    if (Value in = importer.input(i))
      if (failed(checkStorageOnlyUse(importer, in.getType())))
        return failure();
  Block *block = builder_.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  if (failed(it->second.import(importer)))
    return failure();
  // Symbolic extents reach only the ops whose lowering handles them.
  for (Operation &op : llvm::make_range(
           last ? std::next(last->getIterator()) : block->begin(),
           block->end())) {
    auto symbolic = [](Type t) {
      auto shaped = dyn_cast<ShapedType>(t);
      return shaped && !shaped.hasStaticShape();
    };
    if (!isa<AutoGLMDialect>(op.getDialect()) ||
        op.hasTrait<traits::SymbolicShapes>())
      continue;
    if (llvm::any_of(op.getOperandTypes(), symbolic) ||
        llvm::any_of(op.getResultTypes(), symbolic))
      return importer.emitError()
             << op.getName() << " on symbolic shapes (from --dim NAME=MIN..MAX) "
             << "is not supported; pin the dimension with --dim NAME=N";
  }
  for (const auto &out : node.output())
    if (auto v = values_.find(out); !out.empty() && v != values_.end())
      if (failed(checkStorageOnlyUse(importer, v->second.getType())))
        return failure();
  for (const auto &out : node.output())
    if (!out.empty() && consumed_.contains(out) && !values_.count(out))
      return importer.emitError() << "output '" << out << "' is not supported";
  return success();
}

/// Tensors cross the ABI as bare pointers, which the LLVM lowering allows for
/// empty tensors only when their zero extent is the leading one. Other empty
/// tensors cross as a tensor<0xT>; their shape, which the model's signature
/// reports, is kept in the `autoglm.shape` argument or result attribute.
static bool passableAtBoundary(RankedTensorType type) {
  auto inner = type.getShape().drop_front(std::min<int64_t>(1, type.getRank()));
  return !llvm::is_contained(inner, 0);
}

static RankedTensorType boundaryType(RankedTensorType type) {
  return passableAtBoundary(type)
             ? type
             : RankedTensorType::get({0}, type.getElementType());
}

/// An empty tensor of `type`: it has no elements to read or write.
static Value emptyConstant(OpBuilder &b, Location loc, RankedTensorType type) {
  return ConstantOp::create(b, loc,
                            cast<ElementsAttr>(DenseElementsAttr::get(
                                type, ArrayRef<Attribute>{})));
}

FailureOr<OwningOpRef<ModuleOp>> GraphImporter::run() {
  Location modelLoc = FileLineColLoc::get(&ctx_, model_.path(), 0, 0);
  int64_t opset = model_.defaultOpset();
  // Before opset 7 most operators differ (legacy broadcast and
  // consumed_inputs attributes); a model that uses only operators unchanged
  // since opset 1 means the same at opset 7.
  auto unchangedSinceOpset1 = [&] {
    static const llvm::StringSet<> unchanged = {"Not", "Identity"};
    return llvm::all_of(graph_.node(), [](const onnx::NodeProto &node) {
      return unchanged.contains(node.op_type());
    });
  };
  if (opset > kMaxOpset || (opset < kMinOpset && !unchangedSinceOpset1()))
    return emitError(modelLoc) << "default-domain opset " << opset
                               << " is not supported (supported opsets: "
                               << kMinOpset << " to " << kMaxOpset << ")";
  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc);
  builder_.setInsertionPointToEnd(module->getBody());

  llvm::StringSet<> initializerNames;
  for (const auto &t : graph_.initializer())
    initializerNames.insert(t.name());
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> inputs;
  SmallVector<std::pair<const onnx::ValueInfoProto *, ElementsAttr>> bound;
  SmallVector<SmallVector<int32_t>> argDimSymbols;
  llvm::StringSet<> inputNames;
  for (const auto &in : graph_.input()) {
    // Old exporters (IR < 4) also list initializers as inputs.
    if (initializerNames.contains(in.name()))
      continue;
    inputNames.insert(in.name());
    if (opts_.boundInputs.count(in.name())) {
      auto value = convertBoundInput(in);
      if (failed(value))
        return failure();
      bound.push_back({&in, *value});
      continue;
    }
    auto type = convertValueType(in, "input");
    if (failed(type))
      return failure();
    argTypes.push_back(*type);
    argDimSymbols.push_back(dimSymbols_.back());
    inputs.push_back(&in);
  }
  for (const auto &[name, tensor] : opts_.boundInputs)
    if (!inputNames.contains(name))
      return emitError(modelLoc) << "--bind " << name << ": the model has no "
                                 << "input named '" << name << "'";
  for (const auto &node : graph_.node())
    for (const auto &in : node.input())
      consumed_.insert(in);
  for (const auto &out : graph_.output())
    consumed_.insert(out.name());

  SmallVector<Type> boundaryArgTypes;
  for (Type type : argTypes)
    boundaryArgTypes.push_back(boundaryType(cast<RankedTensorType>(type)));
  auto func = func::FuncOp::create(
      builder_, modelLoc, opts_.functionName,
      builder_.getFunctionType(boundaryArgTypes, {}));
  Block *body = func.addEntryBlock();
  builder_.setInsertionPointToStart(body);
  for (auto [i, in] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(argTypes[i]);
    func.setArgAttr(i, "autoglm.name", builder_.getStringAttr(in->name()));
    if (llvm::any_of(argDimSymbols[i], [](int32_t s) { return s >= 0; }))
      func.setArgAttr(i, "autoglm.dim_symbols",
                      builder_.getDenseI32ArrayAttr(argDimSymbols[i]));
    if (passableAtBoundary(type)) {
      values_[in->name()] = body->getArgument(i);
      continue;
    }
    values_[in->name()] = emptyConstant(
        builder_, NameLoc::get(StringAttr::get(&ctx_, in->name())), type);
    func.setArgAttr(i, "autoglm.shape",
                    builder_.getDenseI64ArrayAttr(type.getShape()));
  }
  if (!symbols_.empty()) {
    SmallVector<Attribute> records;
    for (const std::string &symbol : symbols_) {
      auto range = opts_.dims.lookup(symbol);
      records.push_back(builder_.getDictionaryAttr(
          {builder_.getNamedAttr("name", builder_.getStringAttr(symbol)),
           builder_.getNamedAttr("min", builder_.getI64IntegerAttr(range.min)),
           builder_.getNamedAttr("max", builder_.getI64IntegerAttr(range.max))}));
    }
    func->setAttr("autoglm.symbols", builder_.getArrayAttr(records));
  }

  for (auto [in, value] : bound)
    values_[in->name()] = ConstantOp::create(
        builder_, NameLoc::get(StringAttr::get(&ctx_, in->name())), value);
  for (const auto &t : graph_.initializer()) {
    Location loc = NameLoc::get(StringAttr::get(&ctx_, t.name()));
    auto value = convertTensor(t, model_, &ctx_, loc);
    if (failed(value))
      return failure();
    values_[t.name()] = ConstantOp::create(builder_, loc, *value);
  }

  auto sorted = sortNodes();
  if (failed(sorted))
    return failure();
  for (auto [i, node] : llvm::enumerate(*sorted))
    if (failed(importNode(*node, i)))
      return failure();

  SmallVector<Value> results;
  for (const auto &out : graph_.output()) {
    Value v = values_.at(out.name());
    auto inferred = cast<RankedTensorType>(v.getType());
    Location loc = NameLoc::get(StringAttr::get(&ctx_, out.name()));
    const auto &declared = out.type().tensor_type();
    if (declared.elem_type() &&
        convertElementType(declared.elem_type(), &ctx_) !=
            inferred.getElementType())
      return emitError(loc) << "output '" << out.name() << "' is declared as "
                            << onnxTypeName(declared.elem_type())
                            << " but computes " << inferred.getElementType();
    if (declared.has_shape()) {
      bool same = declared.shape().dim_size() == inferred.getRank();
      for (int d = 0; same && d < declared.shape().dim_size(); ++d) {
        const auto &dim = declared.shape().dim(d);
        if (dim.has_dim_value() && !inferred.isDynamicDim(d))
          same = dim.dim_value() == inferred.getDimSize(d);
      }
      if (!same)
        return emitError(loc) << "output '" << out.name()
                              << "' has a declared shape that differs from "
                                 "the computed "
                              << inferred;
    }
    if (!passableAtBoundary(inferred))
      v = emptyConstant(builder_, loc, boundaryType(inferred));
    results.push_back(v);
  }
  func::ReturnOp::create(builder_, modelLoc, results);
  func.setType(
      builder_.getFunctionType(boundaryArgTypes, TypeRange(results)));
  for (auto [i, out] : llvm::enumerate(graph_.output())) {
    func.setResultAttr(i, "autoglm.name", builder_.getStringAttr(out.name()));
    auto type = cast<RankedTensorType>(values_.at(out.name()).getType());
    if (!passableAtBoundary(type))
      func.setResultAttr(i, "autoglm.shape",
                         builder_.getDenseI64ArrayAttr(type.getShape()));
  }
  if (failed(verify(*module)))
    return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>>
autoglm::importOnnxModel(OnnxModel &model, MLIRContext &context,
                         const ImportOptions &options) {
  context.loadDialect<AutoGLMDialect, func::FuncDialect>();
  return GraphImporter(model, context, options).run();
}
