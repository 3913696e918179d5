// Tests of the runtime's kernels (autoglm/kernels.h) and thread API:
// agl_kernel_sgemm against a naive triple loop in double over shapes around
// the blocking boundaries, every operand layout, accumulation, activations,
// both kernel tables (portable and, where the CPU has it, AVX-512) and 1-3
// threads; agl_parallel_for's coverage and nesting.
//
// Tolerance: |C - reference| <= (k * 2^-23 + 1e-6) * S + 1e-30, where S is
// sum_p |A[i,p]| |B[p,j]| (plus |C| when accumulating): the classic bound
// on rounding in a k-term float sum, whatever the summation order, plus the
// activations' approximation error (their derivatives are at most 1.13).
#include "autoglm/kernels.h"
#include "autoglm/runtime.h"
#include "KernelTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

// Internal to the runtime (static library): which kernel table runs.
struct agl_gemm_isa;
extern "C" const agl_gemm_isa *agl_gemm_select(int which);
extern "C" int agl_conv_select(int which);

using autoglm::test::activate;

namespace {

struct Layout {
  bool a_transposed; // A stored as A^T (row stride 1)
  bool b_transposed; // B stored as B^T (row stride 1)
  bool padded;       // leading dimensions larger than needed
  bool b_strided;    // B's elements two apart along both axes
  bool broadcast_b;  // B's batch stride 0
  bool packed_b;     // B given packed ahead of time (agl_kernel_sgemm_packed)
};

std::string describe(int64_t batch, int64_t m, int64_t n, int64_t k,
                     const Layout &l, int accumulate, int act, int threads) {
  return "batch=" + std::to_string(batch) + " m=" + std::to_string(m) +
         " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         (l.a_transposed ? " A^T" : "") + (l.b_transposed ? " B^T" : "") +
         (l.padded ? " padded" : "") + (l.b_strided ? " B-strided" : "") +
         (l.broadcast_b ? " B-broadcast" : "") +
         (l.packed_b ? " B-packed" : "") +
         " accumulate=" + std::to_string(accumulate) +
         " act=" + std::to_string(act) + " threads=" + std::to_string(threads);
}

// The optional parts of the epilogue: C = act(C? + alpha * A B + bias[j])
// + residual[b, i, j], or with `gated` (and a residual) times
// gate_act(residual[b, i, j]).
struct Epilogue {
  float alpha = 1.0f;
  bool bias = false, residual = false;
  bool gated = false;
  int gate_act = AGL_ACT_NONE;
};

// Runs one product and compares every element; returns the failures.
int checkGemm(int64_t batch, int64_t m, int64_t n, int64_t k, const Layout &l,
              int accumulate, int act, int threads, std::mt19937 &rng,
              const agl_gemm_blocking *blocking = nullptr,
              const Epilogue &epilogue = Epilogue()) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int64_t pad = l.padded ? 3 : 0;
  // A: logical m x k.
  int64_t a_rs, a_cs, a_bs;
  if (l.a_transposed) {
    a_rs = 1;
    a_cs = m + pad;
    a_bs = (m + pad) * k + pad;
  } else {
    a_rs = k + pad;
    a_cs = 1;
    a_bs = (k + pad) * m + pad;
  }
  // B: logical k x n.
  int64_t step = l.b_strided ? 2 : 1;
  int64_t b_rs, b_cs, b_bs;
  if (l.b_transposed) {
    b_rs = step;
    b_cs = (k * step + pad) * step;
    b_bs = b_cs * n + pad;
  } else {
    b_cs = step;
    b_rs = (n * step + pad) * step;
    b_bs = b_rs * k + pad;
  }
  int64_t b_batches = batch;
  if (l.broadcast_b || l.packed_b) {
    b_bs = 0;
    b_batches = 1;
  }
  int64_t c_rs = n + pad, c_bs = c_rs * m + pad;

  std::vector<float> a((size_t)(a_bs * batch + 1)), b((size_t)(b_bs * b_batches + b_cs * n + b_rs * k + 1)),
      c((size_t)(c_bs * batch + 1));
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  for (float &x : c)
    x = dist(rng);
  std::vector<float> c_in = c;
  // The bias (n floats) and a residual of C's shape with its own strides.
  int64_t r_rs = n + 2 * pad + 1, r_bs = r_rs * m + 5;
  std::vector<float> bias((size_t)n), residual((size_t)(r_bs * batch + 1));
  for (float &x : bias)
    x = dist(rng);
  for (float &x : residual)
    x = dist(rng);
  const float *bias_arg = epilogue.bias ? bias.data() : nullptr;
  const float *residual_arg = epilogue.residual ? residual.data() : nullptr;
  const int activation =
      epilogue.gated ? act | AGL_ACT_GATED(epilogue.gate_act) : act;

  if (l.packed_b) {
    // The layout kernels.h documents: per 32-column panel, k rows of 32.
    const int64_t nr = AGL_SGEMM_PACKED_NR, panels = (n + nr - 1) / nr;
    std::vector<float> packed((size_t)(panels * k * nr + 1), 0.0f);
    for (int64_t q = 0; q < panels; ++q)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < nr && q * nr + j < n; ++j)
          packed[(size_t)((q * k + p) * nr + j)] =
              b[(size_t)(p * b_rs + (q * nr + j) * b_cs)];
    agl_kernel_sgemm_packed(batch, m, n, k, a.data(), a_bs, a_rs, a_cs,
                            packed.data(), c.data(), c_bs, c_rs, accumulate,
                            epilogue.alpha, bias_arg, activation, residual_arg,
                            r_bs, r_rs, blocking);
  } else {
    agl_kernel_sgemm(batch, m, n, k, a.data(), a_bs, a_rs, a_cs, b.data(), b_bs,
                     b_rs, b_cs, c.data(), c_bs, c_rs, accumulate,
                     epilogue.alpha, bias_arg, activation, residual_arg, r_bs,
                     r_rs, blocking);
  }

  int failures = 0;
  std::vector<bool> written(c.size(), false);
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, scale = 0;
        for (int64_t p = 0; p < k; ++p) {
          double x = a[(size_t)(bt * a_bs + i * a_rs + p * a_cs)];
          double y = b[(size_t)(bt * b_bs + p * b_rs + j * b_cs)];
          sum += x * y;
          scale += std::fabs(x * y);
        }
        size_t at = (size_t)(bt * c_bs + i * c_rs + j);
        written[at] = true;
        sum *= epilogue.alpha;
        scale *= std::fabs(epilogue.alpha);
        if (accumulate) {
          sum += c_in[at];
          scale += std::fabs(c_in[at]);
        }
        if (epilogue.bias) {
          sum += bias[(size_t)j];
          scale += std::fabs(bias[(size_t)j]);
        }
        double want = activate(sum, act);
        if (epilogue.residual && epilogue.gated) {
          // Both factors carry their own few-ulp errors.
          double r = residual[(size_t)(bt * r_bs + i * r_rs + j)];
          double gate = activate(r, epilogue.gate_act);
          scale = (scale + std::fabs(want)) * (std::fabs(gate) + std::fabs(r));
          want *= gate;
        } else if (epilogue.residual) {
          double r = residual[(size_t)(bt * r_bs + i * r_rs + j)];
          want += r;
          scale += std::fabs(r);
        }
        double tolerance = ((double)k * std::ldexp(1.0, -23) + 1e-6) * scale + 1e-30;
        double got = c[at];
        if (!(std::fabs(got - want) <= tolerance)) {
          if (++failures <= 3)
            ADD_FAILURE() << describe(batch, m, n, k, l, accumulate, act, threads)
                          << ": C[" << bt << "," << i << "," << j << "] = " << got
                          << ", expected " << want << " (tolerance " << tolerance
                          << ")";
        }
      }
  // Nothing outside C's elements changes (padding, gaps between batches).
  for (size_t at = 0; at < c.size(); ++at)
    if (!written[at] && c[at] != c_in[at]) {
      if (++failures <= 3)
        ADD_FAILURE() << describe(batch, m, n, k, l, accumulate, act, threads)
                      << ": wrote outside C at offset " << at;
    }
  return failures;
}

class KernelsTest : public ::testing::Test {
protected:
  void TearDown() override {
    agl_conv_select(0);
    agl_gemm_select(0);
    ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
  }
};

struct Shape {
  int64_t batch, m, n, k;
};

// Boundaries of the AVX-512 blocking (MR 14, NR 32, KC 384, NC 512, MC up to
// 1120) and of the portable one (MR 4, NR 16), the small-m path (m or n <=
// 4), both ways of reading A, primes and degenerate sizes.
const Shape kShapes[] = {
    {1, 1, 1, 1},      {1, 1, 7, 13},     {1, 2, 37, 5},     {1, 3, 65, 129},
    {1, 4, 200, 17},   {1, 4, 64, 300},   {1, 1, 513, 40},   {1, 37, 1, 20},
    {1, 129, 3, 33},   {1, 200, 4, 65},   {1, 5, 5, 5},      {1, 7, 13, 37},
    {1, 13, 31, 15},   {1, 14, 32, 16},   {1, 15, 33, 17},   {1, 28, 64, 383},
    {1, 29, 63, 384},  {1, 31, 95, 385},  {1, 43, 129, 769}, {1, 17, 511, 9},
    {1, 9, 512, 12},   {1, 6, 545, 11},   {1, 1130, 36, 7},  {1, 1021, 5, 3},
    {3, 13, 37, 7},    {2, 1, 129, 29},   {4, 29, 17, 300},  {5, 2, 3, 70},
    // Small m on B packed ahead of time: four, two and one panel at a time.
    {1, 2, 300, 33},   {1, 3, 250, 70},
    // Row-major A packed (wider than one NC block; rows 4 KiB apart) rather
    // than read in place.
    {1, 40, 600, 50},  {1, 20, 40, 1024},
};

void sweep(int isa, int threads, int &failures) {
  agl_gemm_select(isa);
  ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
  std::mt19937 rng(1234 + isa * 10 + threads);
  int variant = 0;
  for (const Shape &s : kShapes)
    for (int layout = 0; layout < 4; ++layout)
      for (int accumulate = 0; accumulate < 2; ++accumulate) {
        Layout l{};
        l.a_transposed = layout & 1;
        l.b_transposed = layout & 2;
        // Spread the rarer variations over the sweep.
        l.padded = variant % 3 == 1;
        l.b_strided = variant % 7 == 3;
        l.broadcast_b = s.batch > 1 && variant % 2 == 0;
        l.packed_b = variant % 4 == 1;
        int act = variant % 5;
        ++variant;
        failures += checkGemm(s.batch, s.m, s.n, s.k, l, accumulate, act,
                              threads, rng);
        if (failures > 10)
          return;
      }
}

TEST_F(KernelsTest, SgemmMatchesReferenceDefaultKernels) {
  for (int threads : {1, 2, 3}) {
    int failures = 0;
    sweep(0, threads, failures);
    ASSERT_EQ(failures, 0) << "threads=" << threads;
  }
}

// The AVX2 + FMA table, also on CPUs whose default is AVX-512.
TEST_F(KernelsTest, SgemmMatchesReferenceAvx2Kernels) {
  agl_gemm_select(3);
  agl_sgemm_plan plan;
  agl_kernel_sgemm_describe(&plan);
  if (std::string(plan.isa) != "avx2")
    GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  for (int threads : {1, 2}) {
    int failures = 0;
    sweep(3, threads, failures);
    ASSERT_EQ(failures, 0) << "threads=" << threads;
  }
}

TEST_F(KernelsTest, SgemmMatchesReferencePortableKernels) {
  for (int threads : {1, 2}) {
    int failures = 0;
    sweep(1, threads, failures);
    ASSERT_EQ(failures, 0) << "threads=" << threads;
  }
}

// The epilogue tests' shapes: edge tiles, partial depth blocks (with
// kSmallBlocks), the small-m path in both orientations, a zero depth.
const Shape kEpilogueShapes[] = {
    {1, 29, 63, 37}, {2, 15, 33, 17},   {1, 3, 65, 129}, {1, 70, 3, 300},
    {3, 1, 45, 9},   {1, 43, 129, 769}, {1, 1, 1, 1},    {2, 20, 30, 0}};
const agl_gemm_blocking kSmallBlocks = {40, 64, 28};

// Every part of the epilogue, alone and together, on shapes with edge tiles
// (m, n not multiples of the micro-tile), partial depth blocks (the bias
// goes in with the first, the activation and residual with the last), the
// small-m path in both orientations, packed and strided B, 1 and 2 threads.
TEST_F(KernelsTest, EpilogueMatchesReference) {
  std::mt19937 rng(4242);
  for (int isa : {1, 2, 3})
    for (int threads : {1, 2}) {
      agl_gemm_select(isa);
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      int variant = 0;
      for (const Shape &s : kEpilogueShapes)
        for (int parts = 1; parts < 8; ++parts)
          for (int act = AGL_ACT_NONE; act <= AGL_ACT_SILU; ++act) {
            Epilogue e;
            e.bias = parts & 1;
            e.residual = parts & 2;
            e.alpha = parts & 4 ? 0.375f : 1.0f;
            Layout l{};
            l.b_transposed = variant % 3 == 1;
            l.packed_b = variant % 3 == 2;
            l.a_transposed = variant % 5 == 3;
            l.padded = variant % 2 == 1;
            int accumulate = variant % 7 == 4;
            const agl_gemm_blocking *blocking =
                variant % 4 == 0 ? &kSmallBlocks : nullptr;
            ++variant;
            ASSERT_EQ(checkGemm(s.batch, s.m, s.n, s.k, l, accumulate, act,
                                threads, rng, blocking, e),
                      0)
                << "isa=" << isa << " bias=" << e.bias
                << " residual=" << e.residual << " alpha=" << e.alpha;
          }
    }
}

// A gated epilogue, act(product) * gate_act(residual) (SwiGLU: the up
// projection's product times silu of the gate projection's), for every pair
// of activations, through the same paths: edge tiles, depth blocks (the gate
// goes in with the last), both small-m orientations, packed B, 1 and 2
// threads, each kernel table.
TEST_F(KernelsTest, GatedEpilogueMatchesReference) {
  std::mt19937 rng(5151);
  for (int isa : {1, 2, 3})
    for (int threads : {1, 2}) {
      agl_gemm_select(isa);
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      int variant = 0;
      for (const Shape &s : kEpilogueShapes)
        for (int act = AGL_ACT_NONE; act <= AGL_ACT_SILU; ++act)
          for (int gate = AGL_ACT_NONE; gate <= AGL_ACT_SILU; ++gate) {
            Epilogue e;
            e.residual = e.gated = true;
            e.gate_act = gate;
            e.bias = variant % 2 == 1;
            e.alpha = variant % 3 == 2 ? 0.375f : 1.0f;
            Layout l{};
            l.b_transposed = variant % 3 == 1;
            l.packed_b = variant % 3 != 1;
            l.padded = variant % 2 == 0;
            int accumulate = variant % 7 == 4;
            const agl_gemm_blocking *blocking =
                variant % 4 == 0 ? &kSmallBlocks : nullptr;
            ++variant;
            ASSERT_EQ(checkGemm(s.batch, s.m, s.n, s.k, l, accumulate, act,
                                threads, rng, blocking, e),
                      0)
                << "isa=" << isa << " act=" << act << " gate=" << gate;
          }
    }
}

// The activations the epilogue computes, against double references over
// [-12, 12]: within a few ulp of the result, or of a thousandth of the
// input where the result is tiny next to it (the far tails of the tanh
// GELU and SiLU). What is left comes from the float rounding of the
// exponent's argument (about |arg| ulp): the tanh form rounds the cubic,
// hence its larger bound. The erf GELU is held to absolute accuracy, ulp of
// max(|x|, |result|): the AVX-512 one is a table (agl_gelu_erf_table512_n),
// as accurate as evaluating x (1 + erf(x / sqrt 2)) / 2 in float.
TEST_F(KernelsTest, EpilogueActivationsAreAccurate) {
  const int64_t count = 24001;
  std::vector<float> x((size_t)count), one(1, 1.0f), c((size_t)count);
  for (int64_t i = 0; i < count; ++i)
    x[(size_t)i] = -12.0f + 24.0f * (float)i / (float)(count - 1);
  for (int isa : {1, 2, 3}) {
    agl_gemm_select(isa);
    for (int act = AGL_ACT_RELU; act <= AGL_ACT_SILU; ++act) {
      // C (count x 1) = act(x * 1): the packed path's column epilogue.
      agl_kernel_sgemm(1, count, 1, 1, x.data(), 0, 1, 1, one.data(), 0, 1, 1,
                       c.data(), 0, 1, 0, 1.0f, nullptr, act, nullptr, 0, 0,
                       nullptr);
      double worst = 0, worst_x = 0;
      for (int64_t i = 0; i < count; ++i) {
        double want = activate(x[(size_t)i], act);
        double input = std::fabs((double)x[(size_t)i]) *
                       (act == AGL_ACT_GELU_ERF ? 1.0 : 1e-3);
        double unit = std::ldexp(
            1.0, std::ilogb(std::max(std::fabs(want), input + 1e-30)) - 23);
        double error = std::fabs(c[(size_t)i] - want) / unit;
        if (error > worst) {
          worst = error;
          worst_x = x[(size_t)i];
        }
      }
      const double bound[] = {0, 0, 2, 12, 2}; // ulp, per AGL_ACT_*
      EXPECT_LE(worst, bound[act]) << "act=" << act << " isa=" << isa;
      std::printf("isa %d act %d: worst error %.2f ulp at x = %g\n", isa, act,
                  worst, worst_x);
    }
  }
}

TEST_F(KernelsTest, EveryActivationOnEveryLayout) {
  std::mt19937 rng(99);
  for (int isa : {0, 1, 3}) {
    agl_gemm_select(isa);
    for (int act = AGL_ACT_NONE; act <= AGL_ACT_SILU; ++act)
      for (int layout = 0; layout < 4; ++layout) {
        Layout l{};
        l.a_transposed = layout & 1;
        l.b_transposed = layout & 2;
        // Large sums reach the activations' tails.
        EXPECT_EQ(checkGemm(1, 30, 70, 400, l, 1, act, 2, rng), 0);
        EXPECT_EQ(checkGemm(1, 2, 70, 300, l, 0, act, 2, rng), 0);
        EXPECT_EQ(checkGemm(1, 70, 3, 300, l, 0, act, 2, rng), 0);
      }
  }
}

// Any blocking gives the product: small blocks (many partial kc sums, mc
// and nc not multiples of the micro-tile), one field set, blocks too large
// for the packing memory (reduced by the runtime), on both kernel tables.
TEST_F(KernelsTest, AnyBlockingGivesTheProduct) {
  const agl_gemm_blocking blockings[] = {
      {7, 40, 3},         {1, 1, 1},   {64, 0, 0},        {0, 96, 0},
      {0, 0, 30},         {0, 0, 0},   {100000, 0, 0},    {0, 100000, 100000},
      {2000, 2000, 2000}, {384, 512, 1120}};
  const Shape shapes[] = {{1, 50, 70, 130}, {2, 31, 100, 41}, {1, 130, 600, 90}};
  std::mt19937 rng(77);
  for (int isa : {1, 2, 3}) {
    agl_gemm_select(isa);
    for (int threads : {1, 2}) {
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      for (const agl_gemm_blocking &blocking : blockings)
        for (const Shape &s : kEpilogueShapes)
          for (bool packed : {false, true}) {
            Layout l{};
            l.packed_b = packed;
            EXPECT_EQ(checkGemm(s.batch, s.m, s.n, s.k, l, packed, AGL_ACT_NONE,
                                threads, rng, &blocking),
                      0)
                << "blocking kc=" << blocking.kc << " nc=" << blocking.nc
                << " mc=" << blocking.mc;
          }
    }
  }
  agl_gemm_select(0);
}

// The cost model's blocking fits the packing memory and, on a CPU with the
// caches it was measured on (32 KiB L1d, 1 MiB L2), is the measured best.
TEST_F(KernelsTest, CostModelBlockingFitsThePackingMemory) {
  agl_sgemm_plan plan;
  agl_kernel_sgemm_describe(&plan);
  EXPECT_GT(plan.kc, 0);
  EXPECT_EQ(plan.nc % plan.nr, 0);
  EXPECT_EQ(plan.mc % plan.mr, 0);
  EXPECT_LE(int64_t(plan.kc) * (plan.mc + plan.nc), AGL_GEMM_SCRATCH_FLOATS);
  if (plan.l1d_bytes == 32 << 10 && plan.l2_bytes == 1 << 20 &&
      std::string(plan.isa) == "avx512") {
    EXPECT_EQ(plan.kc, 384);
    EXPECT_EQ(plan.nc, 512);
    EXPECT_EQ(plan.mc, 1120);
  }
}

// A depth of up to 4/3 of the model's kc goes in one block; beyond, and for
// depths the model's kc covers, the model's kc. Products of such depths
// (one block of all of k, the packing memory refitted to it) are right.
TEST_F(KernelsTest, DepthUpToFourThirdsOfKcInOneBlock) {
  EXPECT_EQ(agl_gemm_depth_block(576, 500), 576);
  EXPECT_EQ(agl_gemm_depth_block(576, 576), 576);
  EXPECT_EQ(agl_gemm_depth_block(576, 768), 768);
  EXPECT_EQ(agl_gemm_depth_block(576, 769), 576);
  agl_sgemm_plan plan;
  agl_kernel_sgemm_describe(&plan);
  std::mt19937 rng(21);
  for (int isa : {1, 3}) {
    agl_gemm_select(isa);
    for (int64_t k : {int64_t(plan.kc) + 1, int64_t(plan.kc) * 4 / 3}) {
      Layout packed{};
      packed.packed_b = true;
      EXPECT_EQ(checkGemm(1, 40, 70, k, packed, 0, AGL_ACT_GELU_ERF, 2, rng), 0)
          << "k=" << k;
      EXPECT_EQ(checkGemm(2, 17, 33, k, Layout{}, 1, AGL_ACT_NONE, 1, rng), 0)
          << "k=" << k;
    }
  }
  agl_gemm_select(0);
}

// Where A's block takes at most half of the L2, B's block is cut so that
// both fit three quarters of it (whole micro-panels, never above the
// model's); an unknown L2 or a large A block leaves the model's. Products
// whose columns span several cut blocks are right.
TEST_F(KernelsTest, SmallABlockCutsTheColumnBlock) {
  const int64_t l2 = 1 << 20;
  EXPECT_EQ(agl_gemm_column_block(320, 768, 128, l2, 32, 1), 128);
  EXPECT_EQ(agl_gemm_column_block(320, 576, 128, l2, 32, 1), 192);
  EXPECT_EQ(agl_gemm_column_block(320, 576, 2048, l2, 32, 1), 320);
  EXPECT_EQ(agl_gemm_column_block(320, 768, 128, 0, 32, 1), 320);
  EXPECT_EQ(agl_gemm_column_block(64, 576, 14, l2, 32, 1), 64);
  EXPECT_EQ(agl_gemm_column_block(320, 768, 170, l2, 32, 1), 64);
  // Two blocks of B (the next one fetched while this one is used): half
  // the room each; a large A block still leaves the model's.
  EXPECT_EQ(agl_gemm_column_block(320, 576, 128, l2, 32, 2), 96);
  EXPECT_EQ(agl_gemm_column_block(640, 576, 128, 2 * l2, 32, 2), 256);
  EXPECT_EQ(agl_gemm_column_block(320, 576, 2048, l2, 32, 2), 320);
  agl_sgemm_plan plan;
  agl_kernel_sgemm_describe(&plan);
  std::mt19937 rng(23);
  for (int isa : {0, 1, 3}) {
    agl_gemm_select(isa);
    Layout packed{};
    packed.packed_b = true;
    EXPECT_EQ(checkGemm(1, 40, 3 * plan.nc + 5, plan.kc, packed, 0,
                        AGL_ACT_RELU, 2, rng),
              0);
    EXPECT_EQ(checkGemm(1, 60, 2 * plan.nc + 40, plan.kc + 9, Layout{}, 1,
                        AGL_ACT_NONE, 1, rng),
              0);
  }
  agl_gemm_select(0);
}

TEST_F(KernelsTest, ZeroDepthWritesActivationOfZeroOrC) {
  for (int isa : {0, 1, 3}) {
    agl_gemm_select(isa);
    std::vector<float> c(6, -2.0f);
    agl_kernel_sgemm(1, 2, 3, 0, nullptr, 0, 0, 0, nullptr, 0, 0, 0, c.data(),
                     6, 3, 0, 1.0f, nullptr, AGL_ACT_NONE, nullptr, 0, 0, nullptr);
    for (float x : c)
      EXPECT_EQ(x, 0.0f);
    std::fill(c.begin(), c.end(), -2.0f);
    agl_kernel_sgemm(1, 2, 3, 0, nullptr, 0, 0, 0, nullptr, 0, 0, 0, c.data(),
                     6, 3, 1, 1.0f, nullptr, AGL_ACT_RELU, nullptr, 0, 0, nullptr);
    for (float x : c)
      EXPECT_EQ(x, 0.0f);
    std::fill(c.begin(), c.end(), 1.0f);
    agl_kernel_sgemm(1, 2, 3, 0, nullptr, 0, 0, 0, nullptr, 0, 0, 0, c.data(),
                     6, 3, 1, 1.0f, nullptr, AGL_ACT_SILU, nullptr, 0, 0, nullptr);
    for (float x : c)
      EXPECT_NEAR(x, 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
  }
}

// Zero strides inside a matrix: every row of A the same, every column of B
// the same (and, for the small path, both with m <= 4).
TEST_F(KernelsTest, ZeroRowAndColumnStrides) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int isa : {0, 1, 3})
    for (int64_t m : {3, 40})
      for (int threads : {1, 2}) {
        agl_gemm_select(isa);
        ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
        const int64_t n = 45, k = 33;
        std::vector<float> arow(k), bcol(k), c((size_t)(m * n));
        for (float &x : arow)
          x = dist(rng);
        for (float &x : bcol)
          x = dist(rng);
        double dot = 0, scale = 0;
        for (int64_t p = 0; p < k; ++p) {
          dot += (double)arow[p] * bcol[p];
          scale += std::fabs((double)arow[p] * bcol[p]);
        }
        // A: row stride 0; B: column stride 0.
        agl_kernel_sgemm(1, m, n, k, arow.data(), 0, 0, 1, bcol.data(), 0, 1,
                         0, c.data(), 0, n, 0, 1.0f, nullptr, AGL_ACT_NONE, nullptr, 0, 0, nullptr);
        for (float x : c)
          ASSERT_NEAR(x, dot, k * 1.2e-7 * scale + 1e-30)
              << "m=" << m << " isa=" << isa << " threads=" << threads;
      }
}

TEST_F(KernelsTest, EmptyProductsTouchNothing) {
  std::vector<float> c(4, 5.0f);
  float a[4] = {1, 2, 3, 4};
  agl_kernel_sgemm(0, 2, 2, 2, a, 4, 2, 1, a, 4, 2, 1, c.data(), 4, 2, 0, 1.0f, nullptr, 0, nullptr, 0, 0, nullptr);
  agl_kernel_sgemm(1, 0, 2, 2, a, 4, 2, 1, a, 4, 2, 1, c.data(), 4, 2, 0, 1.0f, nullptr, 0, nullptr, 0, 0, nullptr);
  agl_kernel_sgemm(1, 2, 0, 2, a, 4, 2, 1, a, 4, 2, 1, c.data(), 4, 2, 0, 1.0f, nullptr, 0, nullptr, 0, 0, nullptr);
  for (float x : c)
    EXPECT_EQ(x, 5.0f);
}

TEST_F(KernelsTest, ConcurrentCallersTakeTurns) {
  ASSERT_EQ(agl_set_num_threads(2), AGL_OK);
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([t, &failures] {
      std::mt19937 rng(t);
      for (int r = 0; r < 5; ++r)
        failures += checkGemm(1, 40 + t, 70, 50, Layout{}, r & 1, 0, 2, rng);
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

struct Coverage {
  std::vector<std::atomic<int>> *hits;
  std::atomic<int> calls{0};
  bool nest = false;
};

void countRange(void *raw, int64_t begin, int64_t end) {
  Coverage *cov = static_cast<Coverage *>(raw);
  ++cov->calls;
  for (int64_t i = begin; i < end; ++i)
    ++(*cov->hits)[(size_t)i];
}

void nestedRange(void *raw, int64_t begin, int64_t end) {
  Coverage *cov = static_cast<Coverage *>(raw);
  for (int64_t i = begin; i < end; ++i) {
    // Runs serially here; covers one row of 10 entries.
    struct Row {
      std::vector<std::atomic<int>> *hits;
      int64_t base;
    } row{cov->hits, i * 10};
    agl_parallel_for(
        10, 1,
        [](void *r, int64_t b, int64_t e) {
          Row *rw = static_cast<Row *>(r);
          for (int64_t j = b; j < e; ++j)
            ++(*rw->hits)[(size_t)(rw->base + j)];
        },
        &row);
    // A GEMM inside the region runs serially on this thread's memory.
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
    agl_kernel_sgemm(1, 2, 2, 3, a, 0, 3, 1, b, 0, 2, 1, c, 0, 2, 0, 1.0f, nullptr, 0, nullptr, 0, 0, nullptr);
    if (c[0] != 4 || c[1] != 5 || c[2] != 10 || c[3] != 11)
      ++cov->calls; // flagged below
  }
}

TEST_F(KernelsTest, ParallelForCoversEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
    for (int64_t n : {1, 2, 3, 5, 64, 1001}) {
      for (int64_t grain : {1, 7, 1000}) {
        std::vector<std::atomic<int>> hits((size_t)n);
        Coverage cov;
        cov.hits = &hits;
        agl_parallel_for(n, grain, countRange, &cov);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[(size_t)i].load(), 1)
              << "index " << i << " of " << n << ", grain " << grain
              << ", threads " << threads;
        EXPECT_LE(cov.calls.load(), threads);
        EXPECT_LE(cov.calls.load(), (n + grain - 1) / grain);
      }
    }
  }
  Coverage cov;
  std::vector<std::atomic<int>> none(1);
  cov.hits = &none;
  agl_parallel_for(0, 1, countRange, &cov);
  EXPECT_EQ(cov.calls.load(), 0);
}

TEST_F(KernelsTest, NestedCallsRunSerially) {
  ASSERT_EQ(agl_set_num_threads(3), AGL_OK);
  std::vector<std::atomic<int>> hits(50 * 10);
  Coverage cov;
  cov.hits = &hits;
  agl_parallel_for(50, 1, nestedRange, &cov);
  for (size_t i = 0; i < hits.size(); ++i)
    ASSERT_EQ(hits[i].load(), 1) << "index " << i;
  EXPECT_EQ(cov.calls.load(), 0) << "a nested GEMM gave a wrong result";
}

TEST_F(KernelsTest, ThreadCountIsSetAndChecked) {
  EXPECT_EQ(agl_set_num_threads(-1), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(agl_last_error()).find("negative"), std::string::npos)
      << agl_last_error();
  EXPECT_NE(std::string(agl_last_error()).find("agl_set_num_threads"),
            std::string::npos);
  for (int threads : {1, 3, 2}) {
    ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
    EXPECT_EQ(agl_get_num_threads(), threads);
  }
  ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
  EXPECT_GE(agl_get_num_threads(), 1);
  EXPECT_EQ(agl_set_thread_affinity(1), AGL_OK);
  ASSERT_EQ(agl_set_num_threads(2), AGL_OK);
  std::mt19937 rng(5);
  EXPECT_EQ(checkGemm(1, 50, 60, 70, Layout{}, 0, 0, 2, rng), 0);
  EXPECT_EQ(agl_set_thread_affinity(0), AGL_OK);
}

// ---- agl_kernel_conv2d -------------------------------------------------------

struct ConvShape {
  int64_t batch, groups, cin, h, w, cout, kh, kw, sh, sw, dh, dw, pt, pl, pb,
      pr;
};

// Packs weights [groups, cout, cin, kh, kw] in agl_kernel_conv2d's layout:
// per group, panels of AGL_CONV_PACKED_NR filters, depth by depth, the last
// panel only as wide as the filters left.
std::vector<float> packConvWeights(const std::vector<float> &w,
                                   const ConvShape &s) {
  const int64_t nr = AGL_CONV_PACKED_NR, depth = s.cin * s.kh * s.kw;
  std::vector<float> packed(w.size());
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t f = 0; f < s.cout; ++f) {
      int64_t first = f / nr * nr, width = std::min(nr, s.cout - first);
      for (int64_t d = 0; d < depth; ++d)
        packed[(g * s.cout + first) * depth + d * width + (f - first)] =
            w[(g * s.cout + f) * depth + d];
    }
  return packed;
}

// Compares agl_kernel_conv2d with a naive loop in double on random data:
// inputs with padded rows and channels, outputs with padded channels (whose
// gaps must stay untouched). Returns the number of mismatches.
// With `winograd` 2 or 4, agl_kernel_conv2d_winograd or _f4 instead (3x3,
// unit strides and dilations, one group), within a looser bound: F(2x2)'s
// transforms add up to 16 products of an input and a weight before the
// sums over channels; F(4x4)'s weigh them by up to 5 x 5 (B^T) and 8 x 8
// (A^T) as well.
int checkConv(const ConvShape &s, bool withBias, int accumulate, int act,
              bool withResidual, std::mt19937 &rng,
              const agl_gemm_blocking *blocking = nullptr, int winograd = 0) {
  const int64_t oh = (s.h + s.pt + s.pb - s.dh * (s.kh - 1) - 1) / s.sh + 1;
  const int64_t ow = (s.w + s.pl + s.pr - s.dw * (s.kw - 1) - 1) / s.sw + 1;
  const int64_t rowStride = s.w + 3, channelStride = s.h * rowStride + 5;
  const int64_t channels = s.groups * s.cin, filters = s.groups * s.cout;
  const int64_t inBatch = channels * channelStride + 7;
  const int64_t outChannel = oh * ow + 2, outBatch = filters * outChannel + 1;
  const int64_t depth = s.cin * s.kh * s.kw;
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> in(s.batch * inBatch), w(filters * depth), bias(filters),
      out(s.batch * outBatch), residual(s.batch * outBatch);
  for (float &v : in)
    v = dist(rng);
  for (float &v : residual)
    v = dist(rng);
  for (float &v : w)
    v = dist(rng);
  for (float &v : bias)
    v = dist(rng);
  for (float &v : out)
    v = dist(rng);
  const std::vector<float> before = out;
  if (winograd == 4) {
    std::vector<float> transformed(
        agl_conv_winograd_f4_filters_floats(s.cout, s.cin)),
        workspace(agl_conv_winograd_f4_workspace_floats(s.cin, s.cout, oh, ow));
    agl_conv_winograd_f4_filters(w.data(), s.cout, s.cin, transformed.data());
    agl_kernel_conv2d_winograd_f4(
        s.batch, s.cin, s.h, s.w, in.data(), inBatch, channelStride, rowStride,
        s.cout, s.pt, s.pl, transformed.data(),
        withBias ? bias.data() : nullptr, out.data(), oh, ow, outBatch,
        outChannel, accumulate, act, withResidual ? residual.data() : nullptr,
        workspace.data(), blocking);
  } else if (winograd) {
    std::vector<float> transformed(
        agl_conv_winograd_filters_floats(s.cout, s.cin)),
        workspace(agl_conv_winograd_workspace_floats(s.cin, s.cout, oh, ow));
    agl_conv_winograd_filters(w.data(), s.cout, s.cin, transformed.data());
    agl_kernel_conv2d_winograd(
        s.batch, s.cin, s.h, s.w, in.data(), inBatch, channelStride, rowStride,
        s.cout, s.pt, s.pl, transformed.data(),
        withBias ? bias.data() : nullptr, out.data(), oh, ow, outBatch,
        outChannel, accumulate, act, withResidual ? residual.data() : nullptr,
        workspace.data(), blocking);
  } else {
    std::vector<float> packed = packConvWeights(w, s);
    agl_kernel_conv2d(s.batch, s.groups, s.cin, s.h, s.w, in.data(), inBatch,
                      channelStride, rowStride, s.cout, s.kh, s.kw, s.sh, s.sw,
                      s.dh, s.dw, s.pt, s.pl, packed.data(),
                      withBias ? bias.data() : nullptr, out.data(), oh, ow,
                      outBatch, outChannel, accumulate, act,
                      withResidual ? residual.data() : nullptr, blocking);
  }
  int failures = 0;
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t f = 0; f < filters; ++f) {
      int64_t g = f / s.cout;
      for (int64_t pos = 0; pos < outChannel; ++pos) {
        int64_t at = n * outBatch + f * outChannel + pos;
        if (pos >= oh * ow) {
          if (out[at] != before[at] && ++failures <= 3)
            ADD_FAILURE() << "wrote into the gap at " << at;
          continue;
        }
        int64_t oy = pos / ow, ox = pos % ow;
        double sum = (accumulate ? before[at] : 0.0) +
                     (withBias ? bias[f] : 0.0) +
                     (withResidual ? residual[at] : 0.0),
               scale = std::fabs(sum);
        for (int64_t c = 0; c < s.cin; ++c)
          for (int64_t ki = 0; ki < s.kh; ++ki)
            for (int64_t kj = 0; kj < s.kw; ++kj) {
              int64_t iy = oy * s.sh + ki * s.dh - s.pt;
              int64_t ix = ox * s.sw + kj * s.dw - s.pl;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                continue;
              double x = in[n * inBatch + (g * s.cin + c) * channelStride +
                            iy * rowStride + ix];
              double wt = w[f * depth + (c * s.kh + ki) * s.kw + kj];
              sum += x * wt;
              scale += std::fabs(x * wt);
            }
        double expect = activate(sum, act);
        double tol = ((winograd == 4 ? 64
                       : winograd    ? 16
                                     : 1) *
                          depth * std::ldexp(1.0, -23) +
                      1e-6) *
                         scale +
                     1e-30;
        if (!(std::fabs(out[at] - expect) <= tol) && ++failures <= 3)
          ADD_FAILURE() << "conv n=" << n << " f=" << f << " y=" << oy
                        << " x=" << ox << ": " << out[at] << " vs " << expect;
      }
    }
  return failures;
}

// Around the blocking (14-row panels, 32-column panels, depth blocks of 384,
// column blocks of 512), with padding on every side, strides, dilations,
// groups, odd sizes and outputs narrower than a panel.
const ConvShape kConvShapes[] = {
    // batch groups cin h w cout kh kw sh sw dh dw pt pl pb pr
    {1, 1, 3, 11, 13, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 3, 23, 23, 16, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
    {2, 1, 5, 9, 17, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {1, 1, 45, 12, 12, 29, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, // depth 405 > 384
    {1, 1, 8, 7, 7, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 16, 30, 40, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},   // 1200 columns
    {1, 1, 16, 14, 14, 33, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},  // 1x1/2
    {1, 3, 4, 10, 11, 6, 3, 2, 1, 2, 1, 1, 2, 0, 1, 1},    // groups
    {1, 2, 3, 13, 9, 5, 3, 3, 1, 1, 2, 3, 2, 3, 2, 3},     // dilations
    {1, 1, 2, 6, 5, 7, 2, 4, 3, 1, 1, 2, 0, 2, 1, 3},      // uneven pads
    {1, 1, 1, 1, 40, 9, 1, 5, 1, 3, 1, 1, 0, 2, 0, 2},     // a 1-D row
    {1, 1, 3, 5, 5, 20, 5, 5, 1, 1, 1, 1, 4, 4, 4, 4},     // mostly padding
    {1, 1, 3, 20, 75, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   // rows over panels
    {1, 1, 2, 5, 70, 14, 3, 5, 1, 1, 1, 2, 1, 3, 1, 3},
    {1, 1, 4, 9, 33, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},     // 1x1, unpadded
    // Filters as the micro-kernel's columns: full and partial 32-filter
    // panels, partial 14-position panels, panels within one output row.
    {1, 1, 6, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     // 49 = 3x14 + 7
    {1, 1, 5, 28, 28, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},   // 32 + 8 filters
    {2, 2, 3, 14, 14, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   // groups of 33
    {1, 1, 90, 6, 6, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    // depth 810
    {1, 1, 3, 30, 30, 16, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1},   // stride 3
    {1, 1, 2, 4, 40, 9, 1, 17, 1, 1, 1, 1, 0, 8, 0, 8},    // kernel 17 wide
    {1, 1, 3, 21, 21, 8, 3, 3, 1, 2, 2, 1, 2, 1, 2, 1},    // mixed strides
    {1, 1, 0, 5, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},      // no channels
    // The direct kernel: tiles of 32 positions running over into the next
    // output row (rows 16..31 wide: over three rows), rows a multiple of
    // 32, strides 2 with a partial last tile, filters split into tiles of
    // at most 14 within 32-filter panels, depth blocks of 1024, kernel
    // rows wholly in the padding, the widest kernel it takes.
    {1, 1, 5, 9, 20, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},     // 20 wide
    {1, 1, 4, 6, 40, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    // 40, 32 + 1
    {2, 1, 3, 8, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    // ResNet-like
    {1, 1, 130, 5, 17, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  // depth 1170
    {1, 1, 3, 9, 70, 20, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},    // 7x7/2, 35 wide
    {1, 1, 2, 7, 48, 5, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},     // dilation 2
    {1, 2, 3, 10, 33, 16, 3, 5, 1, 1, 1, 1, 1, 2, 1, 2},   // groups, 33 wide
    {1, 1, 3, 12, 64, 28, 3, 3, 1, 1, 1, 1, 0, 0, 2, 2},   // uneven pads
    {1, 1, 2, 4, 40, 9, 1, 16, 1, 1, 1, 1, 0, 8, 0, 7},    // kernel 16 wide
    {1, 1, 2, 3, 20, 6, 5, 5, 1, 1, 1, 1, 4, 2, 4, 2},     // rows of padding
    {1, 1, 3, 6, 37, 45, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},    // stride 2, 19 wide
    {1, 3, 2, 5, 18, 2, 2, 3, 3, 1, 1, 2, 1, 2, 1, 2},     // stride 3 rows
    // Stride 2 with rows too many to split or copy into the packing memory
    // (the direct paths then take the even columns with permutes).
    {1, 1, 1000, 9, 200, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    // Filters along the vectors: rows of 14 positions and less, partial
    // filter panels, rows copied in halves to fit the packing memory.
    {1, 1, 7, 9, 29, 50, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 1000, 14, 40, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // Rows of 7 positions or fewer, two to a tile: the top row in the
    // padding, an odd last row, weights outweighing the input (filters split
    // among the threads, which reuse their copy of the rows), stride 2,
    // dilation.
    {1, 1, 64, 14, 14, 96, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {1, 1, 40, 3, 3, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 1, 24, 9, 5, 40, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
    {1, 2, 30, 4, 4, 33, 2, 2, 1, 1, 1, 1, 0, 0, 1, 1},
};

// Each way of agl_kernel_conv2d: chosen by shape (0), the implicit GEMM
// (1), the direct kernels wherever they can (2: positions along the
// vectors, AVX-512 only; 3: filters along the vectors, AVX-512 or AVX2).
TEST_F(KernelsTest, Conv2dMatchesReference) {
  std::mt19937 rng(77);
  for (int way : {0, 1, 2, 3})
    for (int isa : {0, 1, 3})
      for (int threads : {1, 2, 3}) {
        if ((way == 2 && isa != 0) || (way == 3 && isa == 1))
          continue;
        agl_conv_select(way);
        agl_gemm_select(isa);
        ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
        // Each way and thread count gives each shape another
        // bias/accumulate/ReLU/residual mix.
        int variant = threads + 3 * way, failures = 0, index = 0;
        for (const ConvShape &s : kConvShapes) {
          bool withBias = variant % 2 == 0;
          int accumulate = variant % 3 == 1;
          int act = variant % 5 == 2 ? AGL_ACT_RELU : AGL_ACT_NONE;
          bool withResidual = variant % 7 < 3;
          ++variant;
          // Every fourth shape with small blocks of its own.
          const agl_gemm_blocking small = {50, 64, 28};
          failures += checkConv(s, withBias, accumulate, act, withResidual, rng,
                                variant % 4 == 0 ? &small : nullptr);
          ASSERT_EQ(failures, 0)
              << "way=" << way << " isa=" << isa << " threads=" << threads
              << " shape " << index;
          ++index;
        }
      }
}

// At 2 and 3 threads a convolution whose task grid splits only the filters
// packs its windows together, as many depth blocks per phase as the
// packing memory holds: here 2 of 6 (a blocking leaving room for 2 blocks
// of 100 depths of the 49 positions), the last block 76 deep.
TEST_F(KernelsTest, Conv2dSharedWindowsInPhasesOfDepthBlocks) {
  std::mt19937 rng(78);
  const ConvShape shape = {1, 1, 64, 7, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  const agl_gemm_blocking phases = {100, 6144, 0};
  agl_conv_select(1); // the implicit GEMM
  for (int isa : {0, 1})
    for (int threads : {2, 3}) {
      agl_gemm_select(isa);
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      EXPECT_EQ(checkConv(shape, true, 0, AGL_ACT_RELU, true, rng, &phases), 0)
          << "isa=" << isa << " threads=" << threads;
      EXPECT_EQ(checkConv(shape, false, 1, AGL_ACT_NONE, false, rng, &phases),
                0)
          << "isa=" << isa << " threads=" << threads;
    }
  agl_conv_select(0);
  agl_gemm_select(0);
  ASSERT_EQ(agl_set_num_threads(1), AGL_OK);
}

// agl_kernel_conv2d_winograd: output sizes odd and even (partial 2x2
// tiles), tile rows of fewer and more than 8 tiles, padding 0, 1 and 2 on
// uneven sides, one channel, depths across the GEMM's depth blocks, filters
// across its 32-wide panels, a batch, a 1x1 image.
const ConvShape kWinogradShapes[] = {
    // batch groups cin h w cout kh kw sh sw dh dw pt pl pb pr
    {1, 1, 3, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {2, 1, 5, 9, 17, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 1, 12, 40, 7, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 1, 16, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 400, 7, 9, 40, 3, 3, 1, 1, 1, 1, 2, 1, 0, 2},
    {1, 1, 8, 1, 1, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 1, 6, 31, 35, 70, 3, 3, 1, 1, 1, 1, 1, 2, 1, 0},
};

// Runs checkConv with Winograd tile `tile` on every shape, for each ISA in
// `isas` and 1-3 threads, the epilogue varying from call to call.
void checkWinograd(const std::vector<ConvShape> &shapes, int tile,
                   std::initializer_list<int> isas, std::mt19937 &rng) {
  for (int isa : isas)
    for (int threads : {1, 2, 3}) {
      agl_gemm_select(isa);
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      int variant = threads + isa, failures = 0, index = 0;
      for (const ConvShape &s : shapes) {
        bool withBias = variant % 2 == 0;
        int accumulate = variant % 3 == 1;
        int act = variant % 5 == 2   ? AGL_ACT_RELU
                  : variant % 5 == 4 ? AGL_ACT_SILU
                                     : AGL_ACT_NONE;
        bool withResidual = variant % 7 < 3;
        ++variant;
        const agl_gemm_blocking small = {50, 64, 28};
        failures += checkConv(s, withBias, accumulate, act, withResidual, rng,
                              variant % 4 == 0 ? &small : nullptr, tile);
        ASSERT_EQ(failures, 0) << "tile=" << tile << " isa=" << isa
                               << " threads=" << threads << " shape " << index;
        ++index;
      }
    }
}

TEST_F(KernelsTest, Conv2dWinogradMatchesReference) {
  std::mt19937 rng(79);
  checkWinograd({std::begin(kWinogradShapes), std::end(kWinogradShapes)}, 2,
                {0, 1, 3}, rng);
}

// agl_kernel_conv2d_winograd_f4: the shapes above (partial 4x4 tiles,
// blocks of one and of several rows of tiles, fewer blocks than threads),
// rows of more than 32 tiles (blocks of part of a row) and more blocks than
// the workspace has slots.
TEST_F(KernelsTest, Conv2dWinogradF4MatchesReference) {
  std::vector<ConvShape> shapes(std::begin(kWinogradShapes),
                                std::end(kWinogradShapes));
  shapes.push_back({1, 1, 4, 6, 150, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  shapes.push_back({1, 1, 3, 70, 70, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  // 13 x 13 tiles: 7 blocks of 2 tile rows, one left over by 2 and by 3
  // threads, which all of them share by filter panels (30 filters: 3).
  shapes.push_back({1, 1, 5, 52, 52, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  std::mt19937 rng(83);
  checkWinograd(shapes, 4, {0, 1}, rng);
}

// ---- agl_kernel_maxpool2d ----------------------------------------------------

struct PoolShape {
  int64_t batch, channels, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
};

// Compares agl_kernel_maxpool2d with a naive loop on random data with a few
// NaNs: inputs with padded rows and channels, outputs with padded rows
// (whose gaps must stay untouched). Returns the number of mismatches.
int checkMaxPool(const PoolShape &s, std::mt19937 &rng) {
  const int64_t oh = (s.h + s.pt + s.pb - s.dh * (s.kh - 1) - 1) / s.sh + 1;
  const int64_t ow = (s.w + s.pl + s.pr - s.dw * (s.kw - 1) - 1) / s.sw + 1;
  const int64_t inRow = s.w + 3, inChannel = s.h * inRow + 5,
                inBatch = s.channels * inChannel + 7;
  const int64_t outRow = ow + 2, outChannel = oh * outRow + 1,
                outBatch = s.channels * outChannel + 3;
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> in(s.batch * inBatch), out(s.batch * outBatch);
  for (float &v : in)
    v = rng() % 97 == 0 ? NAN : dist(rng);
  for (float &v : out)
    v = dist(rng);
  const std::vector<float> before = out;
  agl_kernel_maxpool2d(s.batch, s.channels, s.h, s.w, in.data(), inBatch,
                       inChannel, inRow, s.kh, s.kw, s.sh, s.sw, s.dh, s.dw,
                       s.pt, s.pl, out.data(), oh, ow, outBatch, outChannel,
                       outRow);
  int failures = 0;
  for (int64_t at = 0; at < (int64_t)out.size(); ++at) {
    int64_t n = at / outBatch, c = at % outBatch / outChannel;
    int64_t oy = at % outBatch % outChannel / outRow,
            ox = at % outBatch % outChannel % outRow;
    if (c >= s.channels || oy >= oh || ox >= ow) {
      if (out[at] != before[at] && ++failures <= 3)
        ADD_FAILURE() << "wrote into the gap at " << at;
      continue;
    }
    float expect = -INFINITY;
    for (int64_t ki = 0; ki < s.kh; ++ki)
      for (int64_t kj = 0; kj < s.kw; ++kj) {
        int64_t iy = oy * s.sh + ki * s.dh - s.pt;
        int64_t ix = ox * s.sw + kj * s.dw - s.pl;
        if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
          continue;
        float x = in[n * inBatch + c * inChannel + iy * inRow + ix];
        expect = std::isnan(x) || std::isnan(expect) ? NAN
                                                     : std::max(expect, x);
      }
    bool same = std::isnan(expect) ? std::isnan(out[at]) : out[at] == expect;
    if (!same && ++failures <= 3)
      ADD_FAILURE() << "maxpool n=" << n << " c=" << c << " y=" << oy
                    << " x=" << ox << ": " << out[at] << " vs " << expect;
  }
  return failures;
}

// The ResNet stem's 3x3/2 pool, stride 1, stride 3 (no vector form),
// dilations, uneven and large pads (windows wholly in the padding give
// -inf), rows wider than the 16 lanes, a 1x1 window, a batch, the widest
// windows of the vector rows and wider ones.
const PoolShape kPoolShapes[] = {
    // batch channels h w kh kw sh sw dh dw pt pl pb pr
    {1, 5, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    {2, 3, 9, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 2, 13, 40, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0},
    {1, 3, 11, 23, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 2, 15, 37, 3, 2, 1, 2, 2, 3, 2, 1, 0, 2},
    {1, 1, 5, 6, 2, 3, 1, 1, 1, 1, 0, 2, 1, 3},
    {1, 2, 4, 4, 2, 2, 2, 2, 1, 1, 3, 3, 3, 3},
    {1, 1, 3, 70, 1, 5, 1, 1, 1, 1, 0, 2, 0, 2},
    {1, 4, 7, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    // Windows spanning 17 columns (the widest of the vector rows), 21
    // columns and 17 rows (the portable row).
    {1, 2, 6, 50, 2, 9, 1, 2, 1, 2, 0, 3, 1, 3},
    {1, 1, 5, 40, 2, 6, 1, 1, 1, 4, 0, 0, 0, 0},
    {1, 1, 20, 8, 17, 2, 1, 1, 1, 1, 0, 0, 0, 0},
};

// Runs `check` (which returns its mismatches) on every shape with each
// kernel table (the best this CPU runs, portable, AVX2) at 1 and 3 threads.
template <typename Shapes, typename Check>
void checkEveryShapeEverywhere(const Shapes &shapes, Check check) {
  for (int isa : {0, 1, 3})
    for (int threads : {1, 3}) {
      agl_gemm_select(isa);
      ASSERT_EQ(agl_set_num_threads(threads), AGL_OK);
      int index = 0;
      for (const auto &s : shapes) {
        ASSERT_EQ(check(s), 0)
            << "isa=" << isa << " threads=" << threads << " shape " << index;
        ++index;
      }
    }
}

TEST_F(KernelsTest, MaxPool2dMatchesReference) {
  std::mt19937 rng(91);
  checkEveryShapeEverywhere(
      kPoolShapes, [&](const PoolShape &s) { return checkMaxPool(s, rng); });
}

// ---- agl_kernel_transpose32
// --------------------------------------------------

struct TransposeShape {
  int64_t outer0, outer1, rows, cols;
};

// Compares agl_kernel_transpose32 with the definition on random 32-bit
// patterns (NaN payloads among them: the bits must move unchanged), with
// gaps between the input's columns and planes and between the output's
// rows and planes, which must stay untouched. Returns the mismatches.
int checkTranspose(const TransposeShape &s, std::mt19937 &rng) {
  const int64_t inCol = s.rows + 3, inS1 = s.cols * inCol + 5,
                inS0 = s.outer1 * inS1 + 1;
  const int64_t outRow = s.cols + 2, outS1 = s.rows * outRow + 7,
                outS0 = s.outer1 * outS1 + 3;
  std::vector<uint32_t> in(s.outer0 * inS0), out(s.outer0 * outS0);
  for (uint32_t &v : in)
    v = (uint32_t)rng();
  for (uint32_t &v : out)
    v = (uint32_t)rng();
  const std::vector<uint32_t> before = out;
  agl_kernel_transpose32(s.outer0, s.outer1, s.rows, s.cols, in.data(), inS0,
                         inS1, inCol, out.data(), outS0, outS1, outRow);
  int failures = 0;
  for (int64_t at = 0; at < (int64_t)out.size(); ++at) {
    int64_t a = at / outS0, b = at % outS0 / outS1;
    int64_t i = at % outS0 % outS1 / outRow, j = at % outS0 % outS1 % outRow;
    if (b >= s.outer1 || i >= s.rows || j >= s.cols) {
      if (out[at] != before[at] && ++failures <= 3)
        ADD_FAILURE() << "wrote into the gap at " << at;
      continue;
    }
    uint32_t expect = in[a * inS0 + b * inS1 + i + j * inCol];
    if (out[at] != expect && ++failures <= 3)
      ADD_FAILURE() << "transpose a=" << a << " b=" << b << " i=" << i
                    << " j=" << j << ": " << out[at] << " vs " << expect;
  }
  return failures;
}

// Whole 8 x 8 tiles, edges of every width (rows and columns not multiples
// of 8, fewer than 8), blocks past 64, one large plane (split into bands
// of columns across the threads), many small planes, NHWC -> NCHW's shape.
const TransposeShape kTransposeShapes[] = {
    // outer0 outer1 rows cols
    {1, 1, 8, 8},    {1, 1, 1, 1},    {1, 1, 3, 5},   {2, 3, 13, 11},
    {1, 2, 64, 64},  {1, 1, 130, 71}, {1, 1, 7, 300}, {1, 1, 300, 7},
    {1, 1, 96, 700}, {3, 17, 16, 24}, {2, 5, 1, 40},  {1, 28, 64, 28},
};

TEST_F(KernelsTest, TransposeMatchesReference) {
  std::mt19937 rng(97);
  checkEveryShapeEverywhere(kTransposeShapes, [&](const TransposeShape &s) {
    return checkTranspose(s, rng);
  });
}

// Zero extents move nothing.
TEST_F(KernelsTest, TransposeOfNothingWritesNothing) {
  uint32_t in[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
  agl_kernel_transpose32(1, 1, 0, 4, in, 0, 0, 1, out, 0, 0, 4);
  agl_kernel_transpose32(0, 1, 2, 2, in, 0, 0, 2, out, 0, 0, 2);
  agl_kernel_transpose32(1, 0, 2, 2, in, 0, 0, 2, out, 0, 0, 2);
  for (uint32_t v : out)
    EXPECT_EQ(v, 9u);
}

} // namespace
