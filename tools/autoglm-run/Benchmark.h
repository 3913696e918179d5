// Timing repeated runs.
#ifndef AUTOGLM_RUN_BENCHMARK_H
#define AUTOGLM_RUN_BENCHMARK_H

#include <cstddef>
#include <functional>
#include <vector>

namespace autoglm::run {

struct LatencyStats {
  size_t runs = 0;
  double minMs = 0;
  double medianMs = 0;
  double p90Ms = 0; // nearest-rank 90th percentile
};

// Calls `body` `warmup` times untimed, then `runs` times, each timed with a
// monotonic clock; returns the latencies in milliseconds.
std::vector<double> timeRuns(const std::function<void()> &body, int warmup,
                             int runs);

LatencyStats summarizeLatencies(std::vector<double> milliseconds);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_BENCHMARK_H
