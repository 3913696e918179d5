//===- Recurrent.cpp - importers of RNN, GRU and LSTM ---------------------===//
//
// Sequence lengths are static, so the recurrences are unrolled: the input
// projections of all steps are one MatMul, then every step is a MatMul with
// the recurrence weights and a few elementwise ops. Per-batch sequence
// lengths (sequence_lens) mask the steps past a sequence's end (the state is
// kept, the output is zero); the reverse direction reads each sequence
// reversed within its length, as ONNX defines it.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/OpChain.h"
#include "dialects/InferenceUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

enum class Cell { RNN, GRU, LSTM };

/// Gates per cell: RNN i; GRU z, r, h; LSTM i, o, f, c.
int64_t gateCount(Cell cell) {
  return cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
}

/// Builds the recurrence of one node.
class Recurrence {
public:
  Recurrence(NodeImporter &n, OpChain &c, Cell cell)
      : n(n), c(c), cell(cell) {}

  LogicalResult run();

private:
  Value k(double v) { return c.scalar(element, v); }
  Value add(Value a, Value b) { return c.op<AddOp>(a, b); }
  Value sub(Value a, Value b) { return c.op<SubOp>(a, b); }
  Value mul(Value a, Value b) { return c.op<MulOp>(a, b); }
  /// Direction `d` of a [num_directions, ...] parameter, without that axis.
  Value direction(Value v, int64_t d) {
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    return c.reshape(c.slice(v, 0, d, d + 1, 1), shape.drop_front());
  }
  /// Gate `g` of a [..., gates * hidden] value.
  Value gate(Value v, int64_t g) {
    int64_t axis = cast<RankedTensorType>(v.getType()).getRank() - 1;
    return c.slice(v, axis, g * hidden, (g + 1) * hidden, 1);
  }
  Value activate(size_t which, Value x);
  /// `v` ([seq, batch, ...]) with each batch's first sequence_lens entries
  /// reversed.
  Value reverseWithinLengths(Value v);
  LogicalResult runDirection(int64_t d, bool reverse, Value &y, Value &lastH,
                             Value &lastC);

  NodeImporter &n;
  OpChain &c;
  Cell cell;
  Type element;
  int64_t seq = 0, batch = 0, hidden = 0;
  SmallVector<std::string> activations;
  std::optional<double> clip;
  Value x, w, r, b, lengths, initialH, initialC, peepholes;
};

Value Recurrence::activate(size_t which, Value v) {
  if (clip)
    v = c.clip(v, -*clip, *clip);
  StringRef name = activations[which];
  if (name == "sigmoid")
    return c.unary<SigmoidOp>(v);
  if (name == "tanh")
    return c.unary<TanhOp>(v);
  return c.unary<ReluOp>(v);
}

Value Recurrence::reverseWithinLengths(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  Type i64 = IntegerType::get(n.context(), 64);
  Value steps = c.constant(Float64Type::get(n.context()), {seq, 1},
                           [](ArrayRef<int64_t> i) { return double(i[0]); });
  steps = c.convert(steps, i64);
  // Lengths beyond the sequence are clamped so the gather stays inside it.
  Value len = c.reshape(c.op<MinOp>(c.convert(lengths, i64), c.scalar(i64, seq)),
                        {1, batch});
  Value reversed = c.op<SubOp>(c.op<SubOp>(len, c.scalar(i64, 1)), steps);
  Value index = c.op<WhereOp>(c.op<LessOp>(steps, len), reversed, steps);
  SmallVector<int64_t> indexShape = {seq, batch};
  indexShape.append(type.getRank() - 2, 1);
  index = c.op<ExpandOp>(c.reshape(index, indexShape), type.getShape());
  return c.op<GatherElementsOp>(v, index, int64_t(0));
}

LogicalResult Recurrence::runDirection(int64_t d, bool reverse, Value &y,
                                       Value &lastH, Value &lastC) {
  int64_t gates = gateCount(cell);
  size_t firstActivation = d * (cell == Cell::RNN ? 1 : cell == Cell::GRU ? 2 : 3);
  auto f = [&](Value v) { return activate(firstActivation, v); };
  auto g = [&](Value v) { return activate(firstActivation + 1, v); };
  auto h = [&](Value v) { return activate(firstActivation + 2, v); };

  Value input = x;
  if (reverse && lengths)
    input = reverseWithinLengths(input);
  // Input projections of all steps at once: [seq, batch, gates * hidden].
  Value wt = c.transpose(direction(w, d), {1, 0});
  Value rt = c.transpose(direction(r, d), {1, 0});
  Value projected = c.op<MatMulOp>(input, wt);
  Value rBias;
  if (b) {
    Value bias = direction(b, d);
    projected = add(projected, c.slice(bias, 0, 0, gates * hidden, 1));
    rBias = c.slice(bias, 0, gates * hidden, 2 * gates * hidden, 1);
  }
  Value state = initialH ? direction(initialH, d)
                         : c.zeros(element, {batch, hidden});
  Value cellState;
  if (cell == Cell::LSTM)
    cellState = initialC ? direction(initialC, d)
                         : c.zeros(element, {batch, hidden});
  Value pi, po, pf;
  if (peepholes) {
    Value p = direction(peepholes, d);
    pi = gate(p, 0), po = gate(p, 1), pf = gate(p, 2);
  }
  Value zero = k(0);
  Type i64 = IntegerType::get(n.context(), 64);
  SmallVector<Value> outputs(seq);
  for (int64_t step = 0; step < seq; ++step) {
    int64_t t = reverse && !lengths ? seq - 1 - step : step;
    Value xt = c.reshape(c.slice(projected, 0, t, t + 1, 1),
                         {batch, gates * hidden});
    Value hr = c.op<MatMulOp>(state, rt);
    if (rBias)
      hr = add(hr, rBias);
    Value newState, newCell;
    if (cell == Cell::RNN) {
      newState = f(add(xt, hr));
    } else if (cell == Cell::GRU) {
      Value z = f(add(gate(xt, 0), gate(hr, 0)));
      Value rg = f(add(gate(xt, 1), gate(hr, 1)));
      Value candidate;
      if (n.intAttr("linear_before_reset", 0)) {
        candidate = g(add(gate(xt, 2), mul(rg, gate(hr, 2))));
      } else {
        Value recurrent = c.op<MatMulOp>(mul(rg, state), gate(rt, 2));
        if (rBias)
          recurrent = add(recurrent, gate(rBias, 2));
        candidate = g(add(gate(xt, 2), recurrent));
      }
      newState = add(mul(sub(k(1), z), candidate), mul(z, state));
    } else {
      Value gi = add(gate(xt, 0), gate(hr, 0));
      Value go = add(gate(xt, 1), gate(hr, 1));
      Value gf = add(gate(xt, 2), gate(hr, 2));
      Value gc = add(gate(xt, 3), gate(hr, 3));
      if (peepholes) {
        gi = add(gi, mul(pi, cellState));
        gf = add(gf, mul(pf, cellState));
      }
      Value in = f(gi), forget = f(gf);
      newCell = add(mul(forget, cellState), mul(in, g(gc)));
      if (peepholes)
        go = add(go, mul(po, newCell));
      newState = mul(f(go), h(newCell));
    }
    Value out = newState;
    if (lengths) {
      // Steps past a sequence's end keep the state and output zeros.
      Value len = c.reshape(c.convert(lengths, i64), {batch, 1});
      Value live = c.op<LessOp>(c.scalar(i64, t), len);
      out = c.op<WhereOp>(live, newState, zero);
      newState = c.op<WhereOp>(live, newState, state);
      if (newCell)
        newCell = c.op<WhereOp>(live, newCell, cellState);
    }
    state = newState;
    cellState = newCell;
    outputs[t] = c.reshape(out, {1, batch, hidden});
  }
  if (!c.ok())
    return failure();
  y = c.op<ConcatOp>(outputs, int64_t(0));
  if (reverse && lengths)
    y = reverseWithinLengths(y);
  y = c.reshape(y, {seq, 1, batch, hidden});
  lastH = state;
  lastC = cellState;
  return success(c.ok());
}

LogicalResult Recurrence::run() {
  auto xType = n.inputType(0);
  element = xType.getElementType();
  if (!isa<FloatType>(element))
    return n.unsupported(n.node().op_type() + " of a non-float input");
  bool batchFirst = n.intAttr("layout", 0) != 0;
  std::string dir = n.stringAttr("direction", "forward");
  int64_t directions = dir == "bidirectional" ? 2 : 1;
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return n.emitError() << "unknown direction '" << dir << "'";
  // hidden_size may be left out; R's shape [dirs, gates * H, H] gives it.
  hidden = n.intAttr("hidden_size", n.inputType(2).getRank() == 3
                                        ? n.inputType(2).getDimSize(2)
                                        : 0);
  int64_t gates = gateCount(cell);
  if (xType.getRank() != 3)
    return n.emitError() << "X must have rank 3";
  seq = xType.getDimSize(batchFirst ? 1 : 0);
  batch = xType.getDimSize(batchFirst ? 0 : 1);
  int64_t inputSize = xType.getDimSize(2);
  auto expect = [&](size_t i, StringRef what,
                    ArrayRef<int64_t> shape) -> LogicalResult {
    if (!n.input(i) || n.inputType(i).getShape() == shape)
      return success();
    return n.emitError() << what << " must have shape "
                         << inference::shapeString(shape);
  };
  if (hidden <= 0)
    return n.emitError() << "hidden_size must be positive";
  SmallVector<int64_t> stateShape =
      batchFirst ? SmallVector<int64_t>{batch, directions, hidden}
                 : SmallVector<int64_t>{directions, batch, hidden};
  if (failed(expect(1, "W", {directions, gates * hidden, inputSize})) ||
      failed(expect(2, "R", {directions, gates * hidden, hidden})) ||
      failed(expect(3, "B", {directions, 2 * gates * hidden})) ||
      failed(expect(4, "sequence_lens", {batch})) ||
      failed(expect(5, "initial_h", stateShape)) ||
      (cell == Cell::LSTM && (failed(expect(6, "initial_c", stateShape)) ||
                              failed(expect(7, "P", {directions, 3 * hidden})))))
    return failure();
  if (cell == Cell::LSTM && n.intAttr("input_forget", 0))
    return n.unsupported("LSTM with input_forget");
  if (n.hasAttr("activation_alpha") || n.hasAttr("activation_beta"))
    return n.unsupported(n.node().op_type() + " with activation_alpha/beta");
  // Activations per direction: f (RNN); f, g (GRU); f, g, h (LSTM).
  SmallVector<std::string> defaults =
      cell == Cell::RNN   ? SmallVector<std::string>{"Tanh"}
      : cell == Cell::GRU ? SmallVector<std::string>{"Sigmoid", "Tanh"}
                          : SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (const auto *attr = n.attribute("activations")) {
    for (const auto &name : attr->strings())
      activations.push_back(name);
  } else {
    for (int64_t d = 0; d < directions; ++d)
      for (const auto &name : defaults)
        activations.push_back(name);
  }
  if (activations.size() != defaults.size() * directions)
    return n.emitError() << "activations must name " << defaults.size() * directions
                         << " functions";
  for (auto &name : activations) {
    std::string lower = StringRef(name).lower();
    if (lower != "sigmoid" && lower != "tanh" && lower != "relu")
      return n.unsupported("activation '" + name + "'");
    name = lower;
  }
  if (n.hasAttr("clip"))
    clip = n.floatAttr("clip", 0);

  x = n.input(0), w = n.input(1), r = n.input(2), b = n.input(3);
  lengths = n.input(4), initialH = n.input(5);
  if (cell == Cell::LSTM)
    initialC = n.input(6), peepholes = n.input(7);
  if (batchFirst) {
    x = c.transpose(x, {1, 0, 2});
    if (initialH)
      initialH = c.transpose(initialH, {1, 0, 2});
    if (initialC)
      initialC = c.transpose(initialC, {1, 0, 2});
  }
  // Lengths that are all the full sequence mask nothing.
  if (auto known = n.constantInput(4)) {
    if (llvm::all_of(known.getValues<APInt>(),
                     [&](const APInt &v) { return v.getSExtValue() == seq; }))
      lengths = {};
  }

  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < directions; ++d) {
    Value y, lastH, lastC;
    if (failed(runDirection(d, dir == "reverse" || d == 1, y, lastH, lastC)))
      return failure();
    ys.push_back(y);
    hs.push_back(c.reshape(lastH, {1, batch, hidden}));
    if (lastC)
      cs.push_back(c.reshape(lastC, {1, batch, hidden}));
  }
  // Y is [seq, directions, batch, hidden], Y_h and Y_c [directions, batch,
  // hidden]; batch first with layout = 1.
  Value y = c.op<ConcatOp>(ys, int64_t(1));
  Value yh = c.op<ConcatOp>(hs, int64_t(0));
  Value yc = cs.empty() ? Value() : c.op<ConcatOp>(cs, int64_t(0));
  if (batchFirst) {
    y = c.transpose(y, {2, 0, 1, 3});
    yh = c.transpose(yh, {1, 0, 2});
    if (yc)
      yc = c.transpose(yc, {1, 0, 2});
  }
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  n.setOutput(1, yh);
  if (yc)
    n.setOutput(2, yc);
  return success();
}

template <Cell cell>
LogicalResult importRecurrent(NodeImporter &n) {
  OpChain c(n);
  return Recurrence(n, c, cell).run();
}

} // namespace

void autoglm::registerRecurrentImporters(OpImporterTable &t) {
  t["RNN"] = {importRecurrent<Cell::RNN>, 3};
  t["GRU"] = {importRecurrent<Cell::GRU>, 3};
  t["LSTM"] = {importRecurrent<Cell::LSTM>, 3};
}
