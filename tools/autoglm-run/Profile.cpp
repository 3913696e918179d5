#include "Profile.h"
#include "Json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace autoglm::run {

double KernelTotals::gflops() const {
  return medianUs > 0 ? flopsPerCall / (medianUs * 1e3) : 0;
}

std::vector<KernelTotals> totalsPerKernel(const agl_model_desc &model,
                                          const agl_profile_event *events,
                                          size_t count) {
  std::vector<KernelTotals> totals(model.num_kernels);
  for (int32_t k = 0; k < model.num_kernels; ++k) {
    totals[k].name = model.kernels[k].name;
    totals[k].flopsPerCall = model.kernels[k].flops;
  }
  std::vector<std::vector<double>> durationsUs(model.num_kernels);
  for (size_t i = 0; i < count; ++i) {
    const agl_profile_event &event = events[i];
    if (event.kernel < 0 || event.kernel >= model.num_kernels)
      continue;
    double us = double(event.end_ns - event.begin_ns) * 1e-3;
    durationsUs[event.kernel].push_back(us);
    totals[event.kernel].totalMs += us * 1e-3;
  }
  for (int32_t k = 0; k < model.num_kernels; ++k) {
    std::vector<double> &us = durationsUs[k];
    totals[k].calls = us.size();
    if (us.empty())
      continue;
    std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
    totals[k].medianUs = us[us.size() / 2];
  }
  return totals;
}

std::string chromeTrace(const agl_model_desc &model,
                        const agl_profile_event *events, size_t count) {
  uint64_t origin = UINT64_MAX;
  for (size_t i = 0; i < count; ++i)
    origin = std::min(origin, events[i].begin_ns);
  std::ostringstream json;
  json << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"model\":"
       << jsonString(model.name ? model.name : "") << ",\"kernels\":[";
  for (int32_t k = 0; k < model.num_kernels; ++k)
    json << (k ? "," : "") << jsonString(model.kernels[k].name);
  json << "]},\"traceEvents\":[";
  for (size_t i = 0; i < count; ++i) {
    const agl_profile_event &event = events[i];
    if (event.kernel < 0 || event.kernel >= model.num_kernels)
      continue;
    const agl_kernel_info &kernel = model.kernels[event.kernel];
    json << (i ? ",\n" : "\n") << "{\"name\":" << jsonString(kernel.name)
         << ",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":1,\"tid\":"
         << event.thread
         << ",\"ts\":" << jsonNumber((event.begin_ns - origin) * 1e-3)
         << ",\"dur\":" << jsonNumber((event.end_ns - event.begin_ns) * 1e-3)
         << ",\"args\":{\"kernel\":" << event.kernel
         << ",\"flops\":" << jsonNumber(kernel.flops)
         << ",\"bytes\":" << jsonNumber(kernel.bytes) << "}}";
  }
  json << "\n]}\n";
  return json.str();
}

void printTopKernels(std::ostream &os, std::vector<KernelTotals> totals,
                     size_t top, double peakGflops) {
  double allMs = 0;
  for (const KernelTotals &kernel : totals)
    allMs += kernel.totalMs;
  std::stable_sort(totals.begin(), totals.end(),
                   [](const KernelTotals &a, const KernelTotals &b) {
                     return a.totalMs > b.totalMs;
                   });
  char line[256];
  std::snprintf(line, sizeof line, "%10s %7s %6s %10s %9s %8s  %s\n",
                "total ms", "share", "calls", "median us", "GFLOP/s", "% peak",
                "kernel");
  os << line;
  for (size_t i = 0; i < totals.size() && i < top; ++i) {
    const KernelTotals &kernel = totals[i];
    double gflops = kernel.gflops();
    std::snprintf(line, sizeof line, "%10.3f %6.1f%% %6zu %10.2f ",
                  kernel.totalMs,
                  allMs > 0 ? 100 * kernel.totalMs / allMs : 0.0,
                  kernel.calls, kernel.medianUs);
    os << line;
    if (gflops > 0 && peakGflops > 0)
      std::snprintf(line, sizeof line, "%9.1f %7.1f%%", gflops,
                    100 * gflops / peakGflops);
    else if (gflops > 0)
      std::snprintf(line, sizeof line, "%9.1f %8s", gflops, "-");
    else
      std::snprintf(line, sizeof line, "%9s %8s", "-", "-");
    os << line << "  " << kernel.name << "\n";
  }
  std::snprintf(line, sizeof line, "%10.3f ms in %zu kernels", allMs,
                totals.size());
  os << line;
  if (peakGflops > 0) {
    std::snprintf(line, sizeof line, "; peak %.1f GFLOP/s", peakGflops);
    os << line;
  }
  os << "\n";
}

namespace {

// Twelve independent FMA chains hide the FMA latency on every core we know.
constexpr int kChains = 12;
constexpr long kIterations = 2000000;

double rate(int lanes, std::chrono::steady_clock::time_point start) {
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return 2.0 * lanes * kChains * kIterations / seconds * 1e-9;
}

#if defined(__x86_64__)
// The intrinsics need the target attribute on the function that uses them,
// so each width has its own loop.
__attribute__((target("avx512f"))) double avx512Rate() {
  __m512 acc[kChains], a = _mm512_set1_ps(1e-8f), b = _mm512_set1_ps(1e-8f);
  for (__m512 &v : acc)
    v = _mm512_setzero_ps();
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < kIterations; ++i)
    for (__m512 &v : acc)
      v = _mm512_fmadd_ps(a, b, v);
  volatile float sink = 0; // the loop's results are used, before the clock
  for (__m512 &v : acc)
    sink = sink + _mm512_reduce_add_ps(v);
  return rate(16, start);
}

__attribute__((target("avx2,fma"))) double avx2Rate() {
  __m256 acc[kChains], a = _mm256_set1_ps(1e-8f), b = _mm256_set1_ps(1e-8f);
  for (__m256 &v : acc)
    v = _mm256_setzero_ps();
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < kIterations; ++i)
    for (__m256 &v : acc)
      v = _mm256_fmadd_ps(a, b, v);
  volatile float sink = 0;
  for (__m256 &v : acc)
    sink = sink + _mm256_cvtss_f32(v);
  return rate(8, start);
}
#endif

} // namespace

double measurePeakGflops() {
  // The best of a few tries: the first may run before the core is at its
  // full clock, any may be preempted.
  double best = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
      best = std::max(best, avx512Rate());
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      best = std::max(best, avx2Rate());
#endif
  }
  return best;
}

} // namespace autoglm::run
