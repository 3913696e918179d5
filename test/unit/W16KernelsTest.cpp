// Tests of the GEMMs with 16-bit float weights, bfloat16 and IEEE half
// (agl_kernel_sgemm_bf16, agl_kernel_sgemm_f16, autoglm/kernels_quant.h),
// one harness for both formats, against two references in double:
//  - on the weights the layout holds (agl_w16_weight_at): the kernel
//    widens them exactly, so only the rounding of the float sums differs,
//    |C - ref| <= (k * 2^-23 + 1e-6) * S + 1e-30 with
//    S = sum_p |A[i,p]| |W[p,j]| (|alpha| times that, plus |bias[j]| and
//    |C| when accumulating; the residual, added after the activation,
//    contributes 1e-6 |residual|), as for the float GEMM;
//  - on the float32 weights before rounding: each weight is within 2^-8
//    (bfloat16: half a unit in the last of its 8 bits) or 2^-11 (half: 11
//    bits; 2^-25 absolute below 2^-14, the subnormals) of its magnitude of
//    its 16-bit value, so the sum is within 2^-8 * S or 2^-11 * S (+ the
//    float rounding above; the activations used here change by at most
//    1.13 times their argument's change: 1.2 is allowed).
// Shapes: the decode kernel's row counts 1-4 and the packed path's (5, 14,
// 15, 29, 130), n a multiple of 32 and not (1, 17, 33, 100: the last
// panel's zero columns are not written), k 1, odd, across the 384-deep
// blocks; row-major and transposed A, batches, accumulation, the epilogue
// (alpha, bias, activation, residual with its strides), both kernel tables,
// 1 and 2 threads. Also the roundings (to nearest, ties to even; NaN,
// infinities, overflow: bfloat16 to infinity, half saturating at 65504;
// half's subnormals) and the layout.
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
#include <ostream>
#include <random>
#include <string>
#include <vector>

struct agl_gemm_isa;
extern "C" const agl_gemm_isa *agl_gemm_select(int which);

using autoglm::test::activate;
using autoglm::test::Aligned;

namespace {

/// The format's kernel and rounding bounds: relative (half a unit in the
/// last place) and absolute (half the smallest subnormal).
struct Format {
  agl_w16_format format;
  const char *name;
  decltype(&agl_kernel_sgemm_bf16) kernel;
  double relative, absolute;
};

// Test names and failure messages show the format's name.
void PrintTo(const Format &f, std::ostream *os) { *os << f.name; }

const Format kBf16 = {AGL_W16_BF16, "bf16", agl_kernel_sgemm_bf16,
                      std::ldexp(1.0, -8), 0.0};
const Format kF16 = {AGL_W16_F16, "f16", agl_kernel_sgemm_f16,
                     std::ldexp(1.0, -11), std::ldexp(1.0, -25)};

struct Case {
  int64_t batch, m, n, k;
  bool a_transposed;
  int accumulate, act;
  float alpha = 1.0f;
  bool bias = false, residual = false;
  // With a residual: the AGL_ACT_* of a gate (AGL_ACT_GATED), or -1 to add it.
  int gate = -1;
};

std::string describe(const Format &f, const Case &c, int threads) {
  return std::string(f.name) + " batch=" + std::to_string(c.batch) +
         " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
         " k=" + std::to_string(c.k) + (c.a_transposed ? " A^T" : "") +
         " accumulate=" + std::to_string(c.accumulate) +
         " act=" + std::to_string(c.act) + " alpha=" + std::to_string(c.alpha) +
         (c.bias ? " bias" : "") + (c.residual ? " residual" : "") +
         (c.gate >= 0 ? " gate=" + std::to_string(c.gate) : "") +
         " threads=" + std::to_string(threads);
}

int check(const Format &f, const Case &c, int threads, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // B: k x n, column-major (as a transposed ONNX weight may be), rounded.
  std::vector<float> w(c.k * c.n);
  for (float &x : w)
    x = dist(rng);
  Aligned packed(agl_w16_weight_bytes(c.k, c.n));
  agl_pack_b_w16(f.format, w.data(), c.k, c.n, 1, c.k, packed.data);
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
  std::vector<float> bias(c.n);
  for (float &x : bias)
    x = dist(rng);
  int64_t r_rs = c.n + 3, r_bs = c.m * r_rs + 1;
  std::vector<float> res(c.batch * r_bs);
  for (float &x : res)
    x = dist(rng);
  f.kernel(c.batch, c.m, c.n, c.k, a.data(), a_bs, a_rs, a_cs, packed.data,
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
        double stored = 0.0, original = 0.0, bound = 0.0, a_sum = 0.0;
        for (int64_t p = 0; p < c.k; ++p) {
          double x = a[bt * a_bs + i * a_rs + p * a_cs];
          double wb = agl_w16_weight_at(f.format, packed.data, c.k, p, j);
          stored += x * wb;
          original += x * w[j * c.k + p];
          bound += std::fabs(x * wb);
          a_sum += std::fabs(x);
        }
        double base = 0.0, base_bound = 0.0;
        if (c.accumulate) {
          base += before[at];
          base_bound += std::fabs(before[at]);
        }
        if (c.bias) {
          base += bias[j];
          base_bound += std::fabs(bias[j]);
        }
        double r = c.residual ? res[bt * r_bs + i * r_rs + j] : 0.0;
        double s = bound * std::fabs(c.alpha) + base_bound;
        // The residual added, or a gate's factor (1 + both factors' errors).
        const bool gated = c.residual && c.gate >= 0;
        const double gate = gated ? activate(r, c.gate) : 1.0;
        auto finish = [&](double y) { return gated ? y * gate : y + r; };
        const double y = activate(c.alpha * stored + base, c.act);
        double exact = finish(y);
        double tolerance = (c.k * std::ldexp(1.0, -23) + 1e-6) * s +
                           1e-6 * std::fabs(r) + 1e-30;
        if (gated)
          tolerance = (tolerance + 1e-6 * std::fabs(y)) *
                      (std::fabs(gate) + std::fabs(r));
        if (!(std::fabs(out[at] - exact) <= tolerance) && ++failures <= 3)
          ADD_FAILURE() << describe(f, c, threads) << ": C[" << bt << ","
                        << i << "," << j << "] = " << out[at] << ", expected "
                        << exact << " from the 16-bit weights (tolerance "
                        << tolerance << ")";
        // Against the float32 weights: the rounding of the weights on top.
        double from_float = finish(activate(c.alpha * original + base, c.act));
        double rounding = (f.relative * bound + f.absolute * a_sum) *
                              std::fabs(c.alpha) * 1.2 * std::fabs(gate) +
                          tolerance;
        if (!(std::fabs(out[at] - from_float) <= rounding) && ++failures <= 3)
          ADD_FAILURE() << describe(f, c, threads) << ": C[" << bt << ","
                        << i << "," << j << "] = " << out[at] << ", float32 "
                        << from_float << " (tolerance " << rounding << ")";
      }
  for (size_t at = 0; at < out.size(); ++at)
    if (!written[at] && out[at] != before[at] && ++failures <= 3)
      ADD_FAILURE() << describe(f, c, threads) << ": wrote outside C at "
                    << at;
  return failures;
}

class W16KernelsTest : public ::testing::TestWithParam<Format> {
protected:
  void TearDown() override {
    agl_gemm_select(0);
    ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
  }
};

struct Shape {
  int64_t batch, m, n, k;
};

const Shape kShapes[] = {
    {1, 1, 32, 1},     {1, 1, 64, 31},    {1, 1, 17, 40},   {1, 1, 100, 257},
    {1, 2, 96, 33},    {1, 3, 33, 100},   {1, 4, 160, 129}, {1, 1, 1, 5},
    {2, 1, 64, 130},   {3, 2, 70, 9},     {1, 5, 32, 37},   {1, 7, 100, 64},
    {1, 14, 64, 200},  {1, 15, 128, 385}, {1, 29, 353, 129}, {2, 17, 64, 70},
    {1, 130, 96, 500}, {1, 1, 1000, 777}, {1, 2, 1024, 96}, {1, 40, 1, 50},
};

void sweep(const Format &f, int isa, int threads, int &failures) {
  agl_gemm_select(isa);
  ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
  std::mt19937 rng(2468 + isa * 10 + threads);
  int variant = 0;
  for (int round = 0; round < 2; ++round)
    for (const Shape &s : kShapes) {
      ++variant;
      Case c{s.batch, s.m, s.n, s.k, variant % 3 == 1, variant % 2,
             variant % 5 == 0   ? AGL_ACT_SILU
             : variant % 7 == 0 ? AGL_ACT_GELU_ERF
             : variant % 4 == 1 ? AGL_ACT_RELU
                                : AGL_ACT_NONE};
      c.alpha = variant % 4 == 3 ? -0.75f : 1.0f;
      c.bias = variant % 3 != 0;
      c.residual = variant % 4 >= 2;
      failures += check(f, c, threads, rng);
      // The transformer layer's epilogue in both regimes.
      Case full = c;
      full.act = AGL_ACT_GELU_ERF;
      full.bias = full.residual = true;
      full.alpha = 1.0f;
      failures += check(f, full, threads, rng);
      full.m = 1;
      full.accumulate = 0;
      full.alpha = 0.5f;
      failures += check(f, full, threads, rng);
      // SwiGLU's up projection (the product times silu(gate)), both regimes.
      Case swiglu = c;
      swiglu.act = AGL_ACT_NONE;
      swiglu.residual = true;
      swiglu.gate = AGL_ACT_SILU;
      failures += check(f, swiglu, threads, rng);
      swiglu.m = 1;
      failures += check(f, swiglu, threads, rng);
      if (failures > 10)
        return;
    }
}

TEST_P(W16KernelsTest, MatchesReferencesPortable) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(GetParam(), 1, threads, failures);
  EXPECT_EQ(failures, 0);
}

TEST_P(W16KernelsTest, MatchesReferencesNative) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(GetParam(), 0, threads, failures);
  EXPECT_EQ(failures, 0);
}

// The AVX2 table (the native one where the CPU lacks AVX-512).
TEST_P(W16KernelsTest, MatchesReferencesAvx2) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(GetParam(), 3, threads, failures);
  EXPECT_EQ(failures, 0);
}

// The split over threads never changes a sum's order: the same bits.
TEST_P(W16KernelsTest, ThreadsGiveTheSameBits) {
  const Format &f = GetParam();
  for (int64_t m : {1, 3, 64}) {
    const int64_t n = 1000, k = 300;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> w(k * n), a(m * k);
    for (float &x : w)
      x = dist(rng);
    for (float &x : a)
      x = dist(rng);
    Aligned packed(agl_w16_weight_bytes(k, n));
    agl_pack_b_w16(f.format, w.data(), k, n, n, 1, packed.data);
    std::vector<float> one(m * n), two(m * n);
    for (int threads : {1, 2}) {
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      f.kernel(1, m, n, k, a.data(), 0, k, 1, packed.data,
               (threads == 1 ? one : two).data(), 0, n, 0, 1.0f, nullptr,
               AGL_ACT_NONE, nullptr, 0, 0, nullptr);
    }
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * 4), 0)
        << "m=" << m;
  }
}

// Every call from inside a parallel region runs serially, still right.
TEST_P(W16KernelsTest, NestedInParallelRegion) {
  ASSERT_EQ(agl_set_num_threads(2), AGL_OK);
  struct Ctx {
    const Format *f;
    int failures = 0;
  } ctx{&GetParam()};
  agl_parallel_for(
      2, 1,
      [](void *raw, int64_t begin, int64_t end) {
        auto *ctx = static_cast<Ctx *>(raw);
        for (int64_t t = begin; t < end; ++t) {
          std::mt19937 rng(77 + t);
          Case c{1, t == 0 ? 1 : 20, 90, 150, false, 0, AGL_ACT_NONE};
          ctx->failures += check(*ctx->f, c, 1, rng);
        }
      },
      &ctx);
  EXPECT_EQ(ctx.failures, 0);
}

INSTANTIATE_TEST_SUITE_P(Formats, W16KernelsTest,
                         ::testing::Values(kBf16, kF16),
                         [](const ::testing::TestParamInfo<Format> &info) {
                           return std::string(info.param.name);
                         });

float bits_to_float(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

TEST(Bf16RoundingTest, NearestTiesToEven) {
  // Exactly representable values stay.
  for (float x : {0.0f, -0.0f, 1.0f, -2.5f, 0.15625f, 65536.0f})
    EXPECT_EQ(agl_float_from_bf16(agl_bf16_from_float(x)), x);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to the even one, 1; just
  // above it rounds up; 1 + 3 * 2^-8 is halfway, to 1 + 2^-6 (even).
  EXPECT_EQ(agl_bf16_from_float(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(agl_bf16_from_float(bits_to_float(0x3F808001u)), 0x3F81);
  EXPECT_EQ(agl_bf16_from_float(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(agl_bf16_from_float(bits_to_float(0x3F807FFFu)), 0x3F80);
  // Infinities stay, NaN stays NaN (also one whose payload is in the low
  // bits only), the largest floats overflow to infinity, denormals round.
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(agl_bf16_from_float(inf), 0x7F80);
  EXPECT_EQ(agl_bf16_from_float(-inf), 0xFF80);
  EXPECT_TRUE(std::isnan(agl_float_from_bf16(
      agl_bf16_from_float(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(
      agl_float_from_bf16(agl_bf16_from_float(bits_to_float(0x7F800001u)))));
  EXPECT_EQ(agl_bf16_from_float(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(agl_bf16_from_float(bits_to_float(0x00008000u)), 0x0000);
  EXPECT_EQ(agl_bf16_from_float(bits_to_float(0x00018000u)), 0x0002);
  // The relative error bound the kernels' tests rely on.
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 10.0f);
  for (int t = 0; t < 100000; ++t) {
    float x = dist(rng);
    float y = agl_float_from_bf16(agl_bf16_from_float(x));
    ASSERT_LE(std::fabs(x - y), std::ldexp(std::fabs(x), -8)) << x;
  }
}

TEST(F16RoundingTest, NearestTiesToEvenSaturating) {
  // Exactly representable values stay, subnormals and the extremes too.
  for (float x : {0.0f, -0.0f, 1.0f, -2.5f, 0.15625f, 2048.0f, 65504.0f,
                  -65504.0f, std::ldexp(1.0f, -14), std::ldexp(1.0f, -24),
                  -std::ldexp(3.0f, -24), std::ldexp(1023.0f, -24)})
    EXPECT_EQ(agl_float_from_f16(agl_f16_from_float(x)), x) << x;
  EXPECT_EQ(agl_f16_from_float(1.0f), 0x3C00);
  EXPECT_EQ(agl_f16_from_float(-2.0f), 0xC000);
  EXPECT_EQ(agl_f16_from_float(65504.0f), 0x7BFF);
  EXPECT_EQ(agl_f16_from_float(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(agl_f16_from_float(std::ldexp(1.0f, -24)), 0x0001);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even one, 1; just
  // above it rounds up; 1 + 3 * 2^-11 is halfway, to 1 + 2^-9 (even).
  EXPECT_EQ(agl_f16_from_float(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(agl_f16_from_float(bits_to_float(0x3F801001u)), 0x3C01);
  EXPECT_EQ(agl_f16_from_float(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(agl_f16_from_float(bits_to_float(0x3F800FFFu)), 0x3C00);
  // Subnormal results: 2^-25 (halfway to 2^-24) to 0 (even), just above it
  // to 2^-24; 3 * 2^-25 to 2 * 2^-24 (even); the largest subnormal plus
  // half a unit to the smallest normal.
  EXPECT_EQ(agl_f16_from_float(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(agl_f16_from_float(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);
  EXPECT_EQ(agl_f16_from_float(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(agl_f16_from_float(-std::ldexp(5.0f, -25)), 0x8002);
  EXPECT_EQ(agl_f16_from_float(std::ldexp(2047.0f, -25)), 0x0400);
  EXPECT_EQ(agl_f16_from_float(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(agl_f16_from_float(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(agl_f16_from_float(bits_to_float(0x00000001u)), 0x0000);
  // Finite values beyond 65504 saturate (65519 still rounds down to it);
  // infinities stay, NaN stays NaN (also one whose payload is in the low
  // bits only).
  EXPECT_EQ(agl_f16_from_float(65519.0f), 0x7BFF);
  EXPECT_EQ(agl_f16_from_float(65520.0f), 0x7BFF);
  EXPECT_EQ(agl_f16_from_float(1e10f), 0x7BFF);
  EXPECT_EQ(agl_f16_from_float(-std::numeric_limits<float>::max()), 0xFBFF);
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(agl_f16_from_float(inf), 0x7C00);
  EXPECT_EQ(agl_f16_from_float(-inf), 0xFC00);
  EXPECT_TRUE(std::isnan(agl_float_from_f16(
      agl_f16_from_float(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(
      agl_float_from_f16(agl_f16_from_float(bits_to_float(0x7F800001u)))));
  EXPECT_EQ(agl_float_from_f16(0x7C00), inf);
  EXPECT_EQ(agl_float_from_f16(0xFC00), -inf);
  EXPECT_TRUE(std::isnan(agl_float_from_f16(0x7C01)));
  // Every half widens to the value its definition gives (sign, exponent,
  // mantissa; subnormals), and rounds back to itself.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float x = agl_float_from_f16((uint16_t)h);
    if (std::isnan(x))
      continue;
    uint32_t e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double expected = e == 0    ? std::ldexp(double(m), -24)
                      : e == 31 ? double(inf)
                                : std::ldexp(double(m | 0x400), int(e) - 25);
    if (h & 0x8000)
      expected = -expected;
    ASSERT_EQ(double(x), expected) << std::hex << h;
    ASSERT_EQ(agl_f16_from_float(x), h) << std::hex << h;
  }
  // The error bounds the kernels' tests rely on: relative 2^-11 in the
  // normal range, absolute 2^-25 below it.
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 10.0f);
  for (int t = 0; t < 100000; ++t) {
    float x = dist(rng) * std::ldexp(1.0f, t % 40 - 30);
    float y = agl_float_from_f16(agl_f16_from_float(x));
    if (std::fabs(x) > 65504.0f)
      continue;
    ASSERT_LE(std::fabs(x - y), std::max(std::ldexp(std::fabs(x), -11),
                                         std::ldexp(1.0f, -25)))
        << x;
  }
}

TEST(W16LayoutTest, PanelsOfThirtyTwoColumnsInterleavedHalves) {
  const int64_t k = 3, n = 40;
  std::vector<float> w(k * n);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      w[p * n + j] = float(p * 100 + j); // exact in both formats (< 256)
  EXPECT_EQ(agl_w16_weight_bytes(k, n), 2 * k * 64);
  for (agl_w16_format f : {AGL_W16_BF16, AGL_W16_F16}) {
    std::vector<uint16_t> h(agl_w16_weight_bytes(k, n) / 2, 0xFFFF);
    agl_pack_b_w16(f, w.data(), k, n, n, 1, h.data());
    // Row 1 of panel 0: word t = column t (low half), column t + 16 (high).
    EXPECT_EQ(agl_float_from_w16(f, h[32 + 0]), 100.0f);
    EXPECT_EQ(agl_float_from_w16(f, h[32 + 1]), 116.0f);
    EXPECT_EQ(agl_float_from_w16(f, h[32 + 2]), 101.0f);
    EXPECT_EQ(agl_float_from_w16(f, h[32 + 31]), 131.0f);
    // Panel 1 holds columns 32..39 and zeros.
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 32; j < 64; ++j) {
        float x = agl_float_from_w16(f, h[agl_w16_index(k, p, j)]);
        EXPECT_EQ(x, j < n ? w[p * n + j] : 0.0f) << p << "," << j;
      }
  }
}

} // namespace
