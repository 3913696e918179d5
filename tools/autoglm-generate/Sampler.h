// Picking the next token from a row of logits: greedy, or nucleus (top-p)
// sampling with a temperature, reproducible from a seed.
#ifndef AUTOGLM_GENERATE_SAMPLER_H
#define AUTOGLM_GENERATE_SAMPLER_H

#include <cstdint>
#include <random>
#include <vector>

namespace autoglm::generate {

struct SamplingOptions {
  bool greedy = true;
  double temperature = 1.0; // > 0
  double topP = 1.0;        // in (0, 1]
  uint64_t seed = 0;
};

class Sampler {
public:
  explicit Sampler(const SamplingOptions &options);

  /// The index of the next token among `count` logits. Greedy: the largest
  /// (the first of equals). Top-p: softmax(logits / temperature), keep the
  /// most likely tokens until their probability reaches top_p, and draw
  /// one of them in proportion to its probability.
  int64_t next(const float *logits, int64_t count);

private:
  SamplingOptions options_;
  std::mt19937_64 random_;
  std::vector<std::pair<double, int64_t>> candidates_; // reused per call
};

} // namespace autoglm::generate

#endif // AUTOGLM_GENERATE_SAMPLER_H
