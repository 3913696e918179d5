// Quick measurements of this machine, for the rates that profiles and plan
// explanations compare against.
#ifndef AUTOGLM_RUN_MACHINEPROBE_H
#define AUTOGLM_RUN_MACHINEPROBE_H

namespace autoglm::run {

// Single-thread FP32 FMA peak of this CPU in GFLOP/s, measured with a short
// loop of independent FMAs at the widest vector width it has (AVX-512,
// else AVX2); 0 on other CPUs. About 50 ms.
double measurePeakGflops();

// Single-thread peak of uint8 x int8 products summed into int32, in GOP/s
// (two operations a product), measured like the FP32 peak on the unit the
// int8 GEMM runs on: AMX (tdpbusd) where the CPU has it and the process may
// use it, else AVX-512 VNNI (vpdpbusd); 0 on other CPUs, whose int8 kernel
// has no single instruction to measure. About 50 ms.
double measureInt8PeakGops();

// Single-thread read bandwidth from memory in GB/s: the best of a few sums
// over 64 MiB, far larger than the caches. About 100 ms.
double measureReadBandwidthGBs();

} // namespace autoglm::run

#endif // AUTOGLM_RUN_MACHINEPROBE_H
