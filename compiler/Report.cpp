//===- Report.cpp - what a compiled model costs in memory and compute -----===//

#include "compiler/Report.h"
#include "dialects/AutoGLMDialect.h"
#include "dialects/ShapeUtils.h"
#include "passes/PlannedKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace autoglm;

namespace {

int64_t numElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() ? shaped.getNumElements() : 0;
}

int64_t byteSize(Type type) {
  auto shaped = cast<ShapedType>(type);
  int64_t bits = shaped.getElementTypeBitWidth();
  return numElements(type) * std::max<int64_t>(1, (bits + 7) / 8);
}

/// Multiply-adds count as two FLOPs; elementwise ops as one per element.
std::pair<std::string, int64_t> flopsOf(Operation *op) {
  auto resultElements = [&] { return numElements(op->getResult(0).getType()); };
  if (auto mm = dyn_cast<MatMulOp>(op)) {
    auto lhs = cast<ShapedType>(mm.getLhs().getType());
    return {"matmul", 2 * resultElements() * lhs.getShape().back()};
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    auto a = cast<ShapedType>(gemm.getA().getType());
    return {"matmul", 2 * resultElements() * a.getDimSize(gemm.getTransA() ? 0 : 1)};
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    auto filter = cast<ShapedType>(conv.getFilter().getType());
    return {"conv", 2 * resultElements() * product(filter.getShape().drop_front())};
  }
  if (isa<MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp>(op))
    return {"pooling", numElements(op->getOperand(0).getType())};
  if (isa<SoftmaxOp, LayerNormOp, BatchNormOp, ReduceMeanOp, ReduceSumOp,
          ReduceMaxOp, ReduceMinOp>(op))
    return {"reduction/normalization", numElements(op->getOperand(0).getType())};
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      isa<AddOp, SubOp, MulOp, DivOp, PowOp, MinOp, MaxOp, WhereOp>(op))
    return {"elementwise", resultElements()};
  return {"data movement", 0};
}

} // namespace

void autoglm::measureGraph(ModuleOp graph, ModelReport &report) {
  graph.walk([&](Operation *op) {
    if (op->getDialect() == nullptr ||
        !isa<AutoGLMDialect>(op->getDialect()) || op->getNumResults() != 1)
      return;
    if (isa<ConstantOp>(op)) {
      report.weightsBytes += byteSize(op->getResult(0).getType());
      return;
    }
    auto [family, flops] = flopsOf(op);
    report.flopsByFamily[family] += flops;
  });
}

void autoglm::measureArena(ModuleOp planned, ModelReport &report) {
  planned.walk([&](func::FuncOp func) {
    if (auto size = func->getAttrOfType<IntegerAttr>("autoglm.arena_size"))
      report.arenaBytes = size.getInt();
    if (auto bound = func->getAttrOfType<IntegerAttr>("autoglm.arena_lower_bound"))
      report.arenaLowerBound = bound.getInt();
    if (auto buffers = func->getAttrOfType<ArrayAttr>("autoglm.arena_buffers"))
      for (auto record : buffers.getAsRange<DictionaryAttr>())
        report.largestBuffers.push_back(
            {record.getAs<IntegerAttr>("bytes").getInt(),
             record.getAs<StringAttr>("producer").str()});
  });
  if (auto wq = planned->getAttrOfType<DictionaryAttr>("autoglm.weight_only")) {
    auto get = [&](StringRef name) {
      auto value = wq.getAs<IntegerAttr>(name);
      return value ? value.getInt() : 0;
    };
    auto format = wq.getAs<StringAttr>("format");
    report.weightOnly = {format ? format.str() : "",
                         get("bits"),
                         get("group_size"),
                         get("products"),
                         get("float_bytes"),
                         get("quantized_bytes"),
                         get("saturated")};
  }
  for (const PlannedKernel &kernel : collectPlannedKernels(planned))
    report.kernels.push_back(
        {kernel.name(), kernel.tuningKey, kernel.flops, kernel.bytes});
  llvm::stable_sort(report.largestBuffers,
                    [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
  if (report.largestBuffers.size() > 10)
    report.largestBuffers.resize(10);
}

void autoglm::measurePlacement(ModuleOp lowered, ModelReport &report) {
  auto entries = lowered->getAttrOfType<ArrayAttr>("autoglm.placement");
  if (!entries)
    return;
  for (auto entry : entries.getAsRange<DictionaryAttr>()) {
    auto oneThread = entry.getAs<StringAttr>("one_thread");
    auto epilogue = entry.getAs<StringAttr>("epilogue");
    auto host = entry.getAs<StringAttr>("host");
    ModelReport::Launch launch{entry.getAs<StringAttr>("kind").getValue() ==
                                   "library",
                               host ? host.str() : "",
                               entry.getAs<StringAttr>("name").str(),
                               entry.getAs<StringAttr>("nodes").str(),
                               oneThread ? oneThread.str() : "",
                               epilogue ? epilogue.str() : ""};
    auto grid = entry.getAs<DenseI64ArrayAttr>("grid");
    auto block = entry.getAs<DenseI64ArrayAttr>("block");
    if (grid && block) {
      launch.grid.assign(grid.asArrayRef().begin(), grid.asArrayRef().end());
      launch.block.assign(block.asArrayRef().begin(), block.asArrayRef().end());
    }
    launch.rowReduction = bool(entry.get("row_reduction"));
    if (auto operands = entry.getAs<StringAttr>("operands"))
      launch.operands = operands.str();
    if (auto choice = entry.getAs<StringAttr>("choice"))
      launch.choice = choice.str();
    if (auto flops = entry.getAs<FloatAttr>("flops"))
      launch.flops = flops.getValueAsDouble();
    if (auto bytes = entry.getAs<FloatAttr>("bytes"))
      launch.bytes = bytes.getValueAsDouble();
    report.placement.push_back(std::move(launch));
  }
}

/// Where a CUDA model's work runs: the kernels, those in one thread and
/// why, the library calls.
static std::string placementText(const ModelReport &r) {
  if (r.placement.empty())
    return "";
  int64_t kernels = 0, oneThread = 0, library = 0, lt = 0, int8 = 0, host = 0;
  for (const auto &launch : r.placement) {
    host += !launch.host.empty();
    kernels += !launch.library && launch.host.empty();
    oneThread += !launch.oneThread.empty();
    library += launch.library;
    lt += launch.name == "agl_cuda_gemm_epilogue";
    int8 += launch.name == "agl_cuda_gemm_int8";
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("placement:         {0,12} GPU kernels ({1} in one "
                      "thread), {2} library calls (cuBLAS{3}); {4}\n",
                      kernels, oneThread, library,
                      (lt ? llvm::formatv(", {0} through cuBLASLt with their "
                                          "epilogue",
                                          lt)
                                .str()
                          : std::string()) +
                          (int8 ? llvm::formatv(", {0} of int8 operands "
                                                "through cuBLASLt",
                                                int8)
                                      .str()
                                : std::string()),
                      host ? llvm::formatv("{0} section{1} on the host", host,
                                           host == 1 ? "" : "s")
                                 .str()
                           : std::string("nothing on the host"));
  for (const auto &launch : r.placement)
    if (!launch.host.empty())
      os << "  on the host: " << launch.nodes << ": " << launch.host << "\n";
  for (const auto &launch : r.placement)
    if (!launch.oneThread.empty())
      os << "  in one thread: " << launch.name << " ("
         << (launch.nodes.empty() ? "unnamed" : launch.nodes)
         << "): " << launch.oneThread << "\n";
  for (const auto &launch : r.placement)
    if (!launch.choice.empty())
      os << "  product " << (launch.nodes.empty() ? launch.name : launch.nodes)
         << ": " << launch.choice << "\n";
  return text;
}

/// The weight-only quantization: bytes saved and the kernel of each GEMM.
static std::string weightOnlyText(const ModelReport &r) {
  const ModelReport::WeightOnly &w = r.weightOnly;
  if (!w.bits)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t saved = w.floatBytes - w.quantizedBytes;
  if (w.format == "bf16" || w.format == "fp16")
    os << llvm::formatv("weight-only {0}: {1} products", w.format,
                        w.products);
  else
    os << llvm::formatv("weight-only int{0}: {1} products, group size {2}",
                        w.bits, w.products, w.groupSize);
  os << llvm::formatv(": {0} bytes of float32 weights stored in {1} "
                      "(saved {2} bytes, {3:F1}%); weights now {4} bytes\n",
                      w.floatBytes, w.quantizedBytes, saved,
                      w.floatBytes ? 100.0 * saved / w.floatBytes : 0.0,
                      r.weightsBytes - saved);
  if (w.saturated)
    os << llvm::formatv("  {0} weights beyond the half range saturated to "
                        "+-65504\n",
                        w.saturated);
  for (const auto &kernel : r.kernels)
    if (llvm::StringRef(kernel.name).starts_with("sgemm"))
      os << "  " << kernel.name << "\n";
  return text;
}

static double ratio(const ModelReport &r) {
  return r.arenaLowerBound ? (double)r.arenaBytes / r.arenaLowerBound : 1.0;
}

std::string autoglm::formatReportText(const ModelReport &r) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("weights:           {0,12} bytes\n", r.weightsBytes)
     << weightOnlyText(r)
     << llvm::formatv("arena:             {0,12} bytes\n", r.arenaBytes)
     << llvm::formatv("live-set bound:    {0,12} bytes (arena / bound = {1:F3})\n",
                      r.arenaLowerBound, ratio(r));
  os << "largest buffers:\n";
  for (const auto &b : r.largestBuffers)
    os << llvm::formatv("  {0,12} bytes  {1}\n", b.bytes,
                        b.producer.empty() ? "(unnamed)" : b.producer);
  std::set<std::string> keys;
  for (const auto &kernel : r.kernels)
    if (!kernel.tuningKey.empty())
      keys.insert(kernel.tuningKey);
  os << llvm::formatv("kernels:           {0,12} ({1} tuning keys)\n",
                      r.kernels.size(), keys.size());
  os << placementText(r);
  if (const ModelReport::DeviceMemory &d = r.deviceMemory; d.total())
    os << llvm::formatv("device memory:     {0,12} bytes per instance (arena "
                        "{1}, inputs {2}, outputs {3}, weights {4}, cuBLASLt "
                        "workspace {5}), and cuBLAS's own workspace\n",
                        d.total(), d.arena, d.inputs, d.outputs, d.weights,
                        d.workspace);
  os << "FLOPs per op family:\n";
  for (const auto &[family, flops] : r.flopsByFamily)
    os << llvm::formatv("  {0,-26}{1,14}\n", family, flops);
  return text;
}

std::string autoglm::formatReportJson(const ModelReport &r) {
  llvm::json::Array buffers;
  for (const auto &b : r.largestBuffers)
    buffers.push_back(llvm::json::Object{{"bytes", b.bytes}, {"producer", b.producer}});
  llvm::json::Object flops;
  for (const auto &[family, count] : r.flopsByFamily)
    flops[family] = count;
  llvm::json::Array kernels;
  for (const auto &k : r.kernels)
    kernels.push_back(llvm::json::Object{{"name", k.name},
                                         {"tuning_key", k.tuningKey},
                                         {"flops", k.flops},
                                         {"bytes", k.bytes}});
  llvm::json::Value value(llvm::json::Object{
      {"weights_bytes", r.weightsBytes},
      {"arena_bytes", r.arenaBytes},
      {"arena_lower_bound_bytes", r.arenaLowerBound},
      {"arena_to_bound", ratio(r)},
      {"largest_buffers", std::move(buffers)},
      {"flops", std::move(flops)},
      {"kernels", std::move(kernels)},
      {"tuning_target", r.tuningTarget}});
  if (r.weightOnly.bits)
    value.getAsObject()->try_emplace(
        "weight_only",
        llvm::json::Object{
            {"format", r.weightOnly.format},
            {"bits", r.weightOnly.bits},
            {"group_size", r.weightOnly.groupSize},
            {"products", r.weightOnly.products},
            {"float_bytes", r.weightOnly.floatBytes},
            {"quantized_bytes", r.weightOnly.quantizedBytes},
            {"saved_bytes", r.weightOnly.floatBytes - r.weightOnly.quantizedBytes}});
  if (!r.placement.empty()) {
    llvm::json::Array launches;
    for (const auto &launch : r.placement) {
      llvm::json::Object entry{{"kind", launch.library         ? "library"
                                        : !launch.host.empty() ? "host"
                                                               : "kernel"},
                               {"name", launch.name},
                               {"nodes", launch.nodes}};
      if (!launch.oneThread.empty())
        entry["one_thread"] = launch.oneThread;
      if (!launch.epilogue.empty())
        entry["epilogue"] = launch.epilogue;
      if (!launch.host.empty())
        entry["host"] = launch.host;
      if (!launch.grid.empty()) {
        entry["grid"] = llvm::json::Array(launch.grid);
        entry["block"] = llvm::json::Array(launch.block);
      }
      if (launch.rowReduction)
        entry["row_reduction"] = true;
      if (!launch.operands.empty())
        entry["operands"] = launch.operands;
      if (!launch.choice.empty())
        entry["choice"] = launch.choice;
      if (launch.flops >= 0)
        entry["flops"] = launch.flops;
      if (launch.bytes >= 0)
        entry["bytes"] = launch.bytes;
      launches.push_back(std::move(entry));
    }
    value.getAsObject()->try_emplace("placement", std::move(launches));
  }
  if (r.weightOnly.format == "fp16")
    (*value.getAsObject()->getObject("weight_only"))["saturated"] =
        r.weightOnly.saturated;
  if (const ModelReport::DeviceMemory &d = r.deviceMemory; d.total())
    value.getAsObject()->try_emplace(
        "device_memory", llvm::json::Object{{"arena", d.arena},
                                            {"inputs", d.inputs},
                                            {"outputs", d.outputs},
                                            {"weights", d.weights},
                                            {"cublaslt_workspace", d.workspace},
                                            {"total", d.total()}});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value << "\n";
  return text;
}
