//===- SizeBounds.cpp - upper bounds of symbolic extents ------------------===//

#include "passes/SizeBounds.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace autoglm;

namespace {

constexpr int64_t kLimit = int64_t(1) << 62; // beyond this: unbounded

std::optional<Interval> make(int64_t lo, int64_t hi) {
  if (lo < -kLimit || hi > kLimit || lo > hi)
    return std::nullopt;
  return Interval{lo, hi};
}

std::optional<Interval> mul(Interval a, Interval b) {
  if (a.lo < 0 || b.lo < 0) // extents are never negative
    return std::nullopt;
  if (a.hi != 0 && b.hi > kLimit / a.hi)
    return std::nullopt;
  return make(a.lo * b.lo, a.hi * b.hi);
}

std::optional<Interval> floorDiv(Interval a, Interval b) {
  if (a.lo < 0 || b.lo <= 0)
    return std::nullopt;
  return make(a.lo / b.hi, a.hi / b.lo);
}

std::optional<Interval> ceilDiv(Interval a, Interval b) {
  if (a.lo < 0 || b.lo <= 0)
    return std::nullopt;
  return make((a.lo + b.hi - 1) / b.hi, (a.hi + b.lo - 1) / b.lo);
}

std::optional<Interval> evalAffine(AffineExpr expr, ValueRange dims,
                                   ValueRange symbols) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return make(c.getValue(), c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return boundsOf(dims[d.getPosition()]);
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return boundsOf(symbols[s.getPosition()]);
  auto bin = cast<AffineBinaryOpExpr>(expr);
  auto l = evalAffine(bin.getLHS(), dims, symbols);
  auto r = evalAffine(bin.getRHS(), dims, symbols);
  if (!l || !r)
    return std::nullopt;
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    return make(l->lo + r->lo, l->hi + r->hi);
  case AffineExprKind::Mul:
    if (r->lo == r->hi && r->lo < 0) // x * -c
      return make(l->hi * r->lo, l->lo * r->lo);
    return mul(*l, *r);
  case AffineExprKind::FloorDiv:
    return floorDiv(*l, *r);
  case AffineExprKind::CeilDiv:
    return ceilDiv(*l, *r);
  case AffineExprKind::Mod:
    if (r->lo <= 0)
      return std::nullopt;
    return make(0, r->hi - 1);
  default:
    return std::nullopt;
  }
}

/// Bounds of extent `dim` of a function argument from its attributes.
std::optional<Interval> argumentExtent(BlockArgument arg, int64_t dim) {
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return std::nullopt;
  auto symbols = func.getArgAttrOfType<DenseI32ArrayAttr>(
      arg.getArgNumber(), "autoglm.dim_symbols");
  if (!symbols || dim >= (int64_t)symbols.size() || symbols[dim] < 0)
    return std::nullopt;
  return symbolRange(func, symbols[dim]);
}

/// The value of an integer comparison if the operands' bounds decide it.
std::optional<bool> decided(Value condition) {
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return std::nullopt;
  auto a = boundsOf(cmp.getLhs()), b = a ? boundsOf(cmp.getRhs()) : std::nullopt;
  if (!a || !b)
    return std::nullopt;
  using P = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case P::slt:
    if (a->hi < b->lo) return true;
    if (a->lo >= b->hi) return false;
    break;
  case P::sle:
    if (a->hi <= b->lo) return true;
    if (a->lo > b->hi) return false;
    break;
  case P::sgt:
    if (a->lo > b->hi) return true;
    if (a->hi <= b->lo) return false;
    break;
  case P::sge:
    if (a->lo >= b->hi) return true;
    if (a->hi < b->lo) return false;
    break;
  default:
    break;
  }
  return std::nullopt;
}

} // namespace

std::optional<Interval> autoglm::symbolRange(func::FuncOp func, int64_t index) {
  auto symbols = func->getAttrOfType<ArrayAttr>("autoglm.symbols");
  if (!symbols || index < 0 || index >= (int64_t)symbols.size())
    return std::nullopt;
  auto record = dyn_cast<DictionaryAttr>(symbols[index]);
  auto min = record ? record.getAs<IntegerAttr>("min") : IntegerAttr();
  auto max = record ? record.getAs<IntegerAttr>("max") : IntegerAttr();
  if (!min || !max)
    return std::nullopt;
  return make(min.getInt(), max.getInt());
}

std::optional<Interval> autoglm::extentBounds(Value shaped, int64_t dim) {
  auto type = cast<ShapedType>(shaped.getType());
  if (!type.isDynamicDim(dim))
    return make(type.getDimSize(dim), type.getDimSize(dim));
  if (auto arg = dyn_cast<BlockArgument>(shaped))
    return argumentExtent(arg, dim);
  Operation *op = shaped.getDefiningOp();
  auto fromMixed = [&](ArrayRef<OpFoldResult> sizes) -> std::optional<Interval> {
    OpFoldResult size = sizes[dim];
    if (auto attr = dyn_cast<Attribute>(size)) {
      int64_t c = cast<IntegerAttr>(attr).getInt();
      return make(c, c);
    }
    return boundsOf(cast<Value>(size));
  };
  if (auto alloc = dyn_cast<memref::AllocOp>(op))
    return boundsOf(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
  if (auto view = dyn_cast<memref::ViewOp>(op))
    return boundsOf(view.getSizes()[type.getDynamicDimIndex(dim)]);
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return boundsOf(empty.getDynamicSize(dim));
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
    return fromMixed(expand.getMixedOutputShape());
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return fromMixed(expand.getMixedOutputShape());
  if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op))
    return fromMixed(cast.getMixedSizes());
  if (auto subview = dyn_cast<memref::SubViewOp>(op))
    return fromMixed(subview.getMixedSizes());
  auto collapsed = [&](Value source, ArrayRef<ReassociationIndices> groups)
      -> std::optional<Interval> {
    Interval product{1, 1};
    for (int64_t d : groups[dim]) {
      auto extent = extentBounds(source, d);
      auto next = extent ? mul(product, *extent) : std::nullopt;
      if (!next)
        return std::nullopt;
      product = *next;
    }
    return product;
  };
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op))
    return collapsed(collapse.getSrc(), collapse.getReassociationIndices());
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return collapsed(collapse.getSrc(), collapse.getReassociationIndices());
  if (isa<memref::CastOp, tensor::CastOp>(op)) {
    auto source = op->getOperand(0);
    return extentBounds(source, dim);
  }
  return std::nullopt;
}

std::optional<Interval> autoglm::boundsOf(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return make(constant.getSExtValue(), constant.getSExtValue());
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    auto index = dim.getConstantIndex();
    return index ? extentBounds(dim.getSource(), *index) : std::nullopt;
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    auto index = dim.getConstantIndex();
    return index ? extentBounds(dim.getSource(), *index) : std::nullopt;
  }
  // A symbol's value, read from the argument that carries them.
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    auto arg = dyn_cast<BlockArgument>(load.getMemRef());
    auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                    : func::FuncOp();
    APInt index;
    if (!func || load.getIndices().size() != 1 ||
        !func.getArgAttr(arg.getArgNumber(), "autoglm.symbol_values") ||
        !matchPattern(load.getIndices()[0], m_ConstantInt(&index)))
      return std::nullopt;
    return symbolRange(func, index.getSExtValue());
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op))
    return boundsOf(op->getOperand(0));
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    return evalAffine(map.getResult(0), apply.getDimOperands(),
                      apply.getSymbolOperands());
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    // A condition the bounds decide picks its branch (e.g. "is this extent
    // negative" for a slice bound); otherwise either branch may be taken.
    if (auto known = decided(select.getCondition()))
      return boundsOf(*known ? select.getTrueValue() : select.getFalseValue());
    auto t = boundsOf(select.getTrueValue()), f = boundsOf(select.getFalseValue());
    if (!t || !f)
      return std::nullopt;
    return make(std::min(t->lo, f->lo), std::max(t->hi, f->hi));
  }
  // A value clamped to constants, such as a KV cache's length read from
  // model state: max(min(x, hi), lo).
  APInt lo, hi;
  if (auto outer = dyn_cast<arith::MaxSIOp>(op))
    if (auto inner = outer.getLhs().getDefiningOp<arith::MinSIOp>())
      if (matchPattern(outer.getRhs(), m_ConstantInt(&lo)) &&
          matchPattern(inner.getRhs(), m_ConstantInt(&hi)))
        return make(lo.getSExtValue(),
                    std::max(lo.getSExtValue(), hi.getSExtValue()));
  if (op->getNumOperands() != 2)
    return std::nullopt;
  auto a = boundsOf(op->getOperand(0));
  auto b = a ? boundsOf(op->getOperand(1)) : std::nullopt;
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return make(a->lo + b->lo, a->hi + b->hi);
  if (isa<arith::SubIOp>(op))
    return make(a->lo - b->hi, a->hi - b->lo);
  if (isa<arith::MulIOp>(op))
    return mul(*a, *b);
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(op))
    return floorDiv(*a, *b);
  if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
    return ceilDiv(*a, *b);
  if (isa<arith::RemSIOp, arith::RemUIOp>(op))
    return b->lo > 0 ? make(0, b->hi - 1) : std::nullopt;
  if (isa<arith::MaxSIOp, arith::MaxUIOp>(op))
    return make(std::max(a->lo, b->lo), std::max(a->hi, b->hi));
  if (isa<arith::MinSIOp, arith::MinUIOp>(op))
    return make(std::min(a->lo, b->lo), std::min(a->hi, b->hi));
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> autoglm::maxShape(Value shaped) {
  auto type = cast<ShapedType>(shaped.getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    auto extent = extentBounds(shaped, d);
    if (!extent)
      return std::nullopt;
    shape.push_back(extent->hi);
  }
  return shape;
}
