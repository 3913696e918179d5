//===- ExplainGpu.cpp - what a CUDA model launches, one by one
//-------------===//

#include "compiler/ExplainGpu.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace autoglm;

namespace {

std::string extents(const std::vector<int64_t> &sizes) {
  return llvm::join(
      llvm::map_range(sizes, [](int64_t s) { return std::to_string(s); }), "x");
}

/// How a launch runs, in words.
std::string howItRuns(const ModelReport::Launch &launch) {
  if (!launch.host.empty())
    return "host section (" + launch.host +
           "): scalar loops on the CPU, "
           "not estimated";
  if (launch.library) {
    if (launch.operands == "i8")
      return "cuBLASLt product of int8 operands on the tensor cores, int32 "
             "sums";
    std::string text =
        launch.name == "agl_cuda_gemm_epilogue"
            ? "cuBLASLt product with its epilogue (" + launch.epilogue + ")"
            : "cuBLAS strided-batched product";
    if (launch.operands == "f32")
      text += ", float32 operands on the CUDA cores";
    else if (!launch.operands.empty())
      text += ", " + launch.operands +
              " operands on the tensor cores, "
              "float32 sums";
    return text;
  }
  if (!launch.oneThread.empty())
    return "one thread: " + launch.oneThread;
  if (launch.operands == "q8" || launch.operands == "q4")
    return std::string("a warp per output column: its ") +
           (launch.operands == "q8" ? "8" : "4") +
           "-bit weights dequantized in registers, float32 sums on the CUDA "
           "cores";
  if (llvm::StringRef(launch.operands).starts_with("gemv-"))
    return "a warp per output column: its " + launch.operands.substr(5) +
           " weights converted in registers, float32 activations and sums "
           "on the CUDA cores";
  if (!launch.operands.empty())
    return "tiles staged in shared memory, " + launch.operands +
           " products on the tensor cores, float32 sums";
  if (launch.rowReduction)
    return "a block per row: its threads stride through the row and combine "
           "partial results across the block";
  return "loop nest: its innermost loop across the threads of a block, the "
         "outer loops across blocks";
}

} // namespace

std::string autoglm::explainGpuPlan(const ModelReport &report,
                                    const GpuMachineModel &machine) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("GPU: {0}: {1:f1} TFLOP/s FP32, {2:f1} TFLOP/s with "
                      "16-bit operands on the tensor cores ({3:f0} TOP/s "
                      "int8), {4:f0} GB/s\n",
                      machine.name, machine.fp32Gflops / 1e3,
                      machine.tensorGflops / 1e3, machine.int8Gops / 1e3,
                      machine.bandwidthGBs);
  size_t nameWidth = 6;
  for (const ModelReport::Launch &launch : report.placement)
    nameWidth = std::max(nameWidth, launch.name.size());
  os << llvm::formatv("{0,3}  {1} {2,-17} {3,10} {4,10} {5,8} {6,-7} {7,9}  "
                      "{8}\n",
                      "#", llvm::left_justify("launch", nameWidth),
                      "grid x block", "MFLOP", "KiB", "FLOP/B", "bound",
                      "est. us", "nodes / how it runs");
  double totalUs = 0, totalFlops = 0;
  int kernels = 0, calls = 0, unrated = 0;
  for (auto [index, launch] : llvm::enumerate(report.placement)) {
    const bool host = !launch.host.empty();
    kernels += !launch.library && !host;
    calls += launch.library;
    const bool tensorCores =
        launch.operands == "f16" || launch.operands == "bf16";
    const double peak = launch.operands == "i8" ? machine.int8Gops
                        : tensorCores           ? machine.tensorGflops
                                                : machine.fp32Gflops;
    const double computeUs =
        launch.flops > 0 && peak > 0 ? launch.flops / (peak * 1e3) : 0;
    const double memoryUs = launch.bytes > 0 && machine.bandwidthGBs > 0
                                ? launch.bytes / (machine.bandwidthGBs * 1e3)
                                : 0;
    const bool rated = !host && (launch.flops >= 0 || launch.bytes >= 0);
    const double estimateUs = std::max(computeUs, memoryUs);
    if (rated) {
      totalUs += estimateUs;
      totalFlops += std::max(0.0, launch.flops);
    } else {
      ++unrated;
    }
    auto number = [](double value, double scale, const char *format) {
      return value < 0 ? std::string("?")
                       : llvm::formatv(format, value * scale).str();
    };
    std::string shape = launch.grid.empty() ? std::string("-")
                                            : extents(launch.grid) + " x " +
                                                  extents(launch.block);
    std::string intensity =
        launch.flops >= 0 && launch.bytes > 0
            ? llvm::formatv("{0:f2}", launch.flops / launch.bytes).str()
            : std::string("-");
    os << llvm::formatv(
        "{0,3}  {1} {2,-17} {3,10} {4,10} {5,8} {6,-7} {7,9}  {8}\n", index,
        llvm::left_justify(launch.name, nameWidth), shape,
        number(launch.flops, 1e-6, "{0:f3}"),
        number(launch.bytes, 1.0 / 1024, "{0:f1}"), intensity,
        !rated                  ? "-"
        : computeUs >= memoryUs ? "compute"
                                : "memory",
        rated ? llvm::formatv("{0:f2}", estimateUs).str() : std::string("?"),
        launch.nodes.empty() ? "(no ONNX node)" : launch.nodes);
    os << llvm::formatv("{0,3}  {1}\n", "", howItRuns(launch));
    if (!launch.choice.empty())
      os << llvm::formatv("{0,3}  chosen: {1}\n", "", launch.choice);
  }
  os << llvm::formatv("{0} kernels, {1} library calls, {2:f3} MFLOP, "
                      "roofline estimate {3:f1} us of GPU time",
                      kernels, calls, totalFlops * 1e-6, totalUs);
  if (unrated)
    os << llvm::formatv(" ({0} not estimated)", unrated);
  os << "; each launch also takes the host a few us unless the run is a "
        "CUDA graph\n";
  return out;
}
