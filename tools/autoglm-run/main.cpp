// autoglm-run: runs a compiled model on tensors read from files, checks its
// outputs against expected values, saves them and times the model.
#include "Artifact.h"
#include "AtomicFile.h"
#include "Benchmark.h"
#include "Bindings.h"
#include "Compare.h"
#include "Json.h"
#include "MachineProbe.h"
#include "OutputDirectory.h"
#include "Profile.h"
#include "SymbolBinding.h"
#include "TensorFile.h"
#include "TensorSummary.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>

using namespace autoglm::run;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1; // the model ran and produced wrong results
constexpr int kExitError = 2;    // nothing could be run or checked

struct Options {
  std::string artifact;
  std::vector<std::string> inputs;
  std::vector<std::string> expectations;
  Tolerance tolerance;
  std::string outputDir;
  int benchRuns = 0;
  int repeat = 1;            // runs whose last one is checked and saved
  int warmupRuns = 3;
  bool deviceResident = false; // CUDA models: timed runs copy nothing
  int threads = 0; // the runtime's default
  bool pinThreads = false;
  bool json = false;
  std::string profilePath; // Chrome trace to write; empty: no profile
  int topKernels = 10;
  double peakGflops = 0; // per thread; 0: measure
  double int8PeakGops = 0; // per thread; 0: measure
};

// What became of one output, for both the text and the JSON report.
struct OutputReport {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  std::string expectationPath; // empty when not checked
  std::string typeProblem;     // the expectation has another dtype or shape
  Comparison comparison;
  TensorSummary summary;

  bool checked() const { return !expectationPath.empty(); }
  bool ok() const {
    return !checked() || (typeProblem.empty() && comparison.ok());
  }
};

struct RunReport {
  std::string model;
  // The value of each symbol in the run, for models with symbols.
  std::vector<std::pair<std::string, int64_t>> symbols;
  std::vector<OutputReport> outputs;
  std::optional<LatencyStats> latency;
  std::string error;
};

std::string number(double value, const char *format = "%g") {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// A check that an option's number is at least `minimum`, with a message
// that says so (CLI11's own ranges print the largest double).
CLI::Validator atLeast(double minimum) {
  return CLI::Validator(
      [minimum](const std::string &text) -> std::string {
        char *end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0')
          return "'" + text + "' is not a number";
        if (!(value >= minimum))
          return "must be at least " + number(minimum) + ", not " + text;
        return "";
      },
      ">=" + number(minimum));
}

void defineOptions(CLI::App &app, Options &options) {
  app.add_option("artifact", options.artifact,
                 "Model compiled to a shared library (--emit=so)")
      ->required();
  app.add_option("--input,-i", options.inputs,
                 "Input tensor as NAME=PATH, or PATH for the next input in "
                 "order; PATH is a .npy or ONNX TensorProto .pb file")
      ->allow_extra_args(false);
  app.add_option("--expect,-e", options.expectations,
                 "Expected output as NAME=PATH or PATH, like --input")
      ->allow_extra_args(false);
  app.add_option("--rtol", options.tolerance.rtol,
                 "Relative tolerance for floating-point outputs")
      ->capture_default_str()
      ->check(atLeast(0));
  app.add_option("--atol", options.tolerance.atol,
                 "Absolute tolerance for floating-point outputs")
      ->capture_default_str()
      ->check(atLeast(0));
  app.add_option("--output-dir,-o", options.outputDir,
                 "Save every output as DIR/NAME.npy");
  app.add_option("--repeat", options.repeat,
                 "Run the model N times on the inputs; the last run's "
                 "outputs are the ones checked and saved")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--bench", options.benchRuns,
                 "Time N runs after the checked one")
      ->check(atLeast(0));
  app.add_option("--warmup", options.warmupRuns,
                 "Untimed runs before the timed ones")
      ->capture_default_str()
      ->check(atLeast(0));
  app.add_flag("--device-resident", options.deviceResident,
               "With --bench, a CUDA model's warm-up and timed runs leave "
               "their inputs and outputs on the GPU (the checked run copies "
               "them): the latency without host copies");
  app.add_option("--threads", options.threads,
                 "Threads the model's kernels run on; 0 (default): "
                 "AUTOGLM_NUM_THREADS, else one per CPU")
      ->check(atLeast(0));
  app.add_flag("--pin-threads", options.pinThreads,
               "Pin each kernel thread to its own CPU");
  app.add_option("--profile", options.profilePath,
                 "Time every kernel (the model must be compiled with "
                 "--profile): write a Chrome trace (JSON) to FILE and print "
                 "the kernels that took the most time; with --bench, of the "
                 "timed runs")
      ->type_name("FILE");
  app.add_option("--top", options.topKernels,
                 "Kernels in the --profile table")
      ->capture_default_str()
      ->check(atLeast(1));
  app.add_option("--peak-gflops", options.peakGflops,
                 "FP32 peak of one core in GFLOP/s, for the --profile table "
                 "(default: measured)")
      ->check(atLeast(0));
  app.add_option("--int8-peak-gops", options.int8PeakGops,
                 "uint8 x int8 peak of one core in GOP/s, for the int8 "
                 "GEMMs' % peak in the --profile table (default: measured "
                 "with AMX, else AVX-512 VNNI, else none)")
      ->check(atLeast(0));
  app.add_flag("--json", options.json,
               "Print one line of JSON on stdout; text goes to stderr");
  app.footer(
      "Floating-point outputs match when |got - expected| <= atol + rtol * "
      "|expected|;\nNaN matches only NaN, infinities must be equal, and "
      "integer and bool\noutputs must be equal.\n\n"
      "Exit status: 0 success, 1 an output differs from its expectation,\n"
      "2 bad arguments or files, or the model could not be loaded or run.\n");
}

std::vector<Tensor> readInputs(const agl_model_desc &model,
                               const std::vector<std::string> &paths) {
  std::string missing;
  for (int32_t i = 0; i < model.num_inputs; ++i) {
    if (!paths[i].empty())
      continue;
    const agl_tensor_info &info = model.inputs[i];
    missing += std::string(missing.empty() ? "" : "; ") + "missing input '" +
               info.name + "' (" + describeExpectedType(model, info) +
               "); pass --input " + info.name + "=FILE";
  }
  if (!missing.empty())
    throw BindingError(missing);

  std::vector<Tensor> inputs;
  for (int32_t i = 0; i < model.num_inputs; ++i) {
    const agl_tensor_info &info = model.inputs[i];
    Tensor tensor;
    try {
      tensor = readTensorFile(paths[i]);
    } catch (const TensorFileError &error) {
      // The file alone does not say which input it was meant for.
      throw TensorFileError(std::string("input '") + info.name +
                            "': " + error.what());
    }
    // Symbolic extents may differ from the descriptor's bounds; bindSymbols
    // checks them.
    if (!fitsType(info, tensor))
      throw BindingError(std::string("input '") + info.name + "': expected " +
                         describeExpectedType(model, info) + ", got " +
                         describeType(tensor.dtype, tensor.shape) + " from " +
                         paths[i]);
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

void check(OutputReport &output, const Tensor &got, const Tensor &expected,
           const Tolerance &tolerance) {
  if (expected.dtype != got.dtype || expected.shape != got.shape) {
    output.typeProblem = "model produces " +
                         describeType(got.dtype, got.shape) + ", but " +
                         output.expectationPath + " holds " +
                         describeType(expected.dtype, expected.shape);
    return;
  }
  output.comparison = compareTensors(got, expected, tolerance);
}

void printCheck(std::ostream &text, const OutputReport &output) {
  if (!output.typeProblem.empty()) {
    text << output.name << ": " << output.typeProblem << " MISMATCH\n";
    return;
  }
  const Comparison &c = output.comparison;
  text << output.name << ": max_abs_err=" << number(c.maxAbsError)
       << " max_rel_err=" << number(c.maxRelError)
       << " mismatches=" << c.mismatches << "/" << c.elements
       << (c.ok() ? " OK" : " MISMATCH") << "\n";
  for (const ElementMismatch &m : c.firstMismatches)
    text << "  " << output.name << describeIndex(output.shape, m.index)
         << ": got " << number(m.got) << ", expected " << number(m.expected)
         << "\n";
}

void printSummary(std::ostream &text, const OutputReport &output) {
  const TensorSummary &s = output.summary;
  text << output.name << ": " << describeType(output.dtype, output.shape);
  if (s.hasValues())
    text << " min=" << number(s.min) << " max=" << number(s.max)
         << " mean=" << number(s.mean);
  else if (s.elements == 0)
    text << " (empty)";
  if (s.nans > 0)
    text << " nan=" << s.nans;
  text << "\n";
}

void printLatency(std::ostream &text, const LatencyStats &latency) {
  text << "latency ms: min=" << number(latency.minMs, "%.3f")
       << " median=" << number(latency.medianMs, "%.3f")
       << " p90=" << number(latency.p90Ms, "%.3f") << " (" << latency.runs
       << " runs, " << agl_get_num_threads() << " threads)\n";
}

// The outputs of a shaped run at their actual shapes: the leading part of
// each buffer, which was sized for the bounds.
std::vector<Tensor> atActualShapes(const std::vector<Tensor> &outputs,
                                   const std::vector<std::vector<int64_t>> &shapes) {
  std::vector<Tensor> actual;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor tensor(outputs[i].dtype, shapes[i]);
    std::memcpy(tensor.bytes.data(), outputs[i].bytes.data(),
                tensor.numElements() * tensor.elementSize());
    actual.push_back(std::move(tensor));
  }
  return actual;
}

// The trace file (written whole or not at all) and the top-kernels table.
void writeProfile(const Options &options, const agl_model_desc &model,
                  const Instance &instance, std::ostream &text) {
  const agl_profile_event *events = nullptr;
  uint64_t dropped = 0;
  size_t count = instance.profileEvents(&events, &dropped);
  const std::string error = writeFileAtomically(
      options.profilePath, chromeTrace(model, events, count));
  if (!error.empty())
    throw std::runtime_error("profile: " + error);
  // The CPU's peak rates a host model's kernels; a CUDA model's table has
  // the GPU's times only.
  const bool host = model.device == AGL_DEVICE_HOST;
  double peak = !host                    ? 0
                : options.peakGflops > 0 ? options.peakGflops
                                         : measurePeakGflops();
  std::vector<KernelTotals> totals = totalsPerKernel(model, events, count);
  // The int8 peak only where int8 GEMMs ran.
  const bool int8 =
      std::any_of(totals.begin(), totals.end(), [](const KernelTotals &kernel) {
        return isInt8Kernel(kernel.name);
      });
  double int8Peak = options.int8PeakGops > 0 ? options.int8PeakGops
                    : int8 && host           ? measureInt8PeakGops()
                                             : 0;
  text << "profile: " << count << " kernel calls";
  if (dropped > 0)
    text << " (" << dropped << " more did not fit)";
  text << ", trace in " << options.profilePath << "\n";
  printTopKernels(text, std::move(totals), size_t(options.topKernels),
                  peak * agl_get_num_threads(),
                  int8Peak * agl_get_num_threads());
}

int runModel(const Options &options, RunReport &report, std::ostream &text) {
  // Before the instance exists: it creates the pool.
  if (options.threads > 0 && agl_set_num_threads(options.threads) != AGL_OK)
    throw std::runtime_error(agl_last_error());
  if (options.pinThreads && agl_set_thread_affinity(1) != AGL_OK)
    throw std::runtime_error(agl_last_error());
  const Artifact artifact(options.artifact);
  const agl_model_desc &model = artifact.model();
  report.model = model.name ? model.name : "";
  if (options.deviceResident && model.device != AGL_DEVICE_CUDA)
    throw std::runtime_error("--device-resident: model '" + report.model +
                             "' runs on the host; only a model compiled "
                             "with --target=cuda keeps tensors on a GPU");

  const std::vector<std::string> names = outputNames(model);
  const std::vector<std::string> inputPaths = bindFileArguments(
      options.inputs, inputNames(model), "input", report.model);
  const std::vector<Tensor> inputs = readInputs(model, inputPaths);
  const bool shaped = model.num_symbols > 0;
  if (shaped) {
    const std::vector<int64_t> values = bindSymbols(model, inputs, inputPaths);
    for (int32_t k = 0; k < model.num_symbols; ++k)
      report.symbols.emplace_back(model.symbols[k].name, values[k]);
    text << "symbols: " << describeSymbols(model, values) << "\n";
  }
  const std::vector<std::string> expectationPaths =
      bindFileArguments(options.expectations, names, "output", report.model);
  std::vector<std::optional<Tensor>> expectations(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    if (!expectationPaths[i].empty()) {
      try {
        expectations[i] = readTensorFile(expectationPaths[i]);
      } catch (const TensorFileError &error) {
        throw TensorFileError("expected output '" + names[i] +
                              "': " + error.what());
      }
    }

  // Sized for the descriptor's shapes: the upper bounds of symbolic ones.
  std::vector<Tensor> outputs;
  for (int32_t i = 0; i < model.num_outputs; ++i)
    outputs.emplace_back(model.outputs[i].dtype, shapeOf(model.outputs[i]));
  std::vector<const void *> inputPointers;
  std::vector<const int64_t *> inputShapes;
  for (const Tensor &input : inputs) {
    inputPointers.push_back(input.bytes.data());
    inputShapes.push_back(input.shape.data());
  }
  std::vector<void *> outputPointers;
  std::vector<std::vector<int64_t>> actualShapes;
  std::vector<int64_t *> outputShapes;
  for (Tensor &output : outputs) {
    outputPointers.push_back(output.bytes.data());
    actualShapes.push_back(output.shape);
  }
  for (std::vector<int64_t> &shape : actualShapes)
    outputShapes.push_back(shape.data());

  Instance instance(model, artifact.weights());
  const bool profiling = !options.profilePath.empty();
  if (profiling) {
    if (model.num_kernels == 0)
      throw std::runtime_error("'" + options.artifact +
                               "' was compiled without --profile: it has no "
                               "kernels to time");
    // One event per kernel and run.
    size_t runs = options.benchRuns > 0 ? options.benchRuns : 1;
    instance.setProfileCapacity(runs * size_t(model.num_kernels));
  }
  const auto runOnce = [&] {
    // A model with a KV cache runs every time from an empty cache.
    if (model.kv_cache)
      instance.setCacheLength(0);
    if (shaped)
      instance.runShaped(inputPointers, inputShapes, outputPointers,
                         outputShapes);
    else
      instance.run(inputPointers, outputPointers);
  };
  for (int i = 0; i < options.repeat; ++i)
    runOnce();
  // The buffers stay as they are for --bench.
  std::vector<Tensor> resized;
  if (shaped)
    resized = atActualShapes(outputs, actualShapes);
  const std::vector<Tensor> &results = shaped ? resized : outputs;

  if (!options.outputDir.empty())
    writeOutputs(options.outputDir, names, results);

  const bool checking = !options.expectations.empty();
  bool allOk = true;
  for (size_t i = 0; i < results.size(); ++i) {
    OutputReport output;
    output.name = names[i];
    output.dtype = results[i].dtype;
    output.shape = results[i].shape;
    output.expectationPath = expectationPaths[i];
    if (expectations[i]) {
      check(output, results[i], *expectations[i], options.tolerance);
      printCheck(text, output);
    } else {
      output.summary = summarize(results[i]);
      if (!checking)
        printSummary(text, output);
    }
    allOk = allOk && output.ok();
    report.outputs.push_back(std::move(output));
  }

  if (options.benchRuns > 0) {
    // Null buffers: the tensors stay where the checked run left them.
    const std::vector<const void *> residentInputs(inputPointers.size());
    const std::vector<void *> residentOutputs(outputPointers.size());
    std::vector<std::vector<int64_t>> residentShapes = actualShapes;
    std::vector<int64_t *> residentOutputShapes;
    for (std::vector<int64_t> &shape : residentShapes)
      residentOutputShapes.push_back(shape.data());
    const auto benchOnce = [&] {
      if (!options.deviceResident)
        runOnce();
      else if (shaped)
        instance.runShaped(residentInputs, inputShapes, residentOutputs,
                           residentOutputShapes);
      else
        instance.run(residentInputs, residentOutputs);
    };
    timeRuns(benchOnce, options.warmupRuns, 0);
    instance.clearProfile(); // the profile covers the timed runs
    report.latency =
        summarizeLatencies(timeRuns(benchOnce, 0, options.benchRuns));
    printLatency(text, *report.latency);
    // The profile of the timed runs, before the run below adds to it.
    if (profiling)
      writeProfile(options, model, instance, text);
    // Later runs may take another path than the first (a CUDA model's
    // runs after the first are one CUDA graph): one more run, checked.
    if (checking) {
      runOnce();
      if (shaped)
        resized = atActualShapes(outputs, actualShapes);
      for (size_t i = 0; i < results.size(); ++i) {
        if (!expectations[i])
          continue;
        OutputReport output;
        output.name = names[i] + " (after the timed runs)";
        output.dtype = results[i].dtype;
        output.shape = results[i].shape;
        output.expectationPath = expectationPaths[i];
        check(output, results[i], *expectations[i], options.tolerance);
        if (!output.ok()) {
          printCheck(text, output);
          allOk = false;
        }
      }
    }
  } else if (profiling) {
    writeProfile(options, model, instance, text);
  }
  return allOk ? kExitOk : kExitMismatch;
}

std::string toJson(const Options &options, const RunReport &report,
                   int exitCode) {
  std::ostringstream json;
  json << "{\"model\":"
       << (report.model.empty() ? "null" : jsonString(report.model))
       << ",\"artifact\":" << jsonString(options.artifact)
       << ",\"threads\":" << agl_get_num_threads()
       << ",\"rtol\":" << jsonNumber(options.tolerance.rtol)
       << ",\"atol\":" << jsonNumber(options.tolerance.atol)
       << ",\"ok\":" << (exitCode == kExitOk ? "true" : "false")
       << ",\"exit_code\":" << exitCode;
  if (!report.error.empty())
    json << ",\"error\":" << jsonString(report.error);
  if (!report.symbols.empty()) {
    json << ",\"symbols\":{";
    for (size_t k = 0; k < report.symbols.size(); ++k)
      json << (k ? "," : "") << jsonString(report.symbols[k].first) << ":"
           << report.symbols[k].second;
    json << "}";
  }

  json << ",\"outputs\":[";
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    const OutputReport &output = report.outputs[i];
    json << (i ? "," : "") << "{\"name\":" << jsonString(output.name)
         << ",\"dtype\":" << jsonString(agl_dtype_name(output.dtype))
         << ",\"shape\":[";
    for (size_t d = 0; d < output.shape.size(); ++d)
      json << (d ? "," : "") << output.shape[d];
    json << "],\"checked\":" << (output.checked() ? "true" : "false");
    if (output.checked()) {
      const Comparison &c = output.comparison;
      json << ",\"ok\":" << (output.ok() ? "true" : "false")
           << ",\"expected\":" << jsonString(output.expectationPath);
      if (!output.typeProblem.empty())
        json << ",\"error\":" << jsonString(output.typeProblem);
      else
        json << ",\"max_abs\":" << jsonNumber(c.maxAbsError)
             << ",\"max_rel\":" << jsonNumber(c.maxRelError)
             << ",\"mismatches\":" << c.mismatches
             << ",\"elements\":" << c.elements;
    } else if (output.summary.hasValues()) {
      json << ",\"min\":" << jsonNumber(output.summary.min)
           << ",\"max\":" << jsonNumber(output.summary.max)
           << ",\"mean\":" << jsonNumber(output.summary.mean)
           << ",\"nans\":" << output.summary.nans;
    }
    json << "}";
  }
  json << "]";

  if (report.latency)
    json << ",\"latency_ms\":{\"min\":" << jsonNumber(report.latency->minMs)
         << ",\"median\":" << jsonNumber(report.latency->medianMs)
         << ",\"p90\":" << jsonNumber(report.latency->p90Ms)
         << ",\"runs\":" << report.latency->runs
         << ",\"warmup\":" << options.warmupRuns << ",\"device_resident\":"
         << (options.deviceResident ? "true" : "false") << "}";
  json << "}";
  return json.str();
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Run an AutoGLM model artifact on tensors from files, check "
               "its outputs and time it.",
               "autoglm-run"};
  Options options;
  defineOptions(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    if (app.exit(error) == 0) // --help
      return kExitOk;
    // Harnesses that asked for JSON get it even for a bad command line.
    if (std::find(argv + 1, argv + argc, std::string("--json")) !=
        argv + argc) {
      RunReport report;
      report.error = error.what();
      std::cout << toJson(options, report, kExitError) << std::endl;
    }
    return kExitError;
  }

  // With --json, stdout carries the JSON line alone.
  std::ostream &text = options.json ? std::cerr : std::cout;
  RunReport report;
  int exitCode;
  try {
    exitCode = runModel(options, report, text);
  } catch (const std::exception &error) {
    report.error = error.what();
    std::cerr << "autoglm-run: error: " << error.what() << "\n";
    exitCode = kExitError;
  }
  if (options.json)
    std::cout << toJson(options, report, exitCode) << std::endl;
  return exitCode;
}
