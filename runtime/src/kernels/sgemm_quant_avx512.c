/* Weight-only quantized products for AVX-512: the small-m kernel (decode
 * steps) and the dequantization of B's blocks for the packed path.
 *
 * A row of a panel (32 columns at one depth) becomes two vectors of 16
 * floats:
 *  - 8 bits: vpmovsxbd of each 16-byte half (sign extension to int32),
 *    vcvtdq2ps;
 *  - 4 bits: vpmovzxbd of the 16 bytes; the low nibbles index a 16-entry
 *    table of the values -8..7 with vpermps (which reads only the low 4
 *    bits of each index), the high nibbles likewise after a shift by 4. No
 *    conversion is needed.
 * The small kernel accumulates each group of depths with unit scales and
 * multiplies the group's sum by its 32 scales once (one FMA per vector per
 * group); a row of A is a broadcast. With one row of A, four sets of group
 * accumulators (depths p, p+1, p+2, p+3) hide the FMA latency.
 * This file is compiled with AVX-512 enabled. */
#include "quant_internal.h"

#include "avx512_math.h"

#include <immintrin.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE void load_row(const int BITS, const unsigned char *row,
                                   __m512 lut, __m512 *w0, __m512 *w1) {
  if (BITS == 8) {
    *w0 = _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)row)));
    *w1 = _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(row + 16))));
  } else {
    __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)row));
    *w0 = _mm512_permutexvar_ps(x, lut);
    *w1 = _mm512_permutexvar_ps(_mm512_srli_epi32(x, 4), lut);
  }
}

static ALWAYS_INLINE __m512 nibble_table(void) {
  return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2,
                        -1);
}

static ALWAYS_INLINE void small_panels(const int M, const int BITS,
                                       int64_t q0, int64_t q1, agl_view a,
                                       const agl_quant_b *b, float *c,
                                       int64_t crs, int accumulate, int act) {
  /* Independent sets of group accumulators, to hide the FMA latency. */
  enum { U_MAX = 4 };
  const int U = M == 1 ? 4 : M == 2 ? 2 : 1;
  const int64_t rb = BITS == 8 ? 32 : 16;
  const __m512 lut = nibble_table();
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
      for (; p + U <= count; p += U) {
        _mm_prefetch((const char *)(rows + (p + 16) * rb), _MM_HINT_T0);
        for (int u = 0; u < U; ++u) {
          __m512 w0, w1;
          load_row(BITS, rows + (p + u) * rb, lut, &w0, &w1);
          for (int i = 0; i < M; ++i) {
            __m512 x = _mm512_set1_ps(ap[i * a.rs + (p + u) * a.cs]);
            gacc[u][i][0] = _mm512_fmadd_ps(x, w0, gacc[u][i][0]);
            gacc[u][i][1] = _mm512_fmadd_ps(x, w1, gacc[u][i][1]);
          }
        }
      }
      for (; p < count; ++p) {
        __m512 w0, w1;
        load_row(BITS, rows + p * rb, lut, &w0, &w1);
        for (int i = 0; i < M; ++i) {
          __m512 x = _mm512_set1_ps(ap[i * a.rs + p * a.cs]);
          gacc[0][i][0] = _mm512_fmadd_ps(x, w0, gacc[0][i][0]);
          gacc[0][i][1] = _mm512_fmadd_ps(x, w1, gacc[0][i][1]);
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
        acc[i][0] = _mm512_fmadd_ps(t0, s0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(t1, s1, acc[i][1]);
      }
    }
    for (int i = 0; i < M; ++i) {
      float *out = c + i * crs + q * 32;
      for (int h = 0; h < 2; ++h) {
        __m512 x = acc[i][h];
        if (accumulate)
          x = _mm512_add_ps(x, _mm512_loadu_ps(out + 16 * h));
        if (act != AGL_ACT_NONE)
          x = agl_activate512(x, act);
        _mm512_storeu_ps(out + 16 * h, x);
      }
    }
  }
}

#define SMALL_VARIANT(M, BITS)                                                 \
  static void small_##M##_##BITS(int64_t q0, int64_t q1, agl_view a,          \
                                 const agl_quant_b *b, float *c, int64_t crs, \
                                 int accumulate, int act) {                   \
    small_panels(M, BITS, q0, q1, a, b, c, crs, accumulate, act);              \
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
                           float *, int64_t, int, int);

void agl_quant_small_avx512(int m, int64_t q0, int64_t q1, agl_view a,
                            const agl_quant_b *b, float *c, int64_t crs,
                            int accumulate, int act) {
  static const variant_fn q8[4] = {small_1_8, small_2_8, small_3_8,
                                   small_4_8};
  static const variant_fn q4[4] = {small_1_4, small_2_4, small_3_4,
                                   small_4_4};
  (b->bits == 8 ? q8 : q4)[m - 1](q0, q1, a, b, c, crs, accumulate, act);
}

static ALWAYS_INLINE void dequant_rows(const int BITS, const agl_quant_b *b,
                                       int64_t panel, int64_t pc, int64_t kc,
                                       float *dst, int64_t ld) {
  const int64_t rb = BITS == 8 ? 32 : 16;
  const __m512 lut = nibble_table();
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
      __m512 w0, w1;
      load_row(BITS, rows + (p - g * b->group) * rb, lut, &w0, &w1);
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
