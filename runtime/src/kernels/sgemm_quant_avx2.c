/* Products with weight-only quantized, bfloat16 or IEEE half B for AVX2
 * (the layouts of autoglm/kernels_quant.h, as in sgemm_quant_avx512.c): the
 * small-m kernel (decode steps) and the widening of B's blocks into floats
 * for the packed path.
 *
 * Quantized B is taken half a panel (16 columns, two vectors) at a time:
 * 8 bits: vpmovsxbd of each 8 bytes of the row and vcvtdq2ps.
 * 4 bits: a block of 8 depths of half a panel is two vectors of 8 words
 * (word t: column t, depth r in bits 4r..4r+3, offset binary u = q + 8).
 * The float whose exponent field is 150 - 4s and whose mantissa holds the
 * nibble at bits 4s..4s+3 is 2^(23 - 4s) + u, exactly: an and and an or
 * build it from the words shifted to put the nibble there (see
 * nibble_source). The small kernel subtracts the biases 2^(23 - 4s) + 8
 * times A's row once per group instead of once per weight.
 * Each group of depths is accumulated with unit scales and the sum
 * multiplied by the group's scales once; U sets of accumulators hide the
 * FMA latency where there are few rows of A.
 * 16-bit floats: a row of a panel is 16 words, word t holding column t
 * (low half) and column t + 16 (high half). bfloat16: x << 16 and
 * x & 0xFFFF0000 are floats in place. IEEE half: vcvtph2ps (F16C) of each
 * 16 bytes gives columns interleaved (t, t + 16, t + 1, ...), accumulated
 * in that order and put back in order once per tile.
 * The sums go through the float GEMM's epilogue (agl_store_epilogue256).
 * This file is compiled with -mavx2 -mfma -mf16c. */
#include "quant_internal.h"

#include "avx2_math.h"

#include <immintrin.h>

/* ---- 8 and 4 bits ---------------------------------------------------------*/

/* The float whose exponent field is 150 - 4s and whose mantissa holds a
 * word's nibble at bits 4s..4s+3 is 2^(23 - 4s) + u. */
static AGL_ALWAYS_INLINE __m256 nibble_float(__m256i words, int s) {
  return _mm256_castsi256_ps(_mm256_or_si256(
      _mm256_and_si256(words, _mm256_set1_epi32(0xF << (4 * s))),
      _mm256_set1_epi32((150 - 4 * s) << 23)));
}

/* The packed path's dequantization: depth r (any, 0..7) moved to s = 4 and
 * offset back to q. */
static AGL_ALWAYS_INLINE __m256 nibble_value(__m256i words, int r) {
  __m256i at16 = r < 4 ? _mm256_slli_epi32(words, 16 - 4 * r)
                       : _mm256_srli_epi32(words, 4 * r - 16);
  return _mm256_sub_ps(nibble_float(at16, 4), _mm256_set1_ps(128.0f + 8.0f));
}

/* The small kernel: depth r of a block comes from x << 16, x << 8, x,
 * x >> 8 or x >> 12 (four shifts per block rather than seven, as in
 * sgemm_quant_avx512.c), at s = 3 or 4, and stays 2^11 + u or 2^7 + u: the
 * bias 2^11 + 8 or 2^7 + 8 times A's row is subtracted once per group. */
static AGL_ALWAYS_INLINE __m256i nibble_source(__m256i x, int r) {
  switch (r) {
  case 0:
    return _mm256_slli_epi32(x, 16);
  case 1:
  case 2:
    return _mm256_slli_epi32(x, 8);
  case 3:
  case 4:
    return x;
  case 5:
  case 6:
    return _mm256_srli_epi32(x, 8);
  default:
    return _mm256_srli_epi32(x, 12);
  }
}
static const int kNibbleS[8] = {4, 3, 4, 3, 4, 3, 4, 4};
static const float kNibbleBias[8] = {136, 2056, 136, 2056, 136, 2056, 136, 136};

static AGL_ALWAYS_INLINE __m256 nibble_biased(__m256i x, int r) {
  return nibble_float(nibble_source(x, r), kNibbleS[r]);
}

/* The 8 signed bytes at p as floats. */
static AGL_ALWAYS_INLINE __m256 bytes_to_floats(const unsigned char *p) {
  return _mm256_cvtepi32_ps(
      _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

/* Row i of A over depths [g0, g0 + count) times the biases of
 * nibble_biased. */
static float group_bias(agl_view a, int i, int64_t g0, int64_t count) {
  float sum = 0.0f;
  for (int64_t p = 0; p < count; ++p)
    sum += a.data[i * a.rs + (g0 + p) * a.cs] * kNibbleBias[p % 8];
  return sum;
}

/* 4 bits: group_bias of A's rows for the first CORR_GROUPS groups, the
 * same for every panel, worked out once per call. */
enum { CORR_GROUPS = 256 };
typedef float group_biases[4][CORR_GROUPS];

/* Half h of panel q (columns q * 32 + 16h ..), M rows of A, every depth. */
static AGL_ALWAYS_INLINE void quant_half(const int M, const int BITS,
                                         const int U, int64_t q, int h,
                                         agl_view a, const agl_quant_b *b,
                                         const group_biases *sums, float *c,
                                         int64_t crs, const agl_epilogue *e) {
  enum { U_MAX = 4 };
  const unsigned char *pb = b->data + q * b->panel_bytes;
  __m256 acc[4][2];
  for (int i = 0; i < M; ++i)
    acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t g0 = 0; g0 < b->k; g0 += b->group) {
    const unsigned char *block = pb + g0 / b->group * b->group_bytes;
    const unsigned char *rows = block + 32 * sizeof(float);
    const int64_t count = b->k - g0 < b->group ? b->k - g0 : b->group;
    const float *ap = a.data + g0 * a.cs;
    __m256 gacc[U_MAX][4][2];
    for (int u = 0; u < U; ++u)
      for (int i = 0; i < M; ++i)
        gacc[u][i][0] = gacc[u][i][1] = _mm256_setzero_ps();
#define ACCUMULATE(u, p, w0, w1)                                               \
  for (int i = 0; i < M; ++i) {                                                \
    __m256 x_ = _mm256_broadcast_ss(ap + i * a.rs + (p)*a.cs);                 \
    gacc[u][i][0] = _mm256_fmadd_ps(x_, w0, gacc[u][i][0]);                    \
    gacc[u][i][1] = _mm256_fmadd_ps(x_, w1, gacc[u][i][1]);                    \
  }
    if (BITS == 8) {
      const unsigned char *half = rows + 16 * h;
      int64_t p = 0;
      for (; p + U <= count; p += U) {
        _mm_prefetch((const char *)(half + (p + 16) * 32), _MM_HINT_T0);
        for (int u = 0; u < U; ++u) {
          __m256 w0 = bytes_to_floats(half + (p + u) * 32);
          __m256 w1 = bytes_to_floats(half + (p + u) * 32 + 8);
          ACCUMULATE(u, p + u, w0, w1)
        }
      }
      for (; p < count; ++p) {
        __m256 w0 = bytes_to_floats(half + p * 32);
        __m256 w1 = bytes_to_floats(half + p * 32 + 8);
        ACCUMULATE(0, p, w0, w1)
      }
    } else {
      for (int64_t p = 0; p < count; p += 8) {
        const unsigned char *blk = rows + p * 16 + 64 * h;
        _mm_prefetch((const char *)(blk + 512), _MM_HINT_T0);
        const __m256i x0 = _mm256_loadu_si256((const __m256i *)blk);
        const __m256i x1 = _mm256_loadu_si256((const __m256i *)(blk + 32));
        if (p + 8 <= count) {
#pragma GCC unroll 8
          for (int r = 0; r < 8; ++r) {
            __m256 w0 = nibble_biased(x0, r), w1 = nibble_biased(x1, r);
            ACCUMULATE(r % U, p + r, w0, w1)
          }
        } else { /* the last group's last depths */
#pragma GCC unroll 8
          for (int r = 0; r < 8; ++r)
            if (r < count - p) {
              __m256 w0 = nibble_biased(x0, r), w1 = nibble_biased(x1, r);
              ACCUMULATE(0, p + r, w0, w1)
            }
        }
      }
    }
#undef ACCUMULATE
    const __m256 s0 = _mm256_loadu_ps((const float *)block + 16 * h);
    const __m256 s1 = _mm256_loadu_ps((const float *)block + 16 * h + 8);
    for (int i = 0; i < M; ++i) {
      __m256 t0 = gacc[0][i][0], t1 = gacc[0][i][1];
      for (int u = 1; u < U; ++u) {
        t0 = _mm256_add_ps(t0, gacc[u][i][0]);
        t1 = _mm256_add_ps(t1, gacc[u][i][1]);
      }
      if (BITS == 4) { /* the biases times A's row */
        const int64_t g = g0 / b->group;
        __m256 bias = _mm256_set1_ps(
            g < CORR_GROUPS ? (*sums)[i][g] : group_bias(a, i, g0, count));
        t0 = _mm256_sub_ps(t0, bias);
        t1 = _mm256_sub_ps(t1, bias);
      }
      acc[i][0] = _mm256_fmadd_ps(t0, s0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(t1, s1, acc[i][1]);
    }
  }
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < 2; ++v) {
      int64_t j = q * 32 + 16 * h + 8 * v;
      agl_store_epilogue256(acc[i][v], c + i * crs + j, 1, 8, e, i, j, 0, 1);
    }
}

typedef void (*half_fn)(int64_t q, int h, agl_view a, const agl_quant_b *b,
                        const group_biases *sums, float *c, int64_t crs,
                        const agl_epilogue *e);

/* Accumulators in flight: 8 bits, eight (one row in 4 sets, two in 2);
 * 4 bits, four with one row (the nibbles' constants take the registers:
 * 4 sets spill, and measured slower). */
#define QUANT_VARIANT(M, BITS, U)                                              \
  static void quant_##M##_##BITS(int64_t q, int h, agl_view a,                 \
                                 const agl_quant_b *b,                         \
                                 const group_biases *sums, float *c,           \
                                 int64_t crs, const agl_epilogue *e) {         \
    quant_half(M, BITS, U, q, h, a, b, sums, c, crs, e);                       \
  }
QUANT_VARIANT(1, 8, 4)
QUANT_VARIANT(2, 8, 2)
QUANT_VARIANT(3, 8, 1)
QUANT_VARIANT(4, 8, 1)
QUANT_VARIANT(1, 4, 2)
QUANT_VARIANT(2, 4, 2)
QUANT_VARIANT(3, 4, 1)
QUANT_VARIANT(4, 4, 1)

void agl_quant_small_avx2(int m, int64_t q0, int64_t q1, agl_view a,
                          const agl_quant_b *b, float *c, int64_t crs,
                          const agl_epilogue *e) {
  /* [4 bits][rows - 1] */
  static const half_fn kernels[2][4] = {
      {quant_1_8, quant_2_8, quant_3_8, quant_4_8},
      {quant_1_4, quant_2_4, quant_3_4, quant_4_4},
  };
  const half_fn fn = kernels[b->bits == 4][m - 1];
  group_biases sums;
  if (b->bits == 4)
    for (int64_t g0 = 0, g = 0; g0 < b->k && g < CORR_GROUPS;
         g0 += b->group, ++g)
      for (int i = 0; i < m; ++i)
        sums[i][g] =
            group_bias(a, i, g0, b->k - g0 < b->group ? b->k - g0 : b->group);
  for (int64_t q = q0; q < q1; ++q)
    for (int h = 0; h < 2; ++h)
      fn(q, h, a, b, (const group_biases *)&sums, c, crs, e);
}

void agl_quant_dequant_avx2(const agl_quant_b *b, int64_t panel, int64_t pc,
                            int64_t kc, float *dst, int64_t ld) {
  const unsigned char *pb = b->data + panel * b->panel_bytes;
  for (int64_t p = pc; p < pc + kc; ++p) {
    const int64_t local = p % b->group;
    const unsigned char *block = pb + p / b->group * b->group_bytes;
    const float *scale = (const float *)block;
    const unsigned char *rows = block + 32 * sizeof(float);
    float *out = dst + (p - pc) * ld;
    for (int v = 0; v < 4; ++v) {
      __m256 w;
      if (b->bits == 8) {
        w = bytes_to_floats(rows + local * 32 + 8 * v);
      } else {
        const unsigned char *words =
            rows + local / 8 * 128 + v / 2 * 64 + v % 2 * 32;
        w = nibble_value(_mm256_loadu_si256((const __m256i *)words),
                         (int)(local % 8));
      }
      _mm256_storeu_ps(out + 8 * v,
                       _mm256_mul_ps(w, _mm256_loadu_ps(scale + 8 * v)));
    }
  }
}

/* ---- 16-bit floats --------------------------------------------------------*/

/* Row `row` as four vectors: columns 0-7, 16-23, 8-15, 24-31 (bfloat16);
 * for IEEE half, the same columns interleaved (see the top). */
static AGL_ALWAYS_INLINE void widen_row(const int F, const unsigned char *row,
                                        __m256 w[4]) {
  if (F == AGL_W16_F16) {
    for (int v = 0; v < 4; ++v)
      w[v] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + 16 * v)));
    return;
  }
  const __m256i high = _mm256_set1_epi32((int)0xFFFF0000u);
  for (int v = 0; v < 2; ++v) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(row + 32 * v));
    w[2 * v] = _mm256_castsi256_ps(_mm256_slli_epi32(x, 16));
    w[2 * v + 1] = _mm256_castsi256_ps(_mm256_and_si256(x, high));
  }
}

/* IEEE half: vectors (lo, hi) holding columns t, t + 16, t + 1, .. for
 * t = 8u .. 8u + 7 become columns 8u .. 8u + 7 and 8u + 16 .. 8u + 23. */
static AGL_ALWAYS_INLINE void half_columns(__m256 *lo, __m256 *hi) {
  __m256 even = _mm256_shuffle_ps(*lo, *hi, 0x88); /* t0 t1 t4 t5 | t2 t3 .. */
  __m256 odd = _mm256_shuffle_ps(*lo, *hi, 0xDD);
  *lo = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), 0xD8));
  *hi = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(odd), 0xD8));
}

/* The first column of vector v of widen_row (after half_columns). */
static const int kW16Column[4] = {0, 16, 8, 24};

/* Panel q, M rows of A (at most 2), every depth, U depths per step into
 * their own accumulators. Columns past n are not stored. */
static AGL_ALWAYS_INLINE void w16_panel(const int F, const int M, const int U,
                                        int64_t q, agl_view a,
                                        const agl_quant_b *b, float *c,
                                        int64_t crs, const agl_epilogue *e) {
  enum { U_MAX = 2 };
  const unsigned char *pb = b->data + q * b->panel_bytes;
  __m256 acc[U_MAX][2][4];
  for (int u = 0; u < U; ++u)
    for (int i = 0; i < M; ++i)
      for (int v = 0; v < 4; ++v)
        acc[u][i][v] = _mm256_setzero_ps();
  int64_t p = 0;
  for (; p + U <= b->k; p += U) {
    _mm_prefetch((const char *)(pb + (p + 8) * 64), _MM_HINT_T0);
    for (int u = 0; u < U; ++u) {
      __m256 w[4];
      widen_row(F, pb + (p + u) * 64, w);
      for (int i = 0; i < M; ++i) {
        __m256 x = _mm256_broadcast_ss(a.data + i * a.rs + (p + u) * a.cs);
        for (int v = 0; v < 4; ++v)
          acc[u][i][v] = _mm256_fmadd_ps(x, w[v], acc[u][i][v]);
      }
    }
  }
  for (; p < b->k; ++p) {
    __m256 w[4];
    widen_row(F, pb + p * 64, w);
    for (int i = 0; i < M; ++i) {
      __m256 x = _mm256_broadcast_ss(a.data + i * a.rs + p * a.cs);
      for (int v = 0; v < 4; ++v)
        acc[0][i][v] = _mm256_fmadd_ps(x, w[v], acc[0][i][v]);
    }
  }
  for (int i = 0; i < M; ++i) {
    __m256 sums[4];
    for (int v = 0; v < 4; ++v) {
      sums[v] = acc[0][i][v];
      for (int u = 1; u < U; ++u)
        sums[v] = _mm256_add_ps(sums[v], acc[u][i][v]);
    }
    if (F == AGL_W16_F16) {
      half_columns(&sums[0], &sums[1]);
      half_columns(&sums[2], &sums[3]);
    }
    for (int v = 0; v < 4; ++v) {
      int64_t j = q * 32 + kW16Column[v];
      if (j < b->n)
        agl_store_epilogue256(sums[v], c + i * crs + j, 1, b->n - j, e, i, j, 0,
                              1);
    }
  }
}

typedef void (*panel_fn)(int64_t q, agl_view a, const agl_quant_b *b, float *c,
                         int64_t crs, const agl_epilogue *e);

#define W16_VARIANT(NAME, F, M, U)                                             \
  static void NAME##_##M(int64_t q, agl_view a, const agl_quant_b *b,          \
                         float *c, int64_t crs, const agl_epilogue *e) {       \
    w16_panel(F, M, U, q, a, b, c, crs, e);                                    \
  }
/* Eight accumulators either way. */
W16_VARIANT(bf16, AGL_W16_BF16, 1, 2)
W16_VARIANT(bf16, AGL_W16_BF16, 2, 1)
W16_VARIANT(f16, AGL_W16_F16, 1, 2)
W16_VARIANT(f16, AGL_W16_F16, 2, 1)

void agl_w16_small_avx2(int m, int64_t q0, int64_t q1, agl_view a,
                        const agl_quant_b *b, float *c, int64_t crs,
                        const agl_epilogue *e) {
  const int f16 = b->w16 == AGL_W16_F16;
  const panel_fn one = f16 ? f16_1 : bf16_1, two = f16 ? f16_2 : bf16_2;
  for (int64_t q = q0; q < q1; ++q)
    for (int i = 0; i < m; i += 2) {
      agl_view rows = {a.data + i * a.rs, a.rs, a.cs};
      agl_epilogue ei = agl_epilogue_tile(e, i, 0, 1, 1);
      (m - i >= 2 ? two : one)(q, rows, b, c + i * crs, crs, &ei);
    }
}

void agl_w16_widen_avx2(const agl_quant_b *b, int64_t panel, int64_t pc,
                        int64_t kc, float *dst, int64_t ld) {
  const unsigned char *rows = b->data + panel * b->panel_bytes + pc * 64;
  for (int64_t r = 0; r < kc; ++r) {
    __m256 w[4];
    float *out = dst + r * ld;
    if (b->w16 == AGL_W16_F16) {
      widen_row(AGL_W16_F16, rows + r * 64, w);
      half_columns(&w[0], &w[1]);
      half_columns(&w[2], &w[3]);
    } else {
      widen_row(AGL_W16_BF16, rows + r * 64, w);
    }
    for (int v = 0; v < 4; ++v)
      _mm256_storeu_ps(out + kW16Column[v], w[v]);
  }
}
