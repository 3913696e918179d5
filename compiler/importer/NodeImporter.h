//===- NodeImporter.h - what an op importer sees of one node ----*- C++ -*-===//
//
// Each ONNX operator has one import function (in ops/<Family>.cpp) that reads
// its node through this class and builds autoglm ops. The class hides the
// protobuf details, constant inputs and the version differences of
// attributes, and turns every problem into a diagnostic at the node.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_IMPORTER_NODEIMPORTER_H
#define AUTOGLM_COMPILER_IMPORTER_NODEIMPORTER_H

#include "compiler/importer/OnnxModel.h"
#include "dialects/AutoGLMDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>

namespace autoglm {

class NodeImporter {
public:
  using ValueLookup = std::function<mlir::Value(const std::string &)>;
  using ResultSink = std::function<void(const std::string &, mlir::Value)>;

  NodeImporter(const onnx::NodeProto &node, int64_t opset,
               mlir::OpBuilder &builder, mlir::Location loc,
               ValueLookup lookup, ResultSink sink,
               std::function<bool(const std::string &)> isConsumed,
               OnnxModel &model)
      : node_(node), opset_(opset), builder_(builder), loc_(loc),
        lookup_(std::move(lookup)), sink_(std::move(sink)),
        isConsumed_(std::move(isConsumed)), model_(model) {}

  const onnx::NodeProto &node() const { return node_; }
  int64_t opset() const { return opset_; }
  mlir::Location loc() const { return loc_; }
  mlir::OpBuilder &builder() { return builder_; }
  mlir::MLIRContext *context() { return builder_.getContext(); }
  OnnxModel &model() { return model_; }

  // ---- inputs and outputs ----
  /// Number of inputs, trailing empty ("") ones not counted.
  size_t numInputs() const;
  /// The i-th input, or null if it is absent or empty (optional input).
  mlir::Value input(size_t i) const;
  mlir::RankedTensorType inputType(size_t i) const;
  /// True if output `i` exists and something reads it.
  bool outputUsed(size_t i) const;
  size_t numOutputs() const { return node_.output_size(); }
  void setOutput(size_t i, mlir::Value value);

  // ---- attributes ----
  const onnx::AttributeProto *attribute(llvm::StringRef name) const;
  int64_t intAttr(llvm::StringRef name, int64_t fallback) const;
  float floatAttr(llvm::StringRef name, float fallback) const;
  std::string stringAttr(llvm::StringRef name, llvm::StringRef fallback) const;
  llvm::SmallVector<int64_t> intsAttr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attribute(name); }

  // ---- compile-time values ----
  /// The value of input `i` if it is (or folds to) a constant.
  mlir::DenseElementsAttr constantInput(size_t i) const;
  /// Input `i` as integers; a diagnostic naming `what` if not a constant.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  constantInts(size_t i, llvm::StringRef what);
  /// A scalar constant input as double; a diagnostic if not constant.
  mlir::FailureOr<double> constantScalar(size_t i, llvm::StringRef what);
  /// The error for input `i` not being a compile-time constant: `message`,
  /// and, where the value is a graph input, a note on binding it (--bind).
  mlir::LogicalResult needsConstant(size_t i, const llvm::Twine &message);
  /// `axis` made non-negative for `rank`; a diagnostic if out of range.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

  // ---- building ----
  /// Builds an op whose result type is inferred; a diagnostic (never a
  /// crash) if the operands are inconsistent. Folds where possible.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> create(Args &&...args) {
    mlir::OpBuilder detached(context());
    auto op = OpTy::create(detached, loc_, mlir::NoneType::get(context()),
                           std::forward<Args>(args)...);
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(OpTy::inferReturnTypes(
            context(), loc_, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), types))) {
      op->erase();
      return mlir::failure();
    }
    op->getResult(0).setType(types.front());
    return insertAndFold(op);
  }

  /// Builds an op with an explicit result type (or one its builder derives
  /// from the operands without possible failure), then folds.
  template <typename OpTy, typename... Args>
  mlir::Value createTyped(Args &&...args) {
    mlir::OpBuilder detached(context());
    auto op = OpTy::create(detached, loc_, std::forward<Args>(args)...);
    return insertAndFold(op);
  }

  mlir::Value reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape);
  mlir::Value constant(mlir::DenseElementsAttr value);
  /// Input `zeroPoint` (the zero point of input `operand`, as in
  /// MatMulInteger and ConvInteger) as a rank-0 tensor: a zero of the
  /// operand's type when it is absent, null when it has several entries.
  mlir::Value scalarZeroPoint(size_t operand, size_t zeroPoint);

  // ---- diagnostics ----
  mlir::InFlightDiagnostic emitError();
  mlir::LogicalResult unsupported(const llvm::Twine &what);

private:
  mlir::Value insertAndFold(mlir::Operation *op);

  const onnx::NodeProto &node_;
  int64_t opset_;
  mlir::OpBuilder &builder_;
  mlir::Location loc_;
  ValueLookup lookup_;
  ResultSink sink_;
  std::function<bool(const std::string &)> isConsumed_;
  OnnxModel &model_;
};

/// How to import one operator: the function, and how many leading inputs
/// must be present before it runs.
struct OpImporter {
  std::function<mlir::LogicalResult(NodeImporter &)> import;
  size_t requiredInputs = 1;
};
using OpImporterTable = llvm::StringMap<OpImporter>;

// One registration function per operator family (ops/<Family>.cpp).
void registerElementwiseImporters(OpImporterTable &table);
void registerLinearAlgebraImporters(OpImporterTable &table);
void registerNormalizationImporters(OpImporterTable &table);
void registerConvPoolImporters(OpImporterTable &table);
void registerShapeImporters(OpImporterTable &table);
void registerQuantizationImporters(OpImporterTable &table);
void registerAttentionImporters(OpImporterTable &table);
void registerLossImporters(OpImporterTable &table);
void registerRecurrentImporters(OpImporterTable &table);
void registerSamplingImporters(OpImporterTable &table);
void registerSignalImporters(OpImporterTable &table);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_NODEIMPORTER_H
