//===- Attention.cpp - importers of Attention and RotaryEmbedding ---------===//
//
// The opset-23+ transformer operators, spelled with autoglm ops exactly as the
// ONNX specification defines them (including its reference's handling of
// fully masked rows). Masks known at compile time (causal, sliding window)
// become constant additive biases.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/OpChain.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {


int64_t dim(Value v, int64_t d) {
  return cast<RankedTensorType>(v.getType()).getDimSize(d);
}

/// [B, S, heads * size] -> [B, heads, S, size].
Value splitHeads(OpChain &c, Value x, int64_t heads) {
  int64_t b = dim(x, 0), s = dim(x, 1), hidden = dim(x, 2);
  return c.transpose(c.reshape(x, {b, s, heads, hidden / heads}), {0, 2, 1, 3});
}

LogicalResult importAttention(NodeImporter &n) {
  OpChain c(n);
  Value q = n.input(0), k = n.input(1), v = n.input(2);
  Value mask = n.input(3), pastK = n.input(4), pastV = n.input(5);
  Value nonpad = n.input(6);
  int64_t rank = n.inputType(0).getRank();
  Type element = n.inputType(0).getElementType();
  if (!isa<FloatType>(element))
    return n.unsupported("Attention on non-float inputs");
  if ((pastK == nullptr) != (pastV == nullptr))
    return n.emitError() << "past_key and past_value must be given together";
  if (nonpad && pastK)
    return n.emitError() << "nonpad_kv_seqlen cannot be combined with past_key";
  bool hasHeadAttrs = n.hasAttr("q_num_heads") || n.hasAttr("kv_num_heads");
  if (rank == 3) {
    if (!n.hasAttr("q_num_heads") || !n.hasAttr("kv_num_heads"))
      return n.emitError() << "3-D inputs need q_num_heads and kv_num_heads";
    q = splitHeads(c, q, n.intAttr("q_num_heads", 1));
    k = splitHeads(c, k, n.intAttr("kv_num_heads", 1));
    v = splitHeads(c, v, n.intAttr("kv_num_heads", 1));
  } else if (rank != 4) {
    return n.emitError() << "Q, K and V must be 3-D or 4-D";
  } else if (hasHeadAttrs && n.opset() >= 25) {
    return n.emitError() << "q_num_heads and kv_num_heads must not be given "
                            "for 4-D inputs";
  }
  if (!c.ok())
    return failure();

  // scale is split as sqrt(scale) on both Q and K, as the specification does.
  double scale = n.hasAttr("scale") ? n.floatAttr("scale", 1.0f)
                                    : 1.0 / std::sqrt((double)dim(q, 3));
  Value rootScale = c.scalar(element, std::sqrt(scale));

  if (pastK) {
    k = c.op<ConcatOp>(ValueRange{pastK, k}, int64_t(2));
    v = c.op<ConcatOp>(ValueRange{pastV, v}, int64_t(2));
  }
  Value presentK = k, presentV = v;
  if (!c.ok())
    return failure();
  int64_t batch = dim(q, 0), qLen = dim(q, 2), kvLen = dim(k, 2);
  int64_t pastLen = pastK ? dim(pastK, 2) : 0;
  const double inf = std::numeric_limits<double>::infinity();
  Type i1 = IntegerType::get(n.context(), 1);

  // The additive bias: 0 where a query may attend a key, -inf elsewhere.
  if (mask) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    int64_t missing = kvLen - maskType.getShape().back();
    if (missing > 0) { // a shorter mask leaves the last keys masked
      SmallVector<int64_t> pads(2 * maskType.getRank(), 0);
      pads.back() = missing;
      double fill = maskType.getElementType() == i1 ? 0.0 : -inf;
      mask = c.op<PadOp>(mask, pads, APFloat(fill));
    }
    if (getElementTypeOrSelf(mask.getType()) == i1)
      mask = c.op<WhereOp>(mask, c.scalar(element, 0), c.scalar(element, -inf));
  }
  bool isCausal = n.intAttr("is_causal", 0) != 0;
  int64_t left = n.intAttr("left_window_size", -1);
  int64_t right = n.intAttr("right_window_size", -1);
  // With nonpad_kv_seqlen (an external cache) the query positions are
  // offset per batch, so the causal frontier and the window are built from
  // the lengths below; otherwise they are constants.
  bool window = left >= 0 || right >= 0;
  bool perBatchCausal = isCausal && nonpad && !pastK;
  bool perBatchWindow = window && nonpad;
  bool staticWindow = window && !perBatchWindow;
  Value bias;
  if ((isCausal && !perBatchCausal) || staticWindow || !mask) {
    bias = c.constant(element, {qLen, kvLen}, [&](ArrayRef<int64_t> ij) {
      int64_t diff = ij[0] + pastLen - ij[1]; // query position - key
      bool allowed = !(isCausal && !perBatchCausal) || diff >= 0;
      if (staticWindow && left >= 0)
        allowed &= diff <= left;
      if (staticWindow && right >= 0)
        allowed &= -diff <= right;
      return allowed ? 0.0 : -inf;
    });
    if (mask)
      bias = c.op<AddOp>(mask, bias);
  } else {
    bias = mask;
  }
  if (nonpad) {
    // Keys at or past nonpad_kv_seqlen[b] are padding; with is_causal and no
    // cache the causal frontier of batch b is nonpad[b] - qLen.
    Value lengths = c.reshape(c.convert(nonpad, IntegerType::get(n.context(), 64)),
                              {batch, 1, 1, 1});
    Type i64 = IntegerType::get(n.context(), 64);
    auto keyIndex = RankedTensorType::get({1, 1, 1, kvLen}, i64);
    SmallVector<int64_t> keys;
    for (int64_t j = 0; j < kvLen; ++j)
      keys.push_back(j);
    Value keyIds = n.constant(DenseElementsAttr::get(keyIndex, ArrayRef<int64_t>(keys)));
    Value padded = c.op<LessOp>(keyIds, lengths);
    bias = c.op<AddOp>(bias, c.op<WhereOp>(padded, c.scalar(element, 0),
                                           c.scalar(element, -inf)));
    // Query i sits at position i + nonpad[b] - qLen; with k = key - i + qLen,
    // query position - key = nonpad[b] - k.
    auto ijType = RankedTensorType::get({1, 1, qLen, kvLen}, i64);
    SmallVector<int64_t> diffs;
    for (int64_t i = 0; i < qLen; ++i)
      for (int64_t j = 0; j < kvLen; ++j)
        diffs.push_back(j - i + qLen);
    Value keyMinusQuery =
        n.constant(DenseElementsAttr::get(ijType, ArrayRef<int64_t>(diffs)));
    auto forbid = [&](Value where) {
      bias = c.op<AddOp>(bias, c.op<WhereOp>(where, c.scalar(element, -inf),
                                             c.scalar(element, 0)));
    };
    if (perBatchCausal) // allowed iff k <= nonpad[b]
      forbid(c.op<GreaterOp>(keyMinusQuery, lengths));
    if (perBatchWindow && left >= 0) // allowed iff nonpad[b] - k <= left
      forbid(c.op<LessOp>(keyMinusQuery,
                          c.op<SubOp>(lengths, c.scalar(i64, left))));
    if (perBatchWindow && right >= 0) // allowed iff k - nonpad[b] <= right
      forbid(c.op<GreaterOp>(keyMinusQuery,
                             c.op<AddOp>(lengths, c.scalar(i64, right))));
  }

  // Grouped-query attention: each KV head serves several query heads,
  // repeated in place ([h0, h0, h1, h1, ...]).
  int64_t qHeads = dim(q, 1), kvHeads = dim(k, 1);
  if (c.ok() && qHeads != kvHeads && qHeads % kvHeads == 0) {
    auto repeat = [&](Value t) {
      int64_t len = dim(t, 2), size = dim(t, 3);
      Value grouped = c.reshape(t, {batch, kvHeads, 1, len, size});
      Value wide = c.op<ExpandOp>(grouped, ArrayRef<int64_t>{batch, kvHeads,
                                                              qHeads / kvHeads, len, size});
      return c.reshape(wide, {batch, qHeads, len, size});
    };
    k = repeat(k);
    v = repeat(v);
  }

  Value kT = c.transpose(c.op<MulOp>(k, rootScale), {0, 1, 3, 2});
  Value qk = c.op<MatMulOp>(c.op<MulOp>(q, rootScale), kT);
  if (n.hasAttr("softcap") && n.floatAttr("softcap", 0) > 0) {
    Value cap = c.scalar(element, n.floatAttr("softcap", 0));
    qk = c.op<MulOp>(c.op<TanhOp>(c.op<DivOp>(qk, cap)), cap);
  }
  Value scores = c.op<AddOp>(qk, bias);
  int64_t mode = n.intAttr("qk_matmul_output_mode", 0);
  Value qkOutput = mode == 2 ? scores : qk;

  Value probs;
  if (c.ok()) {
    Type softmaxType = element;
    if (n.hasAttr("softmax_precision")) {
      softmaxType = Float32Type::get(n.context());
      if (n.intAttr("softmax_precision", 1) != onnx::TensorProto::FLOAT &&
          n.intAttr("softmax_precision", 1) != onnx::TensorProto::FLOAT16 &&
          n.intAttr("softmax_precision", 1) != onnx::TensorProto::BFLOAT16 &&
          n.intAttr("softmax_precision", 1) != onnx::TensorProto::DOUBLE)
        return n.unsupported("this softmax_precision");
      if (n.intAttr("softmax_precision", 1) == onnx::TensorProto::DOUBLE)
        softmaxType = Float64Type::get(n.context());
    }
    Value wide = c.convert(scores, softmaxType);
    if (!c.ok())
      return failure();
    probs = c.convert(n.createTyped<SoftmaxOp>(wide, int64_t(3)), element);
  }
  if (!c.ok())
    return failure();
  // A row whose bias is -inf everywhere attends nothing: its probabilities
  // are 0 rather than the NaN a softmax of -inf would give.
  int64_t lastAxis = cast<RankedTensorType>(bias.getType()).getRank() - 1;
  Value rowMax = c.op<ReduceMaxOp>(bias, ArrayRef<int64_t>{lastAxis}, true);
  Value masked = c.op<EqualOp>(rowMax, c.scalar(element, -inf));
  DenseElementsAttr maskedConst;
  bool neverMasked = c.ok() && matchPattern(masked, m_Constant(&maskedConst)) &&
                     maskedConst.isSplat() && !maskedConst.getSplatValue<bool>();
  if (!neverMasked)
    probs = c.op<WhereOp>(masked, c.scalar(element, 0), probs);
  if (mode == 3)
    qkOutput = probs;

  Value y = c.op<MatMulOp>(probs, v);
  if (rank == 3 && c.ok())
    y = c.reshape(c.transpose(y, {0, 2, 1, 3}),
                  {batch, qLen, qHeads * dim(v, 3)});
  if (!c.ok())
    return failure();
  n.setOutput(0, y);
  n.setOutput(1, presentK);
  n.setOutput(2, presentV);
  n.setOutput(3, qkOutput);
  return success();
}

LogicalResult importRotaryEmbedding(NodeImporter &n) {
  OpChain c(n);
  Value x = n.input(0), cosCache = n.input(1), sinCache = n.input(2);
  Value positions = n.input(3);
  auto shape = n.inputType(0).getShape();
  int64_t rank = shape.size();
  if (rank == 4) {
    x = c.transpose(x, {0, 2, 1, 3}); // [B, S, heads, size]
  } else if (rank == 3) {
    int64_t heads = n.intAttr("num_heads", 0);
    if (heads <= 0 || shape[2] % heads != 0)
      return n.emitError() << "3-D input needs num_heads dividing its hidden size";
    x = c.reshape(x, {shape[0], shape[1], heads, shape[2] / heads});
  } else {
    return n.emitError() << "input must be 3-D or 4-D";
  }
  if (!c.ok())
    return failure();
  int64_t headSize = dim(x, 3);
  int64_t rotated = n.intAttr("rotary_embedding_dim", 0);
  if (rotated == 0)
    rotated = headSize;
  if (rotated % 2 != 0 || rotated > headSize)
    return n.emitError() << "rotary_embedding_dim must be even and at most the head size";
  Value xRot = c.slice(x, 3, 0, rotated, 1);
  if (positions) {
    cosCache = c.op<GatherOp>(cosCache, positions, int64_t(0));
    sinCache = c.op<GatherOp>(sinCache, positions, int64_t(0));
  }
  if (!c.ok())
    return failure();
  if (dim(cosCache, cast<RankedTensorType>(cosCache.getType()).getRank() - 1) !=
      rotated / 2)
    return n.emitError() << "the caches' last dimension must be rotary_embedding_dim / 2";
  Value cosT = c.op<UnsqueezeOp>(cosCache, ArrayRef<int64_t>{2});
  Value sinT = c.op<UnsqueezeOp>(sinCache, ArrayRef<int64_t>{2});
  bool interleaved = n.intAttr("interleaved", 0) != 0;
  Value x1 = interleaved ? c.slice(xRot, 3, 0, rotated, 2) : c.slice(xRot, 3, 0, rotated / 2, 1);
  Value x2 = interleaved ? c.slice(xRot, 3, 1, rotated, 2) : c.slice(xRot, 3, rotated / 2, rotated, 1);
  Value real = c.op<SubOp>(c.op<MulOp>(cosT, x1), c.op<MulOp>(sinT, x2));
  Value imag = c.op<AddOp>(c.op<MulOp>(sinT, x1), c.op<MulOp>(cosT, x2));
  if (!c.ok())
    return failure();
  Value result;
  if (interleaved) {
    Value pairs = c.op<ConcatOp>(
        ValueRange{c.op<UnsqueezeOp>(real, ArrayRef<int64_t>{4}),
                   c.op<UnsqueezeOp>(imag, ArrayRef<int64_t>{4})},
        int64_t(4));
    result = c.ok() ? c.reshape(pairs, cast<RankedTensorType>(xRot.getType()).getShape())
                    : Value();
  } else {
    result = c.op<ConcatOp>(ValueRange{real, imag}, int64_t(3));
  }
  if (rotated < headSize)
    result = c.op<ConcatOp>(ValueRange{result, c.slice(x, 3, rotated, headSize, 1)},
                            int64_t(3));
  if (!c.ok())
    return failure();
  result = rank == 4 ? c.transpose(result, {0, 2, 1, 3}) : c.reshape(result, shape);
  if (!c.ok())
    return failure();
  n.setOutput(0, result);
  return success();
}

} // namespace

void autoglm::registerAttentionImporters(OpImporterTable &t) {
  t["Attention"] = {importAttention, 3};
  t["RotaryEmbedding"] = {importRotaryEmbedding, 3};
}
