//===- Explain.cpp - what the compiled plan runs, kernel by kernel --------===//

#include "compiler/Explain.h"
#include "passes/KernelCalls.h"
#include "passes/Passes.h"
#include "passes/PlannedKernels.h"
#include "passes/Tuning.h"

#include "autoglm/kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace autoglm;

namespace {

/// A kernel argument as printed: its value if constant, else "?".
std::string sizeText(Value value) {
  std::optional<int64_t> size = getConstantIntValue(value);
  return size ? std::to_string(*size) : std::string("?");
}

std::string extents(ArrayRef<int64_t> sizes) {
  std::string text;
  for (auto [i, size] : llvm::enumerate(sizes))
    text += (i ? "x" : "") +
            (ShapedType::isDynamic(size) ? std::string("?")
                                         : std::to_string(size));
  return text;
}

/// The GEMM call inside `op` (itself, or in the batch loop around it).
func::CallOp gemmCall(Operation *op) {
  func::CallOp found;
  op->walk([&](func::CallOp call) {
    if (runtimeKernelCalled(call).starts_with("sgemm"))
      found = call;
  });
  return found;
}

/// The constant product of the call's operands `indices`, if all are.
std::optional<int64_t> constantProduct(Operation *call,
                                       ArrayRef<unsigned> indices) {
  int64_t product = 1;
  for (unsigned i : indices) {
    std::optional<int64_t> value = getConstantIntValue(call->getOperand(i));
    if (!value)
      return std::nullopt;
    product *= *value;
  }
  return product;
}

/// The cache blocking a GEMM or convolution call runs with: the tuned
/// values where its tuning sets them, the runtime's cost model's else (its
/// depth block for the product's depth and its column block for the rows,
/// at one thread, where known; `bPackedAhead`: B's panels were packed at
/// compile time, so the runtime fetches its next block while it uses one).
std::string blockingText(Operation *call, const MachineModel &machine,
                         bool bPackedAhead,
                         std::optional<int64_t> depth = std::nullopt,
                         std::optional<int64_t> rows = std::nullopt) {
  GemmBlocking tuned = blockingOfCall(call);
  auto knob = [](const char *name, int64_t tunedValue, int modelValue) {
    return llvm::formatv("{0} {1}{2}", name,
                         tunedValue ? tunedValue : modelValue,
                         tunedValue ? " (tuned)" : "")
        .str();
  };
  const int64_t kc = tuned.kc ? tuned.kc
                     : depth  ? agl_gemm_depth_block(machine.kc, *depth)
                              : machine.kc;
  const int64_t mc = tuned.mc ? tuned.mc : machine.mc;
  const int modelNc =
      rows ? int(agl_gemm_column_block(
                 machine.nc, kc, std::min(*rows, mc), machine.l2Bytes,
                 machine.nr,
                 bPackedAhead && std::min(*rows, mc) > machine.mr ? 2 : 1))
           : machine.nc;
  return knob("KC", tuned.kc, int(kc)) + " " + knob("NC", tuned.nc, modelNc) +
         " " + knob("MC", tuned.mc, machine.mc);
}

/// How a GEMM call gets its B.
std::string bWeightText(func::CallOp call) {
  StringRef kernel = runtimeKernelCalled(call);
  if (kernel == "sgemm_packed")
    return "packed at compile time";
  if (kernel == "sgemm_q8" || kernel == "sgemm_q4")
    return llvm::formatv("weight-only int{0} (scale per {1} depths and "
                         "column), dequantized in registers (m <= 4{2}) or "
                         "into the packing memory",
                         kernel == "sgemm_q4" ? 4 : 8,
                         sizeText(call.getOperand(9)),
                         kernel == "sgemm_q4"
                             ? "; one row on AVX-512 VNNI: that row rounded "
                               "to int8, the sums vpdpbusd"
                             : "")
        .str();
  if (kernel == "sgemm_bf16")
    return "bfloat16 (--precision bf16), widened to float32 in registers "
           "(m <= 4) or into the packing memory";
  if (kernel == "sgemm_f16")
    return "IEEE half (--precision fp16), widened to float32 in registers "
           "(m <= 4) or into the packing memory";
  return "packed at run time";
}

struct Strategy {
  std::string text;
  int threads = 1;
};

Strategy strategyOf(const PlannedKernel &kernel, const MachineModel &machine) {
  if (runtimeKernelCalled(kernel.op) == "conv2d") {
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::string text = llvm::formatv(
        "implicit-GEMM convolution {0}x{1}x{2} -> {3}x{4}x{5}, kernel "
        "{6}x{7} stride {8}: windows packed from the input, filters packed "
        "at compile time, {9} {10}x{11} micro-kernel, {12}",
        size(2), size(3), size(4), size(9), size(21), size(22), size(10),
        size(11), size(12), machine.gemmIsa, machine.mr, machine.nr,
        blockingText(kernel.op, machine, /*bPackedAhead=*/true,
                     constantProduct(kernel.op, {2, 10, 11}),
                     constantProduct(kernel.op, {21, 22})));
    if (size(1) != "1")
      text += ", " + size(1) + " groups";
    return {text, machine.threads};
  }
  if (runtimeKernelCalled(kernel.op) == "conv2d_winograd") {
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::string text = llvm::formatv(
        "Winograd F(2x2, 3x3) convolution {0}x{1}x{2} -> {3}x{4}x{5}: input "
        "tiles transformed per call, filters at compile time, 16 products "
        "on the {6} {7}x{8} micro-kernel, {9}",
        size(1), size(2), size(3), size(8), size(14), size(15), machine.gemmIsa,
        machine.mr, machine.nr,
        blockingText(kernel.op, machine, /*bPackedAhead=*/true,
                     constantProduct(kernel.op, {1}),
                     constantProduct(kernel.op, {8})));
    return {text, machine.threads};
  }
  if (runtimeKernelCalled(kernel.op) == "conv2d_winograd_f4") {
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::string text = llvm::formatv(
        "Winograd F(4x4, 3x3) convolution {0}x{1}x{2} -> {3}x{4}x{5}: input "
        "tiles transformed per block of up to 32 tiles, filters at compile "
        "time, 36 products per block on the {6} {7}x{8} micro-kernel, {9}",
        size(1), size(2), size(3), size(8), size(14), size(15), machine.gemmIsa,
        machine.mr, machine.nr,
        blockingText(kernel.op, machine, /*bPackedAhead=*/true,
                     constantProduct(kernel.op, {1}),
                     constantProduct(kernel.op, {8})));
    if (machine.threads > 1)
      text += ", blocks (or their channels and filters) split across the pool";
    return {text, machine.threads};
  }
  if (runtimeKernelCalled(kernel.op) == "maxpool2d") {
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::string text = llvm::formatv(
        "max-pooling kernel {0}x{1}x{2} -> {3}x{4}, window {5}x{6} stride "
        "{7}: windows clipped to the image (no padded copy), rows of "
        "16-lane vectors",
        size(1), size(2), size(3), size(17), size(18), size(8), size(9),
        size(10));
    if (machine.threads > 1)
      text += ", planes split across the pool";
    return {text, machine.threads};
  }
  if (runtimeKernelCalled(kernel.op) == "transpose32") {
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::string text = llvm::formatv(
        "transpose kernel {0}x{1} planes of {2} rows x {3} columns (4-byte "
        "elements): 8x8 tiles through registers{4}, blocks of 64x64",
        size(0), size(1), size(2), size(3),
        machine.gemmIsa == "portable" ? " (portable loops here)" : "");
    if (machine.threads > 1)
      text += ", planes (or bands of columns) split across the pool";
    return {text, machine.threads};
  }
  if (StringRef attention = runtimeKernelCalled(kernel.op);
      attention.starts_with("attention")) {
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::optional<int64_t> causal = getConstantIntValue(
        kernel.op->getOperand(autoglm::kAttentionCausalOperand));
    std::string text = llvm::formatv(
        "fused attention {0} heads ({1} K/V), {2} queries x {3} keys, head "
        "size {4}/{5}{6}: blocks of 64 queries stream over blocks of 64 "
        "keys (online softmax, scores never stored), {7}",
        size(1), size(2), size(3), size(4), size(5), size(6),
        causal && *causal ? ", causal" : "",
        machine.gemmIsa);
    if (attention == "attention_with_past")
      text += llvm::formatv(
          "; the first {0} keys and values read from the past inputs and "
          "written into the present outputs on the way (non-temporal)",
          size(autoglm::kAttentionCausalOperand + 1));
    return {text, machine.threads};
  }
  if (StringRef int8Kernel = runtimeKernelCalled(kernel.op);
      int8Kernel.starts_with("gemm_u8s8")) {
    // (batch, m, n, k, a, a strides, zero point, packed B, ...)
    auto size = [&](unsigned i) { return sizeText(kernel.op->getOperand(i)); };
    std::string microKernel =
        machine.gemmIsa == "avx512"
            ? "the AMX 32x32 micro-kernel (tdpbusd) where the CPU has AMX "
              "int8 and the product 9 rows or more (4 or more where its "
              "weights fit in the L2), else the AVX-512 VNNI 14x32 one "
              "(vpdpbusd) where it has VNNI, else the AVX2 one"
        : machine.gemmIsa == "avx2"
            ? "the AVX2 micro-kernel (operands widened to int16, vpmaddwd; "
              "passes of 6x8)"
            : "the portable micro-kernel";
    std::string text = llvm::formatv(
        "int8 GEMM m{0} n{1} k{2}{3}: uint8 activations (zero point {4}) "
        "times int8 weights packed at compile time, exact int32 sums, {5}",
        size(1), size(2), size(3), size(0) == "1" ? "" : " batch " + size(0),
        size(7), microKernel);
    if (auto epilogue = kernel.op->getAttrOfType<StringAttr>(kEpilogueAttrName))
      text += ", epilogue " + epilogue.getValue().str() +
              " on each tile in registers";
    if (int8Kernel == "gemm_u8s8_requantize")
      text += ", stored as the next product's uint8 input";
    if (int8Kernel == "gemm_u8s8_transposed")
      text += ", stored transposed (each column's sums contiguous: a "
              "convolution's NCHW)";
    return {text, machine.threads};
  }
  if (func::CallOp call = gemmCall(kernel.op)) {
    auto size = [&](unsigned i) { return sizeText(call.getOperand(i)); };
    std::string text = llvm::formatv(
        "GEMM m{0} n{1} k{2}{3}: {4} {5}x{6} micro-kernel, {7}, B {8}", size(1),
        size(2), size(3), size(0) == "1" ? "" : " batch " + size(0),
        machine.gemmIsa, machine.mr, machine.nr,
        blockingText(call, machine, runtimeKernelCalled(call) == "sgemm_packed",
                     constantProduct(call, {3}), constantProduct(call, {1})),
        bWeightText(call));
    if (auto epilogue = call->getAttrOfType<StringAttr>(kEpilogueAttrName))
      text += ", epilogue " + epilogue.getValue().str() +
              " on each tile in registers";
    if (auto loop = dyn_cast<scf::ForOp>(kernel.op)) {
      text += ", one call per batch entry (" +
              sizeText(loop.getUpperBound()) + ")";
    }
    return {text, machine.threads};
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(kernel.op);
  if (!linalgOp)
    return {"loops", 1};
  std::string text;
  if (auto generic = dyn_cast<linalg::GenericOp>(kernel.op)) {
    int64_t lanes =
        vectorLanesAfterFolding(generic, loopVectorWidth(generic, 16));
    unsigned reductions = generic.getNumReductionLoops();
    text = (lanes > 1 ? std::to_string(lanes) + "-lane vectors"
                      : std::string("scalar loops")) +
           " over " + extents(generic.getStaticLoopRanges());
    if (reductions)
      text += " (" + std::to_string(reductions) + " reduction loop" +
              (reductions > 1 ? "s" : "") + ")";
  } else if (isa<linalg::FillOp, linalg::CopyOp, linalg::MapOp>(kernel.op)) {
    // Vectorized as generics, which the op becomes first.
    text = "elementwise loops over " + extents(linalgOp.getStaticLoopRanges()) +
           (loopVectorWidth(linalgOp, 16) > 1 ? ", vectorized like a loop nest"
                                              : ", scalar (tuned)");
  } else {
    text = "loops over " + extents(linalgOp.getStaticLoopRanges());
  }
  std::optional<unsigned> split =
      machine.loopsOnPool ? loopSplitAcrossThreads(linalgOp) : std::nullopt;
  if (!split || machine.threads < 2)
    return {text, 1};
  return {text + ", loop " + std::to_string(*split) + " split across the pool",
          machine.threads};
}

/// A uint8 x int8 GEMM, which the int8 peak bounds.
bool isInt8Gemm(const PlannedKernel &kernel) {
  return StringRef(kernel.kind).starts_with("gemm_u8s8");
}

} // namespace

bool autoglm::planHasInt8Gemms(ModuleOp module) {
  return llvm::any_of(collectPlannedKernels(module), isInt8Gemm);
}

std::string autoglm::explainPlan(ModuleOp module, const MachineModel &machine) {
  std::vector<PlannedKernel> kernels = collectPlannedKernels(module);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("machine: {0:f1} GFLOP/s FP32 per thread, ",
                      machine.peakGflopsPerThread);
  if (machine.int8PeakGopsPerThread > 0 && llvm::any_of(kernels, isInt8Gemm))
    os << llvm::formatv("{0:f1} GOP/s uint8 x int8 per thread, ",
                        machine.int8PeakGopsPerThread);
  os << llvm::formatv("{0} threads, {1:f1} GB/s read bandwidth\n",
                      machine.threads, machine.bandwidthGBs);
  // The kernel column fits the longest name (a GEMM with its epilogue).
  size_t kindWidth = 13;
  for (const PlannedKernel &kernel : kernels)
    kindWidth = std::max(kindWidth, kernel.kind.size());
  os << llvm::formatv("{0,3}  {1} {2,7} {3,10} {4,10} {5,8} {6,-9} "
                      "{7,9}  {8}\n",
                      "#", llvm::left_justify("kernel", kindWidth), "threads",
                      "MFLOP", "KiB", "FLOP/B", "bound", "est. us",
                      "nodes / how it runs");
  double totalUs = 0, totalFlops = 0;
  for (auto [index, kernel] : llvm::enumerate(kernels)) {
    Strategy strategy = strategyOf(kernel, machine);
    // The int8 GEMMs at the int8 peak where it is known.
    double peak = isInt8Gemm(kernel) && machine.int8PeakGopsPerThread > 0
                      ? machine.int8PeakGopsPerThread
                      : machine.peakGflopsPerThread;
    double computeUs =
        peak > 0 ? kernel.flops / (peak * strategy.threads * 1e3) : 0;
    double memoryUs =
        machine.bandwidthGBs > 0 ? kernel.bytes / (machine.bandwidthGBs * 1e3)
                                 : 0;
    double estimateUs = std::max(computeUs, memoryUs);
    totalUs += estimateUs;
    totalFlops += kernel.flops;
    std::string intensity =
        kernel.bytes > 0 ? llvm::formatv("{0:f2}", kernel.flops / kernel.bytes)
                         : std::string("-");
    os << llvm::formatv("{0,3}  {1} {2,7} {3,10:f3} {4,10:f1} {5,8} "
                        "{6,-9} {7,9:f2}  {8}\n",
                        index, llvm::left_justify(kernel.kind, kindWidth),
                        strategy.threads,
                        kernel.flops * 1e-6, kernel.bytes / 1024, intensity,
                        computeUs >= memoryUs ? "compute" : "memory",
                        estimateUs,
                        kernel.nodes.empty() ? "(no ONNX node)" : kernel.nodes);
    os << llvm::formatv("{0,3}  {1}\n", "", strategy.text);
    if (!kernel.tuningKey.empty())
      os << llvm::formatv("{0,3}  tuning key \"{1}\"{2}\n", "",
                          kernel.tuningKey,
                          tuningFor(module, kernel.tuningKey)
                              ? ", set by the tuning file"
                              : "");
  }
  os << llvm::formatv("{0} kernels, {1:f3} MFLOP, roofline estimate {2:f1} "
                      "us\n",
                      kernels.size(), totalFlops * 1e-6, totalUs);
  return out;
}
