//===- Trial.h - compiling and timing one tuning variant --------*- C++ -*-===//
//
// A trial compiles the model with a tuning file (autoglm-compile --profile
// --tuning ... --report=json) and runs it (autoglm-run --profile --bench),
// each in its own process, so that a variant that crashes the compiler or
// the model, hangs or computes wrong results is caught and reported rather
// than ending the search. It yields the time of every tuning key's kernels.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_TUNE_TRIAL_H
#define AUTOGLM_TUNE_TRIAL_H

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace autoglm::tune {

/// How trials run: the tools, the model and what autoglm-run needs.
struct TrialSetup {
  std::string compiler, runner, model, workDir;
  std::vector<std::string> compileArgs; // extra autoglm-compile arguments
  std::vector<std::string> inputs;      // NAME=FILE
  int threads = 0, runs = 20, warmup = 3;
  double rtol = 1e-3, atol = 1e-4;
  /// The first trial's outputs, which every other trial must reproduce
  /// (NAME=FILE); empty until then.
  std::vector<std::string> expectations;
  unsigned timeoutSeconds = 300;
};

/// Per-kernel facts of a compiled plan (autoglm-compile --report=json).
struct PlanKernel {
  std::string name, key;
};

struct TrialResult {
  bool ok = false;
  /// What went wrong, for the report: the stage and the tool's last words.
  std::string failure;
  /// Median model latency (ms) over the timed runs.
  double latencyMs = 0;
  /// Per tuning key: its kernels' time per run (ms), medians per call.
  std::map<std::string, double> keyMs;
  /// Per ONNX node label: its kernels' time per run (ms), so that a
  /// convolution can be followed when its strategy changes its kernels.
  std::map<std::string, double> nodeMs;
  std::vector<PlanKernel> kernels;
  std::string target; // the compiler's tuning target name
  std::vector<std::string> outputNames;
};

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
double median(std::vector<double> values);

/// Runs one trial with `tuning` (a tuning file's JSON) under `tag` (file
/// names in the work folder).
TrialResult runTrial(const TrialSetup &setup, const llvm::json::Value &tuning,
                     const std::string &tag);

} // namespace autoglm::tune

#endif // AUTOGLM_TUNE_TRIAL_H
