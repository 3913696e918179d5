// Kernel profiles of models compiled with --profile: the Chrome trace and
// the table of the kernels that took the most time.
#ifndef AUTOGLM_RUN_PROFILE_H
#define AUTOGLM_RUN_PROFILE_H

#include "autoglm/runtime.h"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace autoglm::run {

// One kernel's calls, summed over the profiled runs.
struct KernelTotals {
  std::string name;
  size_t calls = 0;
  double totalMs = 0;
  double medianUs = 0; // of one call: robust against preempted calls
  double flopsPerCall = 0;
  double gflops() const; // GFLOP/s of the median call; 0 when FLOPs unknown
};

// Per kernel of the model's table, in table order.
std::vector<KernelTotals> totalsPerKernel(const agl_model_desc &model,
                                          const agl_profile_event *events,
                                          size_t count);

// The events as Chrome trace JSON (chrome://tracing, Perfetto): one
// complete event per kernel call, times in microseconds from the first
// event, with the kernel's FLOPs and bytes as arguments.
std::string chromeTrace(const agl_model_desc &model,
                        const agl_profile_event *events, size_t count);

// The uint8 x int8 GEMMs, which the int8 peak bounds: their names start
// with the runtime kernel's.
bool isInt8Kernel(const std::string &name);

// The `top` kernels by total time: time, share of all kernel time, calls,
// median call, GFLOP/s and share of the machine's peak for all threads
// used: `int8PeakGops` for the uint8 x int8 GEMMs (none shown where it is
// 0), `peakGflops` for the others.
void printTopKernels(std::ostream &os, std::vector<KernelTotals> totals,
                     size_t top, double peakGflops, double int8PeakGops);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_PROFILE_H
