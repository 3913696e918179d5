//===- Activations.cpp - activations the runtime's epilogues compute ------===//

#include "passes/Activations.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include "autoglm/kernels.h"

#include <cmath>

namespace autoglm {
#define GEN_PASS_DEF_MARKACTIVATIONS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

/// The activations as the runtime defines them (kernels.h), in double.
double reference(int activation, double x) {
  switch (activation) {
  case AGL_ACT_RELU:
    return x > 0 ? x : 0;
  case AGL_ACT_GELU_ERF:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case AGL_ACT_GELU_TANH:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case AGL_ACT_SILU:
    return x / (1 + std::exp(-x));
  default:
    return x;
  }
}

/// Evaluates the ops that compute a value from `x` in double, for the
/// arith and math ops that activations are written with.
class Evaluator {
public:
  Evaluator(Value x, double sample) { values[x] = sample; }

  std::optional<double> operator()(Value v) {
    if (auto it = values.find(v); it != values.end())
      return it->second;
    std::optional<double> result = compute(v);
    if (result)
      values[v] = *result;
    return result;
  }

private:
  std::optional<double> compute(Value v) {
    Attribute attr;
    if (matchPattern(v, m_Constant(&attr))) {
      if (auto f = dyn_cast<FloatAttr>(attr))
        return f.getValueAsDouble();
      if (auto i = dyn_cast<IntegerAttr>(attr))
        return double(i.getValue().getSExtValue() != 0 &&
                              i.getType().isInteger(1)
                          ? 1
                          : i.getValue().getSExtValue());
      return std::nullopt;
    }
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    SmallVector<double, 3> args;
    for (Value operand : op->getOperands()) {
      std::optional<double> a = (*this)(operand);
      if (!a)
        return std::nullopt;
      args.push_back(*a);
    }
    auto unary = [&](double (*f)(double)) -> std::optional<double> {
      return f(args[0]);
    };
    return llvm::TypeSwitch<Operation *, std::optional<double>>(op)
        .Case([&](arith::AddFOp) { return args[0] + args[1]; })
        .Case([&](arith::SubFOp) { return args[0] - args[1]; })
        .Case([&](arith::MulFOp) { return args[0] * args[1]; })
        .Case([&](arith::DivFOp) { return args[0] / args[1]; })
        .Case([&](arith::NegFOp) { return -args[0]; })
        .Case<arith::MaximumFOp, arith::MaxNumFOp>(
            [&](auto) { return std::max(args[0], args[1]); })
        .Case<arith::MinimumFOp, arith::MinNumFOp>(
            [&](auto) { return std::min(args[0], args[1]); })
        .Case([&](arith::SelectOp) { return args[0] ? args[1] : args[2]; })
        .Case([&](arith::CmpFOp cmp) -> std::optional<double> {
          double a = args[0], b = args[1];
          switch (cmp.getPredicate()) {
          case arith::CmpFPredicate::OLT:
          case arith::CmpFPredicate::ULT:
            return a < b;
          case arith::CmpFPredicate::OLE:
          case arith::CmpFPredicate::ULE:
            return a <= b;
          case arith::CmpFPredicate::OGT:
          case arith::CmpFPredicate::UGT:
            return a > b;
          case arith::CmpFPredicate::OGE:
          case arith::CmpFPredicate::UGE:
            return a >= b;
          case arith::CmpFPredicate::OEQ:
          case arith::CmpFPredicate::UEQ:
            return a == b;
          case arith::CmpFPredicate::ONE:
          case arith::CmpFPredicate::UNE:
            return a != b;
          default:
            return std::nullopt;
          }
        })
        .Case([&](math::ErfOp) { return unary(std::erf); })
        .Case([&](math::ErfcOp) { return unary(std::erfc); })
        .Case([&](math::TanhOp) { return unary(std::tanh); })
        .Case([&](math::ExpOp) { return unary(std::exp); })
        .Case([&](math::SqrtOp) { return unary(std::sqrt); })
        .Case([&](math::RsqrtOp) { return 1 / std::sqrt(args[0]); })
        .Case([&](math::AbsFOp) { return unary(std::fabs); })
        .Case([&](math::PowFOp) { return std::pow(args[0], args[1]); })
        .Case([&](math::FmaOp) { return args[0] * args[1] + args[2]; })
        .Default([](Operation *) { return std::nullopt; });
  }

  llvm::DenseMap<Value, double> values;
};

/// Inputs at which the activations differ from each other and from
/// anything else simple: both signs, the tails, around zero.
constexpr double kSamples[] = {-9,   -6,   -4.5, -3,  -2.2, -1.5, -1,  -0.7,
                               -0.3, -0.1, -0.01, 0,  0.01, 0.1,  0.3, 0.7,
                               1,    1.5,  2.2,  3,   4.5,  6,    9};

/// Values that `y` is computed from, nearest first (breadth-first over the
/// operands of its defining ops), constants left out.
SmallVector<Value> sourcesOf(Value y) {
  llvm::SetVector<Value> order;
  order.insert(y);
  for (size_t i = 0; i < order.size() && order.size() < 256; ++i) {
    Operation *op = order[i].getDefiningOp();
    if (!op || matchPattern(order[i], m_Constant()))
      continue;
    for (Value operand : op->getOperands())
      if (!matchPattern(operand, m_Constant()))
        order.insert(operand);
  }
  return SmallVector<Value>(order.begin() + 1, order.end());
}

struct MarkActivationsPass
    : autoglm::impl::MarkActivationsBase<MarkActivationsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp op) {
      if (op.getNumReductionLoops() != 0)
        return;
      // Where an epilogue's activation sits: the yielded value, or a side
      // of the sum it ends with (a residual added after the activation) or
      // of the product (a gate: either side's activation, SwiGLU's
      // silu(gate) * up), or the value that the loop quantizes to uint8 at
      // its end. The first match only: a loop carries at most one mark.
      for (Value yielded : op.getBody()->getTerminator()->getOperands()) {
        if (auto quantize = autoglm::matchQuantizeToU8(yielded))
          yielded = quantize->input;
        SmallVector<Value, 3> candidates = {yielded};
        Operation *last = yielded.getDefiningOp();
        if (isa_and_nonnull<arith::AddFOp, arith::MulFOp>(last))
          candidates.append({last->getOperand(0), last->getOperand(1)});
        for (Value y : candidates) {
          Operation *def = y.getDefiningOp();
          if (!def || def->getBlock() != op.getBody() ||
              !y.getType().isF32() || def->hasAttr(autoglm::kActivationAttrName))
            continue;
          for (Value x : sourcesOf(y))
            if (std::optional<int> act = autoglm::evaluateActivation(y, x)) {
              def->setAttr(autoglm::kActivationAttrName,
                           StringAttr::get(op.getContext(),
                                           autoglm::activationName(*act)));
              if (Operation *input = x.getDefiningOp())
                input->setAttr(autoglm::kActivationInputAttrName,
                               UnitAttr::get(op.getContext()));
              return; // one mark per loop
            }
        }
      }
    });
  }
};

} // namespace

namespace autoglm {

StringRef activationName(int activation) {
  switch (activation) {
  case AGL_ACT_RELU:
    return "relu";
  case AGL_ACT_GELU_ERF:
    return "gelu_erf";
  case AGL_ACT_GELU_TANH:
    return "gelu_tanh";
  case AGL_ACT_SILU:
    return "silu";
  default:
    return "";
  }
}

bool computedFromOnly(Value y, Value x) {
  SmallVector<Value> work = {y};
  llvm::DenseSet<Value> seen;
  Block *block = y.getParentBlock();
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == x || !seen.insert(v).second || matchPattern(v, m_Constant()))
      continue;
    Operation *op = v.getDefiningOp();
    if (!op || op->getBlock() != block || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return false;
    llvm::append_range(work, op->getOperands());
  }
  return true;
}

std::optional<int> markedActivation(Value y, Value x) {
  Operation *def = y.getDefiningOp();
  auto name = def ? def->getAttrOfType<StringAttr>(kActivationAttrName)
                  : StringAttr();
  if (!name || y == x || !computedFromOnly(y, x))
    return std::nullopt;
  // The input the mark was made for.
  Operation *input = x.getDefiningOp();
  if (input && !input->hasAttr(kActivationInputAttrName))
    return std::nullopt;
  // The only mark of the block: the input mark is this one's.
  Block *block = def->getBlock();
  int marks = 0;
  for (Operation &op : *block)
    marks += op.hasAttr(kActivationAttrName);
  if (marks != 1)
    return std::nullopt;
  for (int act : {AGL_ACT_RELU, AGL_ACT_GELU_ERF, AGL_ACT_GELU_TANH,
                  AGL_ACT_SILU})
    if (name.getValue() == activationName(act))
      return act;
  return std::nullopt;
}

std::optional<int> activationOf(Value y, Value x) {
  if (std::optional<int> marked = markedActivation(y, x))
    return marked;
  auto max = y.getDefiningOp<arith::MaximumFOp>();
  if (max && ((max.getLhs() == x && matchPattern(max.getRhs(), m_AnyZeroFloat())) ||
              (max.getRhs() == x && matchPattern(max.getLhs(), m_AnyZeroFloat()))))
    return AGL_ACT_RELU;
  return std::nullopt;
}

/// The other operand of `v`'s defining BinaryOp when one of its two is the
/// f32 constant `c`.
template <typename BinaryOp>
static Value besideConstant(Value v, double c) {
  auto op = v.getDefiningOp<BinaryOp>();
  if (!op)
    return Value();
  for (auto [value, other] : {std::pair(op.getLhs(), op.getRhs()),
                              std::pair(op.getRhs(), op.getLhs())}) {
    FloatAttr constant;
    if (matchPattern(other, m_Constant(&constant)) &&
        constant.getType().isF32() && constant.getValueAsDouble() == c)
      return value;
  }
  return Value();
}

std::optional<QuantizeToU8> matchQuantizeToU8(Value yielded) {
  auto convert = yielded.getDefiningOp<arith::FPToUIOp>();
  if (!convert || !convert.getType().isInteger(8))
    return std::nullopt;
  Value clamped = besideConstant<arith::MinimumFOp>(convert.getIn(), 255.0);
  Value shifted =
      clamped ? besideConstant<arith::MaximumFOp>(clamped, 0.0) : Value();
  auto add = shifted ? shifted.getDefiningOp<arith::AddFOp>() : nullptr;
  if (!add)
    return std::nullopt;
  for (auto [rounded, zeroPoint] : {std::pair(add.getLhs(), add.getRhs()),
                                    std::pair(add.getRhs(), add.getLhs())}) {
    auto round = rounded.getDefiningOp<math::RoundEvenOp>();
    auto div = round ? round.getOperand().getDefiningOp<arith::DivFOp>()
                     : nullptr;
    if (div)
      return QuantizeToU8{div.getLhs(), div.getRhs(), zeroPoint};
  }
  return std::nullopt;
}

std::optional<int> evaluateActivation(Value y, Value x) {
  if (y == x || !computedFromOnly(y, x))
    return std::nullopt;
  SmallVector<double> results;
  for (double sample : kSamples) {
    std::optional<double> value = Evaluator(x, sample)(y);
    if (!value || !std::isfinite(*value))
      return std::nullopt;
    results.push_back(*value);
  }
  for (int act : {AGL_ACT_RELU, AGL_ACT_GELU_ERF, AGL_ACT_GELU_TANH,
                  AGL_ACT_SILU}) {
    bool matches = true;
    for (auto [sample, value] : llvm::zip(kSamples, results))
      matches &= std::fabs(value - reference(act, sample)) <=
                 1e-5 * (1 + std::fabs(reference(act, sample)));
    if (matches)
      return act;
  }
  return std::nullopt;
}

} // namespace autoglm
