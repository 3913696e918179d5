//===- QuantizeProducts.cpp - int8 post-training quantization -------------===//
//
// --precision int8 quantizes the matrix products and the convolutions (of
// one group) by constant weights, which hold nearly all of a transformer's
// and a CNN's arithmetic. Weights are quantized per column (per output
// channel of a filter) from their values; activations need the range they
// take on real inputs, which calibration measures:
// autoglm-calibration-outputs makes the model return the extremes of the
// products' activations (or the whole activations, for percentiles and
// entropy), the compiler runs it on the calibration inputs, and
// autoglm-quantize-products then writes the quantization into the IR in
// QDQ form (as a quantized ONNX model would bring it), where
// autoglm-integer-matmuls finds it. Both passes number the operands the
// same way. Gemm nodes by a constant weight are written as such products
// first (the weight transposed at compile time, alpha, beta and C as
// elementwise ops that the kernel's epilogue then takes).
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/FloatValues.h"
#include "dialects/NodeNames.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace autoglm {
#define GEN_PASS_DEF_CALIBRATIONOUTPUTS
#define GEN_PASS_DEF_QUANTIZEPRODUCTS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// The products that int8 serves: matrix products and convolutions (of one
/// group, with static shapes, as the int8 convolution takes them). Operand
/// 0 is the activation, operand 1 the weight.
bool isProduct(Operation *op) {
  if (auto conv = dyn_cast<ConvOp>(op))
    return conv.getGroup() == 1 &&
           cast<ShapedType>(conv.getType()).hasStaticShape() &&
           cast<ShapedType>(conv.getInput().getType()).hasStaticShape();
  return isa<MatMulOp>(op);
}

/// The axis of a product's weight along which it gets one scale per
/// channel: a matrix's columns, a filter's output channels.
int64_t channelAxis(Operation *product) { return isa<ConvOp>(product) ? 0 : 1; }

/// The f32 activations of the products by a constant f32 weight (2-D for
/// a matrix product), each once, in the order of their first product, with
/// those products.
struct QuantizableOperand {
  Value input;
  SmallVector<Operation *> products;
};

/// The products not to quantize: those of the ONNX nodes named in `keep`
/// (--keep-fp32).
struct KeptProducts {
  llvm::StringSet<> names;
  bool keeps(Operation *product) const {
    return llvm::any_of(onnxNodeNames(product->getLoc()),
                        [&](StringRef n) { return names.contains(n); });
  }
};

SmallVector<QuantizableOperand> quantizableOperands(func::FuncOp func,
                                                    const KeptProducts &kept) {
  SmallVector<QuantizableOperand> operands;
  DenseMap<Value, size_t> index;
  func.walk([&](Operation *product) {
    if (!isProduct(product))
      return;
    Value input = product->getOperand(0), weight = product->getOperand(1);
    auto inputType = cast<ShapedType>(input.getType());
    auto weightType = cast<ShapedType>(weight.getType());
    if (!inputType.getElementType().isF32() ||
        !weightType.getElementType().isF32() ||
        (isa<MatMulOp>(product) && weightType.getRank() != 2) ||
        !weight.getDefiningOp<ConstantOp>() || kept.keeps(product))
      return;
    auto [it, inserted] = index.try_emplace(input, operands.size());
    if (inserted)
      operands.push_back({input, {}});
    operands[it->second].products.push_back(product);
  });
  return operands;
}

/// Rewrites each f32 gemm by a constant 2-D weight (A not transposed) as
/// matmul(A, B or its transposition) [* alpha] [+ beta * C], so that it is
/// a product the passes below quantize.
void gemmsAsProducts(func::FuncOp func) {
  SmallVector<GemmOp> gemms;
  func.walk([&](GemmOp gemm) {
    auto b = gemm.getB().getDefiningOp<ConstantOp>();
    auto type = cast<ShapedType>(gemm.getB().getType());
    if (b && !gemm.getTransA() && type.getRank() == 2 &&
        type.getElementType().isF32() &&
        cast<ShapedType>(gemm.getA().getType()).getElementType().isF32() &&
        autoglm::floatValues(b.getValue()))
      gemms.push_back(gemm);
  });
  for (GemmOp gemm : gemms) {
    OpBuilder b(gemm);
    Location loc = gemm.getLoc();
    Value weight = gemm.getB();
    if (gemm.getTransB()) {
      auto type = cast<ShapedType>(weight.getType());
      int64_t n = type.getDimSize(0), k = type.getDimSize(1);
      SmallVector<float> values =
          *autoglm::floatValues(weight.getDefiningOp<ConstantOp>().getValue());
      SmallVector<float> transposed(k * n);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p)
          transposed[p * n + j] = values[j * k + p];
      weight = ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({k, n}, b.getF32Type()),
                                 ArrayRef<float>(transposed)));
    }
    auto scalar = [&](float v) -> Value {
      return ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), v));
    };
    Value y = MatMulOp::create(b, loc, gemm.getA(), weight);
    if (gemm.getAlpha().convertToFloat() != 1.0f)
      y = MulOp::create(b, loc, y, scalar(gemm.getAlpha().convertToFloat()));
    if (Value c = gemm.getC()) {
      if (gemm.getBeta().convertToFloat() != 1.0f)
        c = MulOp::create(b, loc, c, scalar(gemm.getBeta().convertToFloat()));
      y = AddOp::create(b, loc, y, c);
    }
    gemm.replaceAllUsesWith(y);
    gemm.erase();
  }
}

func::FuncOp mainOf(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>("main");
}

/// The products named in `keep`, or an error naming one that is not a
/// product by a constant weight.
FailureOr<KeptProducts> keptProducts(func::FuncOp func,
                                     ArrayRef<std::string> keep) {
  KeptProducts kept;
  for (const std::string &name : keep)
    kept.names.insert(name);
  llvm::StringSet<> found;
  func.walk([&](Operation *product) {
    if (!isProduct(product))
      return;
    for (StringRef n : onnxNodeNames(product->getLoc()))
      if (kept.names.contains(n))
        found.insert(n);
  });
  for (const std::string &name : keep)
    if (!found.contains(name)) {
      func.emitError("--keep-fp32: the model has no matrix product or "
                     "convolution from a node named '")
          << name << "'";
      return failure();
    }
  return kept;
}

struct CalibrationOutputsPass
    : autoglm::impl::CalibrationOutputsBase<CalibrationOutputsPass> {
  using CalibrationOutputsBase::CalibrationOutputsBase;

  void runOnOperation() override {
    func::FuncOp func = mainOf(getOperation());
    if (!func)
      return;
    gemmsAsProducts(func);
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    SmallVector<Value> results(ret.getOperands());
    Builder b(&getContext());
    FailureOr<KeptProducts> kept = keptProducts(func, keep);
    if (failed(kept))
      return signalPassFailure();
    auto addResult = [&](Value value, const Twine &name) {
      results.push_back(value);
      return func.insertResult(
          func.getNumResults(), value.getType(),
          b.getDictionaryAttr({b.getNamedAttr(
              "autoglm.name", b.getStringAttr("autoglm.calibration." + name))}));
    };
    for (auto [i, operand] :
         llvm::enumerate(quantizableOperands(func, *kept))) {
      std::string name = std::to_string(i);
      if (!whole) {
        // Its smallest and largest value: scalars, whatever its shape.
        OpBuilder after(&getContext());
        after.setInsertionPointAfterValue(operand.input);
        Location loc = operand.input.getLoc();
        Value lo = ReduceMinOp::create(after, loc, operand.input,
                                       ArrayRef<int64_t>{}, false);
        Value hi = ReduceMaxOp::create(after, loc, operand.input,
                                       ArrayRef<int64_t>{}, false);
        if (failed(addResult(lo, name + ".min")) ||
            failed(addResult(hi, name + ".max")))
          return signalPassFailure();
        continue;
      }
      if (!cast<ShapedType>(operand.input.getType()).hasStaticShape()) {
        operand.products.front()->emitError(
            "calibration of whole activations (percentile, entropy) needs "
            "static shapes: pin the symbolic extents with --dim");
        return signalPassFailure();
      }
      if (failed(addResult(operand.input, name)))
        return signalPassFailure();
    }
    ret->setOperands(results);
  }
};

/// Asymmetric uint8 parameters covering [lo, hi] and 0 (so that 0, the
/// padding of many tensors, is exact).
std::pair<float, uint8_t> activationParameters(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (!(hi > lo)) // all zero (or not a number)
    return {1.0f, 0};
  float scale = static_cast<float>((hi - lo) / 255.0);
  double zeroPoint = std::nearbyint(-lo / scale);
  return {scale, static_cast<uint8_t>(std::clamp(zeroPoint, 0.0, 255.0))};
}

struct QuantizeProductsPass
    : autoglm::impl::QuantizeProductsBase<QuantizeProductsPass> {
  using QuantizeProductsBase::QuantizeProductsBase;

  void runOnOperation() override {
    func::FuncOp func = mainOf(getOperation());
    if (!func)
      return;
    gemmsAsProducts(func);
    FailureOr<KeptProducts> kept = keptProducts(func, keep);
    if (failed(kept))
      return signalPassFailure();
    SmallVector<QuantizableOperand> operands = quantizableOperands(func, *kept);
    if (ranges.size() != 2 * operands.size()) {
      getOperation().emitError("autoglm-quantize-products: ")
          << operands.size() << " products' operands need "
          << 2 * operands.size() << " range values, got " << ranges.size();
      return signalPassFailure();
    }
    OpBuilder b(&getContext());
    auto f32 = b.getF32Type();
    auto u8 = b.getIntegerType(8, /*isSigned=*/false);
    DenseMap<Value, Value> quantizedWeights;
    for (auto [i, operand] : llvm::enumerate(operands)) {
      auto [scale, zeroPoint] =
          activationParameters(ranges[2 * i], ranges[2 * i + 1]);
      b.setInsertionPointAfterValue(operand.input);
      // A model input has no node: its quantization is its product's.
      Location loc = isa<BlockArgument>(operand.input)
                         ? operand.products.front()->getLoc()
                         : operand.input.getLoc();
      Value s = ConstantOp::create(
          b, loc, DenseElementsAttr::get(RankedTensorType::get({}, f32), scale));
      Value zp = ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, u8),
                                 APInt(8, zeroPoint)));
      auto inputType = cast<ShapedType>(operand.input.getType());
      int64_t axis = inputType.getRank() - 1;
      Value q = QuantizeLinearOp::create(b, loc, operand.input, s, zp, axis);
      Value dq = DequantizeLinearOp::create(b, loc, q, s, zp, axis);
      for (Operation *product : operand.products) {
        product->setOperand(0, dq);
        Value original = product->getOperand(1);
        Value &weight = quantizedWeights[original];
        if (!weight)
          weight = quantizeWeight(b, original, channelAxis(product));
        product->setOperand(1, weight);
      }
    }
  }

  /// dequantize_linear of the constant weight quantized to int8, one
  /// symmetric scale per channel along `axis`; placed after the constant.
  Value quantizeWeight(OpBuilder &b, Value weight, int64_t axis) {
    auto type = cast<RankedTensorType>(weight.getType());
    int64_t channels = type.getDimSize(axis), inner = 1;
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      inner *= type.getDimSize(d);
    auto constant = weight.getDefiningOp<ConstantOp>();
    std::optional<SmallVector<float>> values =
        autoglm::floatValues(constant.getValue());
    auto channelOf = [&](size_t i) { return i / inner % channels; };
    SmallVector<float> amax(channels, 0.0f);
    for (size_t i = 0; i < values->size(); ++i)
      amax[channelOf(i)] =
          std::max(amax[channelOf(i)], std::fabs((*values)[i]));
    // An all-zero channel: scale 1, values 0.
    SmallVector<float> scales = llvm::map_to_vector(
        amax, [](float a) { return a == 0.0f ? 1.0f : a / 127.0f; });
    SmallVector<int8_t> quantized(values->size());
    for (size_t i = 0; i < values->size(); ++i)
      quantized[i] = static_cast<int8_t>(
          std::clamp(std::nearbyint((*values)[i] / scales[channelOf(i)]),
                     -127.0f, 127.0f));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(constant);
    Location loc = constant.getLoc();
    auto i8 = b.getI8Type();
    Value q = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type.clone(i8), ArrayRef<int8_t>(quantized)));
    Value s = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({channels}, b.getF32Type()),
            ArrayRef<float>(scales)));
    Value zp = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({channels}, i8),
                               APInt(8, 0)));
    return DequantizeLinearOp::create(b, loc, q, s, zp, axis);
  }
};

} // namespace
