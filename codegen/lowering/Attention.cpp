//===- Attention.cpp - lowering of autoglm.attention ----------------------===//
//
// With the runtime kernels, autoglm.attention becomes
// autoglm.attention_buffers on its operands' buffers and a new output
// buffer (bufferization.to_buffer / to_tensor around it), which
// autoglm-attention-to-kernels turns into a call of agl_kernel_attention once
// the arena is planned. Without them it is spelled again in the primitive
// ops it stands for (MatMul with the transposed K, scale, mask, Softmax,
// MatMul), which lower as they always did.
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/LoweringUtils.h"
#include "dialects/AutoGLMDialect.h"
#include "passes/AttentionToGpu.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include "autoglm/kernels.h"

#include <limits>

using namespace mlir;
using namespace autoglm;

namespace {

Value f32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<float> values) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

/// [B, Hkv, S, D] with every head repeated `group` times in place:
/// [B, Hkv * group, S, D].
Value repeatHeads(OpBuilder &b, Location loc, Value x, int64_t group) {
  if (group == 1)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  auto s = type.getShape();
  // The symbolic extents (batch, sequence), in the order the ops take them.
  SmallVector<Value> sizes;
  for (int64_t d : {0, 2})
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, x, d));
  auto reshaped = [&](Value input, ArrayRef<int64_t> shape) {
    return ReshapeOp::create(b, loc, type.clone(shape), input, sizes)
        .getResult();
  };
  Value grouped = reshaped(x, {s[0], s[1], 1, s[2], s[3]});
  Value wide = ExpandOp::create(
      b, loc, grouped, sizes,
      ArrayRef<int64_t>{s[0], s[1], group, s[2], s[3]});
  return reshaped(wide, {s[0], s[1] * group, s[2], s[3]});
}

/// softmax(scale Q Kᵀ + mask) V in primitive autoglm ops; rows that see
/// no key are zero, as the op defines.
Value expand(OpBuilder &b, AttentionOp op, Value q, Value k, Value v,
             Value mask) {
  Location loc = op.getLoc();
  auto qType = cast<RankedTensorType>(q.getType());
  auto kType = cast<RankedTensorType>(k.getType());
  int64_t group = qType.getDimSize(1) / kType.getDimSize(1);
  int64_t qLen = qType.getDimSize(2), kvLen = kType.getDimSize(2);
  const float inf = std::numeric_limits<float>::infinity();
  k = repeatHeads(b, loc, k, group);
  v = repeatHeads(b, loc, v, group);
  Value kT = TransposeOp::create(b, loc, k, ArrayRef<int64_t>{0, 1, 3, 2});
  Value scores = MulOp::create(b, loc, MatMulOp::create(b, loc, q, kT),
                               f32Constant(b, loc, {}, {float(op.getScale().convertToFloat())}));
  if (mask)
    scores = AddOp::create(b, loc, scores, mask);
  if (op.getCausal()) {
    // Recognized causal masks come from constants, of static lengths.
    assert(qLen != ShapedType::kDynamic && kvLen != ShapedType::kDynamic &&
           "causal attention expanded over symbolic lengths");
    SmallVector<float> bias;
    for (int64_t i = 0; i < qLen; ++i)
      for (int64_t j = 0; j < kvLen; ++j)
        bias.push_back(j <= i + kvLen - qLen ? 0.0f : -inf);
    scores = AddOp::create(b, loc, scores,
                           f32Constant(b, loc, {qLen, kvLen}, bias));
  }
  Value probs = SoftmaxOp::create(b, loc, scores, int64_t(3));
  // Only a mask, or a causal limit before the first key, can leave a row
  // with no key (softmax would give NaN there).
  if (mask || (op.getCausal() && kvLen < qLen)) {
    Value rowMax = ReduceMaxOp::create(b, loc, scores,
                                       ArrayRef<int64_t>{3}, true);
    Value empty = EqualOp::create(b, loc, rowMax,
                                  f32Constant(b, loc, {}, {-inf}));
    probs = WhereOp::create(b, loc, empty, f32Constant(b, loc, {}, {0.0f}),
                            probs);
  }
  return MatMulOp::create(b, loc, probs, v);
}

struct AttentionLowering : OpConversionPattern<AttentionOp> {
  AttentionLowering(const TypeConverter &converter, MLIRContext *ctx,
                    bool kernel, bool gpuKernel)
      : OpConversionPattern(converter, ctx), kernel(kernel),
        gpuKernel(gpuKernel) {}

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto vType = cast<RankedTensorType>(op.getValue().getType());
    auto kType = cast<RankedTensorType>(op.getKey().getType());
    bool fits = gpuKernel
                    ? fitsFlashAttention(qType, kType, vType)
                    : qType.getDimSize(3) <= AGL_ATTENTION_MAX_HEAD_DIM &&
                          vType.getDimSize(3) <= AGL_ATTENTION_MAX_HEAD_DIM;
    bool kernel = this->kernel || gpuKernel;
    bool symbolic = !qType.hasStaticShape() ||
                    !cast<ShapedType>(op.getKey().getType()).hasStaticShape();
    if (op.getCausal() && symbolic && (!kernel || !fits))
      return op.emitOpError("causal attention over symbolic lengths needs "
                            "the runtime's attention kernel");
    if (!kernel || !fits) {
      rewriter.replaceOp(op, expand(rewriter, op, adaptor.getQuery(),
                                    adaptor.getKey(), adaptor.getValue(),
                                    adaptor.getMask()));
      return success();
    }
    // The kernel takes strides: an operand that is a view (the keys and
    // values of a KV cache, read up to its length) is read in place.
    auto buffer = [&](Value tensor) -> Value {
      if (!tensor)
        return nullptr;
      auto type = cast<RankedTensorType>(tensor.getType());
      SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
      if (!strides.empty())
        strides.back() = 1;
      auto layout = StridedLayoutAttr::get(getContext(), ShapedType::kDynamic,
                                           strides);
      return bufferization::ToBufferOp::create(
          rewriter, loc,
          MemRefType::get(type.getShape(), type.getElementType(), layout),
          tensor, /*read_only=*/true);
    };
    Value q = buffer(adaptor.getQuery()), k = buffer(adaptor.getKey()),
          v = buffer(adaptor.getValue()), mask = buffer(adaptor.getMask());
    auto outType = op.getType();
    // Symbolic batch and query length: those of Q (the verifier checked
    // that they agree).
    SmallVector<Value> sizes;
    for (int64_t d : {0, 2})
      if (outType.isDynamicDim(d))
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, adaptor.getQuery(), d));
    auto out = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(outType.getShape(), outType.getElementType()), sizes,
        rewriter.getI64IntegerAttr(64));
    AttentionBuffersOp::create(rewriter, loc, q, k, v, mask, out,
                               op.getScaleAttr(), op.getCausalAttr());
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, outType, out, /*restrict=*/true, /*writable=*/true);
    return success();
  }

  bool kernel;
  bool gpuKernel;
};

} // namespace

void autoglm::populateAttentionLowering(const TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        bool kernel, bool gpuKernel) {
  patterns.add<AttentionLowering>(converter, patterns.getContext(), kernel,
                                  gpuKernel);
}
