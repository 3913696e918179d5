//===- ShapeValues.cpp - shape subgraphs as index arithmetic --------------===//

#include "compiler/importer/ShapeValues.h"

#include "dialects/AutoGLMDialect.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

using Elements = SmallVector<OpFoldResult>;

/// `x op y` on constants or index values; constants fold.
OpFoldResult combine(OpBuilder &b, Location loc, Operation *op,
                     OpFoldResult x, OpFoldResult y) {
  auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy) {
    if (isa<AddOp>(op))
      return b.getIndexAttr(*cx + *cy);
    if (isa<SubOp>(op))
      return b.getIndexAttr(*cx - *cy);
    if (isa<MulOp>(op))
      return b.getIndexAttr(*cx * *cy);
    if (isa<MinOp>(op))
      return b.getIndexAttr(std::min(*cx, *cy));
    if (isa<MaxOp>(op))
      return b.getIndexAttr(std::max(*cx, *cy));
    if (*cy != 0)
      return b.getIndexAttr(*cx / *cy); // truncating, as ONNX and divsi
  }
  Value vx = getValueOrCreateConstantIndexOp(b, loc, x);
  Value vy = getValueOrCreateConstantIndexOp(b, loc, y);
  if (isa<AddOp>(op))
    return arith::AddIOp::create(b, loc, vx, vy).getResult();
  if (isa<SubOp>(op))
    return arith::SubIOp::create(b, loc, vx, vy).getResult();
  if (isa<MulOp>(op))
    return arith::MulIOp::create(b, loc, vx, vy).getResult();
  if (isa<MinOp>(op))
    return arith::MinSIOp::create(b, loc, vx, vy).getResult();
  if (isa<MaxOp>(op))
    return arith::MaxSIOp::create(b, loc, vx, vy).getResult();
  return arith::DivSIOp::create(b, loc, vx, vy).getResult();
}

} // namespace

OpFoldResult autoglm::extentOf(OpBuilder &b, Location loc, Value value,
                               int64_t dim) {
  while (true) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.isDynamicDim(dim))
      return b.getIndexAttr(type.getDimSize(dim));
    Operation *op = value.getDefiningOp();
    if (!op)
      break;
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      return reshape.getSizes()[type.getDynamicDimIndex(dim)];
    if (auto expand = dyn_cast<ExpandOp>(op))
      return expand.getSizes()[type.getDynamicDimIndex(dim)];
    if (auto range = dyn_cast<RangeOp>(op))
      return range.getCount();
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      value = transpose.getInput();
      dim = transpose.getPerm()[dim];
      continue;
    }
    if (auto matmul = dyn_cast<MatMulOp>(op)) {
      auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
      auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
      int64_t rank = type.getRank();
      if (dim == rank - 1 && rhs.getRank() >= 2) {
        value = matmul.getRhs();
        dim = rhs.getRank() - 1;
        continue;
      }
      if (dim == rank - 2 && lhs.getRank() >= 2) {
        value = matmul.getLhs();
        dim = lhs.getRank() - 2;
        continue;
      }
      // Batch extents: from the operand that has them (both matrices).
      if (dim < rank - 2 && lhs.getRank() >= 2 && rhs.getRank() >= 2) {
        int64_t l = dim - (rank - lhs.getRank()), r = dim - (rank - rhs.getRank());
        if (l >= 0 && lhs.isDynamicDim(l)) {
          value = matmul.getLhs();
          dim = l;
          continue;
        }
        if (r >= 0 && rhs.isDynamicDim(r)) {
          value = matmul.getRhs();
          dim = r;
          continue;
        }
      }
      break;
    }
    // Reductions keep the extents of the axes they do not reduce.
    if (isa<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceL1Op, ReduceL2Op, ReduceSumSquareOp, ReduceLogSumOp,
            ReduceLogSumExpOp>(op)) {
      auto axes = dyn_cast_or_null<DenseI64ArrayAttr>(*op->getInherentAttr("axes"));
      auto keep = dyn_cast_or_null<BoolAttr>(*op->getInherentAttr("keepdims"));
      if (!axes || axes.empty())
        break;
      int64_t inputDim = dim;
      if (keep && !keep.getValue()) {
        // The dim-th axis that is not reduced.
        inputDim = -1;
        auto inRank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
        for (int64_t a = 0, kept = 0; a < inRank; ++a)
          if (!llvm::is_contained(axes.asArrayRef(), a) && kept++ == dim) {
            inputDim = a;
            break;
          }
        if (inputDim < 0)
          break;
      }
      value = op->getOperand(0);
      dim = inputDim;
      continue;
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      auto axes = slice.getDynamicAxesAttr();
      if (axes && llvm::is_contained(axes.asArrayRef(), dim))
        break; // end - start, known at run time
      value = slice.getInput(); // a symbolic axis taken whole
      continue;
    }
    if (auto concat = dyn_cast<ConcatOp>(op)) {
      if (dim == concat.getAxis())
        break; // a sum of extents
      value = concat.getInputs().front();
      continue;
    }
    if (auto gather = dyn_cast<GatherOp>(op)) {
      int64_t axis = gather.getAxis();
      int64_t q = cast<RankedTensorType>(gather.getIndices().getType()).getRank();
      if (dim >= axis && dim < axis + q) {
        value = gather.getIndices();
        dim -= axis;
      } else {
        value = gather.getData();
        dim = dim < axis ? dim : dim - q + 1;
      }
      continue;
    }
    // Elementwise and shape-preserving ops: an operand with this extent,
    // aligned at the last axis as in broadcasting.
    if (op->hasTrait<traits::SymbolicShapes>() && !isa<ShapeOp, MatMulOp>(op) &&
        !isa<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
             ReduceL1Op, ReduceL2Op, ReduceSumSquareOp, ReduceLogSumOp,
             ReduceLogSumExpOp>(op)) {
      Value next;
      int64_t nextDim = 0;
      for (Value operand : op->getOperands()) {
        auto t = dyn_cast<RankedTensorType>(operand.getType());
        int64_t at = t ? dim - (type.getRank() - t.getRank()) : -1;
        if (t && at >= 0 && t.isDynamicDim(at)) {
          next = operand;
          nextDim = at;
          break;
        }
      }
      if (next) {
        value = next;
        dim = nextDim;
        continue;
      }
    }
    break;
  }
  return tensor::DimOp::create(b, loc, value, dim).getResult();
}

/// The symbol an extent of a graph input is (autoglm.dim_symbols), or -1.
static int64_t inputSymbol(tensor::DimOp dim) {
  auto arg = dyn_cast<BlockArgument>(dim.getSource());
  auto index = dim.getConstantIndex();
  auto func = arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
                  : FunctionOpInterface();
  auto symbols = func ? func.getArgAttrOfType<DenseI32ArrayAttr>(
                            arg.getArgNumber(), "autoglm.dim_symbols")
                      : DenseI32ArrayAttr();
  if (!symbols || !index || *index >= (int64_t)symbols.size())
    return -1;
  return symbols[*index];
}

/// True if two extents are provably equal: equal constants, one value, one
/// extent of one tensor, or input extents named by the same symbol.
static bool sameExtent(OpFoldResult x, OpFoldResult y) {
  auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx || cy)
    return cx == cy;
  Value vx = cast<Value>(x), vy = cast<Value>(y);
  if (vx == vy)
    return true;
  auto dx = vx.getDefiningOp<tensor::DimOp>(), dy = vy.getDefiningOp<tensor::DimOp>();
  if (!dx || !dy)
    return false;
  if (dx.getSource() == dy.getSource() && dx.getConstantIndex() &&
      dx.getConstantIndex() == dy.getConstantIndex())
    return true;
  // Input extents named by one symbol are equal: the runtime checks it.
  int64_t sx = inputSymbol(dx);
  return sx >= 0 && sx == inputSymbol(dy);
}

FailureOr<OpFoldResult>
autoglm::quotientOfProducts(OpBuilder &b, Location loc,
                            ArrayRef<OpFoldResult> numerator,
                            ArrayRef<OpFoldResult> denominator) {
  SmallVector<OpFoldResult> top(numerator), bottom;
  for (OpFoldResult f : denominator) {
    auto same = llvm::find_if(top, [&](OpFoldResult t) { return sameExtent(t, f); });
    if (same != top.end())
      top.erase(same);
    else
      bottom.push_back(f);
  }
  OpFoldResult p = b.getIndexAttr(1), q = b.getIndexAttr(1);
  for (OpFoldResult f : top)
    p = foldedMul(b, loc, p, f);
  for (OpFoldResult f : bottom)
    q = foldedMul(b, loc, q, f);
  // What is left constant must divide exactly.
  auto cp = getConstantIntValue(p), cq = getConstantIntValue(q);
  if (cp && cq && (*cq == 0 || *cp % *cq != 0))
    return failure();
  return foldedDiv(b, loc, p, q);
}

OpFoldResult autoglm::foldedMul(OpBuilder &b, Location loc, OpFoldResult x,
                                OpFoldResult y) {
  if (getConstantIntValue(x) == 1)
    return y;
  if (getConstantIntValue(y) == 1)
    return x;
  auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx * *cy);
  return arith::MulIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

OpFoldResult autoglm::foldedDiv(OpBuilder &b, Location loc, OpFoldResult x,
                                OpFoldResult y) {
  if (getConstantIntValue(y) == 1)
    return x;
  auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy && *cy != 0)
    return b.getIndexAttr(*cx / *cy);
  return arith::DivSIOp::create(b, loc,
                                getValueOrCreateConstantIndexOp(b, loc, x),
                                getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

std::optional<Elements> autoglm::shapeElements(OpBuilder &b, Location loc,
                                               Value value) {
  // Extents may pass through float casts (exporters clamp them with a
  // float Min); float constants count if they are whole numbers.
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > 1 ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  DenseElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant))) {
    Elements out;
    if (isa<FloatType>(type.getElementType())) {
      for (const APFloat &v : constant.getValues<APFloat>()) {
        double d = v.convertToDouble();
        if (d != std::trunc(d) || std::abs(d) > 1e15)
          return std::nullopt;
        out.push_back(b.getIndexAttr((int64_t)d));
      }
      return out;
    }
    bool isUnsigned = type.getElementType().isUnsignedInteger();
    for (const APInt &v : constant.getValues<APInt>())
      out.push_back(b.getIndexAttr(isUnsigned ? (int64_t)v.getZExtValue()
                                              : v.getSExtValue()));
    return out;
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (auto shape = dyn_cast<ShapeOp>(op)) {
    Elements out;
    for (int64_t d = shape.getStart(); d < shape.getEnd(); ++d)
      out.push_back(extentOf(b, loc, shape.getInput(), d));
    return out;
  }
  // Ops that keep the elements in order (casts keep whole numbers).
  if (isa<ReshapeOp, UnsqueezeOp, SqueezeOp, FlattenOp, CastOp>(op))
    return shapeElements(b, loc, op->getOperand(0));
  if (auto gather = dyn_cast<GatherOp>(op)) {
    auto data = shapeElements(b, loc, gather.getData());
    DenseElementsAttr indices;
    if (!data || gather.getAxis() != 0 ||
        !matchPattern(gather.getIndices(), m_Constant(&indices)))
      return std::nullopt;
    Elements out;
    int64_t n = data->size();
    for (const APInt &i : indices.getValues<APInt>()) {
      int64_t at = i.getSExtValue() < 0 ? i.getSExtValue() + n : i.getSExtValue();
      if (at < 0 || at >= n)
        return std::nullopt;
      out.push_back((*data)[at]);
    }
    return out;
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    Elements out;
    for (Value in : concat.getInputs()) {
      auto part = shapeElements(b, loc, in);
      if (!part)
        return std::nullopt;
      out.append(*part);
    }
    return out;
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    auto data = shapeElements(b, loc, slice.getInput());
    if (!data || slice.getStarts().size() != 1 || !slice.getBounds().empty())
      return std::nullopt;
    Elements out;
    int64_t start = slice.getStarts()[0], end = slice.getEnds()[0],
            step = slice.getSteps()[0];
    for (int64_t i = start; step > 0 ? i < end : i > end; i += step)
      out.push_back((*data)[i]);
    return out;
  }
  if (isa<AddOp, SubOp, MulOp, DivOp, MinOp, MaxOp>(op)) {
    auto lhs = shapeElements(b, loc, op->getOperand(0));
    auto rhs = lhs ? shapeElements(b, loc, op->getOperand(1)) : std::nullopt;
    if (!lhs || !rhs)
      return std::nullopt;
    size_t n = std::max(lhs->size(), rhs->size());
    if ((lhs->size() != n && lhs->size() != 1) ||
        (rhs->size() != n && rhs->size() != 1))
      return std::nullopt;
    Elements out;
    for (size_t i = 0; i < n; ++i)
      out.push_back(combine(b, loc, op, (*lhs)[lhs->size() == 1 ? 0 : i],
                            (*rhs)[rhs->size() == 1 ? 0 : i]));
    return out;
  }
  return std::nullopt;
}
