//===- Calibration.cpp - int8 calibration and its accuracy report ---------===//

#include "Calibration.h"

#include "codegen/emit/ModelSignature.h"
#include "compiler/Report.h"

#include "Artifact.h"
#include "Json.h"
#include "TensorFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;

namespace autoglm {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The regular files and the subfolders of `dir`, sorted by name.
llvm::Error listFolder(const std::string &dir, std::vector<std::string> &files,
                       std::vector<std::string> &folders) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    auto status = it->status();
    if (!status)
      continue;
    if (status->type() == llvm::sys::fs::file_type::directory_file)
      folders.push_back(it->path());
    else if (status->type() == llvm::sys::fs::file_type::regular_file)
      files.push_back(it->path());
  }
  if (ec)
    return fail("--calibrate " + dir + ": " + ec.message());
  llvm::sort(files);
  llvm::sort(folders);
  return llvm::Error::success();
}

/// One set from the files of one folder.
llvm::Expected<CalibrationSet>
readSet(const std::string &folder, const std::vector<std::string> &files,
        const std::vector<std::string> &inputNames) {
  CalibrationSet set;
  set.name = folder;
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    std::string found;
    for (const std::string &file : files) {
      llvm::StringRef stem = llvm::sys::path::stem(file);
      llvm::StringRef ext = llvm::sys::path::extension(file);
      if ((ext == ".npy" || ext == ".pb") &&
          (stem == name || stem == "input_" + std::to_string(i)))
        found = file;
    }
    if (found.empty())
      return fail("--calibrate: " + folder + " has no file for input '" +
                  name + "' (" + name + ".npy, " + name + ".pb or input_" +
                  llvm::Twine(i) + ".pb)");
    try {
      set.inputs.push_back(run::readTensorFile(found));
    } catch (const std::exception &e) {
      return fail("--calibrate: " + llvm::Twine(e.what()));
    }
  }
  return set;
}

/// The signature of the model being compiled, kept current over the
/// stages as autoglm-compile keeps it (see its main).
struct SignatureTracker {
  ModelSignature signature;
  std::string name;
  void afterStage(Stage stage, ModuleOp planned) {
    auto graph = planned.lookupSymbol<func::FuncOp>("main");
    if (stage == Stage::Autoglm)
      signature = readSignature(graph, name);
    if (stage != Stage::Memref)
      return;
    setStateOffsets(signature, graph);
    ModelReport report;
    measureArena(planned, report);
    signature.arenaSize = report.arenaBytes;
  }
};

/// A progress bar on a terminal, a line per build elsewhere.
class Progress {
public:
  Progress(llvm::StringRef what, size_t total)
      : what(what.str()), total(total),
        terminal(llvm::sys::Process::StandardErrIsDisplayed()) {}
  void step(size_t done) {
    if (!terminal)
      return;
    constexpr size_t width = 30;
    size_t filled = total ? done * width / total : width;
    llvm::errs() << "\r" << what << " [" << std::string(filled, '#')
                 << std::string(width - filled, ' ') << "] " << done << "/"
                 << total;
    if (done == total)
      llvm::errs() << "\n";
    llvm::errs().flush();
  }

private:
  std::string what;
  size_t total;
  bool terminal;
};

} // namespace

llvm::Expected<std::vector<CalibrationSet>>
readCalibrationSets(const std::string &dir, func::FuncOp graph) {
  if (!llvm::sys::fs::is_directory(dir))
    return fail("--calibrate " + dir + ": not a folder");
  std::vector<std::string> inputNames;
  for (const TensorSignature &input : readSignature(graph, "model").inputs)
    inputNames.push_back(input.name);
  std::vector<std::string> files, folders;
  if (auto e = listFolder(dir, files, folders))
    return std::move(e);
  std::vector<CalibrationSet> sets;
  if (folders.empty())
    folders.push_back(dir);
  for (const std::string &folder : folders) {
    std::vector<std::string> setFiles, nested;
    if (folder == dir)
      setFiles = files;
    else if (auto e = listFolder(folder, setFiles, nested))
      return std::move(e);
    auto set = readSet(folder, setFiles, inputNames);
    if (!set)
      return set.takeError();
    sets.push_back(std::move(*set));
  }
  return sets;
}

llvm::Expected<BuildOutputs>
compileAndRun(ModuleOp module, PipelineOptions options,
              const EmitOptions &emit, const std::vector<CalibrationSet> &sets,
              llvm::StringRef what) {
  OwningOpRef<ModuleOp> clone(module.clone());
  SignatureTracker tracker;
  tracker.name = "calibration";
  tracker.signature =
      readSignature(clone->lookupSymbol<func::FuncOp>("main"), tracker.name);
  options.afterStage = [&](Stage stage, ModuleOp planned) {
    tracker.afterStage(stage, planned);
  };
  // Reports and IR dumps are for the artifact the user asked for.
  options.dumpIRDir.clear();
  options.printIRAfterAll = options.dumpAll = options.printOpStats = false;
  options.printIRBefore.clear();
  options.printIRAfter.clear();
  options.timing = nullptr;
  if (failed(runPipeline(*clone, Stage::LLVM, options)))
    return fail("the " + what + " build failed");

  llvm::SmallString<128> folder;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("autoglm-calibration",
                                                     folder))
    return fail("cannot create a temporary folder: " + ec.message());
  llvm::SmallString<128> library(folder);
  llvm::sys::path::append(library, "model.so");
  EmitOptions emitHere = emit;
  emitHere.weightsPath = (folder + "/model.weights").str();
  auto cleanup = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(library);
    llvm::sys::fs::remove(emitHere.weightsPath);
    llvm::sys::fs::remove(folder);
  });
  if (auto e = emitArtifact(*clone, tracker.signature,
                            ArtifactKind::SharedLibrary, library, emitHere))
    return std::move(e);

  BuildOutputs results;
  Progress progress(what, sets.size());
  try {
    run::Artifact artifact(library.str().str());
    const agl_model_desc &model = artifact.model();
    results.names = run::outputNames(model);
    run::Instance instance(model, artifact.weights());
    for (const CalibrationSet &set : sets) {
      progress.step(results.sets.size());
      std::vector<const void *> inputs;
      for (uint32_t i = 0; i < model.num_inputs; ++i) {
        const agl_tensor_info &info = model.inputs[i];
        const run::Tensor &tensor = set.inputs[i];
        if (tensor.dtype != info.dtype || tensor.shape != run::shapeOf(info))
          return fail("--calibrate: " + set.name + ": input '" + info.name +
                      "' is " + run::describeType(tensor.dtype, tensor.shape) +
                      ", the model takes " +
                      run::describeType(info.dtype, run::shapeOf(info)));
        inputs.push_back(tensor.bytes.data());
      }
      std::vector<run::Tensor> outputs;
      std::vector<void *> outputPointers;
      for (uint32_t i = 0; i < model.num_outputs; ++i)
        outputs.emplace_back(model.outputs[i].dtype,
                             run::shapeOf(model.outputs[i]));
      for (run::Tensor &output : outputs)
        outputPointers.push_back(output.bytes.data());
      instance.run(inputs, outputPointers);
      results.sets.push_back(std::move(outputs));
    }
  } catch (const std::exception &e) {
    return fail("running the " + what + " build: " + llvm::Twine(e.what()));
  }
  progress.step(results.sets.size());
  return results;
}

llvm::Expected<std::vector<double>>
activationRanges(const BuildOutputs &calibration,
                 const CalibrationMethod &method) {
  // Output index of each calibration output, by its number.
  std::map<size_t, size_t> probes;
  constexpr llvm::StringLiteral prefix = "autoglm.calibration.";
  for (auto [i, name] : llvm::enumerate(calibration.names)) {
    size_t number;
    llvm::StringRef text(name);
    if (text.consume_front(prefix) && !text.getAsInteger(10, number))
      probes[number] = i;
  }
  std::vector<double> ranges;
  for (size_t n = 0; n < probes.size(); ++n) {
    if (!probes.count(n))
      return fail("the calibration build lacks output " + prefix + llvm::Twine(n));
    std::vector<float> values;
    for (const auto &set : calibration.sets) {
      const run::Tensor &t = set[probes[n]];
      const float *data = reinterpret_cast<const float *>(t.bytes.data());
      values.insert(values.end(), data, data + t.numElements());
    }
    if (values.empty()) {
      ranges.insert(ranges.end(), {0.0, 0.0});
      continue;
    }
    double lo, hi;
    if (method.name == "percentile") {
      double tail = (100.0 - method.percentile) / 100.0;
      size_t last = values.size() - 1;
      size_t low = static_cast<size_t>(std::floor(tail * last));
      size_t high = last - low;
      std::nth_element(values.begin(), values.begin() + low, values.end());
      lo = values[low];
      std::nth_element(values.begin(), values.begin() + high, values.end());
      hi = values[high];
    } else {
      auto [mn, mx] = std::minmax_element(values.begin(), values.end());
      lo = *mn;
      hi = *mx;
    }
    ranges.insert(ranges.end(), {lo, hi});
  }
  return ranges;
}

std::string accuracyReport(const BuildOutputs &reference,
                           const BuildOutputs &quantized, bool json) {
  struct Row {
    std::string name;
    double maxAbs = 0, meanAbs = 0, cosine = 1;
  };
  std::vector<Row> rows;
  for (auto [o, name] : llvm::enumerate(quantized.names)) {
    auto r = llvm::find(reference.names, name);
    if (r == reference.names.end())
      continue;
    size_t ro = r - reference.names.begin();
    Row row{name};
    double dot = 0, refNorm = 0, gotNorm = 0, sumAbs = 0;
    size_t count = 0;
    for (size_t s = 0; s < reference.sets.size(); ++s) {
      const run::Tensor &want = reference.sets[s][ro],
                        &got = quantized.sets[s][o];
      for (size_t i = 0; i < want.numElements(); ++i) {
        double a = want.elementAsDouble(i), b = got.elementAsDouble(i);
        row.maxAbs = std::max(row.maxAbs, std::fabs(a - b));
        sumAbs += std::fabs(a - b);
        dot += a * b;
        refNorm += a * a;
        gotNorm += b * b;
      }
      count += want.numElements();
    }
    row.meanAbs = count ? sumAbs / count : 0;
    if (refNorm > 0 && gotNorm > 0)
      row.cosine = dot / std::sqrt(refNorm * gotNorm);
    else if (refNorm != gotNorm)
      row.cosine = 0;
    rows.push_back(row);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (json) {
    os << "{\"sets\":" << reference.sets.size() << ",\"outputs\":[";
    for (auto [i, row] : llvm::enumerate(rows))
      os << (i ? "," : "") << "{\"name\":" << run::jsonString(row.name)
         << llvm::formatv(",\"max_abs_error\":{0:e},\"mean_abs_error\":{1:e},"
                          "\"cosine\":{2:f9}}",
                          row.maxAbs, row.meanAbs, row.cosine);
    os << "]}\n";
    return text;
  }
  size_t sets = reference.sets.size();
  os << "int8 accuracy against float32 on " << sets << " calibration set"
     << (sets == 1 ? "" : "s") << ":\n";
  os << llvm::formatv("  {0,-24} {1,14} {2,14} {3,12}\n", "output",
                      "max |error|", "mean |error|", "cosine");
  for (const Row &row : rows)
    os << llvm::formatv("  {0,-24} {1,14:e} {2,14:e} {3,12:f7}\n", row.name,
                        row.maxAbs, row.meanAbs, row.cosine);
  return text;
}

} // namespace autoglm
