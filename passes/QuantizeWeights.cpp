//===- QuantizeWeights.cpp - GEMM weights stored in fewer bits ------------===//
//
// Decoding a language model reads every weight once per token: its speed is
// the bytes of weights read. This pass stores the weights of the GEMM calls
// with a constant B (the agl_kernel_sgemm_packed calls of
// autoglm-contractions-to-kernels, whose B was packed at compile time) in a
// format of fewer bits:
//  - int8 / int4 (weight-only quantization): 8 or 4 bits, with one float
//    scale per group of depths and column; agl_kernel_sgemm_q8 / _q4
//    dequantize inside their inner loops;
//  - bf16 / fp16 (--precision bf16 / fp16): each weight rounded to
//    bfloat16 or IEEE half (saturating at +-65504); agl_kernel_sgemm_bf16 /
//    _f16 widen it to float32 in registers.
// Every kernel takes the packed call's epilogue (alpha, bias, activation,
// residual) unchanged, so every packed call is converted, and accumulates in
// float32. The layouts and the conversions are the runtime's
// (autoglm/kernels_quant.h), so compiler and kernels agree on every byte.
//
//===----------------------------------------------------------------------===//

#include "dialects/FloatValues.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "autoglm/kernels_quant.h"

#include <cmath>

namespace autoglm {
#define GEN_PASS_DEF_QUANTIZEWEIGHTS
#include "passes/Passes.h.inc"
} // namespace autoglm

using namespace mlir;

namespace {

constexpr StringLiteral kSgemmPacked = "agl_kernel_sgemm_packed";
// agl_kernel_sgemm_packed's arguments: (batch, m, n, k, a, a_bs, a_rs, a_cs,
// packed_b, c, c_bs, c_rs, accumulate, activation, blocking), or with the
// epilogue arguments (..., accumulate, alpha, bias, activation, residual,
// residual_bs, residual_rs, blocking).
constexpr unsigned kPackedArgs = 15, kEpilogueArgs = 20, kN = 2, kK = 3,
                   kPackedB = 8;

/// The arguments of the quantized call after the weight and group size:
/// the packed call's (c, its strides, accumulate, alpha, bias, activation,
/// residual and its strides, blocking), which the quantized kernels take in
/// the same order; the short form without epilogue gets alpha 1 and no
/// bias or residual. Nothing for a call of another arity.
std::optional<SmallVector<Value>> argumentsAfterWeight(OpBuilder &b,
                                                       Location loc,
                                                       func::CallOp call) {
  ValueRange ops = call.getOperands();
  if (ops.size() == kEpilogueArgs)
    return SmallVector<Value>(ops.drop_front(kPackedB + 1));
  if (ops.size() != kPackedArgs)
    return std::nullopt;
  Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
  Value null = LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(
                                                b.getContext()));
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  return SmallVector<Value>{ops[9],  ops[10], ops[11], ops[12], one, null,
                            ops[13], null,    zero,    zero,    ops[14]};
}

/// A constant i64 argument, seen through the index cast it is made with.
std::optional<int64_t> constantArgument(Value value) {
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    value = cast.getIn();
  return getConstantIntValue(value);
}

/// The global that the pointer argument `pointer` addresses: the one
/// memref.get_global its computation (metadata extraction, address
/// arithmetic, casts, steps of batch loops) starts from.
memref::GetGlobalOp globalBehind(Value pointer) {
  SmallVector<Value> work = {pointer};
  DenseSet<Value> seen;
  memref::GetGlobalOp found;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *def = value.getDefiningOp();
    if (!def)
      continue;
    if (auto get = dyn_cast<memref::GetGlobalOp>(def)) {
      if (found && found != get)
        return nullptr; // two buffers: not a plain weight
      found = get;
      continue;
    }
    if (!isPure(def) || seen.size() > 64)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return found;
}

/// Erases `value`'s computation as far as nothing else uses it.
void eraseDeadChain(Value value) {
  SmallVector<Operation *> work;
  if (Operation *def = value.getDefiningOp())
    work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op->use_empty() || !isPure(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        work.push_back(def);
    op->erase();
  }
}

/// The k x n weight (row-major) that a packed B holds: panels of 32
/// columns, k rows each, the last one zero past n. Nothing when the
/// constant is not such a weight.
std::optional<std::vector<float>> unpackWeight(Attribute value, int64_t k,
                                               int64_t n) {
  constexpr int64_t nr = AGL_SGEMM_PACKED_NR;
  std::optional<SmallVector<float>> packed = autoglm::floatValues(value);
  int64_t panels = (n + nr - 1) / nr;
  if (!packed || (int64_t)packed->size() != panels * nr * k)
    return std::nullopt;
  std::vector<float> weight(n * k);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t row = 0; row < k; ++row)
      for (int64_t j = 0; j < nr && p * nr + j < n; ++j)
        weight[row * n + p * nr + j] = (*packed)[(p * k + row) * nr + j];
  return weight;
}

struct QuantizeWeightsPass
    : autoglm::impl::QuantizeWeightsBase<QuantizeWeightsPass> {
  using QuantizeWeightsBase::QuantizeWeightsBase;

  /// agl_quantize_b of the k x n weight `w` into `out`, its panels of
  /// AGL_QUANT_NR columns (independent, each its own bytes) on the
  /// context's threads: the int4 scale search is most of the time a large
  /// model takes to compile with --weight-only int4.
  void quantizePanels(ArrayRef<float> w, int64_t k, int64_t n, int bits,
                      int64_t groupSize, MutableArrayRef<int8_t> out) {
    const int64_t panelBytes =
        agl_quant_weight_bytes(k, AGL_QUANT_NR, bits, groupSize);
    mlir::parallelFor(&getContext(), 0, n / AGL_QUANT_NR, [&](size_t p) {
      agl_quantize_b(w.data() + p * AGL_QUANT_NR, k, AGL_QUANT_NR, n, 1, bits,
                     groupSize, out.data() + p * panelBytes);
    });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The 16-bit float formats share one layout and one set of arguments.
    const bool f16 = format == "fp16";
    const bool float16 = format == "bf16" || f16;
    const agl_w16_format w16 = f16 ? AGL_W16_F16 : AGL_W16_BF16;
    const int bits = format == "int8" ? 8 : format == "int4" ? 4 : 16;
    if (!float16 && bits == 16) {
      module.emitError("autoglm-quantize-weights: format must be int8, int4, "
                       "bf16 or fp16, not '")
          << format << "'";
      return signalPassFailure();
    }
    if (!float16 && (groupSize <= 0 || groupSize % 32 != 0)) {
      module.emitError("autoglm-quantize-weights: group-size must be a "
                       "positive multiple of 32, not ")
          << static_cast<int64_t>(groupSize);
      return signalPassFailure();
    }
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == kSgemmPacked &&
          (call.getNumOperands() == kPackedArgs ||
           call.getNumOperands() == kEpilogueArgs))
        calls.push_back(call);
    });
    if (calls.empty())
      return;

    SymbolTable symbols(module);
    OpBuilder top = OpBuilder::atBlockEnd(module.getBody());
    Type i64 = top.getI64Type(), i32 = top.getI32Type(),
         ptr = LLVM::LLVMPointerType::get(&getContext());
    Type f32 = top.getF32Type();
    // (batch, m, n, k, a, its batch/row/column strides, quantized b, group
    //  size, c, its batch/row strides, accumulate, alpha, bias, activation,
    //  residual, its batch/row strides, blocking); bf16, fp16: without the
    //  group size, the packed call's arguments.
    SmallVector<Type> argTypes = {i64, i64, i64, i64, ptr, i64, i64,
                                  i64, ptr, i64, ptr, i64, i64, i32,
                                  f32, ptr, i32, ptr, i64, i64, ptr};
    if (float16)
      argTypes.erase(argTypes.begin() + kPackedB + 1);
    auto kernelType = top.getFunctionType(argTypes, {});
    StringRef kernelName = f16         ? "agl_kernel_sgemm_f16"
                           : float16   ? "agl_kernel_sgemm_bf16"
                           : bits == 8 ? "agl_kernel_sgemm_q8"
                                       : "agl_kernel_sgemm_q4";
    StringRef suffix = f16       ? "_f16"
                       : float16 ? "_bf16"
                       : bits == 8 ? "_q8"
                                   : "_q4";

    llvm::StringMap<memref::GlobalOp> quantized;
    int64_t products = 0, floatBytes = 0, quantizedBytes = 0, saturated = 0;
    for (func::CallOp call : calls) {
      std::optional<int64_t> n = constantArgument(call.getOperand(kN));
      std::optional<int64_t> k = constantArgument(call.getOperand(kK));
      memref::GetGlobalOp get = globalBehind(call.getOperand(kPackedB));
      // The quantized layouts take whole panels of columns; 16-bit floats
      // any n.
      if (!n || !k || *n <= 0 || *k <= 0 || !get ||
          (!float16 && *n % AGL_QUANT_NR != 0))
        continue;
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      if (!global || !global.getConstant())
        continue;
      memref::GlobalOp &q = quantized[global.getSymName()];
      if (!q) {
        std::optional<std::vector<float>> weight =
            unpackWeight(global.getInitialValueAttr(), *k, *n);
        if (!weight)
          continue;
        int64_t bytes = float16
                            ? agl_w16_weight_bytes(*k, *n)
                            : agl_quant_weight_bytes(*k, *n, bits, groupSize);
        // Half's range ends at 65504: larger finite weights saturate
        // (counted for the report); infinities and NaN stay as they are.
        if (f16)
          for (float x : *weight)
            saturated += std::isfinite(x) && std::fabs(x) > 65504.0f;
        auto type = MemRefType::get({bytes}, top.getI8Type());
        auto tensorType = RankedTensorType::get({bytes}, top.getI8Type());
        const std::string name = (global.getSymName() + suffix).str();
        auto data = autoglm::newConstant<int8_t>(
            tensorType, name, [&](MutableArrayRef<int8_t> out) {
              if (float16)
                agl_pack_b_w16(w16, weight->data(), *k, *n, *n, 1, out.data());
              else
                quantizePanels(*weight, *k, *n, bits, groupSize, out);
            });
        q = memref::GlobalOp::create(top, global.getLoc(), name,
                                     top.getStringAttr("private"), type, data,
                                     /*constant=*/true,
                                     top.getI64IntegerAttr(64));
        symbols.insert(q); // renames on a clash
        floatBytes += (*n + AGL_SGEMM_PACKED_NR - 1) / AGL_SGEMM_PACKED_NR *
                      AGL_SGEMM_PACKED_NR * *k * 4;
        quantizedBytes += bytes;
      }

      OpBuilder b(call);
      Location loc = call.getLoc();
      Value qGlobal = memref::GetGlobalOp::create(b, loc, q.getType(),
                                                  q.getSymName());
      Value qPointer = autoglm::pointerTo(b, loc, qGlobal).pointer;
      SmallVector<Value> args(call.getOperands().take_front(kPackedB));
      args.push_back(qPointer);
      if (!float16)
        args.push_back(arith::ConstantIntOp::create(b, loc, groupSize, 64));
      llvm::append_range(args, *argumentsAfterWeight(b, loc, call));
      auto callee =
          autoglm::declareRuntimeFunction(module, kernelName, kernelType);
      auto replacement = func::CallOp::create(b, loc, callee, args);
      replacement->setDiscardableAttrs(call->getDiscardableAttrDictionary());
      Value oldPointer = call.getOperand(kPackedB);
      call->erase();
      eraseDeadChain(oldPointer);
      ++products;
      // The packed float weight's bytes go as soon as nothing reads it, so
      // that the float and the quantized copies of all weights are never
      // in memory together.
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        autoglm::dropOwnedBlob(global.getInitialValueAttr());
    }

    // The float weights nothing reads any more.
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    if (auto packed = module.lookupSymbol<func::FuncOp>(kSgemmPacked))
      if (packed.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(packed, module))
        packed.erase();
    if (products == 0)
      return;
    Builder attrs(&getContext());
    SmallVector<NamedAttribute> record = {
        attrs.getNamedAttr("format", attrs.getStringAttr(format)),
        attrs.getNamedAttr("bits", attrs.getI64IntegerAttr(bits)),
        attrs.getNamedAttr("products", attrs.getI64IntegerAttr(products)),
        attrs.getNamedAttr("float_bytes", attrs.getI64IntegerAttr(floatBytes)),
        attrs.getNamedAttr("quantized_bytes",
                           attrs.getI64IntegerAttr(quantizedBytes))};
    if (!float16)
      record.push_back(attrs.getNamedAttr("group_size",
                                          attrs.getI64IntegerAttr(groupSize)));
    if (f16)
      record.push_back(attrs.getNamedAttr("saturated",
                                          attrs.getI64IntegerAttr(saturated)));
    module->setAttr("autoglm.weight_only", attrs.getDictionaryAttr(record));
  }
};

} // namespace
