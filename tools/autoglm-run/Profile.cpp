#include "Profile.h"
#include "Json.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

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

bool isInt8Kernel(const std::string &name) {
  return name.rfind("gemm_u8s8", 0) == 0;
}

void printTopKernels(std::ostream &os, std::vector<KernelTotals> totals,
                     size_t top, double peakGflops, double int8PeakGops) {
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
    const double peak = isInt8Kernel(kernel.name) ? int8PeakGops : peakGflops;
    if (gflops > 0 && peak > 0)
      std::snprintf(line, sizeof line, "%9.1f %7.1f%%", gflops,
                    100 * gflops / peak);
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
  if (int8PeakGops > 0 &&
      std::any_of(totals.begin(), totals.end(),
                  [](const KernelTotals &k) { return isInt8Kernel(k.name); })) {
    std::snprintf(line, sizeof line, ", int8 %.1f GOP/s", int8PeakGops);
    os << line;
  }
  os << "\n";
}

} // namespace autoglm::run
