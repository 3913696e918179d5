// Tests of the weight-only quantized GEMMs (autoglm/kernels_quant.h):
// agl_kernel_sgemm_q8 / agl_kernel_sgemm_q4 against a triple loop in double
// on the weights the layout holds (dequantized with agl_quant_weight_at), on
// odd sizes around the kernels' boundaries (m <= 4 streams the panels, larger
// m dequantizes blocks for the packed micro-kernel; depths across groups and
// the 384-deep blocks), row-major and transposed A, batches, accumulation and
// the epilogue of agl_kernel_sgemm_packed (alpha, bias, activation, residual
// with its strides), both kernel tables and 1 and 2 threads. Also the quantizer's
// error bounds and its layout against agl_quant_weight_at.
//
// Tolerance: as for the float GEMM, |C - reference| <= (k * 2^-23 + 1e-6) *
// S + 1e-30 with S = sum_p |A[i,p]| |W[p,j]| (plus |C| when accumulating):
// the kernels compute with the dequantized weights exactly (q times scale,
// both exact in float, the scale applied once per group), so only the
// rounding of the float sums differs from the reference. The 4-bit small
// kernel sums q + m (m = 2048 + 8 at most, see sgemm_quant_avx512.c) and
// subtracts A's sum times m per group, so its S has |q| + 2056 in place of
// |q|: for 4 bits S = sum_p |A[i,p]| (|W[p,j]| + 2056 scale(p, j)).
// With the epilogue, S is |alpha| times that plus |bias[j]|, and the
// residual, added after the activation, contributes 1e-6 |residual|.
// On AVX-512 VNNI, one row of A against 4-bit weights is quantized to int8
// per group (sgemm_quant_vnni.c), and summed exactly in integers (no 2056
// in S): each term moves by up to half a step of A, max|A| over the group
// / 254, times |W[p,j]| (and |alpha|, and at most 1.2 through the
// activations' slopes).
#include "autoglm/kernels_quant.h"
#include "autoglm/runtime.h"
#include "KernelTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

struct agl_gemm_isa;
extern "C" const agl_gemm_isa *agl_gemm_select(int which);
extern "C" void agl_quant_allow_vnni(int allow);
extern "C" int agl_cpu_has_avx512_vnni(void);

using autoglm::test::activate;
using autoglm::test::Aligned;

namespace {

struct Case {
  int bits;
  int64_t group, batch, m, n, k;
  bool a_transposed;
  int accumulate, act;
  float alpha = 1.0f;
  bool bias = false, residual = false;
  // With a residual: the AGL_ACT_* of a gate (AGL_ACT_GATED), or -1 to add it.
  int gate = -1;
};

std::string describe(const Case &c, int threads) {
  return "q" + std::to_string(c.bits) + " group=" + std::to_string(c.group) +
         " batch=" + std::to_string(c.batch) + " m=" + std::to_string(c.m) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         (c.a_transposed ? " A^T" : "") +
         " accumulate=" + std::to_string(c.accumulate) +
         " act=" + std::to_string(c.act) + " alpha=" + std::to_string(c.alpha) +
         (c.bias ? " bias" : "") + (c.residual ? " residual" : "") +
         (c.gate >= 0 ? " gate=" + std::to_string(c.gate) : "") +
         " threads=" + std::to_string(threads);
}

// The scale of weight (p, j).
double scale_at(const void *q, const Case &c, int64_t p, int64_t j) {
  float scale;
  std::memcpy(&scale,
              static_cast<const unsigned char *>(q) +
                  j / 32 * agl_quant_panel_bytes(c.k, c.bits, c.group) +
                  p / c.group * agl_quant_group_bytes(c.bits, c.group) +
                  j % 32 * sizeof(float),
              sizeof(float));
  return std::fabs(scale);
}

// Whether the product's rows of A may be quantized to int8 (the VNNI
// decode kernel): the tolerance then has A's rounding too.
int check(const Case &c, int threads, std::mt19937 &rng,
          bool activationsQuantized = false) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // B: k x n row-major, quantized.
  std::vector<float> w(c.k * c.n);
  for (float &x : w)
    x = dist(rng);
  Aligned q(agl_quant_weight_bytes(c.k, c.n, c.bits, c.group));
  agl_quantize_b(w.data(), c.k, c.n, c.n, 1, c.bits, c.group, q.data);
  std::vector<double> wq(c.k * c.n);
  for (int64_t p = 0; p < c.k; ++p)
    for (int64_t j = 0; j < c.n; ++j)
      wq[p * c.n + j] =
          agl_quant_weight_at(q.data, c.k, c.bits, c.group, p, j);
  // A: batch x m x k, row-major or each batch entry transposed; C with a
  // padded row stride, whose gaps must stay untouched.
  int64_t a_rs = c.a_transposed ? 1 : c.k + 2;
  int64_t a_cs = c.a_transposed ? c.m + 1 : 1;
  int64_t a_bs = c.a_transposed ? (c.m + 1) * c.k : c.m * (c.k + 2);
  std::vector<float> a(c.batch * a_bs);
  for (float &x : a)
    x = dist(rng);
  int64_t c_rs = c.n + 5, c_bs = c.m * c_rs + 3;
  std::vector<float> out(c.batch * c_bs);
  for (float &x : out)
    x = dist(rng);
  std::vector<float> before = out;
  // The bias (n floats) and the residual (C's shape, its own strides).
  std::vector<float> bias(c.n);
  for (float &x : bias)
    x = dist(rng);
  int64_t r_rs = c.n + 3, r_bs = c.m * r_rs + 1;
  std::vector<float> res(c.batch * r_bs);
  for (float &x : res)
    x = dist(rng);
  (c.bits == 8 ? agl_kernel_sgemm_q8 : agl_kernel_sgemm_q4)(
      c.batch, c.m, c.n, c.k, a.data(), a_bs, a_rs, a_cs, q.data, c.group,
      out.data(), c_bs, c_rs, c.accumulate, c.alpha,
      c.bias ? bias.data() : nullptr,
      c.gate >= 0 ? c.act | AGL_ACT_GATED(c.gate) : c.act,
      c.residual ? res.data() : nullptr, r_bs, r_rs, nullptr);
  int failures = 0;
  std::vector<bool> written(out.size());
  for (int64_t bt = 0; bt < c.batch; ++bt)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        int64_t at = bt * c_bs + i * c_rs + j;
        written[at] = true;
        const bool integerRow = activationsQuantized && c.bits == 4 && c.m == 1;
        double sum = 0.0, bound = 0.0, rounding = 0.0;
        for (int64_t p = 0; p < c.k; ++p) {
          double x = a[bt * a_bs + i * a_rs + p * a_cs];
          sum += x * wq[p * c.n + j];
          bound += std::fabs(x * wq[p * c.n + j]);
          if (c.bits == 4 && !integerRow)
            bound += std::fabs(x) * 2056 * scale_at(q.data, c, p, j);
        }
        if (integerRow)
          for (int64_t g0 = 0; g0 < c.k; g0 += c.group) {
            double top = 0.0;
            for (int64_t p = g0; p < std::min(c.k, g0 + c.group); ++p)
              top = std::max<double>(top,
                                     std::fabs(a[bt * a_bs + p * a_cs]));
            for (int64_t p = g0; p < std::min(c.k, g0 + c.group); ++p)
              rounding += top / 254 * (1 + 1e-5) * std::fabs(wq[p * c.n + j]);
          }
        rounding *= 1.2 * std::fabs(c.alpha);
        sum *= c.alpha;
        bound *= std::fabs(c.alpha);
        if (c.accumulate) {
          sum += before[at];
          bound += std::fabs(before[at]);
        }
        if (c.bias) {
          sum += bias[j];
          bound += std::fabs(bias[j]);
        }
        double expected = activate(sum, c.act);
        double r = c.residual ? res[bt * r_bs + i * r_rs + j] : 0.0;
        double tolerance = (c.k * std::ldexp(1.0, -23) + 1e-6) * bound +
                           1e-6 * std::fabs(r) + rounding + 1e-30;
        if (c.residual && c.gate >= 0) {
          // Both factors carry their own errors.
          double gate = activate(r, c.gate);
          tolerance = (tolerance + 1e-6 * std::fabs(expected)) *
                      (std::fabs(gate) + std::fabs(r));
          expected *= gate;
        } else {
          expected += r;
        }
        if (!(std::fabs(out[at] - expected) <= tolerance) && ++failures <= 3)
          ADD_FAILURE() << describe(c, threads) << ": C[" << bt << "," << i
                        << "," << j << "] = " << out[at] << ", expected "
                        << expected << " (tolerance " << tolerance << ")";
      }
  for (size_t at = 0; at < out.size(); ++at)
    if (!written[at] && out[at] != before[at] && ++failures <= 3)
      ADD_FAILURE() << describe(c, threads) << ": wrote outside C at " << at;
  return failures;
}

class QuantKernelsTest : public ::testing::Test {
protected:
  void TearDown() override {
    agl_gemm_select(0);
    agl_quant_allow_vnni(1);
    ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
  }
};

struct Shape {
  int64_t batch, m, n, k;
};

// m: the small kernel's row counts 1-4 and the packed path's (5, the
// micro-kernels' row panels 4 and 14 and past them); k: one depth, within
// and across groups, across the 384-deep blocks, not a multiple of 4; n:
// one panel and several (more panels than threads, and fewer).
const Shape kShapes[] = {
    {1, 1, 32, 1},    {1, 1, 64, 31},   {1, 2, 96, 33},   {1, 3, 32, 100},
    {1, 4, 160, 129}, {1, 1, 320, 257}, {2, 1, 64, 130},  {1, 5, 32, 37},
    {1, 7, 96, 64},   {1, 14, 64, 200}, {1, 15, 128, 385}, {1, 29, 352, 129},
    {2, 17, 64, 70},  {1, 130, 96, 500}, {1, 2, 1024, 777},
};

void sweep(int isa, int threads, int &failures, bool vnni = false) {
  agl_gemm_select(isa);
  agl_quant_allow_vnni(vnni);
  ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
  std::mt19937 rng(4321 + isa * 10 + threads);
  int variant = 0;
  for (int bits : {8, 4})
    for (int64_t group : {32, 64, 128})
      for (const Shape &s : kShapes) {
        ++variant;
        Case c{bits, group, s.batch, s.m, s.n, s.k, variant % 3 == 1,
               variant % 2, variant % 5 == 0 ? AGL_ACT_SILU
                            : variant % 7 == 0 ? AGL_ACT_GELU_ERF
                                               : AGL_ACT_NONE};
        // Each part of the epilogue alone and together.
        c.alpha = variant % 4 == 3 ? -0.75f : 1.0f;
        c.bias = variant % 3 != 0;
        c.residual = variant % 4 >= 2;
        failures += check(c, threads, rng, vnni);
        // The transformer layer's epilogue: bias, GELU and residual, in
        // both regimes (the shape's own m, and m = 1).
        Case full = c;
        full.act = AGL_ACT_GELU_ERF;
        full.bias = full.residual = true;
        full.alpha = 1.0f;
        failures += check(full, threads, rng, vnni);
        full.m = 1;
        full.accumulate = 0;
        full.alpha = 0.5f;
        failures += check(full, threads, rng, vnni);
        // SwiGLU's up projection: the product times silu(gate), both
        // regimes.
        Case swiglu = c;
        swiglu.act = AGL_ACT_NONE;
        swiglu.residual = true;
        swiglu.gate = AGL_ACT_SILU;
        failures += check(swiglu, threads, rng, vnni);
        swiglu.m = 1;
        swiglu.act = AGL_ACT_RELU;
        swiglu.gate = variant % 2 ? AGL_ACT_GELU_TANH : AGL_ACT_NONE;
        failures += check(swiglu, threads, rng, vnni);
        if (failures > 10)
          return;
      }
}

TEST_F(QuantKernelsTest, MatchesDequantizedReferencePortable) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(1, threads, failures);
  EXPECT_EQ(failures, 0);
}

TEST_F(QuantKernelsTest, MatchesDequantizedReferenceNative) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(0, threads, failures);
  EXPECT_EQ(failures, 0);
}

// The decode rows with 4-bit weights on VNNI: A quantized to int8.
TEST_F(QuantKernelsTest, MatchesReferenceVnni) {
  if (!agl_cpu_has_avx512_vnni())
    GTEST_SKIP() << "the CPU lacks AVX-512 VNNI";
  int failures = 0;
  for (int threads : {1, 2})
    sweep(0, threads, failures, /*vnni=*/true);
  EXPECT_EQ(failures, 0);
}

// ... exactly where A's row is int8 already (each group's max|A| is
// 127/128, every value a multiple of 1/128): then only the float rounding
// of the group sums remains, so that an off-by-one in the integer sums
// would show. And that kernel does run: on other rows its sums differ from
// the float kernel's.
TEST_F(QuantKernelsTest, VnniDecodeRowsRunInIntegers) {
  if (!agl_cpu_has_avx512_vnni())
    GTEST_SKIP() << "the CPU lacks AVX-512 VNNI";
  const int64_t n = 64, k = 200, group = 64;
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> w(k * n), a(k), c[2];
  for (float &x : w)
    x = dist(rng);
  Aligned q(agl_quant_weight_bytes(k, n, 4, group));
  agl_quantize_b(w.data(), k, n, n, 1, 4, group, q.data);
  auto product = [&](int vnni) {
    agl_quant_allow_vnni(vnni);
    std::vector<float> out(n, 0.0f);
    agl_kernel_sgemm_q4(1, 1, n, k, a.data(), 0, k, 1, q.data, group,
                        out.data(), 0, n, 0, 1.0f, nullptr, AGL_ACT_NONE,
                        nullptr, 0, 0, nullptr);
    return out;
  };
  for (int64_t p = 0; p < k; ++p)
    a[p] = p % group == 5 ? (p % 2 ? 127 : -127) / 128.0f
                          : int(rng() % 255 - 127) / 128.0f;
  std::vector<float> exact = product(1);
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0.0, bound = 0.0;
    for (int64_t p = 0; p < k; ++p) {
      double term = a[p] * agl_quant_weight_at(q.data, k, 4, group, p, j);
      sum += term;
      bound += std::fabs(term);
    }
    EXPECT_NEAR(exact[j], sum, (k * std::ldexp(1.0, -23) + 1e-6) * bound)
        << "column " << j;
  }
  for (float &x : a)
    x = dist(rng);
  EXPECT_NE(product(0), product(1));
  // A row with a NaN takes the float kernel: every sum is NaN.
  a[70] = std::numeric_limits<float>::quiet_NaN();
  for (float x : product(1))
    EXPECT_TRUE(std::isnan(x));
}

// The AVX2 table (the native one where the CPU lacks AVX-512).
TEST_F(QuantKernelsTest, MatchesDequantizedReferenceAvx2) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(3, threads, failures);
  EXPECT_EQ(failures, 0);
}

// Every call from inside a parallel region runs serially, still right.
TEST_F(QuantKernelsTest, NestedInParallelRegion) {
  ASSERT_EQ(agl_set_num_threads(2), AGL_OK);
  struct Ctx {
    int failures = 0;
  } ctx;
  agl_parallel_for(
      2, 1,
      [](void *raw, int64_t begin, int64_t end) {
        auto *ctx = static_cast<Ctx *>(raw);
        for (int64_t t = begin; t < end; ++t) {
          std::mt19937 rng(77 + t);
          Case c{t == 0 ? 8 : 4, 64, 1, t == 0 ? 1 : 20, 96, 150, false, 0,
                 AGL_ACT_NONE};
          ctx->failures += check(c, 1, rng);
        }
      },
      &ctx);
  EXPECT_EQ(ctx.failures, 0);
}

// The quantizer: symmetric scales, round to nearest, the error of each
// weight within half a step for 8 bits; for 4 bits the chosen scale never
// gives a larger squared error per group than max|w| / 7, and the stored
// values match agl_quant_weight_at's reading of the layout.
TEST(QuantizeTest, ErrorBounds) {
  std::mt19937 rng(99);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const int64_t k = 300, n = 64, group = 128;
  std::vector<float> w(k * n);
  for (float &x : w)
    x = dist(rng);
  w[5 * n + 3] = 0; // a column group of zeros below
  for (int64_t p = 256; p < k; ++p)
    w[p * n + 40] = 0;
  for (int bits : {8, 4}) {
    Aligned q(agl_quant_weight_bytes(k, n, bits, group));
    EXPECT_EQ(agl_quant_weight_bytes(k, n, bits, group) % 64, 0);
    agl_quantize_b(w.data(), k, n, n, 1, bits, group, q.data);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t g0 = 0; g0 < k; g0 += group) {
        int64_t rows = std::min(group, k - g0);
        double amax = 0, err = 0, err7 = 0;
        for (int64_t p = g0; p < g0 + rows; ++p)
          amax = std::max(amax, (double)std::fabs(w[p * n + j]));
        double step = amax / (bits == 8 ? 127 : 7);
        for (int64_t p = g0; p < g0 + rows; ++p) {
          double x = w[p * n + j];
          double d = x - agl_quant_weight_at(q.data, k, bits, group, p, j);
          err += d * d;
          if (step > 0) {
            double v = std::max(-8.0, std::min(7.0, std::round(x / step)));
            err7 += (x - v * step) * (x - v * step);
          }
          if (bits == 8)
            ASSERT_LE(std::fabs(d), step / 2 * (1 + 1e-5) + 1e-12)
                << "p=" << p << " j=" << j;
        }
        if (bits == 4)
          EXPECT_LE(err, err7 * (1 + 1e-5) + 1e-12) << "j=" << j;
        if (amax == 0)
          EXPECT_EQ(err, 0.0);
      }
  }
}

} // namespace

// The GPU's row layout (agl_quantize_rows) holds the same scales and values
// as the CPU's panels, a group left partial and one all zeros included.
TEST(QuantRowsTest, SameWeightsAsThePanels) {
  const int64_t n = 64, k = 200, group = 64;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> w(k * n);
  for (float &x : w)
    x = dist(rng);
  for (int64_t p = 64; p < 128; ++p)
    w[p * n + 3] = 0.0f; // column 3's second group
  for (int bits : {8, 4}) {
    Aligned panels(agl_quant_weight_bytes(k, n, bits, group));
    agl_quantize_b(w.data(), k, n, n, 1, bits, group, panels.data);
    const int64_t groups = (k + group - 1) / group;
    std::vector<int8_t> q(n * k * bits / 8);
    std::vector<float> scales(n * groups);
    agl_quantize_rows(w.data(), k, n, n, 1, bits, group, q.data(),
                      scales.data());
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) {
        const uint8_t *row =
            reinterpret_cast<const uint8_t *>(q.data()) + j * k * bits / 8;
        int value = bits == 8 ? int(int8_t(row[p]))
                              : ((row[p / 2] >> (p % 2 * 4)) & 15) - 8;
        float weight = scales[j * groups + p / group] * float(value);
        ASSERT_EQ(weight,
                  agl_quant_weight_at(panels.data, k, bits, group, p, j))
            << bits << " bits, depth " << p << ", column " << j;
      }
    EXPECT_EQ(scales[3 * groups + 1], 0.0f);
  }
}
