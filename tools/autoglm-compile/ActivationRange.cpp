//===- ActivationRange.cpp - an activation's int8 range from what it took -===//

#include "ActivationRange.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace autoglm {

ActivationRange minMaxRange(const std::vector<float> &values) {
  if (values.empty())
    return {};
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {*lo, *hi};
}

ActivationRange percentileRange(std::vector<float> &values, double percentile) {
  if (values.empty())
    return {};
  double tail = (100.0 - percentile) / 100.0;
  size_t last = values.size() - 1;
  size_t low = static_cast<size_t>(std::floor(tail * last));
  size_t high = last - low;
  std::nth_element(values.begin(), values.begin() + low, values.end());
  double below = values[low];
  std::nth_element(values.begin(), values.begin() + high, values.end());
  return {below, values[high]};
}

namespace {

constexpr int kMaxBins = 2048, kLevels = 256, kGrid = 16;
// Values per histogram bin, at least: a sparser histogram's empty tail
// bins make clipping look free.
constexpr size_t kValuesPerBin = 32;

/// KL(P || Q) of the window [begin, end) of `hist` (see entropyRange).
double windowDivergence(const std::vector<double> &hist,
                        const std::vector<double> &prefix, int begin, int end) {
  const int n = end - begin, bins = hist.size();
  std::vector<double> p(hist.begin() + begin, hist.begin() + end);
  p.front() += prefix[begin];
  p.back() += prefix[bins] - prefix[end];
  std::vector<double> q(n, 0.0);
  for (int level = 0; level < kLevels; ++level) {
    int a = level * n / kLevels, b = (level + 1) * n / kLevels;
    double mass = prefix[begin + b] - prefix[begin + a];
    int nonempty = 0;
    for (int k = a; k < b; ++k)
      nonempty += hist[begin + k] > 0;
    for (int k = a; k < b; ++k)
      if (hist[begin + k] > 0)
        q[k] = mass / nonempty;
  }
  double pSum = prefix[bins], qSum = prefix[end] - prefix[begin];
  // An observed bin that the quantized distribution left empty (outliers
  // clipped into an empty end bin): a small probability, not infinity.
  constexpr double kFloor = 1e-10;
  double divergence = 0;
  for (int k = 0; k < n; ++k) {
    if (p[k] <= 0)
      continue;
    double pk = p[k] / pSum, qk = std::max(q[k] / qSum, kFloor);
    divergence += pk * std::log(pk / qk);
  }
  return divergence;
}

} // namespace

ActivationRange entropyRange(const std::vector<float> &values) {
  ActivationRange full = minMaxRange(values);
  double lo = std::min(full.lo, 0.0), hi = std::max(full.hi, 0.0);
  if (!(hi > lo))
    return full;
  const int bins = static_cast<int>(std::clamp<size_t>(
      values.size() / kValuesPerBin / kLevels * kLevels, kLevels, kMaxBins));
  const double width = (hi - lo) / bins;
  auto binOf = [&](double x) {
    return std::clamp(static_cast<int>((x - lo) / width), 0, bins - 1);
  };
  std::vector<double> hist(bins, 0.0);
  for (float v : values)
    hist[binOf(v)] += 1;
  std::vector<double> prefix(bins + 1, 0.0);
  for (int b = 0; b < bins; ++b)
    prefix[b + 1] = prefix[b] + hist[b];

  const int zero = binOf(0.0);
  int bestBegin = 0, bestEnd = bins;
  double best = std::numeric_limits<double>::infinity();
  // Window starts on the grid up to the zero bin (and the zero bin itself),
  // ends likewise from the zero bin's end to the last bin.
  std::vector<int> begins, ends;
  for (int b = 0; b < zero; b += kGrid)
    begins.push_back(b);
  begins.push_back(zero);
  for (int e = bins; e > zero + 1; e -= kGrid)
    ends.push_back(e);
  ends.push_back(zero + 1);
  for (int begin : begins)
    for (int end : ends) {
      if (end - begin < kLevels)
        continue;
      double d = windowDivergence(hist, prefix, begin, end);
      if (d < best) {
        best = d;
        bestBegin = begin;
        bestEnd = end;
      }
    }
  return {lo + bestBegin * width, lo + bestEnd * width};
}

} // namespace autoglm
