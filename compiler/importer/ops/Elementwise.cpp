//===- Elementwise.cpp - importers of elementwise ONNX operators ----------===//

#include "compiler/importer/OpChain.h"
#include "compiler/importer/TensorConversion.h"

#include "mlir/IR/TypeUtilities.h"

#include <cfloat>
#include <cmath>

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
  n.setOutput(0, n.input(0));
  return success();
}

/// Dropout at inference is the identity and keeps every element: its mask
/// is all true (all ones of the input type before opset 10).
LogicalResult importDropout(NodeImporter &n) {
  DenseElementsAttr training = n.constantInput(2);
  bool inference = !n.input(2) || (training && training.isSplat() &&
                                   !training.getSplatValue<bool>());
  if (!inference || n.intAttr("is_test", 1) == 0)
    return n.unsupported("Dropout in training mode");
  n.setOutput(0, n.input(0));
  if (!n.outputUsed(1))
    return success();
  RankedTensorType type = n.inputType(0);
  Builder b(n.context());
  if (n.opset() < 10)
    n.setOutput(1, n.constant(DenseElementsAttr::get(
                       type, b.getFloatAttr(type.getElementType(), 1.0))));
  else
    n.setOutput(1, n.constant(DenseElementsAttr::get(
                       type.clone(b.getI1Type()), true)));
  return success();
}


/// y = f(x) for a float activation written with autoglm ops. 16-bit floats
/// (and, where `integers` allows, integers) are computed in a wider float
/// and rounded once at the end, as the reference implementation does.
LogicalResult
importFormula(NodeImporter &n,
              function_ref<Value(OpChain &, Value, Type)> formula,
              bool integers = false) {
  Value x = n.input(0);
  Type element = getElementTypeOrSelf(x.getType());
  Builder b(n.context());
  Type compute = element;
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    compute = b.getF32Type();
  else if (!isa<FloatType>(element)) {
    if (!integers)
      return n.unsupported(n.node().op_type() + " on integer tensors");
    compute = b.getF64Type();
  }
  OpChain c(n);
  Value y = c.convert(formula(c, c.convert(x, compute), compute), element);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importHardSigmoid(NodeImporter &n) {
  float alpha = n.floatAttr("alpha", 0.2f), beta = n.floatAttr("beta", 0.5f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value a = c.scalar(t, alpha), b = c.scalar(t, beta);
    return c.clip(c.op<AddOp>(c.op<MulOp>(x, a), b), 0.0, 1.0);
  });
}

LogicalResult importHardSwish(NodeImporter &n) {
  // x * HardSigmoid(x) with alpha = 1/6 and beta = 0.5.
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value a = c.scalar(t, 1.0 / 6.0), b = c.scalar(t, 0.5);
    return c.op<MulOp>(x, c.clip(c.op<AddOp>(c.op<MulOp>(x, a), b), 0.0, 1.0));
  });
}

LogicalResult importLeakyRelu(NodeImporter &n) {
  float alpha = n.floatAttr("alpha", 0.01f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value zero = c.scalar(t, 0.0), a = c.scalar(t, alpha);
    Value negative = c.op<LessOp>(x, zero);
    return c.op<WhereOp>(negative, c.op<MulOp>(x, a), x);
  });
}

/// x > 0 ? x : alpha * (exp(x) - 1), the core of Elu and Selu.
Value elu(OpChain &c, Value x, Type t, double alpha) {
  Value zero = c.scalar(t, 0.0), a = c.scalar(t, alpha);
  Value positive = c.op<GreaterOp>(x, zero);
  Value negative = c.op<MulOp>(c.unary<Expm1Op>(x), a);
  return c.op<WhereOp>(positive, x, negative);
}

LogicalResult importElu(NodeImporter &n) {
  float alpha = n.floatAttr("alpha", 1.0f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    return elu(c, x, t, alpha);
  });
}

LogicalResult importSelu(NodeImporter &n) {
  float alpha = n.floatAttr("alpha", 1.67326319217681884765625f);
  float gamma = n.floatAttr("gamma", 1.05070102214813232421875f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value y = elu(c, x, t, alpha);
    return c.op<MulOp>(y, c.scalar(t, gamma));
  });
}

LogicalResult importCelu(NodeImporter &n) {
  float alpha = n.floatAttr("alpha", 1.0f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    Value zero = c.scalar(t, 0.0), a = c.scalar(t, alpha);
    Value negative = c.op<MulOp>(c.unary<Expm1Op>(c.op<DivOp>(x, a)), a);
    Value positivePart = c.op<MaxOp>(x, zero);
    return c.op<AddOp>(positivePart, c.op<MinOp>(negative, zero));
  });
}

/// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)), which does not overflow.
Value softplus(OpChain &c, Value x) {
  Value tail = c.unary<Log1pOp>(
      c.unary<ExpOp>(c.unary<NegOp>(c.unary<AbsOp>(x))));
  return c.op<AddOp>(c.unary<ReluOp>(x), tail);
}

LogicalResult importSoftplus(NodeImporter &n) {
  return importFormula(n, [&](OpChain &c, Value x, Type) {
    return softplus(c, x);
  });
}

LogicalResult importMish(NodeImporter &n) {
  // x * tanh(softplus(x))
  return importFormula(n, [&](OpChain &c, Value x, Type) {
    return c.op<MulOp>(x, c.unary<TanhOp>(softplus(c, x)));
  });
}

LogicalResult importSwish(NodeImporter &n) {
  // x * sigmoid(alpha * x)
  float alpha = n.floatAttr("alpha", 1.0f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value scaled = c.op<MulOp>(x, c.scalar(t, alpha));
    return c.op<MulOp>(x, c.unary<SigmoidOp>(scaled));
  });
}

LogicalResult importSwiGLU(NodeImporter &n) {
  // a * sigmoid(alpha * a) * b, on operands of one shape (no broadcasting).
  if (n.inputType(0) != n.inputType(1))
    return n.emitError() << "A and B must have the same type, got "
                         << n.inputType(0) << " and " << n.inputType(1);
  if (!isa<FloatType>(n.inputType(0).getElementType()))
    return n.unsupported("SwiGLU of a non-float input");
  float alpha = n.floatAttr("alpha", 1.0f);
  OpChain c(n);
  Value a = n.input(0);
  Type t = n.inputType(0).getElementType();
  Value scaled = alpha == 1.0f ? a : c.op<MulOp>(a, c.scalar(t, alpha));
  Value y = c.op<MulOp>(c.op<MulOp>(a, c.unary<SigmoidOp>(scaled)), n.input(1));
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importBitCast(NodeImporter &n) {
  int64_t to = n.intAttr("to", 0);
  Type type = convertElementType(to, n.context());
  if (!type)
    return n.unsupported("BitCast to " + onnxTypeName(to));
  auto out = n.create<BitcastOp>(n.input(0), type);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importSoftsign(NodeImporter &n) {
  // x / (1 + |x|)
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value one = c.scalar(t, 1.0);
    return c.op<DivOp>(x, c.op<AddOp>(c.unary<AbsOp>(x), one));
  });
}

LogicalResult importThresholdedRelu(NodeImporter &n) {
  float alpha = n.floatAttr("alpha", 1.0f);
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    Value zero = c.scalar(t, 0.0), a = c.scalar(t, alpha);
    return c.op<WhereOp>(c.op<GreaterOp>(x, a), x, zero);
  });
}

LogicalResult importShrink(NodeImporter &n) {
  float bias = n.floatAttr("bias", 0.0f), lambd = n.floatAttr("lambd", 0.5f);
  return importFormula(
      n,
      [&](OpChain &c, Value x, Type t) {
        // x < -lambd ? x + bias : (x > lambd ? x - bias : 0)
        Value zero = c.scalar(t, 0.0), b = c.scalar(t, bias);
        Value lo = c.scalar(t, -lambd), hi = c.scalar(t, lambd);
        Value inner =
            c.op<WhereOp>(c.op<GreaterOp>(x, hi), c.op<SubOp>(x, b), zero);
        return c.op<WhereOp>(c.op<LessOp>(x, lo), c.op<AddOp>(x, b), inner);
      },
      /*integers=*/true);
}

LogicalResult importGelu(NodeImporter &n) {
  std::string approximate = n.stringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return n.unsupported("Gelu approximation '" + approximate + "'");
  return importFormula(n, [&](OpChain &c, Value x, Type t) {
    // 0.5 * x * (1 + inner)
    Value half = c.scalar(t, 0.5), one = c.scalar(t, 1.0);
    Value inner;
    if (approximate == "none") {
      // erf(x / sqrt(2))
      Value scale = c.scalar(t, M_SQRT1_2);
      inner = c.unary<ErfOp>(c.op<MulOp>(x, scale));
    } else {
      // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))
      Value k = c.scalar(t, 0.044715), scale = c.scalar(t, std::sqrt(2 / M_PI));
      Value cube = c.op<MulOp>(c.op<MulOp>(x, x), x);
      Value sum = c.op<AddOp>(x, c.op<MulOp>(cube, k));
      inner = c.unary<TanhOp>(c.op<MulOp>(sum, scale));
    }
    Value halfX = c.op<MulOp>(x, half);
    return c.op<MulOp>(halfX, c.op<AddOp>(inner, one));
  });
}

/// PRelu's slope broadcasts to x (never the other way round).
LogicalResult importPRelu(NodeImporter &n) {
  Value x = n.input(0), slope = n.input(1);
  RankedTensorType xType = n.inputType(0), slopeType = n.inputType(1);
  int64_t offset = xType.getRank() - slopeType.getRank();
  bool broadcasts = offset >= 0;
  for (int64_t d = 0; broadcasts && d < slopeType.getRank(); ++d)
    broadcasts = slopeType.getDimSize(d) == 1 ||
                 slopeType.getDimSize(d) == xType.getDimSize(d + offset);
  if (!broadcasts)
    return n.emitError() << "slope " << slopeType
                         << " does not broadcast to the input " << xType;
  // x < 0 ? x * slope : x
  OpChain c(n);
  Value zero = c.scalar(xType.getElementType(), 0.0);
  Value negative = c.op<LessOp>(x, zero);
  Value y = c.op<WhereOp>(negative, c.op<MulOp>(x, slope), x);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importMean(NodeImporter &n) {
  Value x = n.input(0);
  Type element = getElementTypeOrSelf(x.getType());
  if (!isa<FloatType>(element))
    return n.unsupported("Mean of integer tensors");
  OpChain c(n);
  for (size_t i = 1; i < n.numInputs(); ++i)
    x = c.op<AddOp>(x, n.input(i));
  if (n.numInputs() > 1) {
    Value count = c.scalar(element, (double)n.numInputs());
    x = c.op<DivOp>(x, count);
  }
  if (!c.ok())
    return failure();
  n.setOutput(0, x);
  return success();
}

LogicalResult importIsNaN(NodeImporter &n) {
  // NaN is the only value not equal to itself.
  OpChain c(n);
  Value y = c.unary<NotOp>(c.op<EqualOp>(n.input(0), n.input(0)));
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importIsInf(NodeImporter &n) {
  Value x = n.input(0);
  RankedTensorType type = n.inputType(0);
  Type element = type.getElementType();
  bool positive = n.intAttr("detect_positive", 1) != 0;
  bool negative = n.intAttr("detect_negative", 1) != 0;
  if (!isa<FloatType>(element) || (!positive && !negative)) {
    n.setOutput(0, n.constant(DenseElementsAttr::get(
                       type.clone(IntegerType::get(n.context(), 1)), false)));
    return success();
  }
  // |x| == inf, x == inf or x == -inf.
  OpChain c(n);
  Value inf = c.scalar(element, positive ? INFINITY : -INFINITY);
  Value y = c.op<EqualOp>(positive && negative ? c.unary<AbsOp>(x) : x, inf);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importMod(NodeImporter &n) {
  int64_t fmod = n.intAttr("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return n.emitError() << "fmod must be 0 or 1, got " << fmod;
  auto out = n.create<ModOp>(n.input(0), n.input(1), fmod == 1);
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importBitShift(NodeImporter &n) {
  std::string direction = n.stringAttr("direction", "");
  FailureOr<Value> out = failure();
  if (direction == "LEFT")
    out = n.create<ShiftLeftOp>(n.input(0), n.input(1));
  else if (direction == "RIGHT")
    out = n.create<ShiftRightOp>(n.input(0), n.input(1));
  else
    return n.emitError() << "direction must be LEFT or RIGHT, got '"
                         << direction << "'";
  if (failed(out))
    return failure();
  n.setOutput(0, *out);
  return success();
}

LogicalResult importSize(NodeImporter &n) {
  auto type = RankedTensorType::get({}, IntegerType::get(n.context(), 64));
  int64_t count = n.inputType(0).getNumElements();
  n.setOutput(0, n.constant(DenseElementsAttr::get(type, ArrayRef(count))));
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
  Type type;
  if (n.node().op_type() == "CastLike") {
    type = n.inputType(1).getElementType();
  } else {
    int64_t to = n.intAttr("to", 0);
    type = convertElementType(to, n.context());
    if (!type)
      return n.unsupported("Cast to " + onnxTypeName(to));
  }
  bool saturate = n.intAttr("saturate", 1) != 0;
  std::string roundMode = n.stringAttr("round_mode", "up");
  if (roundMode != "up" && roundMode != "down" && roundMode != "nearest")
    return n.unsupported("Cast with round_mode '" + roundMode + "'");
  auto out = n.create<CastOp>(n.input(0), type, saturate, roundMode);
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
  t["Dropout"] = {importDropout, 1};
  t["Clip"] = {importClip, 1};
  t["Cast"] = {importCast, 1};
  t["CastLike"] = {importCast, 2};
  t["Where"] = {importWhere, 3};
  t["Sign"] = {importUnary<SignOp>, 1};
  t["Ceil"] = {importUnary<CeilOp>, 1};
  t["Floor"] = {importUnary<FloorOp>, 1};
  t["Sin"] = {importUnary<SinOp>, 1};
  t["Cos"] = {importUnary<CosOp>, 1};
  t["Tan"] = {importUnary<TanOp>, 1};
  t["Asin"] = {importUnary<AsinOp>, 1};
  t["Acos"] = {importUnary<AcosOp>, 1};
  t["Atan"] = {importUnary<AtanOp>, 1};
  t["Sinh"] = {importUnary<SinhOp>, 1};
  t["Cosh"] = {importUnary<CoshOp>, 1};
  t["Asinh"] = {importUnary<AsinhOp>, 1};
  t["Acosh"] = {importUnary<AcoshOp>, 1};
  t["Atanh"] = {importUnary<AtanhOp>, 1};
  t["IsNaN"] = {importIsNaN, 1};
  t["IsInf"] = {importIsInf, 1};
  t["Mod"] = {importMod, 2};
  t["BitShift"] = {importBitShift, 2};
  t["And"] = {importBinary<AndOp>, 2};
  t["Or"] = {importBinary<OrOp>, 2};
  t["Xor"] = {importBinary<XorOp>, 2};
  t["BitwiseAnd"] = {importBinary<AndOp>, 2};
  t["BitwiseOr"] = {importBinary<OrOp>, 2};
  t["BitwiseXor"] = {importBinary<XorOp>, 2};
  t["BitwiseNot"] = {importUnary<NotOp>, 1};
  t["GreaterOrEqual"] = {importBinary<GreaterEqualOp>, 2};
  t["LessOrEqual"] = {importBinary<LessEqualOp>, 2};
  t["HardSigmoid"] = {importHardSigmoid, 1};
  t["HardSwish"] = {importHardSwish, 1};
  t["LeakyRelu"] = {importLeakyRelu, 1};
  t["Elu"] = {importElu, 1};
  t["Selu"] = {importSelu, 1};
  t["Celu"] = {importCelu, 1};
  t["Softplus"] = {importSoftplus, 1};
  t["Softsign"] = {importSoftsign, 1};
  t["Mish"] = {importMish, 1};
  t["Swish"] = {importSwish, 1};
  t["SwiGLU"] = {importSwiGLU, 2};
  t["BitCast"] = {importBitCast, 1};
  t["ThresholdedRelu"] = {importThresholdedRelu, 1};
  t["PRelu"] = {importPRelu, 2};
  t["Gelu"] = {importGelu, 1};
  t["Shrink"] = {importShrink, 1};
  t["Mean"] = {importMean, 1};
  t["Size"] = {importSize, 1};
}
