// Tests of agl_kernel_attention against a naive reference in double (scores,
// causal limit, mask, softmax, product with V) over decode and prefill
// shapes, grouped-query heads, sizes that are not multiples of the vector
// width or of the kernel's blocks, masks of several broadcast forms with
// -inf entries (a fully masked row must come out as zeros), interleaved
// [batch, seq, heads, dim] layouts, both kernel tables and 1 or 3 threads;
// and agl_kernel_attention_with_past, which first copies the cache's past
// rows into K and V (checked to hold the whole cache afterwards).
//
// Tolerance: every output is a convex combination of V's rows, each |V| <= 1;
// the scores' rounding (head_dim float terms) moves the probabilities by a
// relative 1e-5 or so, hence 1e-4 absolute.
#include "autoglm/kernels.h"
#include "autoglm/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

struct agl_gemm_isa;
extern "C" const agl_gemm_isa *agl_gemm_select(int which);

namespace {

enum class Mask { None, Full, PerQueryRow, PerBatchKey };

struct Shape {
  int64_t batch, heads, kvHeads, qLen, kvLen, headDim, valueDim;
  Mask mask;
  bool causal;
  bool interleaved; // Q, K, V, out stored [batch, seq, heads, dim]
};

std::string describe(const Shape &s, int isa, int threads) {
  return "B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
         " Hkv=" + std::to_string(s.kvHeads) + " Sq=" + std::to_string(s.qLen) +
         " Sk=" + std::to_string(s.kvLen) + " D=" + std::to_string(s.headDim) +
         " Dv=" + std::to_string(s.valueDim) +
         " mask=" + std::to_string(int(s.mask)) +
         (s.causal ? " causal" : "") + (s.interleaved ? " interleaved" : "") +
         " isa=" + std::to_string(isa) + " threads=" + std::to_string(threads);
}

// A [batch, heads, len, dim] tensor in one of the two layouts, from a
// 64-byte boundary plus `shift` floats (the decode rows store the past in
// whole vectors where K's and V's rows are aligned, and copy it otherwise).
struct Tensor {
  std::vector<float> storage;
  float *data;
  int64_t size, bs, hs, rs;
  Tensor(int64_t batch, int64_t heads, int64_t len, int64_t dim,
         bool interleaved, int shift = 0)
      : storage(batch * heads * len * dim + 16 + shift),
        size(batch * heads * len * dim) {
    auto address = reinterpret_cast<uintptr_t>(storage.data());
    data = storage.data() + (64 - address % 64) % 64 / sizeof(float) + shift;
    if (interleaved) {
      rs = heads * dim;
      hs = dim;
    } else {
      rs = dim;
      hs = len * dim;
    }
    bs = heads * len * dim;
  }
  float &at(int64_t b, int64_t h, int64_t i, int64_t d) {
    return data[b * bs + h * hs + i * rs + d];
  }
  std::vector<float> values() const { return {data, data + size}; }
};

// With pastLen > 0, K's and V's first pastLen rows are given in separate
// past tensors (of the other layout) and the rows in K and V are garbage
// that agl_kernel_attention_with_past must overwrite.
int checkAttention(const Shape &s, int isa, int threads, std::mt19937 &rng,
                   int64_t pastLen = 0, int shift = 0) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor q(s.batch, s.heads, s.qLen, s.headDim, s.interleaved);
  Tensor k(s.batch, s.kvHeads, s.kvLen, s.headDim, s.interleaved, shift);
  Tensor v(s.batch, s.kvHeads, s.kvLen, s.valueDim, s.interleaved, shift);
  Tensor out(s.batch, s.heads, s.qLen, s.valueDim, s.interleaved);
  for (auto *t : {&q, &k, &v})
    for (int64_t i = 0; i < t->size; ++i)
      t->data[i] = dist(rng);
  for (int64_t i = 0; i < out.size; ++i)
    out.data[i] = std::numeric_limits<float>::quiet_NaN(); // all written
  Tensor pastK(s.batch, s.kvHeads, pastLen, s.headDim, !s.interleaved);
  Tensor pastV(s.batch, s.kvHeads, pastLen, s.valueDim, !s.interleaved);
  const std::vector<float> wholeK = k.values(), wholeV = v.values();
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.kvHeads; ++h)
      for (int64_t j = 0; j < pastLen; ++j) {
        for (int64_t d = 0; d < s.headDim; ++d) {
          pastK.at(b, h, j, d) = k.at(b, h, j, d);
          k.at(b, h, j, d) = std::numeric_limits<float>::quiet_NaN();
        }
        for (int64_t d = 0; d < s.valueDim; ++d) {
          pastV.at(b, h, j, d) = v.at(b, h, j, d);
          v.at(b, h, j, d) = std::numeric_limits<float>::quiet_NaN();
        }
      }

  // Masks: values in [-2, 2], some -inf; row 0 of PerQueryRow fully masked.
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> mask;
  int64_t mbs = 0, mhs = 0, mrs = 0, mcs = 0;
  auto fillMask = [&](int64_t count) {
    mask.resize(count);
    for (float &x : mask)
      x = rng() % 5 == 0 ? -inf : 2 * dist(rng);
  };
  switch (s.mask) {
  case Mask::None:
    break;
  case Mask::Full:
    fillMask(s.batch * s.heads * s.qLen * s.kvLen);
    mbs = s.heads * s.qLen * s.kvLen, mhs = s.qLen * s.kvLen, mrs = s.kvLen,
    mcs = 1;
    break;
  case Mask::PerQueryRow: // [1, 1, Sq, Sk]
    fillMask(s.qLen * s.kvLen);
    for (int64_t j = 0; j < s.kvLen; ++j)
      mask[j] = -inf;
    mrs = s.kvLen, mcs = 1;
    break;
  case Mask::PerBatchKey: // [B, 1, 1, Sk] stored with its keys 2 apart
    fillMask(s.batch * s.kvLen * 2);
    mbs = 2 * s.kvLen, mcs = 2;
    break;
  }
  const float scale = 1.0f / std::sqrt(float(s.headDim > 0 ? s.headDim : 1));

  if (threads > 0) // 0: called inside a parallel region, keep the pool
    EXPECT_EQ(agl_set_num_threads(threads), AGL_OK);
  agl_gemm_select(isa);
  if (pastLen > 0)
    agl_kernel_attention_with_past(
        s.batch, s.heads, s.kvHeads, s.qLen, s.kvLen, s.headDim, s.valueDim,
        q.data, q.bs, q.hs, q.rs, k.data, k.bs, k.hs, k.rs,
        v.data, v.bs, v.hs, v.rs, mask.empty() ? nullptr : mask.data(),
        mbs, mhs, mrs, mcs, out.data, out.bs, out.hs, out.rs, scale,
        s.causal, pastLen, pastK.data, pastK.bs, pastK.hs, pastK.rs,
        pastV.data, pastV.bs, pastV.hs, pastV.rs);
  else
    agl_kernel_attention(
        s.batch, s.heads, s.kvHeads, s.qLen, s.kvLen, s.headDim, s.valueDim,
        q.data, q.bs, q.hs, q.rs, k.data, k.bs, k.hs, k.rs,
        v.data, v.bs, v.hs, v.rs, mask.empty() ? nullptr : mask.data(),
        mbs, mhs, mrs, mcs, out.data, out.bs, out.hs, out.rs, scale,
        s.causal);
  if (threads > 0)
    agl_gemm_select(0);

  int failures = 0;
  // K and V hold the whole cache, bit for bit.
  if (k.values() != wholeK || v.values() != wholeV) {
    ADD_FAILURE() << describe(s, isa, threads) << " past=" << pastLen
                  << ": K or V not the whole cache after the call";
    ++failures;
  }
  int64_t group = s.heads / s.kvHeads, offset = s.kvLen - s.qLen;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.qLen; ++i) {
        std::vector<double> score(s.kvLen);
        double top = -INFINITY;
        for (int64_t j = 0; j < s.kvLen; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < s.headDim; ++d)
            dot += double(q.at(b, h, i, d)) * k.at(b, h / group, j, d);
          double m = mask.empty()
                         ? 0.0
                         : mask[b * mbs + h * mhs + i * mrs + j * mcs];
          score[j] = s.causal && j > i + offset ? -INFINITY : scale * dot + m;
          top = std::max(top, score[j]);
        }
        double total = 0;
        for (double &x : score) {
          x = top == -INFINITY ? 0.0 : std::exp(x - top);
          total += x;
        }
        for (int64_t d = 0; d < s.valueDim; ++d) {
          double expected = 0;
          for (int64_t j = 0; j < s.kvLen; ++j)
            expected += score[j] * v.at(b, h / group, j, d);
          expected = total > 0 ? expected / total : 0.0;
          double got = out.at(b, h, i, d);
          if (!(std::fabs(got - expected) <= 1e-4) && failures++ < 5)
            ADD_FAILURE() << describe(s, isa, threads) << " at [" << b << ","
                          << h << "," << i << "," << d << "]: " << got
                          << " vs " << expected;
        }
      }
  return failures;
}

const Shape kShapes[] = {
    // decode: one query against a cache
    {1, 8, 8, 1, 512, 64, 64, Mask::None, false, false},
    {1, 8, 8, 1, 512, 64, 64, Mask::None, true, false},
    {2, 4, 2, 1, 77, 64, 64, Mask::PerBatchKey, true, true},
    // prefill, causal, blocks not filled
    {1, 4, 4, 128, 128, 64, 64, Mask::None, true, false},
    {1, 3, 3, 45, 45, 17, 23, Mask::None, true, false},
    {2, 4, 4, 33, 70, 32, 32, Mask::None, true, true},
    // grouped-query heads
    {1, 8, 2, 40, 40, 64, 64, Mask::None, true, false},
    {2, 6, 3, 5, 130, 24, 80, Mask::Full, false, true},
    // masks, odd sizes
    {2, 2, 2, 7, 9, 5, 3, Mask::Full, false, false},
    {1, 2, 1, 70, 66, 20, 130, Mask::PerQueryRow, false, false},
    {1, 2, 2, 37, 100, 16, 16, Mask::PerQueryRow, true, false},
    // degenerate sizes
    {1, 2, 2, 3, 0, 8, 8, Mask::None, false, false},
    {1, 1, 1, 4, 6, 0, 5, Mask::None, true, false},
};

TEST(Attention, MatchesReferenceOnEveryShape) {
  std::mt19937 rng(42);
  for (const Shape &s : kShapes)
    for (int isa : {1, 2, 3})
      for (int threads : {1, 3})
        EXPECT_EQ(checkAttention(s, isa, threads, rng), 0)
            << describe(s, isa, threads);
  ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
}

// The past rows copied in by the kernel: decode steps (one task per head,
// whose AVX-512 rows store the past as they read it where K's and V's rows
// are aligned, and copy it first where not), grouped-query heads and
// several query blocks (the first task of a K/V head copies it), a past
// that is the whole cache, and a call with no query (only the copy).
TEST(Attention, WithPastMatchesReference) {
  std::mt19937 rng(43);
  const struct {
    Shape shape;
    int64_t pastLen;
  } cases[] = {
      {{1, 8, 8, 1, 512, 64, 64, Mask::None, false, false}, 511},
      {{1, 8, 8, 1, 512, 64, 64, Mask::None, true, true}, 511},
      {{2, 4, 2, 1, 77, 64, 64, Mask::PerBatchKey, true, true}, 76},
      {{2, 4, 4, 3, 70, 32, 40, Mask::Full, false, false}, 67},
      {{1, 4, 4, 100, 130, 24, 24, Mask::None, true, false}, 30},
      {{1, 3, 3, 1, 9, 5, 3, Mask::None, false, false}, 9},
      {{1, 2, 2, 0, 20, 8, 8, Mask::None, false, false}, 19},
  };
  for (const auto &c : cases)
    for (int isa : {1, 2, 3})
      for (int threads : {1, 3})
        for (int shift : {0, 1}) // K and V aligned, or not
          EXPECT_EQ(
              checkAttention(c.shape, isa, threads, rng, c.pastLen, shift), 0)
              << describe(c.shape, isa, threads) << " past=" << c.pastLen
              << " shift=" << shift;
  ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
}

// Called from inside a parallel region, the kernel runs serially on the
// calling thread (with that thread's scratch) and gives the same result.
TEST(Attention, RunsNestedInParallelRegion) {
  ASSERT_EQ(agl_set_num_threads(2), AGL_OK);
  int failures[2] = {-1, -1};
  agl_parallel_for(
      2, 1,
      [](void *raw, int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          std::mt19937 rng(7 + t);
          Shape s{1, 4, 2, 50, 50, 24, 24, Mask::Full, true, false};
          static_cast<int *>(raw)[t] = checkAttention(s, 2, 0, rng);
        }
      },
      failures);
  EXPECT_EQ(failures[0], 0);
  EXPECT_EQ(failures[1], 0);
  agl_gemm_select(0);
  ASSERT_EQ(agl_set_num_threads(0), AGL_OK);
}

} // namespace
