//===- main.cpp - autoglm-compile: ONNX model to native artifact ----------===//
//
// Exit codes: 0 success, 2 any error (bad input, unsupported model, failed
// compilation). Errors never leave a partial output file behind.
//
//===----------------------------------------------------------------------===//

#include "Calibration.h"
#include "codegen/emit/HeaderEmitter.h"
#include "codegen/emit/ModelSignature.h"
#include "codegen/emit/ObjectEmitter.h"
#include "compiler/CudaPipeline.h"
#include "compiler/Explain.h"
#include "compiler/ExplainGpu.h"
#include "compiler/Pipeline.h"
#include "compiler/Report.h"
#include "compiler/TargetCpu.h"
#include "compiler/TuningFile.h"
#include "compiler/importer/Importer.h"
#include "passes/Tuning.h"

#include "MachineProbe.h"
#include "TensorFile.h"

#include "autoglm/kernels.h"
#include "autoglm/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <map>
#include <utility>

using namespace autoglm;

namespace {

constexpr int kExitError = 2;

struct EmitKind {
  std::optional<Stage> stage; // print IR after this stage...
  std::optional<ArtifactKind> artifact; // ...or emit this artifact
};

const std::map<std::string, EmitKind> &emitKinds() {
  static const std::map<std::string, EmitKind> kinds = {
      {"autoglm", {Stage::Autoglm, {}}},
      {"linalg", {Stage::Linalg, {}}},
      {"memref", {Stage::Memref, {}}},
      {"llvm-dialect", {Stage::LLVM, {}}},
      {"llvm", {{}, ArtifactKind::LLVMIR}},
      {"asm", {{}, ArtifactKind::Assembly}},
      {"obj", {{}, ArtifactKind::Object}},
      {"so", {{}, ArtifactKind::SharedLibrary}},
  };
  return kinds;
}

std::optional<std::string> emitFromSuffix(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext == ".mlir") return "autoglm";
  if (ext == ".ll") return "llvm";
  if (ext == ".s") return "asm";
  if (ext == ".o") return "obj";
  if (ext == ".so") return "so";
  return std::nullopt;
}

int error(const llvm::Twine &message) {
  llvm::errs() << "autoglm-compile: error: " << message << "\n";
  return kExitError;
}

/// Diagnostics name the ONNX node (its name is the op's location).
void printDiagnostic(mlir::Diagnostic &diag) {
  std::string message = diag.str();
  llvm::raw_ostream &os = llvm::errs();
  os << "autoglm-compile: "
     << (diag.getSeverity() == mlir::DiagnosticSeverity::Error ? "error"
         : diag.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
                                                                   : "note")
     << ": ";
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(diag.getLocation())) {
    std::string node = name.getName().str();
    if (message.find("'" + node + "'") == std::string::npos)
      os << "node '" << node << "': ";
  }
  os << message << "\n";
  for (mlir::Diagnostic &note : diag.getNotes())
    printDiagnostic(note);
}

/// A tensor read by autoglm-run's file readers as the ONNX TensorProto that
/// the importer takes (the dtype codes are ONNX's).
onnx::TensorProto toTensorProto(const run::Tensor &tensor) {
  onnx::TensorProto proto;
  proto.set_data_type(tensor.dtype);
  for (int64_t d : tensor.shape)
    proto.add_dims(d);
  proto.set_raw_data(tensor.bytes.data(),
                     tensor.numElements() * tensor.elementSize());
  return proto;
}

/// The kernels a profiled model times (the `autoglm.kernels` attribute of
/// autoglm-instrument-kernels or autoglm-profile-gpu-launches), if any.
static void readKernelTable(mlir::ModuleOp module, ModelSignature &signature) {
  auto kernels = module->getAttrOfType<mlir::ArrayAttr>("autoglm.kernels");
  if (!kernels)
    return;
  signature.kernels.clear();
  for (auto kernel : kernels.getAsRange<mlir::DictionaryAttr>())
    signature.kernels.push_back(
        {kernel.getAs<mlir::StringAttr>("name").str(),
         kernel.getAs<mlir::FloatAttr>("flops").getValueAsDouble(),
         kernel.getAs<mlir::FloatAttr>("bytes").getValueAsDouble()});
}

/// The device memory an instance of the CUDA model allocates, as the
/// runtime lays it out (runtime.h): buffers rounded up to
/// AGL_CUDA_ALIGNMENT, the weights (all of them external), cuBLASLt's
/// workspace when a product goes through it (an epilogue, int8 operands).
static void measureDeviceMemory(mlir::ModuleOp lowered,
                                const ModelSignature &signature,
                                ModelReport &report) {
  auto aligned = [](int64_t bytes) {
    return llvm::alignTo(bytes, AGL_CUDA_ALIGNMENT);
  };
  ModelReport::DeviceMemory &memory = report.deviceMemory;
  memory.arena = aligned(report.arenaBytes);
  for (const TensorSignature &input : signature.inputs)
    memory.inputs += aligned(input.numBytes());
  for (const TensorSignature &output : signature.outputs)
    memory.outputs += aligned(output.numBytes());
  if (auto weights = lowered->getAttrOfType<mlir::IntegerAttr>(
          "autoglm.external_weights_size"))
    memory.weights = weights.getInt();
  if (llvm::any_of(report.placement, [](const ModelReport::Launch &launch) {
        return launch.name == "agl_cuda_gemm_epilogue" ||
               launch.name == "agl_cuda_gemm_int8";
      }))
    memory.workspace = AGL_CUDA_LT_WORKSPACE_BYTES;
}

/// --precision int8: measures the activations' ranges on the input sets in
/// `dir` with a float32 build, sets them in `options` (the products to
/// quantize), then reports the int8 build's accuracy on the same sets.
llvm::Error calibrateInt8(mlir::ModuleOp module, PipelineOptions &options,
                          const EmitOptions &emit, const std::string &dir,
                          const CalibrationMethod &method, bool json,
                          llvm::raw_ostream &os) {
  auto sets = readCalibrationSets(dir);
  if (!sets)
    return sets.takeError();
  // A GPU model's activations are measured, and its int8 accuracy
  // checked, on this CPU: the same quantization, the same integer sums.
  PipelineOptions here = options;
  if (!options.gpuArch.empty() || options.emulateGpu) {
    here.gpuArch.clear();
    here.cudaLibraries = false;
    here.hostFamilies.clear();
    here.emulateGpu = false;
    here.runtimeKernels = true;
  }
  PipelineOptions calibrating = here;
  calibrating.calibrationOutputs = true;
  // Percentiles and histograms need every value; the extremes are enough
  // otherwise.
  calibrating.wholeCalibrationOutputs = method.name != "minmax";
  auto reference = compileAndRun(module, calibrating, emit, *sets,
                                 "calibrating");
  if (!reference)
    return reference.takeError();
  auto ranges = activationRanges(*reference, method);
  if (!ranges)
    return ranges.takeError();
  if (ranges->empty()) {
    llvm::errs() << "autoglm-compile: warning: --precision int8: the model "
                    "has no matrix product or convolution by a constant "
                    "weight to quantize; it stays float32\n";
    return llvm::Error::success();
  }
  options.activationRanges = here.activationRanges = *ranges;
  auto quantized = compileAndRun(module, here, emit, *sets, "checking int8");
  if (!quantized)
    return quantized.takeError();
  os << accuracyReport(*reference, *quantized, json);
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"autoglm-compile: compile an ONNX model to native code"};
  std::string modelPath, outputPath, emit, cpu = "native", name, dumpIRDir;
  std::vector<std::string> dims, binds;
  std::string report, weights = "auto", tuningPath;
  bool printIRAfterAll = false, noHeader = false, verifyMemoryPlan = false;
  bool noKernels = false, dumpAll = false, printLocations = false;
  bool noFusedAttention = false;
  bool printOpStats = false, timePasses = false, profile = false;
  bool explain = false;
  double peakGflops = 0, int8PeakGops = 0, bandwidthGBs = 0,
         tensorPeakGflops = 0;
  std::vector<std::string> printIRBefore, printIRAfter;
  bool serialLoops = false;
  unsigned optLevel = 3;
  int64_t maxSeqLen = 0;
  std::vector<std::string> lastTokenOutputs;
  std::string weightOnly, precision = "fp32";
  std::string calibrateDir, accuracyReportFormat = "text";
  std::vector<std::string> keepFp32;
  CalibrationMethod calibration;
  int64_t groupSize = 128;
  int64_t gemvMaxRows = -1;
  std::string target = "x86_64", gpuArch;
  app.add_option("model", modelPath, "ONNX model (.onnx)")->required();
  app.add_option("-o,--output", outputPath,
                 "Output file; its suffix (.o .so .mlir .ll .s) picks the "
                 "form unless --emit is given")
      ->required();
  std::vector<std::string> kindNames;
  for (const auto &[k, v] : emitKinds())
    kindNames.push_back(k);
  app.add_option("--emit", emit, "What to write")
      ->check(CLI::IsMember(kindNames));
  app.add_option("--mcpu", cpu, "Target CPU (LLVM name) or 'native'; with "
                 "--target=cuda, the CPU of the host code");
  app.add_option("--target", target,
                 "What the model runs on: x86_64 (default), cuda (NVIDIA "
                 "GPU kernels embedded in the host object, see docs/cuda.md) "
                 "or cuda-emulated (the cuda target's code on this CPU: "
                 "each block's threads in sequence, cuBLAS calls computed "
                 "on the host; slow, for checking it without a GPU)");
  CLI::Option *gpuArchOption = app.add_option(
      "--gpu-arch", gpuArch,
      "With --target=cuda: the GPU architecture, sm_80, sm_89 or sm_90 "
      "(default sm_90)");
  std::vector<std::string> deviceHints;
  app.add_option("--device-hint", deviceHints,
                 "With --target=cuda: FAMILY=host|gpu runs an op family "
                 "(matmul, reduction, elementwise, all) on the host, with "
                 "copies to and from device memory, or on the GPU (the "
                 "default); later hints override earlier ones "
                 "(repeatable)");
  app.add_option("--name", name,
                 "Symbol prefix of the entry points (default: output file "
                 "name)");
  app.add_option("--dim", dims,
                 "A symbolic input dimension: NAME=N pins it, NAME=MIN..MAX "
                 "keeps it symbolic within the range (repeatable)");
  app.add_option("--max-seq-len", maxSeqLen,
                 "Keep the past keys and values of a decoder exported with "
                 "a KV cache (past inputs, present outputs) inside the "
                 "model, in a cache of this many positions updated in "
                 "place; the past inputs and present outputs leave the "
                 "signature")
      ->check(CLI::PositiveNumber);
  app.add_option("--last-token", lastTokenOutputs,
                 "Compute output NAME (e.g. logits) for the last token "
                 "only: its token axis (second to last) becomes 1, and the "
                 "ops that feed only that row run on one row (repeatable)")
      ->type_name("NAME");
  app.add_option("--bind", binds,
                 "Fix a graph input to the tensor in FILE (.npy or .pb): "
                 "NAME=FILE; the input becomes a constant")
      ->type_name("NAME=FILE");
  app.add_option("-O", optLevel, "LLVM optimization level")
      ->check(CLI::Range(0, 3));
  app.add_flag("--print-ir-after-all", printIRAfterAll,
               "Print the IR after every pass to stderr");
  app.add_option("--print-ir-before", printIRBefore,
                 "Print the IR before each run of pass PASS to stderr "
                 "(repeatable)")
      ->type_name("PASS");
  app.add_option("--print-ir-after", printIRAfter,
                 "Print the IR after each run of pass PASS to stderr "
                 "(repeatable)")
      ->type_name("PASS");
  app.add_option("--dump-ir-dir", dumpIRDir,
                 "Write the IR after every pass that changed it to "
                 "DIR/NNN-<pass>.mlir (NNN counts all passes run)");
  app.add_flag("--dump-all", dumpAll,
               "With --dump-ir-dir, also write the passes that left the IR "
               "unchanged");
  app.add_flag("--print-locations", printLocations,
               "Show each op's location, the ONNX nodes it came from, in "
               "all IR output");
  app.add_flag("--print-op-stats", printOpStats,
               "Print the number of operations of each kind after every "
               "stage to stderr");
  app.add_flag("--time-passes", timePasses,
               "Print the time of import, every pass and code generation to "
               "stderr");
  app.add_option("--weights", weights,
                 "Where weights go: embed (in the artifact), file "
                 "(OUT.weights, mapped by the runtime), auto (file above 1 "
                 "GiB, and always for --target=cuda)")
      ->check(CLI::IsMember({"embed", "file", "auto"}));
  app.add_flag("--verify-memory-plan", verifyMemoryPlan,
               "Check the arena plan: no two live buffers overlap, every "
               "buffer lies inside the arena");
  CLI::Option *reportOption =
      app.add_option("--report", report,
                     "Print weights, arena, live-set bound, largest buffers "
                     "and FLOPs per op family: text (default) or json")
          ->expected(0, 1)
          ->check(CLI::IsMember({"", "text", "json"}));
  app.add_flag("--no-kernels", noKernels,
               "Run matrix multiplications as generated loops instead of "
               "the runtime's GEMM kernel (the object then needs no runtime "
               "symbols); with --target=cuda, as generated GPU kernels "
               "instead of cuBLAS");
  app.add_flag("--no-fused-attention", noFusedAttention,
               "Keep attention written out in primitive ops (MatMul, "
               "Softmax, ...) rather than recognizing it as one fused "
               "attention op");
  app.add_flag("--profile", profile,
               "Time every kernel when the model runs with a profile "
               "(autoglm-run --profile)");
  app.add_flag("--explain", explain,
               "Print each kernel of the plan: its ONNX nodes, how it runs "
               "(GEMM blocking, vector width), threads, FLOPs, bytes and a "
               "roofline estimate for this machine");
  app.add_option("--peak-gflops", peakGflops,
                 "FP32 peak of one core for --explain (default: measured); "
                 "with --target=cuda, of the GPU (default: the published "
                 "peak of the --gpu-arch's reference GPU)")
      ->check(CLI::PositiveNumber);
  app.add_option("--tensor-peak-gflops", tensorPeakGflops,
                 "With --target=cuda: the GPU's peak with 16-bit operands "
                 "on its tensor cores, for --explain (default: the "
                 "reference GPU's)")
      ->check(CLI::PositiveNumber);
  app.add_option(
         "--int8-peak-gops", int8PeakGops,
         "uint8 x int8 peak of one core for --explain's int8 GEMMs "
         "(default: measured with AMX, else AVX-512 VNNI, else the FP32 "
         "peak); with --target=cuda, the GPU's int8 tensor-core peak "
         "(default: the reference GPU's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--bandwidth-gbs", bandwidthGBs,
                 "Memory read bandwidth for --explain (default: measured; "
                 "with --target=cuda, the reference GPU's)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--serial-loops", serialLoops,
               "Run every loop nest on the calling thread (by default large "
               "ones are split across the runtime's thread pool)");
  app.add_option("--weight-only", weightOnly,
                 "Store the weights of matrix products with a constant "
                 "weight in int8 or int4 (one scale per group of depths and "
                 "column); their GEMMs dequantize as they read them")
      ->check(CLI::IsMember({"int8", "int4"}));
  CLI::Option *gemvMaxRowsOption =
      app.add_option("--gemv-max-rows", gemvMaxRows,
                     "With --target=cuda: matrix products with a constant "
                     "weight of at most this many rows run as the generated "
                     "GEMV, larger ones on cuBLAS (default: whichever the "
                     "--gpu-arch's reference GPU's peaks rate faster, per "
                     "product; 0: cuBLAS always)")
          ->check(CLI::NonNegativeNumber);
  app.add_option("--precision", precision,
                 "fp32 (default), bf16, fp16 or int8: with bf16 or fp16 "
                 "the weights of matrix products with a constant weight are "
                 "stored in bfloat16 or IEEE half (half the bytes; fp16 "
                 "keeps 3 more mantissa bits, saturates beyond 65504) and "
                 "widened to float32 in registers; with int8 (and "
                 "--calibrate) those products run in int8, weights per "
                 "column, activations per tensor with calibrated ranges. "
                 "Softmax, norms and the rest stay float32. With "
                 "--target=cuda, bf16 and fp16 are the operands of every "
                 "matrix product (cuBLAS, float32 sums)");
  app.add_option("--calibrate", calibrateDir,
                 "With --precision int8: a folder of input sets (one "
                 "subfolder each, or the folder itself; files NAME.npy, "
                 "NAME.pb, or input_I.npy / input_I.pb for the I-th input) to "
                 "measure the activations' ranges on; the accuracy on them "
                 "is reported");
  app.add_option("--calibration-method", calibration.name,
                 "minmax (default): each activation's range is the smallest "
                 "and largest value seen; percentile: outliers beyond "
                 "--calibration-percentile are clipped; entropy: the range "
                 "whose uint8 levels keep the values' histogram closest "
                 "(least KL divergence)")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy"}));
  app.add_option("--calibration-percentile", calibration.percentile,
                 "With --calibration-method percentile (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  app.add_option("--keep-fp32", keepFp32,
                 "With --precision int8: the matrix products and convolutions "
                 "(ONNX node "
                 "names, comma-separated) that stay float32, e.g. an LM "
                 "head")
      ->delimiter(',');
  app.add_option("--accuracy-report", accuracyReportFormat,
                 "The int8 accuracy report's form: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option *groupSizeOption =
      app.add_option("--group-size", groupSize,
                     "With --weight-only: depths per scale, a positive "
                     "multiple of 32 (default 128)");
  app.add_option("--tuning", tuningPath,
                 "Tuning file (JSON, e.g. from autoglm-tune): per-kernel "
                 "blocking, strategy, vector width and threads for the "
                 "target CPU; the cost models choose the rest");
  app.add_flag("--no-header", noHeader,
               "Do not write the C header next to .o/.so outputs");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitError;
  }

  if (emit.empty()) {
    auto fromSuffix = emitFromSuffix(outputPath);
    if (!fromSuffix)
      return error("cannot tell the output form from '" + outputPath +
                   "'; use a .o/.so/.mlir/.ll/.s suffix or --emit");
    emit = *fromSuffix;
  }
  EmitKind kind = emitKinds().at(emit);
  if (groupSizeOption->count() && weightOnly.empty())
    return error("--group-size needs --weight-only");
  if (groupSize <= 0 || groupSize % 32 != 0)
    return error("--group-size must be a positive multiple of 32, got " +
                 llvm::Twine(groupSize));
  // The CUDA target's kernels, run on this CPU: no runtime kernels.
  const bool emulated = target == "cuda-emulated";
  if (!weightOnly.empty() && noKernels)
    return error("--weight-only needs the runtime's kernels; it cannot be "
                 "combined with --no-kernels");
  if (precision != "fp32" && precision != "bf16" && precision != "fp16" &&
      precision != "int8")
    return error("--precision must be fp32, bf16, fp16 or int8, got '" +
                 precision + "'");
  // On a GPU, --precision fp16/bf16 is also the arithmetic of the other
  // products (and attention's kernel): 16-bit activations with 8- or 4-bit
  // weights. On the CPU both only say how the weights are stored.
  const bool gpuTarget = target == "cuda" || emulated;
  if (!weightOnly.empty() &&
      (precision == "int8" || (precision != "fp32" && !gpuTarget)))
    return error("--precision " + precision +
                 " and --weight-only both "
                 "choose how the weights of matrix products are stored; use "
                 "one of them" +
                 llvm::Twine(precision == "int8"
                                 ? ""
                                 : " (with --target=cuda they combine)"));
  // (On the GPU, int8 products without cuBLASLt are generated loops.)
  if (precision != "fp32" && noKernels &&
      !(precision == "int8" && (target == "cuda" || emulated)))
    return error("--precision " + precision +
                 " needs the runtime's kernels; "
                 "it cannot be combined with --no-kernels");
  if (precision == "int8" && calibrateDir.empty())
    return error("--precision int8 needs --calibrate DIR: input sets to "
                 "measure the activations' ranges on");
  if (!calibrateDir.empty() && precision != "int8")
    return error("--calibrate needs --precision int8");
  if (!keepFp32.empty() && precision != "int8")
    return error("--keep-fp32 needs --precision int8");
  bool cuda = target == "cuda";
  if (target != "x86_64" && !cuda && !emulated)
    return error("unknown --target '" + target +
                 "'; the targets are x86_64 (the default), cuda and "
                 "cuda-emulated");
  if (gpuArchOption->count() && !cuda)
    return error("--gpu-arch needs --target=cuda");
  if (!deviceHints.empty() && !cuda)
    return error("--device-hint needs --target=cuda");
  if (tensorPeakGflops > 0 && !cuda)
    return error("--tensor-peak-gflops needs --target=cuda");
  if (gemvMaxRowsOption->count() && !cuda && !emulated)
    return error("--gemv-max-rows needs --target=cuda");
  // The families that run on the host, in the order first named.
  std::vector<std::string> hostFamilies;
  for (const std::string &hint : deviceHints) {
    auto [family, device] = llvm::StringRef(hint).split('=');
    static const char *const families[] = {"matmul", "reduction",
                                           "elementwise"};
    if (family != "all" && !llvm::is_contained(families, family))
      return error("unknown op family '" + family.str() +
                   "' in --device-hint '" + hint +
                   "'; the families are matmul, reduction, elementwise and "
                   "all");
    if (device != "host" && device != "gpu")
      return error("--device-hint '" + hint +
                   "' names no device; write FAMILY=host or FAMILY=gpu");
    for (const char *each : families) {
      if (family != "all" && family != each)
        continue;
      llvm::erase(hostFamilies, each);
      if (device == "host")
        hostFamilies.push_back(each);
    }
  }
  if (!weightOnly.empty() && llvm::is_contained(hostFamilies, "matmul"))
    return error("--weight-only is how the GPU's products read their "
                 "weights; with --device-hint matmul=host the products run "
                 "on the host in float32");
  if (precision != "fp32" && llvm::is_contained(hostFamilies, "matmul"))
    return error("--precision " + precision + " is the operands of the "
                 "cuBLAS products; with --device-hint matmul=host the "
                 "products run on the host in float32");
  // What the CUDA target does not do yet (docs/cuda.md), nor its code on
  // this CPU.
  if (cuda || emulated)
    for (auto [given, flag] : {std::pair{profile && emulated, "--profile"},
                               std::pair{explain && emulated, "--explain"}})
      if (given)
        return error(llvm::Twine(flag) +
                     " is not supported with --target=" + target + " yet");
  if (cuda) {
    if (gpuArch.empty())
      gpuArch = "sm_90";
    if (!llvm::is_contained(supportedGpuArchs(), gpuArch))
      return error("unsupported --gpu-arch '" + gpuArch +
                   "'; --target=cuda "
                   "supports " +
                   llvm::join(supportedGpuArchs(), ", "));
    std::string toolkit = defaultCudaToolkit();
    llvm::SmallString<256> ptxas(toolkit);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    if (!llvm::sys::fs::can_execute(ptxas))
      return error("--target=cuda needs the CUDA toolkit's ptxas, not found "
                   "at '" + ptxas + "'; set CUDA_HOME to the toolkit");
  }
  if (llvm::sys::path::extension(outputPath) == ".h")
    return error("output '" + outputPath +
                 "' ends in .h, the suffix of the generated C header");

  ImportOptions importOptions;
  for (const std::string &d : dims) {
    auto [key, value] = llvm::StringRef(d).split('=');
    auto [low, high] = value.split("..");
    int64_t min, max;
    bool range = value.contains("..");
    if (key.empty() || low.getAsInteger(10, min) ||
        (range ? high.getAsInteger(10, max) : (max = min, false)) || min < 0 ||
        (range && max < min))
      return error("--dim expects NAME=N (N >= 0) or NAME=MIN..MAX "
                   "(0 <= MIN <= MAX), got '" + d + "'");
    importOptions.dims[key] = {min, max};
  }

  for (const std::string &b : binds) {
    auto [key, path] = llvm::StringRef(b).split('=');
    if (key.empty() || path.empty())
      return error("--bind expects NAME=FILE, got '" + b + "'");
    if (importOptions.boundInputs.count(key.str()))
      return error("--bind " + key + " is given twice");
    try {
      importOptions.boundInputs[key.str()] =
          toTensorProto(run::readTensorFile(path.str()));
    } catch (const std::exception &e) {
      return error("--bind " + key + ": " + e.what());
    }
  }

  mlir::DefaultTimingManager timing; // prints its report when destroyed
  timing.setEnabled(timePasses);
  mlir::TimingScope rootTiming = timing.getRootScope();

  mlir::DialectRegistry registry;
  registerAutoGLMDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &diag) { printDiagnostic(diag); });

  mlir::DictionaryAttr tuning;
  if (!tuningPath.empty()) {
    std::string note;
    auto read = readTuningFile(tuningPath, tuningTargetName(cpu), &context,
                               note);
    if (!read)
      return error(llvm::toString(read.takeError()));
    tuning = *read;
    if (!note.empty())
      llvm::errs() << "autoglm-compile: note: " << note << "\n";
  }

  mlir::TimingScope importTiming = rootTiming.nest("import");
  auto model = OnnxModel::load(modelPath);
  if (!model)
    return error(llvm::toString(model.takeError()));
  auto module = importOnnxModel(**model, context, importOptions);
  if (failed(module))
    return kExitError;
  importTiming.stop();

  if (tuning)
    (**module)->setAttr(kTuningAttrName, tuning);

  if (name.empty())
    name = llvm::sys::path::stem(outputPath).str();
  auto entry = (*module)->lookupSymbol<mlir::func::FuncOp>("main");
  ModelSignature signature = readSignature(entry, name);
  PipelineOptions pipelineOptions;
  pipelineOptions.printIRAfterAll = printIRAfterAll;
  pipelineOptions.dumpIRDir = dumpIRDir;
  pipelineOptions.verifyMemoryPlan = verifyMemoryPlan;
  // The runtime's kernels run on the CPU: a GPU model runs generated code,
  // and cuBLAS for its matrix products.
  pipelineOptions.runtimeKernels = !noKernels && !cuda && !emulated;
  if (emulated)
    pipelineOptions.cudaLibraries = !noKernels;
  if (cuda) {
    // Products on the host are loops there, not cuBLAS calls.
    pipelineOptions.cudaLibraries =
        !noKernels && !llvm::is_contained(hostFamilies, "matmul");
    pipelineOptions.hostFamilies = hostFamilies;
    pipelineOptions.gpuArch = gpuArch;
    pipelineOptions.cudaToolkit = defaultCudaToolkit();
  }
  pipelineOptions.emulateGpu = emulated;
  pipelineOptions.fuseAttention = !noFusedAttention;
  pipelineOptions.profile = profile;
  pipelineOptions.maxSeqLen = maxSeqLen;
  pipelineOptions.lastTokenOutputs = lastTokenOutputs;
  pipelineOptions.dumpAll = dumpAll;
  pipelineOptions.printLocations = printLocations;
  pipelineOptions.printOpStats = printOpStats;
  pipelineOptions.printIRBefore = printIRBefore;
  pipelineOptions.printIRAfter = printIRAfter;
  if (timePasses)
    pipelineOptions.timing = &rootTiming;
  pipelineOptions.parallelLoops = !serialLoops;
  pipelineOptions.narrowVectors = !targetHasAvx512(cpu);
  pipelineOptions.expandBFloat16 = !targetConvertsBFloat16(cpu);
  ModelReport modelReport;
  measureGraph(**module, modelReport);
  modelReport.tuningTarget = tuningTargetName(cpu);
  constexpr int64_t kEmbedLimit = int64_t(1) << 30;
  // A GPU reads its weights from device memory, which the runtime fills
  // from the weights file once.
  pipelineOptions.externalWeights =
      cuda || weights == "file" ||
      (weights == "auto" && modelReport.weightsBytes > kEmbedLimit);
  using Float16Weights = PipelineOptions::Float16Weights;
  pipelineOptions.float16Weights = precision == "bf16"   ? Float16Weights::BF16
                                   : precision == "fp16" ? Float16Weights::FP16
                                                         : Float16Weights::None;
  pipelineOptions.weightOnlyBits =
      weightOnly == "int8" ? 8 : weightOnly == "int4" ? 4 : 0;
  pipelineOptions.weightOnlyGroupSize = groupSize;
  pipelineOptions.gemvMaxRows = gemvMaxRows;
  pipelineOptions.keepFp32 = keepFp32;
  pipelineOptions.afterStage = [&](Stage stage, mlir::ModuleOp planned) {
    // A KV cache changes the signature (the past inputs and present
    // outputs become state), and so does a last-token output's shape.
    if (stage == Stage::Autoglm && (maxSeqLen > 0 || !lastTokenOutputs.empty()))
      signature =
          readSignature(planned.lookupSymbol<mlir::func::FuncOp>("main"), name);
    if (stage == Stage::LLVM)
      measurePlacement(planned, modelReport);
    if (stage == Stage::LLVM && cuda && explain) {
      GpuMachineModel machine = referenceGpu(gpuArch);
      if (peakGflops > 0)
        machine.fp32Gflops = peakGflops;
      if (tensorPeakGflops > 0)
        machine.tensorGflops = tensorPeakGflops;
      if (int8PeakGops > 0)
        machine.int8Gops = int8PeakGops;
      if (bandwidthGBs > 0)
        machine.bandwidthGBs = bandwidthGBs;
      // Standard output, unless the IR goes there.
      (outputPath == "-" ? llvm::errs() : llvm::outs())
          << explainGpuPlan(modelReport, machine);
    }
    // A GPU model's kernel table: its launches, timed once outlined.
    if (stage == Stage::LLVM && cuda)
      readKernelTable(planned, signature);
    if (stage != Stage::Memref)
      return;
    setStateOffsets(signature,
                    planned.lookupSymbol<mlir::func::FuncOp>("main"));
    measureArena(planned, modelReport);
    signature.arenaSize = modelReport.arenaBytes;
    if (explain && !cuda) {
      MachineModel machine;
      machine.peakGflopsPerThread =
          peakGflops > 0 ? peakGflops : run::measurePeakGflops();
      // The uint8 x int8 probe (about 50 ms) only for a plan that has
      // int8 products to rate against it.
      machine.int8PeakGopsPerThread = int8PeakGops > 0 ? int8PeakGops
                                      : autoglm::planHasInt8Gemms(planned)
                                          ? run::measureInt8PeakGops()
                                          : 0;
      machine.bandwidthGBs =
          bandwidthGBs > 0 ? bandwidthGBs : run::measureReadBandwidthGBs();
      machine.threads = agl_get_num_threads();
      machine.loopsOnPool =
          pipelineOptions.parallelLoops && pipelineOptions.runtimeKernels;
      agl_sgemm_plan gemm;
      agl_kernel_sgemm_describe(&gemm);
      machine.gemmIsa = gemm.isa;
      machine.mr = gemm.mr;
      machine.nr = gemm.nr;
      machine.kc = gemm.kc;
      machine.nc = gemm.nc;
      machine.mc = gemm.mc;
      machine.l2Bytes = gemm.l2_bytes;
      // Standard output, unless the IR goes there.
      (outputPath == "-" ? llvm::errs() : llvm::outs())
          << explainPlan(planned, machine);
    }
    readKernelTable(planned, signature);
    // Outputs with symbolic extents: the bounds the planner computed.
    setPlannedOutputBounds(signature,
                           planned.lookupSymbol<mlir::func::FuncOp>("main"));
  };
  std::vector<std::string> passes = pipelinePassNames(pipelineOptions);
  for (const auto &[flag, names] :
       {std::pair{"--print-ir-before", &printIRBefore},
        std::pair{"--print-ir-after", &printIRAfter}})
    for (const std::string &pass : *names)
      if (!llvm::is_contained(passes, pass))
        return error(llvm::Twine("unknown pass '") + pass + "' for " + flag +
                     "; the pipeline runs: " + llvm::join(passes, ", "));
  EmitOptions emitOptions;
  emitOptions.cpu = cpu;
  emitOptions.optLevel = optLevel;
  if (precision == "int8") {
    // Standard output, unless the IR or the JSON report goes there.
    const bool stdoutTaken =
        outputPath == "-" || (reportOption->count() && report == "json");
    if (auto e =
            calibrateInt8(**module, pipelineOptions, emitOptions, calibrateDir,
                          calibration, accuracyReportFormat == "json",
                          stdoutTaken ? llvm::errs() : llvm::outs()))
      return error(llvm::toString(std::move(e)));
  }
  Stage last = kind.stage.value_or(Stage::LLVM);
  if (failed(runPipeline(**module, last, pipelineOptions)))
    return error("compilation of '" + modelPath + "' failed");
  if (cuda && last == Stage::LLVM)
    measureDeviceMemory(**module, signature, modelReport);
  if (reportOption->count()) {
    // Standard output, unless the IR goes there.
    llvm::raw_ostream &os = outputPath == "-" ? llvm::errs() : llvm::outs();
    os << (report == "json" ? formatReportJson(modelReport)
                            : formatReportText(modelReport));
  }

  if (kind.stage) {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*module)->print(os, irPrintingFlags(printLocations));
    if (auto e = writeFileAtomically(outputPath, text))
      return error(llvm::toString(std::move(e)));
    return 0;
  }
  llvm::SmallString<256> weightsPath(outputPath);
  llvm::sys::path::replace_extension(weightsPath, ".weights");
  emitOptions.weightsPath = weightsPath.str().str();
  // GPU code takes its weights as a buffer: embedded, they are data in the
  // artifact, which the runtime uploads.
  emitOptions.embedWeights = (cuda || emulated) && weights == "embed";
  // Here, not at import: stages may read the signature again.
  if (cuda)
    signature.device = kDeviceCuda;
  mlir::TimingScope emitTiming = rootTiming.nest("code generation");
  if (auto e = emitArtifact(**module, signature, *kind.artifact, outputPath,
                            emitOptions)) {
    if (!signature.weightsFile.empty())
      llvm::sys::fs::remove(weightsPath); // no artifact, no weights
    return error(llvm::toString(std::move(e)));
  }
  emitTiming.stop();
  bool native = *kind.artifact == ArtifactKind::Object ||
                *kind.artifact == ArtifactKind::SharedLibrary;
  if (native && !noHeader) {
    llvm::SmallString<256> header(outputPath);
    llvm::sys::path::replace_extension(header, ".h");
    std::string source = llvm::sys::path::filename(modelPath).str();
    if (auto e = writeFileAtomically(header, emitHeader(signature, source))) {
      // An artifact without its header is a partial output.
      llvm::sys::fs::remove(outputPath);
      return error(llvm::toString(std::move(e)));
    }
  }
  return 0;
}
