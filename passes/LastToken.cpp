//===- LastToken.cpp - compute some outputs for the last token only -------===//
//
// A decoder exported for training and scoring returns the logits of every
// position, but a generator reads only the last one: in a prefill of 128
// tokens the LM head (the largest product of a small model) does 127 rows
// of work for nothing, into a buffer of 128 x vocabulary floats. This pass
// keeps only the last position (the second-to-last axis) of the named
// outputs, then moves that slice up through the ops that compute each
// position independently (products with weights, norms, elementwise ops,
// reshapes, transposes, and attention's queries), so that they run on one
// row. It stops at ops that mix positions (attention's keys and values) and
// at values that other positions still need.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace autoglm {
#define GEN_PASS_DEF_LASTTOKEN
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

/// `x` restricted to its last position along `axis` (extent 1 there, whole
/// along every other axis).
Value lastPosition(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, x, d))
                        : b.getIndexAttr(type.getDimSize(d)));
  if (type.isDynamicDim(axis))
    offsets[axis] = arith::SubIOp::create(
                        b, loc, cast<Value>(sizes[axis]),
                        arith::ConstantIndexOp::create(b, loc, 1))
                        .getResult();
  else
    offsets[axis] = b.getIndexAttr(type.getDimSize(axis) - 1);
  sizes[axis] = b.getIndexAttr(1);
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

/// The axis of a slice built by lastPosition, or nothing.
std::optional<int64_t> lastPositionAxis(tensor::ExtractSliceOp slice) {
  auto type = slice.getSourceType();
  if (slice.getResultType().getRank() != type.getRank() ||
      !slice.hasUnitStride())
    return std::nullopt;
  // Whether `value` is the source's extent along axis `d`.
  auto isExtent = [&](OpFoldResult value, int64_t d) {
    auto v = dyn_cast<Value>(value);
    auto dim = v ? v.getDefiningOp<tensor::DimOp>() : nullptr;
    return dim && dim.getSource() == slice.getSource() &&
           dim.getConstantIndex() == d;
  };
  std::optional<int64_t> axis;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    OpFoldResult offset = slice.getMixedOffsets()[d];
    OpFoldResult size = slice.getMixedSizes()[d];
    bool whole = isZeroInteger(offset) &&
                 (type.isDynamicDim(d)
                      ? isExtent(size, d)
                      : getConstantIntValue(size) == type.getDimSize(d));
    if (whole) // extent-1 axes too: the slice leaves them as they are
      continue;
    if (axis || getConstantIntValue(size) != 1)
      return std::nullopt;
    // The last position: extent - 1, constant or computed from the source.
    if (!type.isDynamicDim(d)) {
      if (getConstantIntValue(offset) != type.getDimSize(d) - 1)
        return std::nullopt;
    } else {
      auto v = dyn_cast<Value>(offset);
      auto sub = v ? v.getDefiningOp<arith::SubIOp>() : nullptr;
      if (!sub || !isExtent(sub.getLhs(), d) || !isOneInteger(sub.getRhs()))
        return std::nullopt;
    }
    axis = d;
  }
  return axis;
}

/// Which operands of `op` to restrict to their last position, and along
/// which of their axes, for its result restricted along `axis`; nothing
/// when the result's positions are not computed independently. Operands
/// with no entry are used whole (weights, broadcast operands).
std::optional<SmallVector<std::pair<unsigned, int64_t>>>
operandAxes(Operation *op, int64_t axis) {
  using Axes = SmallVector<std::pair<unsigned, int64_t>>;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = result.getRank();
  auto rankOf = [&](unsigned i) {
    return cast<RankedTensorType>(op->getOperand(i).getType()).getRank();
  };
  if (isa<MatMulOp>(op)) {
    // Rows of the product are rows of the left operand (both at least
    // matrices: with a vector on either side the axes shift).
    if (axis != rank - 2 || rankOf(0) < 2 || rankOf(1) < 2)
      return std::nullopt;
    return Axes{{0, rankOf(0) - 2}};
  }
  if (isa<RMSNormOp, LayerNormOp>(op)) {
    int64_t normalized = isa<RMSNormOp>(op) ? cast<RMSNormOp>(op).getAxis()
                                            : cast<LayerNormOp>(op).getAxis();
    if (axis >= normalized)
      return std::nullopt;
    return Axes{{0, axis}};
  }
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return Axes{{0, transpose.getPerm()[axis]}};
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // Only a reshape that keeps the axes up to `axis` as they are, and
    // regroups static ones after it: then each position keeps its
    // elements. (One symbolic axis at most before: two could trade
    // extents.)
    auto input = cast<RankedTensorType>(reshape.getInput().getType());
    if (input.getRank() <= axis)
      return std::nullopt;
    ArrayRef<int64_t> head = result.getShape().take_front(axis + 1);
    ArrayRef<int64_t> inputTail = input.getShape().drop_front(axis + 1),
                      resultTail = result.getShape().drop_front(axis + 1);
    if (input.getShape().take_front(axis + 1) != head ||
        llvm::count_if(head, ShapedType::isDynamic) > 1 ||
        ShapedType::isDynamicShape(inputTail) ||
        ShapedType::isDynamicShape(resultTail) ||
        ShapedType::getNumElements(inputTail) !=
            ShapedType::getNumElements(resultTail))
      return std::nullopt;
    return Axes{{0, axis}};
  }
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    // Query rows are independent; every key stays. A causal limit counts
    // from the last query, so only the last row keeps its meaning, which
    // is the row taken here.
    if (axis != 2)
      return std::nullopt;
    Axes axes{{0, 2}};
    if (Value mask = attention.getMask()) {
      auto maskType = cast<RankedTensorType>(mask.getType());
      int64_t maskAxis = 2 - (4 - maskType.getRank());
      if (maskAxis >= 0 && maskType.getDimSize(maskAxis) != 1)
        axes.push_back({3, maskAxis});
    }
    return axes;
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // A window along other axes: this one must be taken whole.
    auto dynamicAxes = slice.getDynamicAxes();
    if (slice.getStarts()[axis] != 0 || slice.getSteps()[axis] != 1 ||
        slice.getType().getDimSize(axis) !=
            cast<RankedTensorType>(slice.getInput().getType())
                .getDimSize(axis) ||
        (dynamicAxes && llvm::is_contained(*dynamicAxes, axis)))
      return std::nullopt;
    return Axes{{0, axis}};
  }
  if (isa<SoftmaxOp, LogSoftmaxOp, HardmaxOp, CumSumOp, CumProdOp>(op)) {
    // Along another axis than the positions'.
    int64_t along = op->getAttrOfType<IntegerAttr>("axis").getInt();
    if (along == axis || along + rank == axis)
      return std::nullopt;
    return Axes{{0, axis}};
  }
  // Elementwise ops: each operand along its broadcast axis, unless it
  // broadcasts there.
  bool unary = op->getNumOperands() == 1 &&
               (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
                isa<CastOp>(op));
  if (!unary &&
      !isa<AddOp, SubOp, MulOp, DivOp, PowOp, MinOp, MaxOp, WhereOp>(op))
    return std::nullopt;
  Axes axes;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    int64_t operandAxis = axis - (rank - rankOf(i));
    if (operandAxis < 0)
      continue;
    int64_t extent =
        cast<RankedTensorType>(op->getOperand(i).getType())
            .getDimSize(operandAxis);
    if (extent == 1 && result.getDimSize(axis) != 1)
      continue;
    if (extent != result.getDimSize(axis))
      return std::nullopt;
    axes.push_back({i, operandAxis});
  }
  return axes;
}

/// slice(op(x, ...)) -> op(slice(x), ...), where every user of op's result
/// takes the same last position.
struct HoistLastPosition : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> axis = lastPositionAxis(slice);
    Operation *op = slice.getSource().getDefiningOp();
    if (!axis || !op || op->getNumResults() != 1 ||
        !isa<AutoGLMDialect>(op->getDialect()))
      return failure();
    // Every user takes the last position, or only reads an extent.
    SmallVector<tensor::ExtractSliceOp> users;
    SmallVector<tensor::DimOp> extents;
    for (Operation *user : op->getUsers()) {
      if (auto dim = dyn_cast<tensor::DimOp>(user);
          dim && dim.getConstantIndex()) {
        extents.push_back(dim);
        continue;
      }
      auto other = dyn_cast<tensor::ExtractSliceOp>(user);
      if (!other || lastPositionAxis(other) != axis)
        return rewriter.notifyMatchFailure(slice, "other positions are used");
      users.push_back(other);
    }
    auto axes = operandAxes(op, *axis);
    if (!axes || axes->empty())
      return rewriter.notifyMatchFailure(op, "positions are not independent");

    rewriter.setInsertionPoint(op);
    SmallVector<Value> operands(op->getOperands());
    for (auto [index, operandAxis] : *axes)
      operands[index] =
          lastPosition(rewriter, op->getLoc(), operands[index], operandAxis);
    Operation *narrowed = rewriter.clone(*op);
    narrowed->setOperands(operands);
    if (auto reshape = dyn_cast<ReshapeOp>(narrowed)) {
      // The symbolic extents it takes lose the one that became 1.
      auto old = cast<RankedTensorType>(op->getResult(0).getType());
      if (old.isDynamicDim(*axis)) {
        unsigned position = 0;
        for (int64_t d = 0; d < *axis; ++d)
          position += old.isDynamicDim(d);
        reshape.getSizesMutable().erase(position);
      }
    }
    if (auto window = dyn_cast<SliceOp>(narrowed)) {
      // Clamped to the new extent: the whole axis is now [0, 1).
      SmallVector<int64_t> ends(window.getEnds());
      ends[*axis] = 1;
      window.setEnds(ends);
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[*axis] = 1;
    narrowed->getResult(0).setType(type.clone(shape));
    // Extents: the positions' from the operand that had them, the others'
    // from the narrowed op, which keeps them.
    auto [first, firstAxis] = axes->front();
    for (tensor::DimOp dim : extents) {
      rewriter.setInsertionPoint(dim);
      if (*dim.getConstantIndex() == *axis)
        rewriter.replaceOpWithNewOp<tensor::DimOp>(
            dim, op->getOperand(first), firstAxis);
      else
        rewriter.replaceOpWithNewOp<tensor::DimOp>(
            dim, narrowed->getResult(0), *dim.getConstantIndex());
    }
    for (tensor::ExtractSliceOp user : users)
      rewriter.replaceOp(user, narrowed->getResult(0));
    // Now unused: erased at once, so that its operands' other users see
    // only slices.
    rewriter.eraseOp(op);
    return success();
  }
};

struct LastTokenPass : autoglm::impl::LastTokenBase<LastTokenPass> {
  using LastTokenBase::LastTokenBase;

  void runOnOperation() override {
    llvm::StringSet<> found;
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && failed(narrowOutputs(function, found)))
        return signalPassFailure();
    for (const std::string &name : outputs)
      if (!found.contains(name)) {
        getOperation().emitError("--last-token: the model has no output '")
            << name << "'";
        return signalPassFailure();
      }
  }

  /// Slices the outputs of `function` named in `outputs` (recording them in
  /// `found`) and moves the slices up.
  LogicalResult narrowOutputs(func::FuncOp function,
                              llvm::StringSet<> &found) {
    auto ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
    bool changed = false;
    for (unsigned i = 0; i < function.getNumResults(); ++i) {
      auto name = function.getResultAttrOfType<StringAttr>(i, "autoglm.name");
      if (!name || !llvm::is_contained(outputs, name.getValue()))
        continue;
      found.insert(name.getValue());
      Value value = ret.getOperand(i);
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || type.getRank() < 2)
        return function.emitError("--last-token: output '")
               << name.getValue()
               << "' has no token axis (it needs rank 2 or more, the tokens "
                  "second to last)";
      OpBuilder b(ret);
      ret.setOperand(i, lastPosition(b, value.getLoc(), value,
                                     type.getRank() - 2));
      changed = true;
    }
    if (!changed)
      return success();
    function.setType(FunctionType::get(&getContext(),
                                       function.getArgumentTypes(),
                                       ret.getOperandTypes()));
    RewritePatternSet patterns(&getContext());
    patterns.add<HoistLastPosition>(&getContext());
    return applyPatternsGreedily(function, std::move(patterns));
  }
};

} // namespace
