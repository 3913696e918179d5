//===- Calibration.cpp - int8 calibration and its accuracy report ---------===//

#include "Calibration.h"

#include "ActivationRange.h"

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

/// One set: the tensor files of one folder.
llvm::Expected<CalibrationSet> readSet(const std::string &folder,
                                       const std::vector<std::string> &files) {
  CalibrationSet set;
  set.name = folder;
  for (const std::string &file : files) {
    llvm::StringRef ext = llvm::sys::path::extension(file);
    if (ext != ".npy" && ext != ".pb")
      continue;
    try {
      set.tensors[llvm::sys::path::stem(file).str()] =
          run::readTensorFile(file);
    } catch (const std::exception &e) {
      return fail("--calibrate: " + llvm::Twine(e.what()));
    }
  }
  return set;
}

/// Input `i`, `name`, of a set (NAME or input_I), or null.
const run::Tensor *inputOf(const CalibrationSet &set, const std::string &name,
                           size_t i) {
  for (const std::string &key : {name, "input_" + std::to_string(i)})
    if (auto it = set.tensors.find(key); it != set.tensors.end())
      return &it->second;
  return nullptr;
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
    setPlannedOutputBounds(signature, graph);
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
readCalibrationSets(const std::string &dir) {
  if (!llvm::sys::fs::is_directory(dir))
    return fail("--calibrate " + dir + ": not a folder");
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
    auto set = readSet(folder, setFiles);
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
  llvm::scope_exit cleanup([&] {
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
    const bool symbolic = model.num_symbols > 0;
    for (const CalibrationSet &set : sets) {
      progress.step(results.sets.size());
      std::vector<const void *> inputs;
      std::vector<const int64_t *> inputShapes;
      for (uint32_t i = 0; i < model.num_inputs; ++i) {
        const agl_tensor_info &info = model.inputs[i];
        const run::Tensor *found = inputOf(set, info.name, i);
        if (!found)
          return fail("--calibrate: " + set.name + " has no file for input '" +
                      info.name + "' (" + info.name + ".npy, " + info.name +
                      ".pb or input_" + llvm::Twine(i) + ".npy/.pb)");
        const run::Tensor &tensor = *found;
        // Symbolic extents: the runtime checks them against their ranges.
        if (tensor.dtype != info.dtype ||
            (!symbolic && tensor.shape != run::shapeOf(info)) ||
            tensor.shape.size() != size_t(info.rank))
          return fail("--calibrate: " + set.name + ": input '" + info.name +
                      "' is " + run::describeType(tensor.dtype, tensor.shape) +
                      ", the model takes " +
                      run::describeType(info.dtype, run::shapeOf(info)));
        inputs.push_back(tensor.bytes.data());
        inputShapes.push_back(tensor.shape.data());
      }
      // Every set starts from an empty KV cache.
      if (model.kv_cache)
        instance.setCacheLength(0);
      std::vector<run::Tensor> outputs;
      std::vector<void *> outputPointers;
      std::vector<std::vector<int64_t>> shapes;
      for (uint32_t i = 0; i < model.num_outputs; ++i) {
        outputs.emplace_back(model.outputs[i].dtype,
                             run::shapeOf(model.outputs[i]));
        shapes.push_back(outputs.back().shape);
      }
      std::vector<int64_t *> outputShapes;
      for (size_t i = 0; i < outputs.size(); ++i) {
        outputPointers.push_back(outputs[i].bytes.data());
        outputShapes.push_back(shapes[i].data());
      }
      if (symbolic) {
        instance.runShaped(inputs, inputShapes, outputPointers, outputShapes);
        // The leading elements hold the output at its run's extents.
        for (size_t i = 0; i < outputs.size(); ++i)
          outputs[i].shape = shapes[i];
      } else {
        instance.run(inputs, outputPointers);
      }
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
  // Output index of each calibration output, by its name.
  std::map<std::string, size_t> outputs;
  constexpr llvm::StringLiteral prefix = "autoglm.calibration.";
  for (auto [i, name] : llvm::enumerate(calibration.names))
    if (llvm::StringRef(name).starts_with(prefix))
      outputs[name.substr(prefix.size())] = i;
  // The values of an output over all sets.
  auto valuesOf = [&](size_t output) {
    std::vector<float> values;
    for (const auto &set : calibration.sets) {
      const run::Tensor &t = set[output];
      const float *data = reinterpret_cast<const float *>(t.bytes.data());
      values.insert(values.end(), data, data + t.numElements());
    }
    return values;
  };
  std::vector<double> ranges;
  for (size_t n = 0;; ++n) {
    std::string number = std::to_string(n);
    auto whole = outputs.find(number);
    auto lo = outputs.find(number + ".min"), hi = outputs.find(number + ".max");
    if (lo != outputs.end() && hi != outputs.end()) {
      // The extremes of each set: the range is theirs over all sets.
      std::vector<float> mins = valuesOf(lo->second),
                         maxs = valuesOf(hi->second);
      if (method.name != "minmax")
        return fail("--calibration-method " + method.name +
                    " needs the whole activations");
      ranges.push_back(*std::min_element(mins.begin(), mins.end()));
      ranges.push_back(*std::max_element(maxs.begin(), maxs.end()));
      continue;
    }
    if (whole == outputs.end())
      break;
    std::vector<float> values = valuesOf(whole->second);
    ActivationRange range = method.name == "percentile"
                                ? percentileRange(values, method.percentile)
                            : method.name == "entropy" ? entropyRange(values)
                                                       : minMaxRange(values);
    ranges.insert(ranges.end(), {range.lo, range.hi});
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
