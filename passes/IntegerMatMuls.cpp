//===- IntegerMatMuls.cpp - products of quantized operands in int8 --------===//
//
// A quantized model (QDQ, as onnxruntime's quantize_static writes it, or
// the one --precision int8 makes) says "int8" with DequantizeLinear ops in
// front of a float MatMul:
//   y = matmul(dequantize(a_q, s_a, z_a), dequantize(b_q, s_b, z_b))
// Run as written, that is a float product of float copies. Since
// dequantize(q) = (q - z) * s and the scales are per tensor (a) and per
// tensor or per column (b), the same y is
//   y = float(matmul_integer(a_q, b_q, z_a, z_b)) * (s_a * s_b)
// an exact integer product (int32 sums of 8-bit products), then one scale
// per column. The integer product runs on the runtime's int8 GEMM, and the
// scaling joins the elementwise ops that follow it. A convolution of one
// group by dequantized operands (scales per tensor, and per filter for the
// filter) becomes autoglm.conv_integer the same way, its bias added after
// the scaling.
//
// The GEMM takes unsigned activations (AVX-512 VNNI multiplies unsigned by
// signed bytes). A signed activation that is only dequantized (QDQ with
// int8 activations, onnxruntime's default) is quantized to uint8 with its
// zero point moved by 128 instead: saturate(round(x / s) + z + 128) on
// [0, 255] is the int8 value plus 128, and dequantizes to the same floats.
//
// cuBLASLt's integer products (--target=cuda, `signed-activations`) take
// signed bytes on both sides and no zero points, so there it goes the other
// way: uint8 activations that products read become int8 with the zero
// point less 128, and the product of a constant weight by activations with
// a zero point z is split (exactly, in int32) as
//   sum_p (a_p - z) w_pj = sum_p a_p w_pj - z * sum_p w_pj
// the column sums of the weight computed here, their subtraction an
// elementwise op that joins the dequantization after the product.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/FloatValues.h"
#include "dialects/InferenceUtils.h"
#include "passes/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace autoglm {
#define GEN_PASS_DEF_INTEGERMATMULS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;
using namespace autoglm;

namespace {

bool isPerTensor(Value value) {
  auto type = cast<ShapedType>(value.getType());
  return type.getRank() <= 1 && type.getNumElements() == 1;
}

/// A dequantized operand: its 8-bit values, its scales, and its zero point:
/// a per-tensor one, or the common entry of a per-channel constant.
struct Dequantized {
  Value values, scale, zeroPoint;
  std::optional<int8_t> commonZeroPoint;

  Value scalarZeroPoint(PatternRewriter &rewriter, Location loc) const {
    if (!commonZeroPoint)
      return zeroPoint;
    auto type = RankedTensorType::get({}, getElementTypeOrSelf(zeroPoint));
    return ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(type, APInt(8, uint8_t(*commonZeroPoint))));
  }
};

/// `value` as a dequantized 8-bit tensor whose parameters are per tensor,
/// or for the scale also per channel along `channelAxis` (the columns of a
/// matrix product's weight, the filters of a convolution's).
std::optional<Dequantized> dequantized(Value value,
                                       std::optional<int64_t> channelAxis) {
  auto dq = value.getDefiningOp<DequantizeLinearOp>();
  if (!dq || !getElementTypeOrSelf(dq.getInput()).isInteger(8) ||
      !getElementTypeOrSelf(dq.getType()).isF32())
    return std::nullopt;
  auto type = cast<ShapedType>(dq.getInput().getType());
  bool alongChannels =
      channelAxis && type.getRank() >= 2 && dq.getAxis() == *channelAxis;
  Dequantized d{dq.getInput(), dq.getScale(), dq.getZeroPoint(), std::nullopt};
  if (!isPerTensor(d.scale) &&
      !(alongChannels && cast<ShapedType>(d.scale.getType()).getRank() == 1))
    return std::nullopt;
  if (!isPerTensor(d.zeroPoint)) {
    auto constant = d.zeroPoint.getDefiningOp<ConstantOp>();
    auto values = constant ? constantValues<int8_t>(constant.getValue())
                           : std::nullopt;
    if (!alongChannels || !values ||
        llvm::any_of(*values, [&](int8_t v) { return v != values->front(); }))
      return std::nullopt;
    d.commonZeroPoint = values->front();
  }
  return d;
}

/// q = quantize_linear(x, s, z) to int8 with a constant zero point, read
/// only by dequantize_linear(q, s, z): both become uint8 with z + 128.
struct UnsignedActivations : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(op.getType()));
    auto zeroPoint = op.getZeroPoint().getDefiningOp<ConstantOp>();
    auto values = zeroPoint ? constantValues<int8_t>(zeroPoint.getValue())
                            : std::nullopt;
    if (!element || element.getWidth() != 8 || element.isUnsigned() ||
        !values || op->use_empty())
      return rewriter.notifyMatchFailure(op, "not int8 with a constant "
                                             "zero point");
    for (Operation *user : op->getUsers()) {
      auto dq = dyn_cast<DequantizeLinearOp>(user);
      if (!dq || dq.getScale() != op.getScale() ||
          dq.getZeroPoint() != op.getZeroPoint() ||
          dq.getAxis() != op.getAxis())
        return rewriter.notifyMatchFailure(op, "read other than dequantized");
    }
    auto u8 = rewriter.getIntegerType(8, /*isSigned=*/false);
    auto zpType = cast<ShapedType>(op.getZeroPoint().getType()).clone(u8);
    SmallVector<APInt> moved = llvm::map_to_vector(*values, [](int8_t v) {
      return APInt(8, uint8_t(int(v) + 128));
    });
    Location loc = op.getLoc();
    Value zp = ConstantOp::create(rewriter, loc,
                                  DenseElementsAttr::get(zpType, moved));
    Value q = QuantizeLinearOp::create(rewriter, loc, op.getInput(),
                                       op.getScale(), zp, op.getAxis());
    for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
      rewriter.replaceOpWithNewOp<DequantizeLinearOp>(
          user, q, op.getScale(), zp, op.getAxis());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The reverse of UnsignedActivations for products only: q =
/// quantize_linear(x, s, z) to uint8, read only as products' left
/// operands or convolutions' inputs (by dequantize_linear(q, s', z) ops
/// that are, or as matmul_integer's and conv_integer's with zero point z):
/// q and z become int8, both less 128 (z computed so at run time when it
/// is not a constant, as DynamicQuantizeLinear's). The lowering of a
/// convolution with a signed input leaves the zero point out of its
/// product the same way (ConvPool.cpp).
struct SignedActivations : OpRewritePattern<QuantizeLinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(op.getType()));
    Value zeroPoint = op.getZeroPoint();
    if (!element || element.getWidth() != 8 || !element.isUnsigned() ||
        op->use_empty())
      return rewriter.notifyMatchFailure(op, "not uint8");
    auto productLhs = [](OpOperand &use) {
      return isa<MatMulOp, ConvOp>(use.getOwner()) &&
             use.getOperandNumber() == 0;
    };
    for (OpOperand &use : op->getUses()) {
      Operation *user = use.getOwner();
      if (auto product = dyn_cast<MatMulIntegerOp>(user);
          product && use.getOperandNumber() == 0 &&
          product.getLhsZeroPoint() == zeroPoint)
        continue;
      if (auto conv = dyn_cast<ConvIntegerOp>(user);
          conv && use.getOperandNumber() == 0 &&
          conv.getInputZeroPoint() == zeroPoint)
        continue;
      // (Its own scale: q - z is unchanged whatever the scale.)
      auto dq = dyn_cast<DequantizeLinearOp>(user);
      if (!dq || dq.getZeroPoint() != zeroPoint ||
          !llvm::all_of(dq->getUses(), productLhs))
        return rewriter.notifyMatchFailure(
            op, "read other than as a product's left operand");
    }
    auto i8 = rewriter.getIntegerType(8); // ONNX's int8: signless
    auto zpType = cast<ShapedType>(zeroPoint.getType()).clone(i8);
    Location loc = op.getLoc();
    Value zp;
    if (auto constant = zeroPoint.getDefiningOp<ConstantOp>()) {
      std::optional<SmallVector<uint8_t>> values =
          constantValues<uint8_t>(constant.getValue());
      if (!values)
        return rewriter.notifyMatchFailure(op, "unreadable zero point");
      SmallVector<APInt> moved = llvm::map_to_vector(*values, [](uint8_t v) {
        return APInt(8, uint64_t(int64_t(v) - 128), /*isSigned=*/true);
      });
      zp = ConstantOp::create(rewriter, loc,
                              DenseElementsAttr::get(zpType, moved));
    } else {
      // int8(int32(z) - 128): exact for z in [0, 255].
      auto i32 = rewriter.getIntegerType(32);
      Value wide = CastOp::create(rewriter, loc, zeroPoint, i32);
      Value offset = ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, i32),
                                 APInt(32, 128)));
      zp = CastOp::create(rewriter, loc,
                          SubOp::create(rewriter, loc, wide, offset), i8);
    }
    Value q = QuantizeLinearOp::create(rewriter, loc, op.getInput(),
                                       op.getScale(), zp, op.getAxis());
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      // At the user: a product's other operands may come after `op`.
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(user);
      if (auto product = dyn_cast<MatMulIntegerOp>(user))
        rewriter.replaceOpWithNewOp<MatMulIntegerOp>(product, product.getType(),
                                                     q, product.getRhs(), zp,
                                                     product.getRhsZeroPoint());
      else if (auto conv = dyn_cast<ConvIntegerOp>(user))
        rewriter.replaceOpWithNewOp<ConvIntegerOp>(
            conv, conv.getType(), q, conv.getFilter(), zp,
            conv.getFilterZeroPoint(), conv.getStridesAttr(),
            conv.getPadsAttr(), conv.getDilationsAttr());
      else if (auto dq = dyn_cast<DequantizeLinearOp>(user))
        rewriter.replaceOpWithNewOp<DequantizeLinearOp>(dq, q, dq.getScale(),
                                                        zp, dq.getAxis());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The constant int8 values of `value`, if it is an autoglm.constant.
std::optional<SmallVector<int8_t>> int8Constant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || !getElementTypeOrSelf(constant.getType()).isInteger(8))
    return std::nullopt;
  return constantValues<int8_t>(constant.getValue());
}

/// matmul_integer(a, w, z, 0) of an int8 `a`, a constant 2-D `w` and a
/// per-tensor z as matmul_integer(a, w, 0, 0) - z * colsum(w): a product
/// without zero points, as cuBLASLt computes it. A constant z folds into
/// the column sums; one computed at run time multiplies them there.
struct ZeroPointAsColumnSums : OpRewritePattern<MatMulIntegerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulIntegerOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsElement =
        dyn_cast<IntegerType>(getElementTypeOrSelf(op.getLhs().getType()));
    auto rhsType = cast<ShapedType>(op.getRhs().getType());
    Value zeroPoint = op.getLhsZeroPoint();
    std::optional<SmallVector<int8_t>> lhsZero = int8Constant(zeroPoint);
    std::optional<SmallVector<int8_t>> rhsZero =
        int8Constant(op.getRhsZeroPoint());
    if (!lhsElement || lhsElement.isUnsigned() || rhsType.getRank() != 2 ||
        !rhsType.hasStaticShape() || !isPerTensor(zeroPoint) ||
        (lhsZero && lhsZero->front() == 0) || !rhsZero ||
        llvm::any_of(*rhsZero, [](int8_t v) { return v != 0; }))
      return rewriter.notifyMatchFailure(
          op, "not an int8 product with a lhs zero point by a 2-D weight "
              "without one");
    std::optional<SmallVector<int8_t>> weight = int8Constant(op.getRhs());
    if (!weight)
      return rewriter.notifyMatchFailure(op, "the weight is not a constant");
    const int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
    SmallVector<int32_t> sums(n, 0);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j)
        sums[j] += int32_t((*weight)[p * n + j]);
    if (lhsZero)
      for (int32_t &sum : sums)
        sum *= int32_t(lhsZero->front());
    Location loc = op.getLoc();
    auto i32 = rewriter.getIntegerType(32);
    Value correction = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(RankedTensorType::get({n}, i32),
                               ArrayRef<int32_t>(sums)));
    if (!lhsZero)
      correction = MulOp::create(rewriter, loc,
                                 CastOp::create(rewriter, loc, zeroPoint, i32),
                                 correction);
    auto zeroType = cast<ShapedType>(zeroPoint.getType());
    Value noZero = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(zeroType, APInt(8, 0, /*isSigned=*/true)));
    Value product =
        MatMulIntegerOp::create(rewriter, loc, op.getType(), op.getLhs(),
                                op.getRhs(), noZero, op.getRhsZeroPoint());
    rewriter.replaceOpWithNewOp<SubOp>(op, product, correction);
    return success();
  }
};

struct MatMulOfDequantized : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    if (cast<ShapedType>(op.getRhs().getType()).getRank() < 2)
      return failure();
    auto lhs = dequantized(op.getLhs(), std::nullopt);
    auto rhs = dequantized(
        op.getRhs(), cast<ShapedType>(op.getRhs().getType()).getRank() - 1);
    if (!lhs || !rhs)
      return rewriter.notifyMatchFailure(op, "operands are not dequantized "
                                             "8-bit tensors");
    Location loc = op.getLoc();
    Value product = MatMulIntegerOp::create(
        rewriter, loc, lhs->values, rhs->values,
        lhs->scalarZeroPoint(rewriter, loc),
        rhs->scalarZeroPoint(rewriter, loc));
    Value wide =
        CastOp::create(rewriter, loc, product, rewriter.getF32Type());
    Value scale = MulOp::create(rewriter, loc, lhs->scale, rhs->scale);
    rewriter.replaceOpWithNewOp<MulOp>(op, wide, scale);
    return success();
  }
};

/// conv(dequantize(x), dequantize(w)) [+ bias] with one group and static
/// shapes, x per tensor, w per tensor or per filter:
///   float(conv_integer(x_q, w_q, z_x, z_w)) * (s_x * s_w) [+ bias]
/// with per-filter scales and the bias along axis 1 of the result.
struct ConvOfDequantized : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    if (op.getGroup() != 1 || !type.getElementType().isF32() ||
        !type.hasStaticShape() ||
        !cast<ShapedType>(op.getFilter().getType()).hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not an f32 convolution of one "
                                             "group with static shapes");
    auto input = dequantized(op.getInput(), std::nullopt);
    auto filter = dequantized(op.getFilter(), /*channelAxis=*/0);
    if (!input || !filter)
      return rewriter.notifyMatchFailure(op, "operands are not dequantized "
                                             "8-bit tensors");
    Location loc = op.getLoc();
    // A per-filter vector as [1, F, 1, ...], to scale the result's axis 1.
    SmallVector<int64_t> alongFilters(type.getRank(), 1);
    alongFilters[1] = type.getDimSize(1);
    auto perFilter = [&](Value v) -> Value {
      if (isPerTensor(v))
        return v;
      auto t = cast<ShapedType>(v.getType());
      return ReshapeOp::create(
          rewriter, loc,
          RankedTensorType::get(alongFilters, t.getElementType()), v,
          ValueRange{});
    };
    Value sums = ConvIntegerOp::create(
        rewriter, loc, input->values, filter->values,
        input->scalarZeroPoint(rewriter, loc),
        filter->scalarZeroPoint(rewriter, loc), op.getStridesAttr(),
        op.getPadsAttr(), op.getDilationsAttr());
    Value wide = CastOp::create(rewriter, loc, sums, rewriter.getF32Type());
    Value scale =
        MulOp::create(rewriter, loc, input->scale, perFilter(filter->scale));
    Value y = MulOp::create(rewriter, loc, wide, scale);
    if (Value bias = op.getBias())
      y = AddOp::create(rewriter, loc, y, perFilter(bias));
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct IntegerMatMulsPass
    : autoglm::impl::IntegerMatMulsBase<IntegerMatMulsPass> {
  using IntegerMatMulsBase::IntegerMatMulsBase;
  void runOnOperation() override {
    // Activations of the right sign first: the products then take them as
    // they are.
    RewritePatternSet signs(&getContext());
    RewritePatternSet products(&getContext());
    products.add<MatMulOfDequantized, ConvOfDequantized>(&getContext());
    if (signedActivations) {
      signs.add<SignedActivations>(&getContext());
      products.add<ZeroPointAsColumnSums>(&getContext());
    } else {
      signs.add<UnsignedActivations>(&getContext());
    }
    if (failed(applyPatternsGreedily(getOperation(), std::move(signs))) ||
        failed(applyPatternsGreedily(getOperation(), std::move(products))))
      signalPassFailure();
  }
};

} // namespace
