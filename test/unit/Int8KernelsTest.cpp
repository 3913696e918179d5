// Tests of the uint8 x int8 GEMM (autoglm/kernels_int8.h):
// agl_kernel_gemm_u8s8 against a plain loop in 64-bit integers, on sizes
// around the micro-kernel's boundaries (14 rows, 32 columns, depth quads),
// zero points 0, 128, 255 and others, batches with padded strides, int32
// output (compared exactly) and the float epilogue (scale, alpha, bias, every
// activation, residual), the cost model's blocking and small ones that split
// rows and depths into many blocks, both kernels (the AVX-512 VNNI one only
// where the CPU has it) and 1 and 2 threads. Also the packing's layout and
// that A is never read past its last row's end. The requantizing entry
// point against the float epilogue quantized afterwards.
//
// Tolerance of the float epilogue: the sum is exact in int32 and rounded to
// float once (2^-24 relative), alpha * scale[j] rounds once more, and the
// activations are good to a few ulp, so |C - reference| <= 1e-6 * (|alpha
// scale[j] acc| + |bias[j]|) + 1e-6 |residual| + 1e-30.
#include "autoglm/kernels_int8.h"
#include "autoglm/runtime.h"
#include "KernelTestSupport.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

struct agl_gemm_isa;
extern "C" const agl_gemm_isa *agl_gemm_select(int which);
extern "C" void agl_s8_allow_amx(int allow);
#if defined(__x86_64__)
extern "C" int agl_s8_amx_usable(void);
#endif

using autoglm::test::activate;
using autoglm::test::Aligned;

namespace {

bool cpu_has_vnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni") &&
         __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool cpu_has_avx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
#else
  return false;
#endif
}

bool cpu_has_amx() {
#if defined(__x86_64__)
  return cpu_has_vnni() && agl_s8_amx_usable();
#else
  return false;
#endif
}

// The kernels: agl_gemm_select's codes (1 portable, 2 the best, 3 AVX2),
// the best with AMX barred (VNNI) or allowed.
enum { kPortable = 1, kVnni = 2, kAvx2 = 3, kAmx = 4 };
const int kIsas[] = {kPortable, kVnni, kAvx2, kAmx};

bool cpu_runs(int isa) {
  return isa == kPortable || (isa == kVnni && cpu_has_vnni()) ||
         (isa == kAvx2 && cpu_has_avx2()) || (isa == kAmx && cpu_has_amx());
}

void selectIsa(int isa) {
  agl_gemm_select(isa == kAmx ? kVnni : isa);
  agl_s8_allow_amx(isa == kAmx);
}

struct Case {
  int64_t batch, m, n, k;
  int32_t zero_point;
  bool float_out = false;
  float alpha = 1.0f;
  bool bias = false, residual = false;
  int act = AGL_ACT_NONE;
  // With a residual: the AGL_ACT_* of a gate (AGL_ACT_GATED), or -1 to add it.
  int gate = -1;
  bool small_blocks = false;
  bool misaligned = false; // B packed at an odd address
  int64_t a_rs = 0;         // A's row stride; 0: k + 3
};

std::string describe(const Case &c, int threads) {
  return "batch=" + std::to_string(c.batch) + " m=" + std::to_string(c.m) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         " zp=" + std::to_string(c.zero_point) +
         (c.float_out ? " float alpha=" + std::to_string(c.alpha) +
                            " act=" + std::to_string(c.act)
                      : " int32") +
         (c.bias ? " bias" : "") + (c.residual ? " residual" : "") +
         (c.gate >= 0 ? " gate=" + std::to_string(c.gate) : "") +
         (c.small_blocks ? " small blocks" : "") +
         (c.misaligned ? " misaligned B" : "") +
         (c.a_rs ? " a_rs=" + std::to_string(c.a_rs) : "") +
         " threads=" + std::to_string(threads);
}

int check(const Case &c, int threads, std::mt19937 &rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // B: k x n int8 (the full range, -128 included), packed.
  std::vector<int8_t> b(c.k * c.n);
  for (int8_t &x : b)
    x = static_cast<int8_t>(byte(rng) - 128);
  Aligned storage(agl_s8_packed_bytes(c.k, c.n) + 1);
  void *packed = static_cast<char *>(storage.data) + (c.misaligned ? 1 : 0);
  agl_pack_b_s8(b.data(), c.k, c.n, c.n, 1, packed);
  // A: batch x m x k uint8 with padded rows and batch entries.
  int64_t a_rs = c.a_rs ? c.a_rs : c.k + 3, a_bs = c.m * a_rs + 5;
  std::vector<uint8_t> a(c.batch * a_bs);
  for (uint8_t &x : a)
    x = static_cast<uint8_t>(byte(rng));
  // C (int32 or float, 4 bytes either way) with padded strides, whose gaps
  // must stay untouched.
  int64_t c_rs = c.n + 5, c_bs = c.m * c_rs + 3;
  std::vector<uint32_t> out(c.batch * c_bs);
  for (uint32_t &x : out)
    x = static_cast<uint32_t>(rng());
  std::vector<uint32_t> before = out;
  std::vector<float> scale(c.n), bias(c.n);
  for (float &x : scale)
    x = std::ldexp(dist(rng), -12);
  for (float &x : bias)
    x = dist(rng);
  int64_t r_rs = c.n + 3, r_bs = c.m * r_rs + 1;
  std::vector<float> res(c.batch * r_bs);
  for (float &x : res)
    x = dist(rng);
  agl_gemm_blocking small = {2, 64, 28};
  agl_kernel_gemm_u8s8(c.batch, c.m, c.n, c.k, a.data(), a_bs, a_rs,
                       c.zero_point, packed, out.data(), c_bs, c_rs, c.alpha,
                       c.float_out ? scale.data() : nullptr,
                       c.bias ? bias.data() : nullptr,
                       c.gate >= 0 ? c.act | AGL_ACT_GATED(c.gate) : c.act,
                       c.residual ? res.data() : nullptr, r_bs, r_rs,
                       c.small_blocks ? &small : nullptr);
  int failures = 0;
  std::vector<bool> written(out.size());
  for (int64_t bt = 0; bt < c.batch; ++bt)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        int64_t at = bt * c_bs + i * c_rs + j;
        written[at] = true;
        int64_t acc = 0;
        for (int64_t p = 0; p < c.k; ++p)
          acc += (int64_t(a[bt * a_bs + i * a_rs + p]) - c.zero_point) *
                 b[p * c.n + j];
        if (!c.float_out) {
          int32_t got;
          std::memcpy(&got, &out[at], 4);
          if (got != acc && ++failures <= 3)
            ADD_FAILURE() << describe(c, threads) << ": C[" << bt << "," << i
                          << "," << j << "] = " << got << ", expected "
                          << acc;
          continue;
        }
        float got;
        std::memcpy(&got, &out[at], 4);
        double x = double(c.alpha) * scale[j] * double(acc);
        double bound = std::fabs(x);
        if (c.bias) {
          x += bias[j];
          bound += std::fabs(bias[j]);
        }
        double r = c.residual ? res[bt * r_bs + i * r_rs + j] : 0.0;
        double expected = activate(x, c.act) + r;
        double tolerance = 1e-6 * bound + 1e-6 * std::fabs(r) + 1e-30;
        if (c.residual && c.gate >= 0) {
          // Both factors carry their own errors.
          double gate = activate(r, c.gate), y = activate(x, c.act);
          expected = y * gate;
          tolerance =
              1e-6 * (bound + std::fabs(y)) * (std::fabs(gate) + std::fabs(r)) +
              1e-30;
        }
        if (!(std::fabs(got - expected) <= tolerance) && ++failures <= 3)
          ADD_FAILURE() << describe(c, threads) << ": C[" << bt << "," << i
                        << "," << j << "] = " << got << ", expected "
                        << expected << " (tolerance " << tolerance << ")";
      }
  for (size_t at = 0; at < out.size(); ++at)
    if (!written[at] && out[at] != before[at] && ++failures <= 3)
      ADD_FAILURE() << describe(c, threads) << ": wrote outside C at " << at;
  return failures;
}

class Int8KernelsTest : public ::testing::Test {
protected:
  void TearDown() override {
    agl_gemm_select(0);
    agl_s8_allow_amx(1);
    ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
  }
};

const int64_t kM[] = {1, 2, 13, 14, 15, 16, 33, 64, 100};
const int64_t kN[] = {1, 31, 32, 33, 96, 200};
const int64_t kK[] = {1, 3, 4, 5, 64, 255, 513};
const int kActs[] = {AGL_ACT_NONE, AGL_ACT_RELU, AGL_ACT_GELU_ERF,
                     AGL_ACT_GELU_TANH, AGL_ACT_SILU};

// Every (m, n, k), with the zero point, batch, output and epilogue cycling
// through their variants.
void sweep(int isa, int threads, int &failures) {
  selectIsa(isa);
  ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
  std::mt19937 rng(2024 + isa * 10 + threads);
  std::uniform_int_distribution<int32_t> any_zero_point(1, 254);
  int variant = 0;
  for (int64_t m : kM)
    for (int64_t n : kN)
      for (int64_t k : kK) {
        ++variant;
        const int32_t zero_points[] = {0, 128, 255, any_zero_point(rng)};
        Case c{variant % 2 ? 1 : 2, m, n, k, zero_points[variant % 4]};
        c.small_blocks = variant % 3 == 0;
        c.misaligned = variant % 5 == 2;
        failures += check(c, threads, rng); // int32 output
        // The float epilogue: each part alone and all together.
        c.float_out = true;
        c.act = kActs[variant % 5];
        c.alpha = variant % 4 == 1 ? -0.75f : 1.0f;
        c.bias = variant % 3 != 1;
        c.residual = variant % 4 >= 2;
        failures += check(c, threads, rng);
        c.act = AGL_ACT_GELU_ERF;
        c.alpha = 0.5f;
        c.bias = c.residual = true;
        failures += check(c, threads, rng);
        // SwiGLU's up projection, the product times silu(gate), and
        // another gate.
        c.act = AGL_ACT_NONE;
        c.bias = false;
        c.gate = AGL_ACT_SILU;
        failures += check(c, threads, rng);
        c.act = AGL_ACT_RELU;
        c.gate = kActs[variant % 5];
        failures += check(c, threads, rng);
        c.gate = -1;
        if (failures > 10)
          return;
      }
}

TEST_F(Int8KernelsTest, MatchesReferencePortable) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(kPortable, threads, failures);
  EXPECT_EQ(failures, 0);
}

TEST_F(Int8KernelsTest, MatchesReferenceAvx512Vnni) {
  if (!cpu_has_vnni())
    GTEST_SKIP() << "this CPU lacks AVX-512 VNNI";
  int failures = 0;
  for (int threads : {1, 2})
    sweep(kVnni, threads, failures);
  EXPECT_EQ(failures, 0);
}

TEST_F(Int8KernelsTest, MatchesReferenceAmx) {
  if (!cpu_has_amx())
    GTEST_SKIP() << "this CPU (or this kernel) gives no AMX int8";
  int failures = 0;
  for (int threads : {1, 2})
    sweep(kAmx, threads, failures);
  EXPECT_EQ(failures, 0);
}

TEST_F(Int8KernelsTest, MatchesReferenceAvx2) {
  if (!cpu_has_avx2())
    GTEST_SKIP() << "this CPU lacks AVX2";
  int failures = 0;
  for (int threads : {1, 2})
    sweep(kAvx2, threads, failures);
  EXPECT_EQ(failures, 0);
}

// Rows of A whose stride crowds L1 sets (a multiple of 4 KiB, and of 2 KiB
// for AMX's 32 rows) are packed even when k is a multiple of 4 (elsewhere
// they are read in place); k equal to the stride also gives packed rows
// that would be such a stride.
TEST_F(Int8KernelsTest, RowStridesOf2And4KiB) {
  for (int isa : kIsas) {
    if (!cpu_runs(isa))
      continue;
    selectIsa(isa);
    std::mt19937 rng(31 + isa);
    int failures = 0;
    for (int64_t a_rs : {int64_t{2048}, int64_t{4096}})
      for (int64_t k : {int64_t{64}, a_rs}) {
        Case c{2, 40, 33, k, 77};
        c.a_rs = a_rs;
        failures += check(c, 1, rng);
        c.float_out = c.bias = c.residual = true;
        c.act = AGL_ACT_SILU;
        failures += check(c, 1, rng);
      }
    EXPECT_EQ(failures, 0) << "isa " << isa;
  }
}

// ONNX QuantizeLinear to uint8, as the requantizing kernel documents it.
uint8_t quantizeU8(float y, float scale, int32_t zero_point) {
  float q = std::nearbyint(y / scale) + float(zero_point);
  return q >= 255.0f ? 255 : q >= 0.0f ? uint8_t(q) : 0;
}

// agl_kernel_gemm_u8s8_requantize against agl_kernel_gemm_u8s8's float
// epilogue quantized afterwards: equal bytes (the same epilogue, then the
// same division and rounding; GELU's form on AVX-512 is within about an ulp
// of the float epilogue's, which would move a byte only for a value that
// close to a rounding boundary: none in these draws), `slack` apart where
// plain loops compute it
// (their float epilogue rounds in another order). Outputs reach past 255,
// and past 0 without an activation; C's gaps stay untouched.
int checkRequantize(int64_t m, int64_t n, int64_t k, int32_t zero_point,
                    int act, bool bias_on, bool residual_on,
                    const agl_gemm_blocking *blocking, int slack,
                    std::mt19937 &rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<int8_t> b(k * n);
  for (int8_t &x : b)
    x = static_cast<int8_t>(byte(rng) - 128);
  Aligned packed(agl_s8_packed_bytes(k, n));
  agl_pack_b_s8(b.data(), k, n, n, 1, packed.data);
  const int64_t batch = 2, a_rs = k + 1, a_bs = m * a_rs + 3;
  std::vector<uint8_t> a(batch * a_bs);
  for (uint8_t &x : a)
    x = static_cast<uint8_t>(byte(rng));
  // Sums of about sqrt(k) * 128 * 74 scaled to about +-4.
  std::vector<float> scale(n), bias(n);
  for (float &x : scale)
    x = (1.0f + 0.5f * dist(rng)) * 4.0f /
        (128.0f * 74.0f * std::sqrt(float(k)));
  for (float &x : bias)
    x = dist(rng);
  const int64_t r_rs = n + 2, r_bs = m * r_rs + 1;
  std::vector<float> res(batch * r_bs);
  for (float &x : res)
    x = dist(rng);
  const int64_t c_rs = n + 3, c_bs = m * c_rs + 2;
  std::vector<float> floats(batch * c_bs);
  agl_kernel_gemm_u8s8(batch, m, n, k, a.data(), a_bs, a_rs, zero_point,
                       packed.data, floats.data(), c_bs, c_rs, 0.75f,
                       scale.data(), bias_on ? bias.data() : nullptr, act,
                       residual_on ? res.data() : nullptr, r_bs, r_rs,
                       blocking);
  std::vector<uint8_t> out(batch * c_bs, 0xA5);
  const float out_scale = 0.02f;
  const int32_t out_zero_point = 128;
  agl_kernel_gemm_u8s8_requantize(
      batch, m, n, k, a.data(), a_bs, a_rs, zero_point, packed.data,
      out.data(), c_bs, c_rs, 0.75f, scale.data(),
      bias_on ? bias.data() : nullptr, act,
      residual_on ? res.data() : nullptr, r_bs, r_rs, out_scale,
      out_zero_point, blocking);
  int failures = 0, low = 0, high = 0;
  std::vector<bool> written(out.size());
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = bt * c_bs + i * c_rs + j;
        written[at] = true;
        const int expected = quantizeU8(floats[at], out_scale, out_zero_point);
        low += expected == 0;
        high += expected == 255;
        if (std::abs(int(out[at]) - expected) > slack && ++failures <= 3)
          ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k
                        << " act=" << act << ": C[" << bt << "," << i << ","
                        << j << "] = " << int(out[at]) << ", expected "
                        << expected << " (float " << floats[at] << ")";
      }
  for (size_t at = 0; at < out.size(); ++at)
    if (!written[at] && out[at] != 0xA5 && ++failures <= 3)
      ADD_FAILURE() << "wrote outside C at " << at;
  // Both ends, but for activations that keep values above -0.3 (a gate's
  // factor, below 1, keeps most values inside).
  const bool gated = act & AGL_ACT_GATE_FLAG;
  if (m >= 14 && n >= 32 && !gated &&
      (high == 0 || (act == AGL_ACT_NONE && low == 0)) && ++failures)
    ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k
                  << ": no output saturated at 0 or 255 (" << low << ", "
                  << high << ")";
  return failures;
}

// Runs `body(isa, threads)` for every kernel this CPU runs (selected) at 1
// and 2 threads.
template <typename Body> void forEachIsaAndThreads(Body body) {
  for (int isa : kIsas) {
    if (!cpu_runs(isa))
      continue;
    selectIsa(isa);
    for (int threads : {1, 2}) {
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      body(isa, threads);
    }
  }
}

TEST_F(Int8KernelsTest, RequantizeMatchesTheFloatEpilogueQuantized) {
  // Small blocks that split the float path's depths: the requantizing one
  // takes every depth in one block all the same.
  const agl_gemm_blocking small = {2, 64, 28};
  forEachIsaAndThreads([&](int isa, int threads) {
    std::mt19937 rng(77 + isa * 10 + threads);
    int failures = 0, variant = 0;
    for (int64_t m : {1, 14, 15, 100})
      for (int64_t n : {1, 33, 96})
        for (int64_t k : {3, 64, 513}) {
          ++variant;
          failures += checkRequantize(
              m, n, k, variant % 3 ? 128 : 7, kActs[variant % 5],
              variant % 2 == 0, variant % 3 == 1,
              variant % 4 == 0 ? &small : nullptr, 0, rng);
          // SwiGLU's up projection quantized for the down projection.
          failures += checkRequantize(
              m, n, k, 128, AGL_ACT_GATED(AGL_ACT_SILU), false, true,
              variant % 4 == 0 ? &small : nullptr, 0, rng);
        }
    EXPECT_EQ(failures, 0) << "isa " << isa << " threads " << threads;
  });
}

// A depth too large for the packing memory in one block (14 rows of k
// bytes): plain loops, which round the float epilogue in their own order.
TEST_F(Int8KernelsTest, RequantizeBeyondThePackingMemory) {
  std::mt19937 rng(5);
  EXPECT_EQ(checkRequantize(3, 40, 200001, 128, AGL_ACT_GELU_ERF, true, true,
                            nullptr, 1, rng),
            0);
}

// agl_kernel_gemm_u8s8_transposed against agl_kernel_gemm_u8s8's int32
// sums: the same numbers, column j of C a run of m int32 at j *
// c_col_stride; the gaps between columns and batch entries untouched.
int checkTransposed(int64_t batch, int64_t m, int64_t n, int64_t k,
                    int32_t zero_point, const agl_gemm_blocking *blocking,
                    std::mt19937 &rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<int8_t> b(k * n);
  for (int8_t &x : b)
    x = static_cast<int8_t>(byte(rng) - 128);
  Aligned packed(agl_s8_packed_bytes(k, n));
  agl_pack_b_s8(b.data(), k, n, n, 1, packed.data);
  const int64_t a_rs = k + 1, a_bs = m * a_rs + 3;
  std::vector<uint8_t> a(batch * a_bs);
  for (uint8_t &x : a)
    x = static_cast<uint8_t>(byte(rng));
  std::vector<int32_t> rows(batch * m * n);
  agl_kernel_gemm_u8s8(batch, m, n, k, a.data(), a_bs, a_rs, zero_point,
                       packed.data, rows.data(), m * n, n, 1.0f, nullptr,
                       nullptr, AGL_ACT_NONE, nullptr, 0, 0, blocking);
  const int64_t c_cs = m + 5, c_bs = n * c_cs + 2;
  std::vector<int32_t> cols(batch * c_bs, 0x5A5A5A5A);
  agl_kernel_gemm_u8s8_transposed(batch, m, n, k, a.data(), a_bs, a_rs,
                                  zero_point, packed.data, cols.data(), c_bs,
                                  c_cs, blocking);
  int failures = 0;
  for (int64_t at = 0; at < (int64_t)cols.size(); ++at) {
    const int64_t bt = at / c_bs, j = at % c_bs / c_cs, i = at % c_bs % c_cs;
    const bool inside = j < n && i < m;
    const int32_t want = inside ? rows[(bt * m + i) * n + j] : 0x5A5A5A5A;
    if (cols[at] != want && ++failures <= 3)
      ADD_FAILURE() << "m=" << m << " n=" << n << " k=" << k
                    << (inside ? ": C[" : ": gap at [") << bt << "," << i << ","
                    << j << "] = " << cols[at] << ", expected " << want;
  }
  return failures;
}

TEST_F(Int8KernelsTest, TransposedMatchesTheRowMajorSums) {
  // Small blocks too: the transposed product still takes every depth in
  // one block.
  const agl_gemm_blocking small = {2, 64, 28};
  forEachIsaAndThreads([&](int isa, int threads) {
    std::mt19937 rng(91 + isa * 10 + threads);
    int failures = 0, variant = 0;
    for (int64_t m : {1, 13, 14, 15, 49, 100})
      for (int64_t n : {1, 16, 17, 33, 64})
        for (int64_t k : {3, 64, 147, 576}) {
          ++variant;
          failures += checkTransposed(variant % 2 ? 1 : 2, m, n, k,
                                      variant % 3 ? 134 : 0,
                                      variant % 4 == 0 ? &small : nullptr, rng);
        }
    EXPECT_EQ(failures, 0) << "isa " << isa << " threads " << threads;
  });
}

// A depth too large for the packing memory in one block (k % 4 != 0, so
// A's rows are packed, and 14 of them do not fit): plain loops; and
// k == 0: zeros.
TEST_F(Int8KernelsTest, TransposedBeyondThePackingMemoryAndAtZeroDepth) {
  std::mt19937 rng(6);
  EXPECT_EQ(checkTransposed(1, 3, 40, 200001, 128, nullptr, rng), 0);
  Aligned packed(64);
  std::vector<int32_t> c(2 * 7, 9);
  agl_kernel_gemm_u8s8_transposed(1, 3, 2, 0, nullptr, 0, 0, 5, packed.data,
                                  c.data(), 14, 7, nullptr);
  for (int64_t at = 0; at < 14; ++at)
    EXPECT_EQ(c[at], at % 7 < 3 ? 0 : 9) << at;
}

// k == 0: the sum is 0, the epilogue still applies.
TEST_F(Int8KernelsTest, ZeroDepth) {
  const int64_t m = 3, n = 5;
  Aligned packed(64);
  std::vector<int32_t> ci(m * n, 7);
  agl_kernel_gemm_u8s8(1, m, n, 0, nullptr, 0, 0, 9, packed.data, ci.data(),
                       0, n, 1.0f, nullptr, nullptr, 0, nullptr, 0, 0,
                       nullptr);
  for (int32_t x : ci)
    EXPECT_EQ(x, 0);
  std::vector<float> cf(m * n, 7.0f), scale(n, 1.0f), bias(n), res(m * n);
  for (int64_t j = 0; j < n; ++j)
    bias[j] = float(j) - 2;
  for (int64_t i = 0; i < m * n; ++i)
    res[i] = 0.25f * float(i);
  agl_kernel_gemm_u8s8(1, m, n, 0, nullptr, 0, 0, 9, packed.data, cf.data(),
                       0, n, 1.0f, scale.data(), bias.data(), AGL_ACT_RELU,
                       res.data(), 0, n, nullptr);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_EQ(cf[i * n + j], std::max(bias[j], 0.0f) + res[i * n + j]);
}

// A's last row ends at an inaccessible page: the kernels read only A's own
// bytes, whatever k % 4 (rows read in place with k % 4 == 0, packed with a
// zero-padded last quad otherwise).
TEST_F(Int8KernelsTest, ReadsNoFurtherThanA) {
  const long page = sysconf(_SC_PAGESIZE);
  void *map = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char *>(map) + page, page, PROT_NONE), 0);
  for (int isa : kIsas) {
    if (!cpu_runs(isa))
      continue;
    selectIsa(isa);
    for (int64_t k : {1, 4, 5, 63, 64, 130})
      for (int64_t m : {15, 30}) {
        const int64_t n = 33;
        uint8_t *a = static_cast<uint8_t *>(map) + page - m * k;
        for (int64_t i = 0; i < m * k; ++i)
          a[i] = static_cast<uint8_t>(i * 37);
        std::vector<int8_t> b(k * n);
        for (int64_t i = 0; i < k * n; ++i)
          b[i] = static_cast<int8_t>(i * 11);
        Aligned packed(agl_s8_packed_bytes(k, n));
        agl_pack_b_s8(b.data(), k, n, n, 1, packed.data);
        std::vector<int32_t> c(m * n);
        agl_kernel_gemm_u8s8(1, m, n, k, a, 0, k, 3, packed.data, c.data(), 0,
                             n, 1.0f, nullptr, nullptr, 0, nullptr, 0, 0,
                             nullptr);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            int64_t acc = 0;
            for (int64_t p = 0; p < k; ++p)
              acc += (int64_t(a[i * k + p]) - 3) * b[p * n + j];
            ASSERT_EQ(c[i * n + j], acc) << "isa " << isa << " k " << k;
          }
      }
  }
  munmap(map, 2 * page);
}

// Every call from inside a parallel region runs serially, still exact.
TEST_F(Int8KernelsTest, NestedInParallelRegion) {
  ASSERT_EQ(agl_set_num_threads(2), AGL_OK);
  struct Ctx {
    int failures = 0;
  } ctx;
  agl_parallel_for(
      2, 1,
      [](void *raw, int64_t begin, int64_t end) {
        auto *ctx = static_cast<Ctx *>(raw);
        for (int64_t t = begin; t < end; ++t) {
          std::mt19937 rng(55 + t);
          Case c{1, t == 0 ? 3 : 40, 70, 150, 128};
          c.float_out = t == 1;
          ctx->failures += check(c, 1, rng);
        }
      },
      &ctx);
  EXPECT_EQ(ctx.failures, 0);
}

// The layout: whole 64-byte multiples, the column sums first, weight (p, j)
// where agl_s8_packed_offset says, zero padding, and any strides of B.
TEST(Int8PackTest, Layout) {
  const int64_t k = 7, n = 37;
  std::vector<int8_t> b(k * n), bt(k * n);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      bt[j * k + p] = b[p * n + j] = static_cast<int8_t>(p * 31 - j * 7);
  const int64_t bytes = agl_s8_packed_bytes(k, n);
  EXPECT_EQ(bytes % 64, 0);
  EXPECT_EQ(bytes, 2 * (128 + 2 * 128));
  std::vector<unsigned char> x(bytes, 0xAB), y(bytes, 0xCD);
  agl_pack_b_s8(b.data(), k, n, n, 1, x.data());
  agl_pack_b_s8(bt.data(), k, n, 1, k, y.data());
  EXPECT_EQ(x, y);
  for (int64_t j = 0; j < 64; ++j) {
    int32_t sum = 0, stored;
    for (int64_t p = 0; p < k && j < n; ++p)
      sum += b[p * n + j];
    std::memcpy(&stored, &x[j / 32 * agl_s8_panel_bytes(k) + j % 32 * 4], 4);
    EXPECT_EQ(stored, sum) << "column " << j;
    for (int64_t p = 0; p < 8; ++p) {
      int8_t w = p < k && j < n ? b[p * n + j] : 0;
      EXPECT_EQ(static_cast<int8_t>(x[agl_s8_packed_offset(k, p, j)]), w)
          << "p " << p << " j " << j;
    }
  }
}

} // namespace
