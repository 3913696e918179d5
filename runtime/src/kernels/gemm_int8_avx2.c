/* The AVX2 micro-kernel of agl_kernel_gemm_u8s8, for CPUs without AVX-512
 * VNNI. This file is compiled with AVX2 and FMA enabled; nothing in it runs
 * unless the CPU has them (gemm_int8.c checks).
 *
 * AVX2's byte product, vpmaddubsw, saturates its pairs of u8 x s8 products
 * in int16 (2 * 255 * 128 does not fit), so it is not exact. This kernel
 * widens both sides to int16 and multiplies with vpmaddwd, whose pairs sum
 * in int32: exact for every input. That costs a vpaddd per vpmaddwd, 4
 * instructions per 32 products where the saturating path takes 3 (both
 * multiply twice per 32). A loop of nothing else reaches the float FMA
 * peak on a Zen 2 that issues one vpmaddwd a cycle, 1.6x it on a CPU
 * measured to issue more (docs/performance.md).
 *
 * A pass covers up to 6 rows x 8 columns (a quarter of the B panel):
 * 12 accumulators, the two weight vectors, the activation vector and one
 * temporary fill the 16 registers. Per depth quad the group's 32 weight
 * bytes are sign-extended within 128-bit lanes (unpack, shift), and each
 * row's 4 activation bytes are broadcast and zero-extended within lanes:
 * lane-crossing widenings (vpmovsxbw ymm) cost twice as much on Zen 2.
 * Every int32 lane then sums one column over 2 of the 4 depths; the two
 * halves are added once, at the end of the pass (vphaddd). */
#include "int8_internal.h"

#include "avx2_math.h"

#include <string.h>

enum { ROWS_PER_PASS = 6 };

/* Loads `count` (at most 8) int32 lanes at p, zero past them. */
static AGL_ALWAYS_INLINE __m256i load_i32(const int32_t *p, int count) {
  return _mm256_castps_si256(agl_load_lanes256((const float *)p, count));
}

static AGL_ALWAYS_INLINE void store_i32(int32_t *p, __m256i v, int count) {
  agl_store_lanes256((float *)p, _mm256_castsi256_ps(v), count);
}

/* acc += pairwise products of b and x, through t; in inline assembly
 * because GCC 12 copied every accumulator after its update otherwise. */
#define MADD_ADD(acc, b, x, t)                                                 \
  __asm__("vpmaddwd %2, %3, %1\n\tvpaddd %1, %0, %0"                           \
          : "+x"(acc), "=&x"(t)                                                \
          : "x"(b), "x"(x))

/* R rows x columns [8g, 8g + cols) of the tile. */
static AGL_ALWAYS_INLINE void pass(const int R, int64_t kq, const uint8_t *ap,
                                   int64_t a_row, int64_t a_quad,
                                   const int8_t *bp, int cols, int32_t *c,
                                   int64_t ldc, const agl_s8_epilogue *e,
                                   int g) {
  __m256i acc[ROWS_PER_PASS][2];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
    acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  bp += 32 * g;
  const __m256i zero = _mm256_setzero_si256();
  for (int64_t r = 0; r < kq; ++r) {
    /* The group's 8 columns (4 in each 128-bit lane, 4 depths each),
     * sign-extended in-lane: columns 0, 1 | 4, 5 and 2, 3 | 6, 7. */
    const __m256i b = _mm256_loadu_si256((const __m256i *)bp);
    const __m256i b0 = _mm256_srai_epi16(_mm256_unpacklo_epi8(b, b), 8);
    const __m256i b1 = _mm256_srai_epi16(_mm256_unpackhi_epi8(b, b), 8);
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i) {
      /* The row's 4 bytes in every 32-bit lane, zero-extended in-lane: the
       * 4 depths twice per 128-bit lane. */
      const __m256i x =
          _mm256_unpacklo_epi8(_mm256_castps_si256(_mm256_broadcast_ss(
                                   (const float *)(ap + i * a_row))),
                               zero);
      __m256i t;
      MADD_ADD(acc[i][0], b0, x, t);
      MADD_ADD(acc[i][1], b1, x, t);
    }
    ap += a_quad;
    bp += 128;
  }

  /* Lane pairs to column sums, in column order. */
  __m256i sum[ROWS_PER_PASS];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
    sum[i] = _mm256_hadd_epi32(acc[i][0], acc[i][1]);
  const int live = cols - 8 * g < 8 ? cols - 8 * g : 8;
  if (e->load) {
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i)
      sum[i] = _mm256_add_epi32(sum[i], load_i32(c + i * ldc + 8 * g, live));
  }
  __m256i zero_term = _mm256_setzero_si256();
  if (e->last && e->zero_point) {
    __m256i colsum = _mm256_loadu_si256((const __m256i *)(e->colsum + 32 * g));
    zero_term = _mm256_mullo_epi32(_mm256_set1_epi32(e->zero_point), colsum);
  }
  if (!e->last || !e->scale) {
    if (e->transposed) {
      /* Row i's sums down column 8 g + t: one int32 each. */
      for (int i = 0; i < R; ++i) {
        int32_t lanes[8];
        _mm256_storeu_si256((__m256i *)lanes,
                            _mm256_sub_epi32(sum[i], zero_term));
        for (int t = 0; t < live; ++t)
          c[(8 * g + t) * ldc + i] = lanes[t];
      }
      return;
    }
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i)
      store_i32(c + i * ldc + 8 * g, _mm256_sub_epi32(sum[i], zero_term), live);
    return;
  }

  /* The float epilogue, with alpha * scale[j] as one factor per column. */
  const int64_t j = 8 * g;
  const __m256 scale = _mm256_mul_ps(_mm256_set1_ps(e->alpha),
                                     agl_load_lanes256(e->scale + j, live));
  const __m256 bias =
      e->bias ? agl_load_lanes256(e->bias + j, live) : _mm256_setzero_ps();
  float *cf = (float *)c;
  uint8_t *cq = (uint8_t *)c;
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i) {
    __m256 v = _mm256_cvtepi32_ps(_mm256_sub_epi32(sum[i], zero_term));
    v = _mm256_fmadd_ps(v, scale, bias);
    if (e->act != AGL_ACT_NONE)
      v = agl_activate256(v, e->act);
    if (e->residual)
      v = agl_residual256(
          v, agl_load_lanes256(e->residual + i * e->res_rs + j, live), e->gated,
          e->gate_act);
    if (e->quantize) {
      __m256 q = _mm256_round_ps(
          _mm256_div_ps(v, _mm256_set1_ps(e->out_scale)),
          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      /* vmaxps returns its second operand for NaN: 0. */
      q = _mm256_max_ps(
          _mm256_add_ps(q, _mm256_set1_ps((float)e->out_zero_point)),
          _mm256_setzero_ps());
      q = _mm256_min_ps(q, _mm256_set1_ps(255.0f));
      int32_t bytes[8];
      _mm256_storeu_si256((__m256i *)bytes, _mm256_cvtps_epi32(q));
      for (int t = 0; t < live; ++t)
        cq[i * ldc + j + t] = (uint8_t)bytes[t];
      continue;
    }
    agl_store_lanes256(cf + i * ldc + j, v, live);
  }
}

/* Every column group of the tile for R rows. */
static AGL_ALWAYS_INLINE void rows(const int R, int64_t kq, const uint8_t *ap,
                                   int64_t a_row, int64_t a_quad,
                                   const int8_t *bp, int cols, int32_t *c,
                                   int64_t ldc, const agl_s8_epilogue *e) {
  for (int g = 0; 8 * g < cols; ++g)
    pass(R, kq, ap, a_row, a_quad, bp, cols, c, ldc, e, g);
}

#define ROWS_FN(R)                                                             \
  static void rows_##R(int64_t kq, const uint8_t *ap, int64_t a_row,           \
                       int64_t a_quad, const int8_t *bp, int cols, int32_t *c, \
                       int64_t ldc, const agl_s8_epilogue *e) {                \
    rows(R, kq, ap, a_row, a_quad, bp, cols, c, ldc, e);                       \
  }
ROWS_FN(1)
ROWS_FN(2)
ROWS_FN(3)
ROWS_FN(4)
ROWS_FN(5)
ROWS_FN(6)

typedef void (*rows_fn)(int64_t, const uint8_t *, int64_t, int64_t,
                        const int8_t *, int, int32_t *, int64_t,
                        const agl_s8_epilogue *);
/* The passes for each row count: the tile's last pass covers what is left
 * of its rows. */
static const rows_fn passes[ROWS_PER_PASS + 1] = {
    NULL, rows_1, rows_2, rows_3, rows_4, rows_5, rows_6};

void agl_s8_kernel_avx2(int64_t kq, const uint8_t *ap, int64_t lda,
                        const int8_t *bp, int rows_left, int cols, void *c,
                        int64_t ldc, const agl_s8_epilogue *e) {
  /* Row i's quad r at ap + i * a_row + r * a_quad. */
  const int64_t a_row = lda ? lda : 4, a_quad = lda ? 4 : AGL_S8_QUAD_BYTES;
  int32_t *c32 = c;
  agl_s8_epilogue part = *e;
  for (int i = 0; i < rows_left; i += ROWS_PER_PASS) {
    const int n = rows_left - i < ROWS_PER_PASS ? rows_left - i : ROWS_PER_PASS;
    if (e->residual)
      part.residual = e->residual + i * e->res_rs;
    /* Row i of C: ldc elements of 4 bytes, or 1 when quantizing; element
     * i of the first column when C is transposed. */
    int32_t *ci = e->transposed ? c32 + i
                  : e->quantize ? (int32_t *)((uint8_t *)c + i * ldc)
                                : c32 + i * ldc;
    passes[n](kq, ap + i * a_row, a_row, a_quad, bp, cols, ci, ldc, &part);
  }
}
