/* Products with weight-only quantized (and, at the end, bfloat16 or IEEE
 * half) B for
 * AVX-512: the small-m kernel (decode steps) and the dequantization of B's
 * blocks for the packed path.
 *
 * 8 bits: a depth row of a panel (32 columns) becomes two vectors of 16
 * floats by vpmovsxbd of each 16-byte half (sign extension to int32) and
 * vcvtdq2ps.
 * 4 bits: a block of 8 depths of half a panel is one vector of 16 words
 * (word t: column t, depth r in bits 4r..4r+3, offset binary u = q + 8).
 * The float whose exponent field is 150 - 4s and whose mantissa holds the
 * nibble at bits 4s..4s+3 is 2^(23 - 4s) + u: one vpternlogd, (x & mask) |
 * exponent, builds it, and one subtraction of 2^(23 - 4s) + 8 gives q,
 * exactly. The packed path's dequantization reads nibbles 0-4 in place
 * (s = r) and nibbles 5-7 after a shift of the words by 12 bits (s = r - 3);
 * the small kernel moves every nibble to s = 3 or 4 and subtracts once per
 * group (see below). The bitwise operation runs on any of the vector pipes,
 * so the FMA pipes are left to the products (shuffles and conversions would
 * compete for them).
 * The small kernel accumulates each group of depths with unit scales and
 * multiplies the group's sum by its 32 scales once (one FMA per vector per
 * group); a row of A is a broadcast. With one or two rows of A, several
 * sets of group accumulators hide the FMA latency; with one row, two
 * panels are read at a time. The sums go through the float GEMM's epilogue
 * (agl_store_epilogue512: alpha, bias, activation, residual).
 * This file is compiled with AVX-512 enabled. */
#include "quant_internal.h"

#include "avx512_math.h"

#include <immintrin.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE void load_row8(const unsigned char *row, __m512 *w0,
                                    __m512 *w1) {
  *w0 = _mm512_cvtepi32_ps(
      _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)row)));
  *w1 = _mm512_cvtepi32_ps(
      _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(row + 16))));
}

/* The value q (-8..7) of the nibble at bits 4s..4s+3 of each word (s <= 4),
 * as the dequantization for the packed path computes it. */
static ALWAYS_INLINE __m512 nibble_s(__m512i words, int s) {
  __m512i bits = _mm512_ternarylogic_epi32(
      words, _mm512_set1_epi32(0xF << (4 * s)),
      _mm512_set1_epi32((150 - 4 * s) << 23), 0xEA); /* (a & b) | c */
  return _mm512_sub_ps(_mm512_castsi512_ps(bits),
                       _mm512_set1_ps((float)((1 << (23 - 4 * s)) + 8)));
}

/* The small kernel skips the subtraction: depth r of a block becomes
 * m_r + u, m_r being 2^11 (s = 3) or 2^7 (s = 4), and each group's sum
 * over A's row times m_r + 8 is subtracted once at the group's end. The
 * nibbles are moved to bits 12..15 or 16..19 by four shifts per block
 * (x << 16, x << 8, x >> 8, x >> 12), which leaves two masks and two
 * exponents to keep in registers. */
enum { NIBBLE_LOW_MAGIC = 2048, NIBBLE_HIGH_MAGIC = 128 };

static ALWAYS_INLINE __m512 nibble_biased(__m512i words, int s) {
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
      words, _mm512_set1_epi32(0xF << (4 * s)),
      _mm512_set1_epi32((150 - 4 * s) << 23), 0xEA));
}

/* Per depth r of a block: the shifted words it is read from (0: x << 16,
 * 1: x << 8, 2: x, 3: x >> 8, 4: x >> 12) and its s. */
static const int kNibbleSource[8] = {0, 1, 1, 2, 2, 3, 3, 4};
static const int kNibbleS[8] = {4, 3, 4, 3, 4, 3, 4, 4};

/* m_r + 8 for depth r of a block. */
static ALWAYS_INLINE float nibble_bias(int r) {
  return (kNibbleS[r] == 3 ? NIBBLE_LOW_MAGIC : NIBBLE_HIGH_MAGIC) + 8.0f;
}

static ALWAYS_INLINE void nibble_sources(__m512i x, __m512i v[5]) {
  v[0] = _mm512_slli_epi32(x, 16);
  v[1] = _mm512_slli_epi32(x, 8);
  v[2] = x;
  v[3] = _mm512_srli_epi32(x, 8);
  v[4] = _mm512_srli_epi32(x, 12);
}

/* Row i of A over depths [g0, g0 + count) times the biases m_r + 8. */
static float group_bias(agl_view a, int i, int64_t g0, int64_t count) {
  float sum = 0.0f;
  for (int64_t p = 0; p < count; ++p)
    sum += a.data[i * a.rs + (g0 + p) * a.cs] * nibble_bias((int)(p % 8));
  return sum;
}

/* Adds depth p's row (w0, w1) times A's column p to set u of the group
 * accumulators. */
#define ACCUMULATE(u, p, w0, w1)                                               \
  for (int i = 0; i < M; ++i) {                                                \
    __m512 x_ = _mm512_set1_ps(ap[i * a.rs + (p) * a.cs]);                     \
    gacc[u][i][0] = _mm512_fmadd_ps(x_, w0, gacc[u][i][0]);                    \
    gacc[u][i][1] = _mm512_fmadd_ps(x_, w1, gacc[u][i][1]);                    \
  }

static ALWAYS_INLINE void small_panels(const int M, const int BITS,
                                       int64_t q0, int64_t q1, agl_view a,
                                       const agl_quant_b *b, float *c,
                                       int64_t crs, const agl_epilogue *e) {
  /* Independent sets of group accumulators, to hide the FMA latency. */
  enum { U_MAX = 4 };
  const int U = M == 1 ? 4 : M == 2 ? 2 : 1;
  /* 4 bits: per row of A and group, the sum of A's row times m_r + 8, the
   * same for every panel (the first CORR_MAX groups computed here). */
  enum { CORR_MAX = 256 };
  float corr[4][CORR_MAX];
  if (BITS == 4)
    for (int64_t g0 = 0, g = 0; g0 < b->k && g < CORR_MAX; g0 += b->group, ++g)
      for (int i = 0; i < M; ++i)
        corr[i][g] = group_bias(a, i, g0,
                                b->k - g0 < b->group ? b->k - g0 : b->group);
  for (int64_t q = q0; q < q1; ++q) {
    const unsigned char *pb = b->data + q * b->panel_bytes;
    __m512 acc[4][2];
    for (int i = 0; i < M; ++i)
      acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (int64_t g0 = 0; g0 < b->k; g0 += b->group) {
      const unsigned char *block = pb + g0 / b->group * b->group_bytes;
      const unsigned char *rows = block + 32 * sizeof(float);
      int64_t count = b->k - g0 < b->group ? b->k - g0 : b->group;
      const float *ap = a.data + g0 * a.cs;
      __m512 gacc[U_MAX][4][2];
      for (int u = 0; u < U; ++u)
        for (int i = 0; i < M; ++i)
          gacc[u][i][0] = gacc[u][i][1] = _mm512_setzero_ps();
      int64_t p = 0;
      if (BITS == 8) {
        for (; p + U <= count; p += U) {
          _mm_prefetch((const char *)(rows + (p + 16) * 32), _MM_HINT_T0);
          for (int u = 0; u < U; ++u) {
            __m512 w0, w1;
            load_row8(rows + (p + u) * 32, &w0, &w1);
            ACCUMULATE(u, p + u, w0, w1)
          }
        }
        for (; p < count; ++p) {
          __m512 w0, w1;
          load_row8(rows + p * 32, &w0, &w1);
          ACCUMULATE(0, p, w0, w1)
        }
      } else {
        for (; p < count; p += 8) {
          const unsigned char *blk = rows + p * 16;
          _mm_prefetch((const char *)(blk + 512), _MM_HINT_T0);
          __m512i v0[5], v1[5];
          nibble_sources(_mm512_loadu_si512(blk), v0);
          nibble_sources(_mm512_loadu_si512(blk + 64), v1);
          if (p + 8 <= count) {
#pragma GCC unroll 8
            for (int r = 0; r < 8; ++r) {
              __m512 w0 = nibble_biased(v0[kNibbleSource[r]], kNibbleS[r]);
              __m512 w1 = nibble_biased(v1[kNibbleSource[r]], kNibbleS[r]);
              ACCUMULATE(r % U, p + r, w0, w1)
            }
          } else { /* the last group's last depths */
#pragma GCC unroll 8
            for (int r = 0; r < 8; ++r)
              if (r < count - p) {
                __m512 w0 = nibble_biased(v0[kNibbleSource[r]], kNibbleS[r]);
                __m512 w1 = nibble_biased(v1[kNibbleSource[r]], kNibbleS[r]);
                ACCUMULATE(0, p + r, w0, w1)
              }
          }
        }
      }
      const __m512 s0 = _mm512_loadu_ps((const float *)block);
      const __m512 s1 = _mm512_loadu_ps((const float *)block + 16);
      for (int i = 0; i < M; ++i) {
        __m512 t0 = gacc[0][i][0], t1 = gacc[0][i][1];
        for (int u = 1; u < U; ++u) {
          t0 = _mm512_add_ps(t0, gacc[u][i][0]);
          t1 = _mm512_add_ps(t1, gacc[u][i][1]);
        }
        if (BITS == 4) { /* the biases m_r + 8 times A's row */
          int64_t g = g0 / b->group;
          float bias = g < CORR_MAX ? corr[i][g] : group_bias(a, i, g0, count);
          t0 = _mm512_sub_ps(t0, _mm512_set1_ps(bias));
          t1 = _mm512_sub_ps(t1, _mm512_set1_ps(bias));
        }
        acc[i][0] = _mm512_fmadd_ps(t0, s0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(t1, s1, acc[i][1]);
      }
    }
    for (int i = 0; i < M; ++i) {
      float *out = c + i * crs + q * 32;
      for (int h = 0; h < 2; ++h)
        agl_store_epilogue512(acc[i][h], out + 16 * h, 1, 16, e, i,
                              q * 32 + 16 * h);
    }
  }
}

#define SMALL_VARIANT(M, BITS)                                                 \
  static void small_##M##_##BITS(int64_t q0, int64_t q1, agl_view a,          \
                                 const agl_quant_b *b, float *c, int64_t crs, \
                                 const agl_epilogue *e) {                     \
    small_panels(M, BITS, q0, q1, a, b, c, crs, e);                            \
  }
SMALL_VARIANT(1, 8)
SMALL_VARIANT(2, 8)
SMALL_VARIANT(3, 8)
SMALL_VARIANT(4, 8)
SMALL_VARIANT(1, 4)
SMALL_VARIANT(2, 4)
SMALL_VARIANT(3, 4)
SMALL_VARIANT(4, 4)

typedef void (*variant_fn)(int64_t, int64_t, agl_view, const agl_quant_b *,
                           float *, int64_t, const agl_epilogue *);

/* One row of A (the decode step proper): two panels at a time, so that
 * each broadcast of A (and each constant) serves four vectors of
 * weights. */
static ALWAYS_INLINE void small_1_pairs(const int BITS, int64_t q0, int64_t q1,
                                        agl_view a, const agl_quant_b *b,
                                        float *c, const agl_epilogue *e) {
  enum { CORR_MAX = 256 };
  float corr[CORR_MAX];
  if (BITS == 4)
    for (int64_t g0 = 0, g = 0; g0 < b->k && g < CORR_MAX;
         g0 += b->group, ++g)
      corr[g] =
          group_bias(a, 0, g0, b->k - g0 < b->group ? b->k - g0 : b->group);
  int64_t q = q0;
  for (; q + 2 <= q1; q += 2) {
    const unsigned char *pb = b->data + q * b->panel_bytes;
    __m512 acc[4];
    for (int v = 0; v < 4; ++v)
      acc[v] = _mm512_setzero_ps();
    for (int64_t g0 = 0; g0 < b->k; g0 += b->group) {
      int64_t g = g0 / b->group;
      const unsigned char *block[2] = {pb + g * b->group_bytes,
                                       pb + b->panel_bytes + g * b->group_bytes};
      int64_t count = b->k - g0 < b->group ? b->k - g0 : b->group;
      const float *ap = a.data + g0 * a.cs;
      __m512 gacc[2][4];
      for (int u = 0; u < 2; ++u)
        for (int v = 0; v < 4; ++v)
          gacc[u][v] = _mm512_setzero_ps();
      if (BITS == 8) {
        int64_t p = 0;
        for (; p + 2 <= count; p += 2) {
#pragma GCC unroll 2
          for (int r = 0; r < 2; ++r) {
            __m512 x = _mm512_set1_ps(ap[(p + r) * a.cs]);
            for (int v = 0; v < 4; ++v) {
              const unsigned char *row = block[v / 2] + 32 * sizeof(float) +
                                         (p + r) * 32 + (v % 2) * 16;
              if (r == 0 && v % 2 == 0)
                _mm_prefetch((const char *)(row + 512), _MM_HINT_T0);
              __m512 w = _mm512_cvtepi32_ps(
                  _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)row)));
              gacc[r][v] = _mm512_fmadd_ps(x, w, gacc[r][v]);
            }
          }
        }
        if (p < count) {
          __m512 x = _mm512_set1_ps(ap[p * a.cs]);
          for (int v = 0; v < 4; ++v) {
            const unsigned char *row =
                block[v / 2] + 32 * sizeof(float) + p * 32 + (v % 2) * 16;
            __m512 w = _mm512_cvtepi32_ps(
                _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)row)));
            gacc[0][v] = _mm512_fmadd_ps(x, w, gacc[0][v]);
          }
        }
      }
      for (int64_t p = 0; BITS == 4 && p < count; p += 8) {
        __m512i src[4][5];
        for (int v = 0; v < 4; ++v) {
          const unsigned char *blk =
              block[v / 2] + 32 * sizeof(float) + p * 16 + (v % 2) * 64;
          _mm_prefetch((const char *)(blk + 512), _MM_HINT_T0);
          nibble_sources(_mm512_loadu_si512(blk), src[v]);
        }
        int rows = count - p < 8 ? (int)(count - p) : 8;
#pragma GCC unroll 8
        for (int r = 0; r < 8; ++r)
          if (r < rows) {
            __m512 x = _mm512_set1_ps(ap[(p + r) * a.cs]);
            for (int v = 0; v < 4; ++v)
              gacc[r % 2][v] = _mm512_fmadd_ps(
                  x, nibble_biased(src[v][kNibbleSource[r]], kNibbleS[r]),
                  gacc[r % 2][v]);
          }
      }
      __m512 bias = _mm512_setzero_ps();
      if (BITS == 4)
        bias = _mm512_set1_ps(g < CORR_MAX ? corr[g]
                                           : group_bias(a, 0, g0, count));
      for (int v = 0; v < 4; ++v) {
        __m512 t = _mm512_sub_ps(_mm512_add_ps(gacc[0][v], gacc[1][v]), bias);
        acc[v] = _mm512_fmadd_ps(
            t, _mm512_loadu_ps((const float *)block[v / 2] + 16 * (v % 2)),
            acc[v]);
      }
    }
    for (int v = 0; v < 4; ++v)
      agl_store_epilogue512(acc[v], c + q * 32 + 16 * v, 1, 16, e, 0,
                            q * 32 + 16 * v);
  }
  if (q < q1)
    (BITS == 4 ? small_1_4 : small_1_8)(q, q1, a, b, c, 0, e);
}

static void small_1_4_pairs(int64_t q0, int64_t q1, agl_view a,
                            const agl_quant_b *b, float *c,
                            const agl_epilogue *e) {
  small_1_pairs(4, q0, q1, a, b, c, e);
}

static void small_1_8_pairs(int64_t q0, int64_t q1, agl_view a,
                            const agl_quant_b *b, float *c,
                            const agl_epilogue *e) {
  small_1_pairs(8, q0, q1, a, b, c, e);
}

void agl_quant_small_avx512(int m, int64_t q0, int64_t q1, agl_view a,
                            const agl_quant_b *b, float *c, int64_t crs,
                            const agl_epilogue *e) {
  static const variant_fn q8[4] = {small_1_8, small_2_8, small_3_8,
                                   small_4_8};
  static const variant_fn q4[4] = {small_1_4, small_2_4, small_3_4,
                                   small_4_4};
  if (m == 1) {
    (b->bits == 4 ? small_1_4_pairs : small_1_8_pairs)(q0, q1, a, b, c, e);
    return;
  }
  (b->bits == 8 ? q8 : q4)[m - 1](q0, q1, a, b, c, crs, e);
}

static ALWAYS_INLINE void dequant_rows(const int BITS, const agl_quant_b *b,
                                       int64_t panel, int64_t pc, int64_t kc,
                                       float *dst, int64_t ld) {
  const unsigned char *pb = b->data + panel * b->panel_bytes;
  int64_t p = pc, end = pc + kc;
  while (p < end) {
    int64_t g = p / b->group;
    int64_t g_end = (g + 1) * b->group < end ? (g + 1) * b->group : end;
    const unsigned char *block = pb + g * b->group_bytes;
    const __m512 s0 = _mm512_loadu_ps((const float *)block);
    const __m512 s1 = _mm512_loadu_ps((const float *)block + 16);
    const unsigned char *rows = block + 32 * sizeof(float);
    for (; p < g_end; ++p) {
      int64_t local = p - g * b->group;
      __m512 w0, w1;
      if (BITS == 8) {
        load_row8(rows + local * 32, &w0, &w1);
      } else {
        const unsigned char *blk = rows + local / 8 * 128;
        __m512i x0 = _mm512_loadu_si512(blk);
        __m512i x1 = _mm512_loadu_si512(blk + 64);
        int r = (int)(local % 8);
        if (r >= 5) {
          x0 = _mm512_srli_epi32(x0, 12);
          x1 = _mm512_srli_epi32(x1, 12);
          r -= 3;
        }
        w0 = nibble_s(x0, r);
        w1 = nibble_s(x1, r);
      }
      float *out = dst + (p - pc) * ld;
      _mm512_storeu_ps(out, _mm512_mul_ps(w0, s0));
      _mm512_storeu_ps(out + 16, _mm512_mul_ps(w1, s1));
    }
  }
}

void agl_quant_dequant_avx512(const agl_quant_b *b, int64_t panel, int64_t pc,
                              int64_t kc, float *dst, int64_t ld) {
  if (b->bits == 8)
    dequant_rows(8, b, panel, pc, kc, dst, ld);
  else
    dequant_rows(4, b, panel, pc, kc, dst, ld);
}

/* ---- 16-bit float B: bfloat16, IEEE half ------------------------------------
 * A row of a panel is one 64-byte load: word t holds column t in its low
 * half and column t + 16 in its high half.
 * bfloat16: x << 16 is columns 0..15 as floats and x & 0xFFFF0000 columns
 * 16..31 (no shuffle; both run on any vector pipe). The float GEMM's FMA
 * then does the rest: converting A to bfloat16 for vdpbf16ps would round
 * the activations too, and it runs at about half the float FMA rate here.
 * IEEE half: vcvtph2ps (F16C; no AVX512_FP16 needed) converts each 32-byte
 * half of the row, words 0..7 and 8..15, into 16 floats: columns
 * 0, 16, 1, 17, .., 7, 23 and 8, 24, .., 15, 31. The small kernel
 * accumulates in that order and puts the columns back in order once per
 * tile (two vpermt2ps per pair of vectors); the widening for the packed
 * path does it per row. */

/* The two vectors of row `row`: bfloat16 in column order, IEEE half in
 * the order above. */
static ALWAYS_INLINE void widen_row(const int F, const unsigned char *row,
                                   __m512 *lo, __m512 *hi) {
  if (F == AGL_W16_F16) {
    *lo = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)row));
    *hi = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(row + 32)));
    return;
  }
  __m512i x = _mm512_loadu_si512(row);
  *lo = _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
  *hi = _mm512_castsi512_ps(
      _mm512_and_si512(x, _mm512_set1_epi32((int)0xFFFF0000u)));
}

/* IEEE half: the two vectors of widen_row (or sums over them) to columns
 * 0..15 and 16..31. */
static ALWAYS_INLINE void half_columns(__m512 *lo, __m512 *hi) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                        21, 23, 25, 27, 29, 31);
  __m512 first = _mm512_permutex2var_ps(*lo, even, *hi);
  __m512 second = _mm512_permutex2var_ps(*lo, odd, *hi);
  *lo = first;
  *hi = second;
}

/* P panels from panel q on (P * 32 columns), M rows of A, every depth; U
 * depths per step, each into its own set of accumulators (M * 2P * U
 * vectors), to hide the FMA latency. Columns past n are not stored. */
static ALWAYS_INLINE void w16_panels(const int F, const int M, const int P,
                                     const int U, int64_t q, agl_view a,
                                     const agl_quant_b *b, float *c,
                                     int64_t crs, const agl_epilogue *e) {
  enum { M_MAX = 4, P_MAX = 4, U_MAX = 2 };
  const unsigned char *pb = b->data + q * b->panel_bytes;
  const int64_t k = b->k;
  __m512 acc[U_MAX][M_MAX][2 * P_MAX];
  for (int u = 0; u < U; ++u)
    for (int i = 0; i < M; ++i)
      for (int v = 0; v < 2 * P; ++v)
        acc[u][i][v] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + U <= k; p += U) {
    for (int h = 0; h < P; ++h)
      _mm_prefetch((const char *)(pb + h * b->panel_bytes + (p + 16) * 64),
                   _MM_HINT_T0);
    for (int u = 0; u < U; ++u)
      for (int h = 0; h < P; ++h) {
        __m512 w0, w1;
        widen_row(F, pb + h * b->panel_bytes + (p + u) * 64, &w0, &w1);
        for (int i = 0; i < M; ++i) {
          __m512 x = _mm512_set1_ps(a.data[i * a.rs + (p + u) * a.cs]);
          acc[u][i][2 * h] = _mm512_fmadd_ps(x, w0, acc[u][i][2 * h]);
          acc[u][i][2 * h + 1] = _mm512_fmadd_ps(x, w1, acc[u][i][2 * h + 1]);
        }
      }
  }
  for (; p < k; ++p)
    for (int h = 0; h < P; ++h) {
      __m512 w0, w1;
      widen_row(F, pb + h * b->panel_bytes + p * 64, &w0, &w1);
      for (int i = 0; i < M; ++i) {
        __m512 x = _mm512_set1_ps(a.data[i * a.rs + p * a.cs]);
        acc[0][i][2 * h] = _mm512_fmadd_ps(x, w0, acc[0][i][2 * h]);
        acc[0][i][2 * h + 1] = _mm512_fmadd_ps(x, w1, acc[0][i][2 * h + 1]);
      }
    }
  for (int i = 0; i < M; ++i) {
    __m512 sums[2 * P_MAX];
    for (int v = 0; v < 2 * P; ++v) {
      sums[v] = acc[0][i][v];
      for (int u = 1; u < U; ++u)
        sums[v] = _mm512_add_ps(sums[v], acc[u][i][v]);
    }
    if (F == AGL_W16_F16)
      for (int h = 0; h < P; ++h)
        half_columns(&sums[2 * h], &sums[2 * h + 1]);
    for (int v = 0; v < 2 * P; ++v) {
      int64_t j = q * 32 + 16 * v;
      if (j < b->n)
        agl_store_epilogue512(sums[v], c + i * crs + j, 1, b->n - j, e, i, j);
    }
  }
}

#define W16_VARIANT(NAME, F, M, P, U)                                          \
  static void NAME##_##M##_##P(int64_t q, agl_view a, const agl_quant_b *b,   \
                               float *c, int64_t crs,                         \
                               const agl_epilogue *e) {                       \
    w16_panels(F, M, P, U, q, a, b, c, crs, e);                                \
  }
/* Eight or more independent accumulators at each row count. Several panels
 * at a time: each broadcast of A serves more vectors, and more streams of
 * weights are in flight (with one row, four panels ran about 1.5x faster
 * than two on weights in the L3: 2x the float GEMV instead of 1.4x). */
#define W16_VARIANTS(NAME, F)                                                  \
  W16_VARIANT(NAME, F, 1, 4, 1)                                                \
  W16_VARIANT(NAME, F, 1, 2, 2)                                                \
  W16_VARIANT(NAME, F, 1, 1, 2)                                                \
  W16_VARIANT(NAME, F, 2, 2, 1)                                                \
  W16_VARIANT(NAME, F, 2, 1, 2)                                                \
  W16_VARIANT(NAME, F, 3, 2, 1)                                                \
  W16_VARIANT(NAME, F, 3, 1, 2)                                                \
  W16_VARIANT(NAME, F, 4, 2, 1)                                                \
  W16_VARIANT(NAME, F, 4, 1, 2)
W16_VARIANTS(bf16, AGL_W16_BF16)
W16_VARIANTS(f16, AGL_W16_F16)

typedef void (*panel_fn)(int64_t, agl_view, const agl_quant_b *, float *,
                         int64_t, const agl_epilogue *);

/* One format's variants: one row by 4, 2, 1 panels; 2-4 rows by 2 and 1. */
typedef struct w16_kernels {
  panel_fn one_by[3], pairs[3], singles[3];
} w16_kernels;

static const w16_kernels kW16Kernels[2] = {
    [AGL_W16_BF16] = {{bf16_1_4, bf16_1_2, bf16_1_1},
                      {bf16_2_2, bf16_3_2, bf16_4_2},
                      {bf16_2_1, bf16_3_1, bf16_4_1}},
    [AGL_W16_F16] = {{f16_1_4, f16_1_2, f16_1_1},
                     {f16_2_2, f16_3_2, f16_4_2},
                     {f16_2_1, f16_3_1, f16_4_1}},
};

void agl_w16_small_avx512(int m, int64_t q0, int64_t q1, agl_view a,
                          const agl_quant_b *b, float *c, int64_t crs,
                          const agl_epilogue *e) {
  const w16_kernels *kernels = &kW16Kernels[b->w16 == AGL_W16_F16];
  int64_t q = q0;
  if (m == 1) {
    for (; q + 4 <= q1; q += 4)
      kernels->one_by[0](q, a, b, c, crs, e);
    for (; q + 2 <= q1; q += 2)
      kernels->one_by[1](q, a, b, c, crs, e);
    if (q < q1)
      kernels->one_by[2](q, a, b, c, crs, e);
    return;
  }
  for (; q + 2 <= q1; q += 2)
    kernels->pairs[m - 2](q, a, b, c, crs, e);
  if (q < q1)
    kernels->singles[m - 2](q, a, b, c, crs, e);
}

void agl_w16_widen_avx512(const agl_quant_b *b, int64_t panel, int64_t pc,
                          int64_t kc, float *dst, int64_t ld) {
  const unsigned char *rows = b->data + panel * b->panel_bytes + pc * 64;
  if (b->w16 == AGL_W16_F16) {
    for (int64_t r = 0; r < kc; ++r) {
      __m512 w0, w1;
      widen_row(AGL_W16_F16, rows + r * 64, &w0, &w1);
      half_columns(&w0, &w1);
      _mm512_storeu_ps(dst + r * ld, w0);
      _mm512_storeu_ps(dst + r * ld + 16, w1);
    }
    return;
  }
  for (int64_t r = 0; r < kc; ++r) {
    __m512 w0, w1;
    widen_row(AGL_W16_BF16, rows + r * 64, &w0, &w1);
    _mm512_storeu_ps(dst + r * ld, w0);
    _mm512_storeu_ps(dst + r * ld + 16, w1);
  }
}
