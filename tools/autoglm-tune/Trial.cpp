//===- Trial.cpp - compiling and timing one tuning variant ----------------===//

#include "Trial.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>

namespace autoglm::tune {

namespace {

std::string readText(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

/// The last lines of a tool's error output, for a failure report.
std::string lastWords(const std::string &path) {
  const std::string text = readText(path);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).trim().split(lines, '\n');
  std::string words;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size();
       ++i)
    words += (words.empty() ? "" : " | ") + lines[i].trim().str();
  return words;
}

/// Runs `args` with stdout and stderr into files; "" on success, else what
/// happened.
std::string execute(const std::vector<std::string> &args,
                    const std::string &out, const std::string &err,
                    unsigned timeoutSeconds, int &exitCode) {
  llvm::SmallVector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(out), llvm::StringRef(err)};
  std::string message;
  bool failedToStart = false;
  exitCode =
      llvm::sys::ExecuteAndWait(args[0], argv, std::nullopt, redirects,
                                timeoutSeconds, 0, &message, &failedToStart);
  if (failedToStart)
    return "cannot start " + args[0] + ": " + message;
  if (exitCode == -2)
    return llvm::sys::path::filename(args[0]).str() + " crashed (" + message +
           ")";
  if (exitCode == -1)
    return llvm::sys::path::filename(args[0]).str() + " " +
           (message.empty() ? "did not finish" : message);
  return "";
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

/// The outputs that differ, from autoglm-run --json.
std::string mismatches(const std::string &runJson) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(runJson);
  if (!value) {
    llvm::consumeError(value.takeError());
    return "outputs differ from the untuned build's";
  }
  std::string text;
  if (const llvm::json::Array *outputs =
          value->getAsObject()->getArray("outputs"))
    for (const llvm::json::Value &output : *outputs) {
      const llvm::json::Object *o = output.getAsObject();
      if (o->getBoolean("ok").value_or(true))
        continue;
      text += llvm::formatv("{0}output '{1}' has {2} of {3} elements off "
                            "(max abs err {4}, max rel err {5})",
                            text.empty() ? "" : "; ",
                            o->getString("name").value_or(""),
                            o->getInteger("mismatches").value_or(0),
                            o->getInteger("elements").value_or(0),
                            number(o->getNumber("max_abs").value_or(0)),
                            number(o->getNumber("max_rel").value_or(0)))
                  .str();
    }
  return text.empty() ? "outputs differ from the untuned build's" : text;
}


/// The ONNX nodes part of a kernel's name ("sgemm_packed mlp/fc1/MatMul").
std::string nodeLabel(const std::string &name) {
  size_t space = name.find(' ');
  return space == std::string::npos ? "" : name.substr(space + 1);
}

} // namespace

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TrialResult runTrial(const TrialSetup &setup, const llvm::json::Value &tuning,
                     const std::string &tag) {
  TrialResult result;
  auto path = [&](const std::string &suffix) {
    return setup.workDir + "/" + tag + suffix;
  };
  {
    std::error_code error;
    llvm::raw_fd_ostream file(path(".tuning.json"), error);
    if (error) {
      result.failure = "cannot write " + path(".tuning.json");
      return result;
    }
    file << llvm::formatv("{0:2}", tuning) << "\n";
  }

  // Compile.
  std::vector<std::string> compile = {
      setup.compiler,  setup.model, "-o",
      path(".so"),     "--profile", "--no-header",
      "--report=json", "--tuning",  path(".tuning.json")};
  compile.insert(compile.end(), setup.compileArgs.begin(),
                 setup.compileArgs.end());
  int exitCode = 0;
  std::string problem =
      execute(compile, path(".report.json"), path(".compile.log"),
              setup.timeoutSeconds, exitCode);
  if (problem.empty() && exitCode != 0)
    problem = "autoglm-compile failed: " + lastWords(path(".compile.log"));
  if (!problem.empty()) {
    result.failure = "compile: " + problem;
    return result;
  }
  llvm::Expected<llvm::json::Value> report =
      llvm::json::parse(readText(path(".report.json")));
  if (!report) {
    llvm::consumeError(report.takeError());
    result.failure = "compile: no report from autoglm-compile";
    return result;
  }
  const llvm::json::Object *reportObject = report->getAsObject();
  if (const llvm::json::Array *kernels = reportObject->getArray("kernels"))
    for (const llvm::json::Value &kernel : *kernels) {
      const llvm::json::Object *k = kernel.getAsObject();
      result.kernels.push_back({k->getString("name").value_or("").str(),
                                k->getString("tuning_key").value_or("").str()});
    }
  result.target = reportObject->getString("tuning_target").value_or("").str();

  // Run, checked against the first trial's outputs.
  std::vector<std::string> run = {setup.runner,
                                  path(".so"),
                                  "--json",
                                  "--bench",
                                  std::to_string(setup.runs),
                                  "--warmup",
                                  std::to_string(setup.warmup),
                                  "--profile",
                                  path(".trace.json")};
  if (setup.threads > 0)
    run.insert(run.end(), {"--threads", std::to_string(setup.threads)});
  for (const std::string &input : setup.inputs)
    run.insert(run.end(), {"--input", input});
  if (setup.expectations.empty()) {
    run.insert(run.end(), {"--output-dir", setup.workDir + "/reference"});
  } else {
    for (const std::string &expected : setup.expectations)
      run.insert(run.end(), {"--expect", expected});
    run.insert(run.end(),
               {"--rtol", number(setup.rtol), "--atol", number(setup.atol)});
  }
  problem = execute(run, path(".run.json"), path(".run.log"),
                    setup.timeoutSeconds, exitCode);
  if (problem.empty() && exitCode == 1)
    problem = "wrong results: " + mismatches(readText(path(".run.json")));
  else if (problem.empty() && exitCode != 0)
    problem = "autoglm-run failed: " + lastWords(path(".run.log"));
  if (!problem.empty()) {
    result.failure = "run: " + problem;
    return result;
  }
  llvm::Expected<llvm::json::Value> runJson =
      llvm::json::parse(readText(path(".run.json")));
  llvm::Expected<llvm::json::Value> trace =
      llvm::json::parse(readText(path(".trace.json")));
  if (!runJson || !trace) {
    if (!runJson)
      llvm::consumeError(runJson.takeError());
    if (!trace)
      llvm::consumeError(trace.takeError());
    result.failure = "run: unreadable output of autoglm-run";
    return result;
  }
  const llvm::json::Object *runObject = runJson->getAsObject();
  if (const llvm::json::Object *latency = runObject->getObject("latency_ms"))
    result.latencyMs = latency->getNumber("median").value_or(0);
  if (const llvm::json::Array *outputs = runObject->getArray("outputs"))
    for (const llvm::json::Value &output : *outputs)
      result.outputNames.push_back(
          output.getAsObject()->getString("name").value_or("").str());

  // Per kernel: the median call times the calls per run.
  std::vector<std::vector<double>> durations(result.kernels.size());
  if (const llvm::json::Array *events =
          trace->getAsObject()->getArray("traceEvents"))
    for (const llvm::json::Value &event : *events) {
      const llvm::json::Object *e = event.getAsObject();
      const llvm::json::Object *args = e ? e->getObject("args") : nullptr;
      std::optional<int64_t> kernel =
          args ? args->getInteger("kernel") : std::nullopt;
      if (kernel && *kernel >= 0 && size_t(*kernel) < durations.size())
        durations[*kernel].push_back(e->getNumber("dur").value_or(0) * 1e-3);
    }
  for (size_t k = 0; k < result.kernels.size(); ++k) {
    double perRun = median(durations[k]) * double(durations[k].size()) /
                    std::max(1, setup.runs);
    result.keyMs[result.kernels[k].key] += perRun;
    result.nodeMs[nodeLabel(result.kernels[k].name)] += perRun;
  }
  result.ok = true;
  return result;
}

} // namespace autoglm::tune
