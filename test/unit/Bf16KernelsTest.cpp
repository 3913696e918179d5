// Tests of the GEMM with bfloat16 weights (agl_kernel_sgemm_bf16,
// autoglm/kernels_quant.h) against two references in double:
//  - on the weights the layout holds (agl_bf16_weight_at): the kernel
//    widens them exactly, so only the rounding of the float sums differs,
//    |C - ref| <= (k * 2^-23 + 1e-6) * S + 1e-30 with
//    S = sum_p |A[i,p]| |W[p,j]| (|alpha| times that, plus |bias[j]| and
//    |C| when accumulating; the residual, added after the activation,
//    contributes 1e-6 |residual|), as for the float GEMM;
//  - on the float32 weights before rounding: each weight is within 2^-8 of
//    its magnitude (half a unit in the last of its 8 bits) of its bfloat16
//    value, so the sum is within 2^-8 * S (+ the float rounding above; the activations used here change
//    by at most 1.13 times their argument's change: 1.2 is allowed).
// Shapes: the decode kernel's row counts 1-4 and the packed path's (5, 14,
// 15, 29, 130), n a multiple of 32 and not (1, 17, 33, 100: the last
// panel's zero columns are not written), k 1, odd, across the 384-deep
// blocks; row-major and transposed A, batches, accumulation, the epilogue
// (alpha, bias, activation, residual with its strides), both kernel tables,
// 1 and 2 threads. Also the rounding (to nearest, ties to even; NaN,
// infinities, overflow) and the layout.
#include "autoglm/kernels_quant.h"
#include "autoglm/runtime.h"
#include "KernelTestSupport.h"

#include <gtest/gtest.h>

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

using autoglm::test::activate;
using autoglm::test::Aligned;

namespace {

struct Case {
  int64_t batch, m, n, k;
  bool a_transposed;
  int accumulate, act;
  float alpha = 1.0f;
  bool bias = false, residual = false;
};

std::string describe(const Case &c, int threads) {
  return "batch=" + std::to_string(c.batch) + " m=" + std::to_string(c.m) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         (c.a_transposed ? " A^T" : "") +
         " accumulate=" + std::to_string(c.accumulate) +
         " act=" + std::to_string(c.act) +
         " alpha=" + std::to_string(c.alpha) + (c.bias ? " bias" : "") +
         (c.residual ? " residual" : "") +
         " threads=" + std::to_string(threads);
}

int check(const Case &c, int threads, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // B: k x n, column-major (as a transposed ONNX weight may be), rounded.
  std::vector<float> w(c.k * c.n);
  for (float &x : w)
    x = dist(rng);
  Aligned packed(agl_bf16_weight_bytes(c.k, c.n));
  agl_pack_b_bf16(w.data(), c.k, c.n, 1, c.k, packed.data);
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
  agl_kernel_sgemm_bf16(c.batch, c.m, c.n, c.k, a.data(), a_bs, a_rs, a_cs,
                        packed.data, out.data(), c_bs, c_rs, c.accumulate,
                        c.alpha, c.bias ? bias.data() : nullptr, c.act,
                        c.residual ? res.data() : nullptr, r_bs, r_rs,
                        nullptr);
  int failures = 0;
  std::vector<bool> written(out.size());
  for (int64_t bt = 0; bt < c.batch; ++bt)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        int64_t at = bt * c_bs + i * c_rs + j;
        written[at] = true;
        double stored = 0.0, original = 0.0, bound = 0.0;
        for (int64_t p = 0; p < c.k; ++p) {
          double x = a[bt * a_bs + i * a_rs + p * a_cs];
          double wb = agl_bf16_weight_at(packed.data, c.k, p, j);
          stored += x * wb;
          original += x * w[j * c.k + p];
          bound += std::fabs(x * wb);
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
        double exact = activate(c.alpha * stored + base, c.act) + r;
        double tolerance = (c.k * std::ldexp(1.0, -23) + 1e-6) * s +
                           1e-6 * std::fabs(r) + 1e-30;
        if (!(std::fabs(out[at] - exact) <= tolerance) && ++failures <= 3)
          ADD_FAILURE() << describe(c, threads) << ": C[" << bt << "," << i
                        << "," << j << "] = " << out[at] << ", expected "
                        << exact << " from the bfloat16 weights (tolerance "
                        << tolerance << ")";
        // Against the float32 weights: the rounding of the weights on top.
        double from_float = activate(c.alpha * original + base, c.act) + r;
        double rounding = std::ldexp(1.0, -8) * std::fabs(c.alpha) * bound *
                              1.2 +
                          tolerance;
        if (!(std::fabs(out[at] - from_float) <= rounding) && ++failures <= 3)
          ADD_FAILURE() << describe(c, threads) << ": C[" << bt << "," << i
                        << "," << j << "] = " << out[at] << ", float32 "
                        << from_float << " (tolerance " << rounding << ")";
      }
  for (size_t at = 0; at < out.size(); ++at)
    if (!written[at] && out[at] != before[at] && ++failures <= 3)
      ADD_FAILURE() << describe(c, threads) << ": wrote outside C at " << at;
  return failures;
}

class Bf16KernelsTest : public ::testing::Test {
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

void sweep(int isa, int threads, int &failures) {
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
      failures += check(c, threads, rng);
      // The transformer layer's epilogue in both regimes.
      Case full = c;
      full.act = AGL_ACT_GELU_ERF;
      full.bias = full.residual = true;
      full.alpha = 1.0f;
      failures += check(full, threads, rng);
      full.m = 1;
      full.accumulate = 0;
      full.alpha = 0.5f;
      failures += check(full, threads, rng);
      if (failures > 10)
        return;
    }
}

TEST_F(Bf16KernelsTest, MatchesReferencesPortable) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(1, threads, failures);
  EXPECT_EQ(failures, 0);
}

TEST_F(Bf16KernelsTest, MatchesReferencesNative) {
  int failures = 0;
  for (int threads : {1, 2})
    sweep(0, threads, failures);
  EXPECT_EQ(failures, 0);
}

// The split over threads never changes a sum's order: the same bits.
TEST_F(Bf16KernelsTest, ThreadsGiveTheSameBits) {
  for (int64_t m : {1, 3, 64}) {
    const int64_t n = 1000, k = 300;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> w(k * n), a(m * k);
    for (float &x : w)
      x = dist(rng);
    for (float &x : a)
      x = dist(rng);
    Aligned packed(agl_bf16_weight_bytes(k, n));
    agl_pack_b_bf16(w.data(), k, n, n, 1, packed.data);
    std::vector<float> one(m * n), two(m * n);
    for (int threads : {1, 2}) {
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      agl_kernel_sgemm_bf16(1, m, n, k, a.data(), 0, k, 1, packed.data,
                            (threads == 1 ? one : two).data(), 0, n, 0, 1.0f,
                            nullptr, AGL_ACT_NONE, nullptr, 0, 0, nullptr);
    }
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * 4), 0)
        << "m=" << m;
  }
}

// Every call from inside a parallel region runs serially, still right.
TEST_F(Bf16KernelsTest, NestedInParallelRegion) {
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
          Case c{1, t == 0 ? 1 : 20, 90, 150, false, 0, AGL_ACT_NONE};
          ctx->failures += check(c, 1, rng);
        }
      },
      &ctx);
  EXPECT_EQ(ctx.failures, 0);
}

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

TEST(Bf16LayoutTest, PanelsOfThirtyTwoColumnsInterleavedHalves) {
  const int64_t k = 3, n = 40;
  std::vector<float> w(k * n);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      w[p * n + j] = float(p * 100 + j); // exact in bfloat16 (< 256)
  EXPECT_EQ(agl_bf16_weight_bytes(k, n), 2 * k * 64);
  std::vector<uint16_t> h(agl_bf16_weight_bytes(k, n) / 2, 0xFFFF);
  agl_pack_b_bf16(w.data(), k, n, n, 1, h.data());
  // Row 1 of panel 0: word t = column t (low half), column t + 16 (high).
  EXPECT_EQ(agl_float_from_bf16(h[32 + 0]), 100.0f);
  EXPECT_EQ(agl_float_from_bf16(h[32 + 1]), 116.0f);
  EXPECT_EQ(agl_float_from_bf16(h[32 + 2]), 101.0f);
  EXPECT_EQ(agl_float_from_bf16(h[32 + 31]), 131.0f);
  // Panel 1 holds columns 32..39 and zeros.
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 32; j < 64; ++j) {
      float x = agl_float_from_bf16(h[agl_bf16_index(k, p, j)]);
      EXPECT_EQ(x, j < n ? w[p * n + j] : 0.0f) << p << "," << j;
    }
}

} // namespace
