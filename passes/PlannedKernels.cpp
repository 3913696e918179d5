//===- PlannedKernels.cpp - the kernels of a compiled plan ----------------===//

#include "passes/PlannedKernels.h"
#include "dialects/NodeNames.h"
#include "passes/KernelCalls.h"
#include "passes/Tuning.h"

#include "autoglm/kernels_int8.h"
#include "autoglm/kernels_quant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <algorithm>

using namespace mlir;

namespace {

constexpr StringLiteral kKernelPrefix = "agl_kernel_";

StringRef runtimeKernel(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call || !call.getCallee().starts_with(kKernelPrefix))
    return "";
  return call.getCallee().drop_front(kKernelPrefix.size());
}

/// Floating-point operations of one execution of a loop body's ops: fma
/// counts two, every other arith/math op on floats one.
double bodyFlops(Block &body) {
  double flops = 0;
  for (Operation &op : body.without_terminator()) {
    bool onFloats = llvm::any_of(op.getResultTypes(), [](Type t) {
      return isa<FloatType>(getElementTypeOrSelf(t));
    });
    if (!onFloats || !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        isa<arith::ConstantOp, arith::SelectOp>(op))
      continue;
    flops += isa<math::FmaOp>(op) ? 2 : 1;
  }
  return flops;
}

/// Elements a memref holds, or 0 if not static.
double elements(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() ? double(memref.getNumElements())
                                           : 0;
}

struct KernelCost {
  double flops = 0, bytes = 0;
};

KernelCost costOf(Operation *op) {
  KernelCost cost;
  if (runtimeKernel(op) == "conv2d") {
    // (batch, groups, in_channels, in_h, in_w, input, 3 strides,
    //  out_channels, kernel_h, kernel_w, ..., out, out_h, out_w, ...)
    auto size = [&](unsigned i) {
      return getConstantIntValue(op->getOperand(i));
    };
    auto sizes = {size(0), size(1), size(2), size(3), size(4), size(9),
                  size(10), size(11), size(21), size(22)};
    if (llvm::all_of(sizes, [](auto s) { return s.has_value(); })) {
      double batch = *size(0), groups = *size(1), in = *size(2),
             inH = *size(3), inW = *size(4), out = *size(9),
             window = double(*size(10)) * *size(11),
             positions = double(*size(21)) * *size(22);
      cost.flops = 2 * batch * groups * out * positions * in * window;
      cost.bytes = 4 * (batch * groups * in * inH * inW +
                        groups * out * in * window +
                        batch * groups * out * positions);
    }
    return cost;
  }
  if (runtimeKernel(op) == "conv2d_winograd" ||
      runtimeKernel(op) == "conv2d_winograd_f4") {
    // (batch, in_channels, in_h, in_w, input, 3 strides, out_channels, pads,
    //  weights, bias, out, out_h, out_w, ...): the direct 3x3
    //  convolution's FLOPs (Winograd's products take 16/36 of them with
    //  2x2 tiles, 36/144 with 4x4).
    auto size = [&](unsigned i) {
      return getConstantIntValue(op->getOperand(i));
    };
    auto sizes = {size(0), size(1),  size(2), size(3),
                  size(8), size(14), size(15)};
    if (llvm::all_of(sizes, [](auto s) { return s.has_value(); })) {
      double batch = *size(0), in = *size(1), inH = *size(2), inW = *size(3),
             out = *size(8), positions = double(*size(14)) * *size(15);
      cost.flops = 2 * batch * out * positions * in * 9;
      const double matrices = runtimeKernel(op) == "conv2d_winograd" ? 16 : 36;
      cost.bytes = 4 * (batch * in * inH * inW + matrices * out * in +
                        batch * out * positions);
    }
    return cost;
  }
  if (runtimeKernel(op) == "maxpool2d") {
    // (batch, channels, in_h, in_w, input, 3 strides, kernel_h, kernel_w,
    //  ..., out, out_h, out_w, ...): one max per window tap.
    auto size = [&](unsigned i) {
      return getConstantIntValue(op->getOperand(i));
    };
    auto sizes = {size(0), size(1), size(2), size(3), size(8), size(9),
                  size(17), size(18)};
    if (llvm::all_of(sizes, [](auto s) { return s.has_value(); })) {
      double planes = double(*size(0)) * *size(1),
             outputs = planes * *size(17) * *size(18);
      cost.flops = outputs * *size(8) * *size(9);
      cost.bytes = 4 * (planes * *size(2) * *size(3) + outputs);
    }
    return cost;
  }
  if (runtimeKernel(op) == "transpose32") {
    // (outer0, outer1, rows, cols, ...): every 4-byte element read and
    // written once.
    auto sizes =
        llvm::map_to_vector(op->getOperands().take_front(4), [](Value size) {
          return getConstantIntValue(size);
        });
    if (llvm::all_of(sizes, [](auto s) { return s.has_value(); }))
      cost.bytes = 8.0 * *sizes[0] * *sizes[1] * *sizes[2] * *sizes[3];
    return cost;
  }
  if (runtimeKernel(op).starts_with("attention")) {
    // (batch, heads, kv_heads, q_len, kv_len, head_dim, value_dim, ...,
    //  causal [, past_len, ...]): two products over the visible (query,
    //  key) pairs; with a past, its rows (read in place of K's and V's)
    //  also written into K and V.
    auto sizes = llvm::map_to_vector(
        op->getOperands().take_front(7),
        [](Value size) { return getConstantIntValue(size); });
    std::optional<int64_t> causal =
        getConstantIntValue(op->getOperand(autoglm::kAttentionCausalOperand));
    std::optional<int64_t> pastLen =
        op->getNumOperands() > autoglm::kAttentionCausalOperand + 1
            ? getConstantIntValue(
                  op->getOperand(autoglm::kAttentionCausalOperand + 1))
            : std::optional<int64_t>(0);
    if (llvm::all_of(sizes, [](auto s) { return s.has_value(); }) && causal) {
      double batch = *sizes[0], heads = *sizes[1], kvHeads = *sizes[2],
             qLen = *sizes[3], kvLen = *sizes[4], d = *sizes[5],
             dv = *sizes[6];
      double pairs = qLen * kvLen;
      if (*causal) {
        pairs = 0;
        for (int64_t i = 0; i < *sizes[3]; ++i)
          pairs += std::clamp<double>(i + kvLen - qLen + 1, 0, kvLen);
      }
      cost.flops = 2 * batch * heads * pairs * (d + dv);
      cost.bytes = 4 * batch *
                   (heads * qLen * (d + dv) + kvHeads * kvLen * (d + dv));
      if (pastLen)
        cost.bytes += 4 * batch * kvHeads * double(*pastLen) * (d + dv);
    }
    return cost;
  }
  // A GEMM call's leading (batch, m, n, k), when all are constants.
  auto gemmSizes = [&] {
    auto sizes = llvm::map_to_vector(
        op->getOperands().take_front(4),
        [](Value size) { return getConstantIntValue(size); });
    return llvm::all_of(sizes, [](auto s) { return s.has_value(); })
               ? sizes
               : decltype(sizes){};
  };
  if (runtimeKernel(op).starts_with("gemm_u8s8")) {
    // uint8 A, packed int8 B (shared by the batch), 4-byte C (uint8 when
    // requantized); one multiply and one add per product, as for floats.
    if (auto sizes = gemmSizes(); !sizes.empty()) {
      double batch = *sizes[0], m = *sizes[1], n = *sizes[2], k = *sizes[3];
      double cBytes = runtimeKernel(op) == "gemm_u8s8_requantize" ? 1 : 4;
      cost.flops = 2 * batch * m * n * k;
      cost.bytes = batch * (m * k + cBytes * m * n) +
                   double(agl_s8_packed_bytes(*sizes[3], *sizes[2]));
    }
    return cost;
  }
  if (StringRef kernel = runtimeKernel(op); kernel.starts_with("sgemm")) {
    // f32 operands.
    if (auto sizes = gemmSizes(); !sizes.empty()) {
      double batch = *sizes[0], m = *sizes[1], n = *sizes[2], k = *sizes[3];
      cost.flops = 2 * batch * m * n * k;
      cost.bytes = 4 * batch * (m * k + k * n + m * n);
      // Weight-only quantized B (shared by the batch): its own bytes.
      std::optional<int64_t> group =
          kernel.starts_with("sgemm_q") && op->getNumOperands() > 9
              ? getConstantIntValue(op->getOperand(9))
              : std::nullopt;
      if (group && *group > 0)
        cost.bytes = 4 * batch * (m * k + m * n) +
                     double(agl_quant_weight_bytes(
                         *sizes[3], *sizes[2], kernel == "sgemm_q4" ? 4 : 8,
                         *group));
      // bfloat16 or half B (shared by the batch): whole panels of 16 bits.
      if (kernel == "sgemm_bf16" || kernel == "sgemm_f16")
        cost.bytes = 4 * batch * (m * k + m * n) +
                     double(agl_w16_weight_bytes(*sizes[3], *sizes[2]));
      // An epilogue's residual is one more matrix read (its bias, n
      // floats, hardly counts).
      if (auto epilogue =
              op->getAttrOfType<StringAttr>(autoglm::kEpilogueAttrName);
          epilogue && epilogue.getValue().contains("residual"))
        cost.bytes += 4 * batch * m * n;
    }
    return cost;
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    double trips = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      trips *= ShapedType::isDynamic(range) ? 0 : double(range);
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      cost.flops = trips * bodyFlops(*generic.getBody());
    for (Value operand : op->getOperands())
      if (auto type = dyn_cast<MemRefType>(operand.getType()))
        cost.bytes += elements(type) * type.getElementTypeBitWidth() / 8;
    return cost;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto lower = getConstantIntValue(loop.getLowerBound());
    auto upper = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0)
      return cost;
    double trips = double((*upper - *lower + *step - 1) / *step);
    for (Operation &inner : loop.getBody()->without_terminator()) {
      KernelCost innerCost = costOf(&inner);
      cost.flops += trips * innerCost.flops;
      cost.bytes += trips * innerCost.bytes;
    }
    return cost;
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    auto type = cast<MemRefType>(copy.getSource().getType());
    cost.bytes = 2 * elements(type) * type.getElementTypeBitWidth() / 8;
  }
  return cost;
}

/// The runtime kernel `op` calls, with the epilogue it computes after a
/// '+' ("sgemm_packed+bias+gelu_erf"); "" if none.
std::string kernelWithEpilogue(Operation *op) {
  std::string kernel = runtimeKernel(op).str();
  if (auto epilogue = op->getAttrOfType<StringAttr>(autoglm::kEpilogueAttrName);
      epilogue && !kernel.empty())
    kernel += "+" + epilogue.getValue().str();
  return kernel;
}

/// What runs, for the kernel's name: the runtime kernel called (also from
/// inside loops over a batch) with its epilogue, "loop" for a generic, the
/// op for the rest; "" for an op that is not a kernel.
std::string kernelKind(Operation *op) {
  if (std::string kernel = kernelWithEpilogue(op); !kernel.empty())
    return kernel;
  if (isa<linalg::GenericOp>(op))
    return "loop";
  if (isa<linalg::LinalgOp>(op))
    return op->getName().stripDialect().str();
  if (isa<memref::CopyOp>(op))
    return "copy";
  if (isa<scf::ForOp>(op)) {
    std::string inner = "loop";
    op->walk([&](func::CallOp call) {
      if (std::string kernel = kernelWithEpilogue(call); !kernel.empty())
        inner = kernel;
    });
    return inner;
  }
  return "";
}

/// The tuning key of a kernel: from a GEMM or convolution call's sizes (also
/// inside a batch loop), from a linalg op's loops.
std::string tuningKeyOf(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::string key;
    loop.walk([&](func::CallOp call) {
      if (!runtimeKernel(call).empty())
        key = tuningKeyOf(call);
    });
    return key;
  }
  auto size = [&](unsigned i) {
    return getConstantIntValue(op->getOperand(i))
        .value_or(ShapedType::kDynamic);
  };
  StringRef kernel = runtimeKernel(op);
  if (kernel == "conv2d") // operands as costOf reads them
    return autoglm::convTuningKey({size(0), size(1), size(2), size(3), size(4),
                                   size(9), size(10), size(11), size(12),
                                   size(13), size(21), size(22)});
  if (kernel == "conv2d_winograd" ||
      kernel == "conv2d_winograd_f4") // the convolution's key, as conv2d's
    return autoglm::convTuningKey({size(0), 1, size(1), size(2), size(3),
                                   size(8), 3, 3, 1, 1, size(14), size(15)});
  if (kernel.starts_with("sgemm"))
    return autoglm::gemmTuningKey(size(0), size(1), size(2), size(3));
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return autoglm::loopTuningKey(linalgOp);
  return "";
}

} // namespace

StringRef autoglm::runtimeKernelCalled(Operation *op) {
  return runtimeKernel(op);
}

std::vector<autoglm::PlannedKernel>
autoglm::collectPlannedKernels(ModuleOp module) {
  std::vector<PlannedKernel> kernels;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    for (Block &block : func.getBody())
      for (Operation &op : block) {
        std::string kind = kernelKind(&op);
        if (kind.empty())
          continue;
        KernelCost cost = costOf(&op);
        kernels.push_back({&op, kind, onnxNodeLabel(op.getLoc()), cost.flops,
                           cost.bytes, tuningKeyOf(&op)});
      }
  });
  return kernels;
}
