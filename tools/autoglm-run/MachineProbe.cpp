#include "MachineProbe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace autoglm::run {

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

// Twelve independent vpdpbusd chains: each instruction sums 64 products of
// a uint8 and an int8 into 16 int32 lanes (128 operations).
__attribute__((target("avx512f,avx512bw,avx512vnni"))) double vnniRate() {
  __m512i acc[kChains];
  const __m512i a = _mm512_set1_epi8(1), b = _mm512_set1_epi8(1);
  for (__m512i &v : acc)
    v = _mm512_setzero_si512();
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < kIterations; ++i)
    for (__m512i &v : acc)
      v = _mm512_dpbusd_epi32(v, a, b);
  volatile int sink = 0;
  for (__m512i &v : acc)
    sink = sink + _mm512_reduce_add_epi32(v);
  return rate(64, start);
}

// Whether the CPU has AMX int8 and Linux lets this process use the tile
// registers: the runtime's int8 GEMM asks the same (gemm_int8_amx.c).
bool amxUsable() {
  unsigned eax, ebx, ecx, edx;
  __asm__("cpuid"
          : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx)
          : "a"(7), "c"(0));
  const unsigned amxTileAndInt8 = 3u << 24;
  constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
  return __builtin_cpu_supports("avx512bw") &&
         (edx & amxTileAndInt8) == amxTileAndInt8 &&
         syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
}

// Four independent tdpbusd chains (the kernel's 2 x 2 tiles): each sums
// 16 x 16 x 64 products of a uint8 and an int8 (32768 operations).
__attribute__((target("amx-tile,amx-int8"))) double amxRate() {
  struct alignas(64) {
    uint8_t palette = 1, startRow = 0, reserved[14] = {};
    uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
    uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
  } config;
  alignas(64) static uint8_t ones[16 * 64];
  std::fill(std::begin(ones), std::end(ones), uint8_t(1));
  _tile_loadconfig(&config);
  _tile_loadd(4, ones, 64);
  _tile_loadd(5, ones, 64);
  _tile_loadd(6, ones, 64);
  _tile_loadd(7, ones, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  constexpr long kSteps = kIterations / 8;
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < kSteps; ++i) {
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  alignas(64) static int32_t sums[16 * 16];
  _tile_stored(0, sums, 64); // the results leave the tiles before the clock
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  _tile_release();
  return 2.0 * 16 * 16 * 64 * 4 * kSteps / seconds * 1e-9;
}
#endif

// The best of a few runs of `probe`: the first may run before the core is
// at its full clock, any may be preempted.
template <typename Probe> double bestOf(Probe probe) {
  double best = 0;
  for (int attempt = 0; attempt < 5; ++attempt)
    best = std::max(best, probe());
  return best;
}

} // namespace

double measurePeakGflops() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return bestOf(avx512Rate);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return bestOf(avx2Rate);
#endif
  return 0;
}

double measureInt8PeakGops() {
#if defined(__x86_64__)
  if (amxUsable())
    return bestOf(amxRate);
  if (__builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vnni"))
    return bestOf(vnniRate);
#endif
  return 0;
}

double measureReadBandwidthGBs() {
  constexpr size_t kWords = (size_t(64) << 20) / sizeof(uint64_t);
  std::vector<uint64_t> data(kWords, 1); // touched: no page faults timed
  double best = 0;
  volatile uint64_t sink = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto start = std::chrono::steady_clock::now();
    uint64_t sum = 0;
    for (uint64_t word : data)
      sum += word;
    sink = sink + sum;
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    best = std::max(best, kWords * sizeof(uint64_t) / seconds * 1e-9);
  }
  return best;
}

} // namespace autoglm::run
