// autoglm-generate: runs a decoder compiled with a KV cache
// (autoglm-compile --max-seq-len) token by token from a prompt, and reports
// the tokens and how fast they came.
#include "Benchmark.h"
#include "Generator.h"
#include "Sampler.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace autoglm;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 2;

std::vector<int64_t> parseIds(const std::string &text) {
  std::vector<int64_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != item.size())
      throw std::runtime_error("--prompt-ids: '" + item +
                               "' is not a token id (expected e.g. 1,2,3)");
    ids.push_back(value);
  }
  return ids;
}

std::string joinIds(const std::vector<int64_t> &ids, const char *separator) {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i)
    text += (i ? separator : "") + std::to_string(ids[i]);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Generate tokens with a decoder compiled with a KV cache "
               "(autoglm-compile --max-seq-len).",
               "autoglm-generate"};
  std::string artifactPath, promptIds, sampling = "greedy";
  int64_t maxNewTokens = 32;
  int64_t eos = -1;
  int threads = 0;
  bool pinThreads = false, json = false, noWarmUp = false;
  generate::SamplingOptions options;
  app.add_option("artifact", artifactPath, "Model artifact (.so)")->required();
  app.add_option("--prompt-ids", promptIds, "Prompt token ids: 1,2,3")
      ->required();
  app.add_option("--max-new-tokens", maxNewTokens, "Tokens to generate")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--sampling", sampling, "greedy or top-p")
      ->capture_default_str()
      ->check(CLI::IsMember({"greedy", "top-p"}));
  app.add_option("--temperature", options.temperature,
                 "Divides the logits before top-p sampling")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--top-p", options.topP,
                 "Probability mass top-p sampling draws from")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 1.0));
  app.add_option("--seed", options.seed, "Seed of top-p sampling")
      ->capture_default_str();
  app.add_option("--eos-id", eos, "Stop after this token");
  app.add_option("--threads", threads,
                 "Threads the model's kernels run on; 0 (default): "
                 "AUTOGLM_NUM_THREADS, else one per CPU")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--pin-threads", pinThreads,
               "Pin each kernel thread to its own CPU");
  app.add_flag("--json", json, "Print one JSON line instead of text");
  app.add_flag("--no-warmup", noWarmUp,
               "Time a cold start: no untimed one-token run before the "
               "prompt (which brings the weights into memory)");
  CLI11_PARSE(app, argc, argv);
  options.greedy = sampling == "greedy";

  try {
    std::vector<int64_t> prompt = parseIds(promptIds);
    if (threads > 0 && agl_set_num_threads(threads) != AGL_OK)
      throw std::runtime_error(agl_last_error());
    if (pinThreads && agl_set_thread_affinity(1) != AGL_OK)
      throw std::runtime_error(agl_last_error());
    run::Artifact artifact(artifactPath);
    generate::Generator generator(artifact.model(), artifact.weights());
    if (!noWarmUp)
      generator.warmUp();
    generate::Sampler sampler(options);
    generate::Generation result = generator.generate(
        prompt, maxNewTokens, sampler,
        eos >= 0 ? std::optional<int64_t>(eos) : std::nullopt);

    run::LatencyStats step = run::summarizeLatencies(result.stepMs);
    double decodeMs = 0;
    for (double ms : result.stepMs)
      decodeMs += ms;
    double tokensPerS =
        decodeMs > 0 ? 1000.0 * double(result.stepMs.size()) / decodeMs : 0;
    double prefillTokensPerS =
        result.prefillMs > 0 ? 1000.0 * double(prompt.size()) / result.prefillMs
                             : 0;
    if (json) {
      std::cout << std::setprecision(6) << "{\"tokens\":["
                << joinIds(result.tokens, ",")
                << "],\"prompt_tokens\":" << prompt.size()
                << ",\"prefill_ms\":" << result.prefillMs
                << ",\"prefill_tokens_per_s\":" << prefillTokensPerS
                << ",\"decode_steps\":" << step.runs
                << ",\"step_median_ms\":" << step.medianMs
                << ",\"step_p90_ms\":" << step.p90Ms
                << ",\"decode_tokens_per_s\":" << tokensPerS
                << ",\"threads\":" << agl_get_num_threads() << "}\n";
      return kExitOk;
    }
    std::cout << "generated " << result.tokens.size() << " tokens after a "
              << prompt.size() << "-token prompt (" << agl_get_num_threads()
              << " threads)\n"
              << "ids: " << joinIds(result.tokens, " ") << "\n"
              << std::fixed << std::setprecision(2)
              << "prefill: " << result.prefillMs << " ms (" << prefillTokensPerS
              << " tokens/s)\n";
    if (step.runs > 0)
      std::cout << "decode: " << step.medianMs << " ms/token median, "
                << step.p90Ms << " ms p90, " << tokensPerS << " tokens/s\n";
  } catch (const std::exception &error) {
    std::cerr << "autoglm-generate: error: " << error.what() << "\n";
    return kExitError;
  }
  return kExitOk;
}
