/* Timing pieces shared by the kernel microbenchmarks (kernel_bench.c,
 * quant_kernel_bench.c, conv_kernel_bench.c): a clock, the comparison for
 * sorting times into medians, and the FP32 FMA peak of one core (with
 * AVX-512 where the CPU has it, else AVX2). */
#ifndef AUTOGLM_BENCH_TIMING_H
#define AUTOGLM_BENCH_TIMING_H

#include <time.h>

/* Nonzero: now() reads the CPU time of the calling thread, which on a
 * shared machine leaves out the time the thread waits for a core (for
 * 1-thread timings). Zero: wall-clock time. */
static int g_cpu_clock;

static double now(void) {
  struct timespec ts;
  clock_gettime(g_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#if defined(__x86_64__)
/* 24 independent accumulator chains (zmm0..zmm23), enough to cover the FMA
 * latency at any issue rate the core has; written in assembly so that the
 * compiler can neither spill nor fold them. */
#define FMA24(op)                                                              \
  op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11)    \
      op(12) op(13) op(14) op(15) op(16) op(17) op(18) op(19) op(20) op(21)    \
          op(22) op(23)
#define FMA_ONE(i) "vfmadd231ps %%zmm30, %%zmm31, %%zmm" #i "\n\t"
#define ZERO_ONE(i) "vxorps %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"
__attribute__((target("avx512f,fma"), noinline)) static void
fma_loop(long iterations) {
  float x = 0.999999f, y = 1e-7f;
  __asm__ volatile(
      "vbroadcastss %1, %%zmm30\n\t"
      "vbroadcastss %2, %%zmm31\n\t" FMA24(ZERO_ONE) "1:\n\t" FMA24(FMA_ONE)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(iterations)
      : "m"(x), "m"(y)
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
        "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
        "xmm23", "xmm30", "xmm31", "cc");
}

/* The same with ymm registers, for CPUs without AVX-512: 12 chains
 * (ymm0..ymm11) fill the two FMA pipes at a 4-5 cycle latency. */
#define FMA12(op)                                                              \
  op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11)
#define FMA_YMM(i) "vfmadd231ps %%ymm14, %%ymm15, %%ymm" #i "\n\t"
__attribute__((target("avx2,fma"), noinline)) static void
fma_loop_avx2(long iterations) {
  float x = 0.999999f, y = 1e-7f;
  __asm__ volatile("vbroadcastss %1, %%ymm14\n\t"
                   "vbroadcastss %2, %%ymm15\n\t" FMA12(
                       ZERO_ONE) "1:\n\t" FMA12(FMA_YMM) "dec %0\n\t"
                                                         "jnz 1b\n\t"
                                                         "vzeroupper\n\t"
                   : "+r"(iterations)
                   : "m"(x), "m"(y)
                   : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                     "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14", "xmm15",
                     "cc");
}

/* GFLOP/s of the FMA loop with the widest vectors the CPU has (0 without
 * FMA): `warmup` iterations to clock up, then the best of `rounds` runs of
 * `iterations`, timed with now(). */
static double measure_peak_with(long warmup, int rounds, long iterations) {
  __builtin_cpu_init();
  int wide = __builtin_cpu_supports("avx512f");
  if (!wide &&
      !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
    return 0;
  /* Floating-point operations per iteration. */
  double flops = wide ? 24.0 * 16 * 2 : 12.0 * 8 * 2;
  wide ? fma_loop(warmup) : fma_loop_avx2(warmup);
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    double t0 = now();
    wide ? fma_loop(iterations) : fma_loop_avx2(iterations);
    double gflops = flops * (double)iterations / (now() - t0) / 1e9;
    if (gflops > best)
      best = gflops;
  }
  return best;
}
#else
static double measure_peak_with(long warmup, int rounds, long iterations) {
  (void)warmup, (void)rounds, (void)iterations;
  return 0;
}
#endif

#endif /* AUTOGLM_BENCH_TIMING_H */
