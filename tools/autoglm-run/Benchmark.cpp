#include "Benchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace autoglm::run {

std::vector<double> timeRuns(const std::function<void()> &body, int warmup,
                             int runs) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i)
    body();
  std::vector<double> milliseconds;
  milliseconds.reserve(static_cast<size_t>(std::max(runs, 0)));
  for (int i = 0; i < runs; ++i) {
    const Clock::time_point start = Clock::now();
    body();
    const std::chrono::duration<double, std::milli> elapsed =
        Clock::now() - start;
    milliseconds.push_back(elapsed.count());
  }
  return milliseconds;
}

LatencyStats summarizeLatencies(std::vector<double> milliseconds) {
  LatencyStats stats;
  stats.runs = milliseconds.size();
  if (milliseconds.empty())
    return stats;
  std::sort(milliseconds.begin(), milliseconds.end());
  const size_t n = milliseconds.size();
  stats.minMs = milliseconds.front();
  stats.medianMs = n % 2 ? milliseconds[n / 2]
                         : (milliseconds[n / 2 - 1] + milliseconds[n / 2]) / 2;
  const size_t rank =
      static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  stats.p90Ms = milliseconds[std::max<size_t>(rank, 1) - 1];
  return stats;
}

} // namespace autoglm::run
