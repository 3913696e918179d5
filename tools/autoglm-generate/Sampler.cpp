#include "Sampler.h"

#include <algorithm>
#include <cmath>

namespace autoglm::generate {

Sampler::Sampler(const SamplingOptions &options)
    : options_(options), random_(options.seed) {}

int64_t Sampler::next(const float *logits, int64_t count) {
  int64_t best = 0;
  for (int64_t i = 1; i < count; ++i)
    if (logits[i] > logits[best])
      best = i;
  if (options_.greedy || count <= 1)
    return best;

  // Probabilities relative to the largest logit, which keeps exp in range.
  candidates_.clear();
  double total = 0;
  for (int64_t i = 0; i < count; ++i) {
    double p =
        std::exp((double(logits[i]) - logits[best]) / options_.temperature);
    candidates_.emplace_back(p, i);
    total += p;
  }
  std::sort(
      candidates_.begin(), candidates_.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
      });
  double kept = 0;
  size_t n = 0;
  while (n < candidates_.size() && (n == 0 || kept < options_.topP * total))
    kept += candidates_[n++].first;
  double draw = std::uniform_real_distribution<double>(0.0, kept)(random_);
  for (size_t i = 0; i < n; ++i) {
    draw -= candidates_[i].first;
    if (draw < 0)
      return candidates_[i].second;
  }
  return candidates_[n - 1].second;
}

} // namespace autoglm::generate
