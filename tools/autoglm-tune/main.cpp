//===- autoglm-tune - search a model's kernel knobs -----------------------===//
//
// autoglm-tune model.onnx --input x=x.npy --budget 300s -o tuning.json
//
// Compiles and times variants of the model (Trial.h) to choose, per distinct
// kernel tuning key, the knobs of SearchSpace.h, one knob at a time: each
// round tries every value of the next knob of every key at once (variant i
// gives each key its i-th value), and a key keeps a value only where its
// kernels ran faster than with the knobs settled so far by more than the
// noise margin. A variant that fails is split until the failing key and
// value are found; those are reported and skipped. The winners are then
// re-timed against the cost model's plan, alternating builds, and only
// gains that hold are written to the tuning file (merged into an existing
// one: other targets and other kernels are kept).
//
//===----------------------------------------------------------------------===//

#include "SearchSpace.h"
#include "Trial.h"

#include "AtomicFile.h"
#include "OutputDirectory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

using namespace autoglm::tune;
namespace json = llvm::json;

namespace {

constexpr int kExitOk = 0, kExitError = 2;

/// Knob values per tuning key: what a tuning file's target section holds.
using Settings = std::map<std::string, json::Object>;

json::Value tuningFile(const std::string &target, const Settings &settings) {
  json::Object section;
  for (const auto &[key, knobs] : settings)
    if (!knobs.empty())
      section[key] = json::Object(knobs);
  return json::Object{{"format", "autoglm-tuning"},
                      {"version", 1},
                      {"targets", json::Object{{target, std::move(section)}}}};
}

std::string describe(const json::Object &knobs) {
  std::string text;
  std::vector<std::string> names;
  for (const auto &[name, value] : knobs)
    names.push_back(name.str());
  std::sort(names.begin(), names.end());
  for (const std::string &name : names)
    text += (text.empty() ? "" : " ") + name + "=" +
            llvm::formatv("{0}", *knobs.get(name)).str();
  return text.empty() ? "(cost model)" : text;
}

/// The time of a key's kernels in a trial; a convolution's by its nodes,
/// which the im2col strategy turns into other kernels.
double keyTime(const TrialResult &trial, const std::string &key,
               const std::set<std::string> &nodes) {
  if (llvm::StringRef(key).starts_with("conv2d")) {
    double ms = 0;
    for (const std::string &node : nodes)
      if (auto it = trial.nodeMs.find(node); it != trial.nodeMs.end())
        ms += it->second;
    return ms;
  }
  auto it = trial.keyMs.find(key);
  return it == trial.keyMs.end() ? 0 : it->second;
}

class Progress {
public:
  Progress(double budgetSeconds)
      : budget(budgetSeconds), start(std::chrono::steady_clock::now()),
        tty(llvm::sys::Process::StandardErrIsDisplayed()) {}

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }
  double left() const { return budget - elapsed(); }

  void update(const std::string &status) {
    double fraction = std::min(1.0, elapsed() / budget);
    int filled = int(fraction * 30);
    std::string bar = std::string(filled, '#') + std::string(30 - filled, '.');
    std::string line =
        llvm::formatv("[{0}] {1,4:f0}/{2:f0} s  {3}", bar, elapsed(), budget,
                      status);
    if (tty) {
      llvm::errs() << "\r" << line << "\x1b[K";
    } else if (elapsed() - lastLine >= 10) {
      // Logs get a line every 10 s.
      llvm::errs() << line << "\n";
      lastLine = elapsed();
    }
  }
  void finish() {
    if (tty)
      llvm::errs() << "\r\x1b[K";
  }

private:
  double budget;
  std::chrono::steady_clock::time_point start;
  bool tty;
  double lastLine = 0;
};

/// A candidate change: key -> (knob, value).
struct Candidate {
  std::string key, knob;
  json::Value value;
};

class Tuner {
public:
  Tuner(TrialSetup setup, Progress &progress, double margin, double minShare)
      : setup(std::move(setup)), progress(progress), margin(margin),
        minShare(minShare) {}

  /// The baseline trial: the cost model's plan, its outputs the reference.
  bool start(std::string &error) {
    TrialResult base = trial({}, "baseline");
    if (!base.ok) {
      error =
          "the model does not compile and run without tuning: " + base.failure;
      return false;
    }
    target = base.target;
    for (const std::string &name : base.outputNames)
      setup.expectations.push_back(name + "=" + setup.workDir + "/reference/" +
                                   autoglm::run::fileNameFor(name) + ".npy");
    discoverKeys(base);
    return true;
  }

  /// The keys to search: those of the cost model's plan (the kernels a
  /// strategy brings in, such as an im2col GEMM, keep the cost model's
  /// choices, and count in their convolution's time). Kernels too small to
  /// time reliably, or to matter, keep the cost model's choices too.
  void discoverKeys(const TrialResult &trial) {
    std::map<std::string, std::set<std::string>> found;
    for (const PlanKernel &kernel : trial.kernels) {
      if (kernel.key.empty() || knobsToSearch(kernel.key).empty() ||
          nodesOfKey.count(kernel.key))
        continue;
      size_t space = kernel.name.find(' ');
      found[kernel.key].insert(
          space == std::string::npos ? "" : kernel.name.substr(space + 1));
    }
    for (auto &[key, nodes] : found) {
      if (keyTime(trial, key, nodes) >= minShare * trial.latencyMs)
        settings[key];
      else
        ++untunedKeys;
      nodesOfKey[key] = std::move(nodes);
    }
  }

  /// One pass of coordinate descent over every key's knobs; false when the
  /// budget ran out.
  bool searchPass(bool &changed) {
    size_t rounds = 0;
    for (const auto &[key, knobs] : settings)
      rounds = std::max(rounds, knobsToSearch(key, knobs).size());
    for (size_t round = 0; round < rounds; ++round) {
      // Variant v gives each key the v-th value of its round-th knob.
      std::vector<std::vector<Candidate>> variants;
      for (const auto &[key, knobs] : settings) {
        std::vector<Knob> space = knobsToSearch(key, knobs);
        if (round >= space.size())
          continue;
        int v = 0;
        for (const json::Value &value : space[round].values) {
          if (knobs.get(space[round].name) &&
              *knobs.get(space[round].name) == value)
            continue; // already settled there
          if (failed.count(failureId({key, space[round].name, value})))
            continue;
          if (variants.size() <= size_t(v))
            variants.emplace_back();
          variants[v++].push_back({key, space[round].name, value});
        }
      }
      if (variants.empty())
        continue;
      // The settled plan, timed in the same round as the variants.
      TrialResult current = trial(settings, "round");
      if (!current.ok)
        return false; // settled knobs were checked already
      std::map<std::string, std::pair<double, Candidate>> best;
      for (auto &variant : variants) {
        if (progress.left() <= 0)
          return false;
        progress.update(llvm::formatv("searching: {0} variants tried, {1} "
                                      "kernel keys",
                                      ++trials, settings.size()));
        evaluate(variant, best);
      }
      for (auto &[key, win] : best) {
        double now = keyTime(current, key, nodesOfKey[key]);
        if (now > 0 && win.first < now * (1 - margin)) {
          json::Object &knobs = settings[key];
          knobs[win.second.knob] = win.second.value;
          // Knobs of the strategy left behind no longer apply.
          if (knobsToSearch(key, knobs).size() == 1)
            for (const char *blocking : {"kc", "nc", "mc"})
              knobs.erase(blocking);
          changed = true;
        }
      }
    }
    return true;
  }

  /// A re-timed key: its kernels' time with the cost model's choices and
  /// with its knobs, which are dropped when the gain does not hold.
  struct Confirmed {
    double defaultMs, tunedMs;
    json::Object knobs;
    bool held;
  };

  /// Re-times the tuned plan against the cost model's, alternating; drops
  /// the keys whose gain does not hold (faster in most pairs, and by half
  /// the margin in the median). Fills the per-key and whole-model times.

  void confirm(int repeats, std::map<std::string, Confirmed> &keyTimes,
               double &defaultMs, double &tunedMs) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::map<std::string, std::vector<double>> before, after;
      std::map<std::string, int> slower;
      std::vector<double> wholeBefore, wholeAfter;
      for (int r = 0; r < repeats; ++r) {
        progress.update(
            llvm::formatv("re-timing the winners: {0}/{1}", r + 1, repeats));
        TrialResult a = trial({}, "confirm-default");
        TrialResult b = trial(settings, "confirm-tuned");
        if (!a.ok || !b.ok)
          continue;
        wholeBefore.push_back(a.latencyMs);
        wholeAfter.push_back(b.latencyMs);
        for (const auto &[key, nodes] : nodesOfKey) {
          before[key].push_back(keyTime(a, key, nodes));
          after[key].push_back(keyTime(b, key, nodes));
          slower[key] += after[key].back() >= before[key].back();
        }
      }
      defaultMs = median(wholeBefore);
      tunedMs = median(wholeAfter);
      // Keys dropped in an earlier attempt keep their entry.
      bool dropped = false;
      for (auto &[key, knobs] : settings) {
        if (knobs.empty())
          continue;
        double old = median(before[key]), now = median(after[key]);
        // Both builds must have the key's kernels: another key's strategy
        // may take them away, which is no gain of this key's knobs.
        bool held = now > 0 && 2 * slower[key] < repeats &&
                    now < old * (1 - margin / 2);
        keyTimes[key] = {old, now, knobs, held};
        if (!held) {
          knobs.clear();
          dropped = true;
        }
      }
      if (!dropped)
        return;
    }
  }

  const Settings &result() const { return settings; }
  const std::string &targetName() const { return target; }
  const std::vector<std::string> &failures() const { return failureReports; }
  int trialCount() const { return trials; }
  int untunedCount() const { return untunedKeys; }

private:
  TrialResult trial(const Settings &knobs, const std::string &tag) {
    ++tagCounter;
    return runTrial(setup,
                    tuningFile(target.empty() ? "native" : target, knobs),
                    llvm::formatv("{0:d3}-{1}", tagCounter, tag).str());
  }

  static std::string failureId(const Candidate &c) {
    return c.key + "|" + c.knob + "|" + llvm::formatv("{0}", c.value).str();
  }

  /// Times `variant` (settled knobs plus its candidates); on failure, splits
  /// it to find the candidates that fail and records them.
  void evaluate(std::vector<Candidate> variant,
                std::map<std::string, std::pair<double, Candidate>> &best) {
    Settings knobs = settings;
    for (const Candidate &c : variant)
      knobs[c.key][c.knob] = c.value;
    TrialResult result = trial(knobs, "variant");
    if (result.ok) {
      for (const Candidate &c : variant) {
        double ms = keyTime(result, c.key, nodesOfKey[c.key]);
        // Kernels gone (another key's strategy took them) are no result.
        if (ms <= 0)
          continue;
        auto it = best.find(c.key);
        if (it == best.end() || ms < it->second.first)
          best.insert_or_assign(c.key, std::make_pair(ms, c));
      }
      return;
    }
    if (variant.size() == 1) {
      const Candidate &c = variant[0];
      failed.insert(failureId(c));
      failureReports.push_back(llvm::formatv("{0}: {1}={2}: {3}", c.key, c.knob,
                                             c.value, result.failure));
      return;
    }
    size_t half = variant.size() / 2;
    evaluate({variant.begin(), variant.begin() + half}, best);
    evaluate({variant.begin() + half, variant.end()}, best);
  }

  TrialSetup setup;
  Progress &progress;
  double margin, minShare;
  int untunedKeys = 0;
  std::string target;
  Settings settings;
  std::map<std::string, std::set<std::string>> nodesOfKey;
  std::set<std::string> failed;
  std::vector<std::string> failureReports;
  int trials = 0, tagCounter = 0;
};

/// The tool next to this one (autoglm-compile, autoglm-run).
std::string sibling(const char *argv0, const std::string &name) {
  std::string self = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&sibling));
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, name);
  if (llvm::sys::fs::can_execute(path))
    return path.str().str();
  auto found = llvm::sys::findProgramByName(name);
  return found ? *found : name;
}

double parseSeconds(const std::string &text) {
  llvm::StringRef value(text);
  double scale = 1;
  if (value.consume_back("min"))
    scale = 60;
  else if (value.consume_back("s"))
    scale = 1;
  else if (value.consume_back("m"))
    scale = 60;
  double seconds;
  if (value.getAsDouble(seconds) || seconds <= 0)
    return -1;
  return seconds * scale;
}

/// `file`'s other targets, to keep when writing it anew.
json::Object existingTargets(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return {};
  llvm::Expected<json::Value> value = json::parse((*buffer)->getBuffer());
  if (!value) {
    llvm::consumeError(value.takeError());
    return {};
  }
  const json::Object *root = value->getAsObject();
  const json::Object *targets = root ? root->getObject("targets") : nullptr;
  return targets ? json::Object(*targets) : json::Object{};
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"autoglm-tune: search per-kernel knobs (cache blocking, "
               "convolution strategy, vector width, threads) of a model by "
               "compiling and timing variants, and write a tuning file for "
               "autoglm-compile --tuning"};
  std::string model, output, budgetText = "300s", compiler, runner, workDir;
  std::vector<std::string> inputs, compileArgs;
  int threads = 0, runs = 20, repeats = 3, maxPasses = 2;
  double margin = 0.03, minShare = 0.01, rtol = 1e-3, atol = 1e-4;
  bool keepWork = false;
  app.add_option("model", model, "ONNX model (.onnx)")->required();
  app.add_option("-o,--output", output,
                 "Tuning file to write; an existing one is updated: the "
                 "kernels searched here are replaced, all else is kept")
      ->required();
  app.add_option(
      "--input,-i", inputs,
      "NAME=FILE: the model's inputs (.npy/.pb), as for autoglm-run");
  app.add_option("--budget", budgetText,
                 "Time for the search, e.g. 300s or 5min (the final "
                 "re-timing comes on top)");
  app.add_option("--threads", threads,
                 "Threads to tune for (default: one per CPU, as autoglm-run)");
  app.add_option("--runs", runs, "Timed runs per variant")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats,
                 "Alternating re-timings of the tuned and default builds")
      ->check(CLI::PositiveNumber);
  app.add_option("--margin", margin,
                 "Smallest gain a knob must bring (fraction of its kernels' "
                 "time) to be kept")
      ->check(CLI::Range(0.0, 0.5));
  app.add_option("--min-share", minShare,
                 "Kernels taking less than this fraction of the model's time "
                 "keep the cost model's choices")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--passes", maxPasses,
                 "Most passes of the search over all knobs (it stops earlier "
                 "when a pass changes nothing)")
      ->check(CLI::PositiveNumber);
  app.add_option("--rtol", rtol,
                 "Relative tolerance against the untuned "
                 "build's outputs");
  app.add_option("--atol", atol, "Absolute tolerance, likewise");
  app.add_option("--compile-arg", compileArgs,
                 "An extra autoglm-compile argument for every variant "
                 "(e.g. --mcpu=znver4, --dim=seq=128); repeatable")
      ->allow_extra_args(false);
  app.add_option("--compiler", compiler,
                 "autoglm-compile to use (default: the one next to this tool)");
  app.add_option("--runner", runner,
                 "autoglm-run to use (default: the one next to this tool)");
  app.add_option("--work-dir", workDir,
                 "Folder for the variants' files (default: a new temporary "
                 "folder, removed at the end)");
  app.add_flag("--keep-work", keepWork, "Keep the variants' files");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }
  auto fail = [](const std::string &message) {
    llvm::errs() << "autoglm-tune: error: " << message << "\n";
    return kExitError;
  };
  double budget = parseSeconds(budgetText);
  if (budget <= 0)
    return fail("--budget expects a duration such as 300s or 5min, got '" +
                budgetText + "'");
  if (!llvm::sys::fs::exists(model))
    return fail("cannot read model '" + model + "': no such file");

  TrialSetup setup;
  setup.compiler =
      compiler.empty() ? sibling(argv[0], "autoglm-compile") : compiler;
  setup.runner = runner.empty() ? sibling(argv[0], "autoglm-run") : runner;
  setup.model = model;
  setup.inputs = inputs;
  setup.compileArgs = compileArgs;
  setup.threads = threads;
  setup.runs = runs;
  setup.rtol = rtol;
  setup.atol = atol;
  bool ownWorkDir = workDir.empty();
  if (ownWorkDir) {
    llvm::SmallString<128> created;
    if (llvm::sys::fs::createUniqueDirectory("autoglm-tune", created))
      return fail("cannot create a work folder");
    workDir = created.str().str();
  } else if (llvm::sys::fs::create_directories(workDir)) {
    return fail("cannot create work folder '" + workDir + "'");
  }
  setup.workDir = workDir;

  Progress progress(budget);
  Tuner tuner(setup, progress, margin, minShare);
  std::string error;
  progress.update("compiling and timing the baseline");
  if (!tuner.start(error)) {
    progress.finish();
    return fail(error + " (files in " + workDir + ")");
  }
  bool changed = true;
  int passes = 0;
  while (changed && passes < maxPasses && progress.left() > 0) {
    changed = false;
    ++passes;
    if (!tuner.searchPass(changed))
      break;
  }
  std::map<std::string, Tuner::Confirmed> keyTimes;
  double defaultMs = 0, tunedMs = 0;
  tuner.confirm(repeats, keyTimes, defaultMs, tunedMs);
  progress.finish();

  // The tuning file: in this target's section, the keys searched here
  // replaced (or removed where the cost model won); everything else kept,
  // so that one file can serve several models.
  json::Object targets = existingTargets(output);
  json::Object section;
  if (const json::Object *old = targets.getObject(tuner.targetName()))
    section = *old;
  for (const auto &[key, knobs] : tuner.result()) {
    section.erase(key);
    if (!knobs.empty())
      section[key] = json::Object(knobs);
  }
  targets[tuner.targetName()] = std::move(section);
  json::Value file = json::Object{{"format", "autoglm-tuning"},
                                  {"version", 1},
                                  {"targets", std::move(targets)}};
  std::string written = autoglm::run::writeFileAtomically(
      output, llvm::formatv("{0:2}", file).str() + "\n");
  if (!written.empty())
    return fail(written);

  // Summary.
  llvm::outs() << llvm::formatv(
      "autoglm-tune: {0} kernel keys searched ({1} more below {2:f0}% of "
      "the time kept as they are), {3} variants in {4:f0} s ({5} pass{6}), "
      "target {7}\n",
      tuner.result().size(), tuner.untunedCount(), minShare * 100,
      tuner.trialCount(), progress.elapsed(), passes, passes == 1 ? "" : "es",
      tuner.targetName());
  llvm::outs() << llvm::formatv("{0,-44} {1,-28} {2,10} {3,10} {4,7}\n",
                                "kernel key", "knobs", "default ms", "tuned ms",
                                "gain");
  bool kept = false;
  for (const auto &[key, times] : keyTimes) {
    llvm::outs() << llvm::formatv(
        "{0,-44} {1,-28} {2,10:f3} {3,10:f3} {4,6:f1}%{5}\n", key,
        describe(times.knobs), times.defaultMs, times.tunedMs,
        times.tunedMs > 0 ? 100 * (times.defaultMs / times.tunedMs - 1) : 0.0,
        times.held ? "" : "  dropped: the gain did not hold when re-timed");
    kept |= times.held;
  }
  if (!kept)
    llvm::outs() << llvm::formatv(
        "no knob beat the cost model's choices by more than the margin "
        "({0:f0}%) and held when re-timed: the tuning file gets no entries "
        "for this model's kernels\n"
        "model median: {1:f3} ms with the cost model's choices\n",
        margin * 100, defaultMs);
  else
    llvm::outs() << llvm::formatv(
        "model median: {0:f3} ms with the cost model's choices, {1:f3} ms "
        "tuned ({2:f1}% {3})\n",
        defaultMs, tunedMs,
        tunedMs > 0 ? 100 * std::abs(defaultMs / tunedMs - 1) : 0.0,
        tunedMs <= defaultMs ? "faster" : "slower");
  for (const std::string &failure : tuner.failures())
    llvm::outs() << "skipped (failed): " << failure << "\n";
  llvm::outs() << "wrote " << output << "\n";
  if (ownWorkDir && !keepWork)
    llvm::sys::fs::remove_directories(workDir);
  else
    llvm::outs() << "variants' files in " << workDir << "\n";
  return kExitOk;
}
