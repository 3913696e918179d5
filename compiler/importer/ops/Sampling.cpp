//===- Sampling.cpp - importers of GridSample and AffineGrid --------------===//
//
// GridSample is written as gathers: the input, channels last, is read with
// one GatherND per interpolation tap (1 for nearest, 2^k for linear, 4^k for
// cubic over k spatial axes) and the taps are summed with their weights. The
// coordinate arithmetic follows the ONNX reference step by step, so the
// padding modes see exactly the coordinates the reference sees.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/OpChain.h"
#include "dialects/ShapeUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace autoglm;

namespace {

/// Elementwise helpers over one float type for the coordinate arithmetic.
struct Coordinates {
  OpChain &c;
  Type t;

  Value k(double v) { return c.scalar(t, v); }
  Value add(Value a, Value b) { return c.op<AddOp>(a, b); }
  Value sub(Value a, Value b) { return c.op<SubOp>(a, b); }
  Value mul(Value a, Value b) { return c.op<MulOp>(a, b); }
  Value div(Value a, Value b) { return c.op<DivOp>(a, b); }
  Value select(Value cond, Value a, Value b) { return c.op<WhereOp>(cond, a, b); }
  Value floor(Value a) { return c.unary<FloorOp>(a); }

  /// `v` reflected at `lo` and `hi` until it lies between them (the
  /// reference's _gs_reflect).
  Value reflect(Value v, double lo, double hi) {
    Value range = k(hi - lo);
    auto fold = [&](Value distance, double near, double far) {
      Value times = floor(div(distance, range));
      Value rest = sub(distance, mul(times, range));
      Value odd = c.op<EqualOp>(sub(times, mul(floor(div(times, k(2))), k(2))),
                                k(1));
      // An even number of reflections ends at the near border, odd at the far.
      double sign = near < far ? 1 : -1;
      return select(odd, sub(k(far), mul(k(sign), rest)),
                    add(k(near), mul(k(sign), rest)));
    };
    Value below = fold(sub(k(lo), v), lo, hi);
    Value above = fold(sub(v, k(hi)), hi, lo);
    return select(c.op<LessOp>(v, k(lo)), below,
                  select(c.op<GreaterOp>(v, k(hi)), above, v));
  }

  /// Keys' cubic convolution weights (alpha = -0.75) of the taps at -1, 0,
  /// 1, 2 for a fractional position `f`.
  SmallVector<Value> cubicWeights(Value f) {
    const double a = -0.75;
    auto outer = [&](Value x) { // 1 <= |x| < 2
      return sub(mul(add(mul(sub(mul(k(a), x), k(5 * a)), x), k(8 * a)), x),
                 k(4 * a));
    };
    auto inner = [&](Value x) { // |x| < 1
      return add(mul(mul(sub(mul(k(a + 2), x), k(a + 3)), x), x), k(1));
    };
    return {outer(add(f, k(1))), inner(f), inner(sub(k(1), f)),
            outer(sub(k(2), f))};
  }
};

/// One interpolation tap along one axis: the index read and its weight
/// (null for 1).
struct Tap {
  Value index, weight;
};

LogicalResult importGridSample(NodeImporter &n) {
  auto xType = n.inputType(0), gridType = n.inputType(1);
  int64_t rank = xType.getRank(), spatial = rank - 2;
  if (rank < 3 || gridType.getRank() != rank ||
      gridType.getDimSize(0) != xType.getDimSize(0) ||
      gridType.getDimSize(rank - 1) != spatial)
    return n.emitError() << "grid must have shape [N, ..., " << spatial
                         << "] for an input of rank " << rank;
  Type element = xType.getElementType();
  if (!isa<FloatType>(element))
    return n.unsupported("GridSample of a non-float input");
  // Opset 16 spelled the modes bilinear and bicubic.
  std::string mode = n.stringAttr("mode", n.opset() < 20 ? "bilinear" : "linear");
  if (mode == "bilinear")
    mode = "linear";
  if (mode == "bicubic")
    mode = "cubic";
  std::string padding = n.stringAttr("padding_mode", "zeros");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return n.unsupported("GridSample mode '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return n.unsupported("GridSample padding_mode '" + padding + "'");
  bool alignCorners = n.intAttr("align_corners", 0) != 0;

  OpChain c(n);
  Builder b(n.context());
  Type gridElement = gridType.getElementType();
  Type t = element.isF64() || gridElement.isF64() ? Type(b.getF64Type())
                                                  : Type(b.getF32Type());
  Coordinates k{c, t};
  Value grid = c.convert(n.input(1), t);

  // Per spatial axis of X, the taps to read. The grid lists coordinates in
  // reverse axis order (x, y, ...).
  SmallVector<SmallVector<Tap>> taps;
  for (int64_t i = 0; i < spatial; ++i) {
    double size = xType.getDimSize(2 + i);
    double lo = alignCorners ? 0 : -0.5, hi = alignCorners ? size - 1 : size - 0.5;
    Value g = c.slice(grid, rank - 1, spatial - 1 - i, spatial - i, 1);
    Value x = alignCorners
                  ? k.mul(k.add(g, k.k(1)), k.k((size - 1) / 2))
                  : k.div(k.sub(k.mul(k.add(g, k.k(1)), k.k(size)), k.k(1)),
                          k.k(2));
    if (mode == "nearest")
      x = c.unary<RoundOp>(x);
    if (padding == "border") {
      Value outside =
          c.op<OrOp>(c.op<LessOp>(x, k.k(lo)), c.op<GreaterOp>(x, k.k(hi)));
      x = k.select(outside, c.clip(x, 0, size - 1), x);
    } else if (padding == "reflection") {
      x = k.reflect(x, lo, hi);
    }
    Value base = k.floor(x);
    SmallVector<std::pair<int64_t, Value>> offsets; // (offset, weight)
    if (mode == "nearest") {
      // x is integral; the reference truncates it to an index.
      base = x;
      offsets.push_back({0, Value()});
    } else if (mode == "linear") {
      Value f = k.sub(x, base);
      offsets.push_back({0, k.sub(k.k(1), f)});
      offsets.push_back({1, f});
    } else {
      SmallVector<Value> w = k.cubicWeights(k.sub(x, base));
      for (int64_t j = 0; j < 4; ++j)
        offsets.push_back({j - 1, w[j]});
    }
    SmallVector<Tap> axisTaps;
    for (auto [offset, weight] : offsets) {
      Value p = offset ? k.add(base, k.k(offset)) : base;
      if (padding == "zeros") {
        // Reads outside the input are zero: clamp the read, drop its weight.
        Value inside = c.op<AndOp>(c.op<GreaterEqualOp>(p, k.k(0)),
                                   c.op<LessEqualOp>(p, k.k(size - 1)));
        Value keep = c.convert(inside, t);
        weight = weight ? k.mul(weight, keep) : keep;
      } else if (padding == "reflection" && mode != "nearest") {
        p = k.reflect(p, lo, hi);
      }
      axisTaps.push_back({c.clip(p, 0, size - 1), weight});
    }
    taps.push_back(std::move(axisTaps));
  }

  // X as [N, D1.., C] in the compute type, read by index tuples per batch.
  SmallVector<int64_t> toChannelsLast = {0};
  for (int64_t i = 2; i < rank; ++i)
    toChannelsLast.push_back(i);
  toChannelsLast.push_back(1);
  Value data = c.transpose(c.convert(n.input(0), t), toChannelsLast);

  Value sum;
  SmallVector<size_t> choice(spatial, 0);
  while (true) {
    SmallVector<Value> coordinates;
    Value weight;
    for (int64_t i = 0; i < spatial; ++i) {
      const Tap &tap = taps[i][choice[i]];
      coordinates.push_back(tap.index);
      if (tap.weight)
        weight = weight ? k.mul(weight, tap.weight) : tap.weight;
    }
    Value indices = c.convert(c.op<ConcatOp>(coordinates, rank - 1),
                              b.getI64Type());
    Value value = c.op<GatherNDOp>(data, indices, int64_t(1));
    if (weight)
      value = k.mul(value, weight);
    sum = sum ? k.add(sum, value) : value;
    int64_t d = spatial - 1;
    while (d >= 0 && ++choice[d] == taps[d].size())
      choice[d--] = 0;
    if (d < 0)
      break;
  }
  // [N, O1.., C] back to [N, C, O1..].
  SmallVector<int64_t> toChannelsFirst = {0, rank - 1};
  for (int64_t i = 1; i < rank - 1; ++i)
    toChannelsFirst.push_back(i);
  Value y = c.convert(c.transpose(sum, toChannelsFirst), element);
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  return success();
}

LogicalResult importAffineGrid(NodeImporter &n) {
  auto thetaType = n.inputType(0);
  if (thetaType.getRank() != 3 ||
      thetaType.getDimSize(2) != thetaType.getDimSize(1) + 1 ||
      (thetaType.getDimSize(1) != 2 && thetaType.getDimSize(1) != 3))
    return n.emitError() << "theta must have shape [N, 2, 3] or [N, 3, 4]";
  if (!isa<FloatType>(thetaType.getElementType()))
    return n.unsupported("AffineGrid of a non-float theta");
  int64_t batch = thetaType.getDimSize(0), spatial = thetaType.getDimSize(1);
  // The spatial sizes come from `size` ([N, C, D1..]).
  SmallVector<int64_t> sizes;
  auto values = n.constantInts(1, "size");
  if (failed(values))
    return failure();
  sizes.assign(values->begin() + std::min<size_t>(2, values->size()),
               values->end());
  if ((int64_t)sizes.size() != spatial || llvm::any_of(sizes, [](int64_t s) {
        return s < 1;
      }))
    return n.emitError() << "size must hold N, C and " << spatial
                         << " positive spatial sizes";
  bool alignCorners = n.intAttr("align_corners", 0) != 0;
  auto position = [&](int64_t i, int64_t size) -> double {
    if (alignCorners)
      return size == 1 ? -1.0 : -1.0 + 2.0 * i / (size - 1);
    return -1.0 + (2.0 * i + 1.0) / size;
  };
  // The base grid [D1*..*Dk, k+1]: (x, y[, z], 1) per position, x along the
  // last axis.
  int64_t points = product(sizes);
  OpChain c(n);
  Type element = thetaType.getElementType();
  Value base = c.constant(
      element, {points, spatial + 1}, [&](ArrayRef<int64_t> index) {
        int64_t coordinate = index[1];
        if (coordinate == spatial)
          return 1.0;
        // Unflatten the point index; coordinate 0 is the last axis.
        int64_t rest = index[0];
        SmallVector<int64_t> at(spatial);
        for (int64_t d = spatial - 1; d >= 0; --d) {
          at[d] = rest % sizes[d];
          rest /= sizes[d];
        }
        int64_t axis = spatial - 1 - coordinate;
        return position(at[axis], sizes[axis]);
      });
  // grid[n] = base @ theta[n]^T.
  Value grid = c.op<MatMulOp>(base, c.transpose(n.input(0), {0, 2, 1}));
  SmallVector<int64_t> shape = {batch};
  shape.append(sizes.begin(), sizes.end());
  shape.push_back(spatial);
  grid = c.reshape(grid, shape);
  if (!c.ok())
    return failure();
  n.setOutput(0, grid);
  return success();
}

} // namespace

void autoglm::registerSamplingImporters(OpImporterTable &t) {
  t["GridSample"] = {importGridSample, 2};
  t["AffineGrid"] = {importAffineGrid, 2};
}
