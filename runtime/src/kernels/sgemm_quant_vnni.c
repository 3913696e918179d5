/* The decode step's product with 4-bit weights on AVX-512 VNNI: one row of
 * A against panels of B, in integers.
 *
 * The float kernel (sgemm_quant_avx512.c) spends two vector instructions
 * on every 16 weights (a vpternlogd that makes the nibbles floats, an FMA),
 * so that on CPUs with two 512-bit pipes it is bound by them rather than by
 * reading the weights. Here A's row is quantized to int8 per group of B's
 * depths (symmetric: scale max|a| / 127, a = round(a / scale)), and one
 * vpdpbusd multiplies 64 nibbles (as unsigned bytes q + 8) by A's bytes and
 * adds them up in int32, exactly: a block of 8 depths of half a panel (16
 * words, see kernels_quant.h) is two vpdpbusd, one over the even depths
 * (word & 0x0F0F0F0F) and one over the odd ones ((word >> 4) & 0x0F0F0F0F),
 * against A's even and odd bytes broadcast (quantize_row stores each
 * block's bytes in that order). Per group, the sum minus 8 times the sum of
 * A's bytes is the integer dot product with q; it is scaled by A's and the
 * column's scale into the float sums, which go through the GEMM's epilogue.
 *
 * The only rounding besides the float GEMM's is A's: each product term
 * moves by at most half of its group's scale times |w|. This file is
 * compiled with AVX-512 VNNI enabled. */
#include "quant_internal.h"

#include "avx512_math.h"

#include <immintrin.h>
#include <stdint.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* A's row, quantized per group: depths [g0, g0 + 8) of a block stored as
 * the bytes of depths g0, g0+2, g0+4, g0+6, then g0+1, g0+3, g0+5, g0+7;
 * each group's scale and the sum of its bytes. */
typedef struct quantized_row {
  _Alignas(64) int8_t bytes[AGL_QUANT_VNNI_MAX_K + 16];
  float scale[AGL_QUANT_VNNI_MAX_K / 32];
  int32_t sum[AGL_QUANT_VNNI_MAX_K / 32];
} quantized_row;

/* A's row from depth p on, `count` of them at most 16 (zeros past them):
 * one load where the row is contiguous (as a decode step's is). */
static ALWAYS_INLINE __m512 load16(agl_view a, int64_t p, int64_t count) {
  const __mmask16 live =
      count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1u);
  if (a.cs == 1)
    return _mm512_maskz_loadu_ps(live, a.data + p);
  float x[16];
  for (int64_t t = 0; t < 16; ++t)
    x[t] = t < count ? a.data[(p + t) * a.cs] : 0.0f;
  return _mm512_loadu_ps(x);
}

/* Quantizes row a (k depths, unit column stride or not) in groups of
 * `group`; 0 if some value is not finite (the float kernel then gives the
 * NaN or infinity the product has). */
static int quantize_row(agl_view a, const agl_quant_b *b, quantized_row *out) {
  /* Each 8 bytes of a 16-byte chunk: even depths first, then odd ones. */
  const __m128i order =
      _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15);
  for (int64_t g0 = 0, g = 0; g0 < b->k; g0 += b->group, ++g) {
    const int64_t count = b->k - g0 < b->group ? b->k - g0 : b->group;
    __m512 top = _mm512_setzero_ps();
    __mmask16 special = 0;
    for (int64_t p = 0; p < count; p += 16) {
      const __m512 x = load16(a, g0 + p, count - p);
      /* NaN or infinity (vmaxps would drop a NaN). */
      special |= _mm512_fpclass_ps_mask(x, 0x99);
      top = _mm512_max_ps(top, _mm512_abs_ps(x));
    }
    if (special)
      return 0;
    const float amax = _mm512_reduce_max_ps(top);
    const __m512 inverse = _mm512_set1_ps(amax > 0.0f ? 127.0f / amax : 0.0f);
    __m512i total = _mm512_setzero_si512();
    for (int64_t p = 0; p < count; p += 16) {
      /* Nearest, ties to even; |x| * 127 / amax <= 127 rounds to 127 at
       * most, and the conversion to bytes saturates besides. */
      __m512i q = _mm512_cvtps_epi32(
          _mm512_mul_ps(load16(a, g0 + p, count - p), inverse));
      total = _mm512_add_epi32(total, q);
      _mm_storeu_si128((__m128i *)(out->bytes + g0 + p),
                       _mm_shuffle_epi8(_mm512_cvtsepi32_epi8(q), order));
    }
    out->scale[g] = amax / 127.0f;
    out->sum[g] = _mm512_reduce_add_epi32(total);
  }
  return 1;
}

/* P panels (1 or 2) from panel q on: C's 32 P columns. */
static ALWAYS_INLINE void vnni_panels(const int P, int64_t q,
                                      const agl_quant_b *b,
                                      const quantized_row *a, float *c,
                                      const agl_epilogue *e) {
  const __m512i low = _mm512_set1_epi8(0x0F);
  __m512 acc[4];
  for (int v = 0; v < 2 * P; ++v)
    acc[v] = _mm512_setzero_ps();
  for (int64_t g0 = 0, g = 0; g0 < b->k; g0 += b->group, ++g) {
    const int64_t count = b->k - g0 < b->group ? b->k - g0 : b->group;
    const unsigned char *block[2];
    for (int u = 0; u < P; ++u)
      block[u] = b->data + (q + u) * b->panel_bytes + g * b->group_bytes;
    const int32_t *ap = (const int32_t *)(a->bytes + g0);
    /* Even and odd depths apart: twice the independent sums. */
    __m512i even[4], odd[4];
    for (int v = 0; v < 2 * P; ++v)
      even[v] = odd[v] = _mm512_setzero_si512();
    for (int64_t blk = 0; blk < (count + 7) / 8; ++blk) {
      const __m512i ae = _mm512_set1_epi32(ap[2 * blk]);
      const __m512i ao = _mm512_set1_epi32(ap[2 * blk + 1]);
      for (int v = 0; v < 2 * P; ++v) {
        const unsigned char *words =
            block[v / 2] + 32 * sizeof(float) + blk * 128 + (v % 2) * 64;
        _mm_prefetch((const char *)(words + 512), _MM_HINT_T0);
        const __m512i w = _mm512_loadu_si512(words);
        even[v] = _mm512_dpbusd_epi32(even[v], _mm512_and_si512(w, low), ae);
        odd[v] = _mm512_dpbusd_epi32(
            odd[v], _mm512_and_si512(_mm512_srli_epi32(w, 4), low), ao);
      }
    }
    /* sum_p a_p (q_p + 8) - 8 sum_p a_p = sum_p a_p q_p */
    const __m512i offset = _mm512_set1_epi32(8 * a->sum[g]);
    const __m512 a_scale = _mm512_set1_ps(a->scale[g]);
    for (int v = 0; v < 2 * P; ++v) {
      const __m512i dot =
          _mm512_sub_epi32(_mm512_add_epi32(even[v], odd[v]), offset);
      const __m512 scale = _mm512_mul_ps(
          a_scale, _mm512_loadu_ps((const float *)block[v / 2] + 16 * (v % 2)));
      acc[v] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), scale, acc[v]);
    }
  }
  for (int v = 0; v < 2 * P; ++v)
    agl_store_epilogue512(acc[v], c + q * 32 + 16 * v, 1, 16, e, 0,
                          q * 32 + 16 * v);
}

static _Atomic int g_allow_vnni = 1;

void agl_quant_allow_vnni(int allow) { g_allow_vnni = allow != 0; }

void agl_quant_small_avx512_vnni(int m, int64_t q0, int64_t q1, agl_view a,
                                 const agl_quant_b *b, float *c, int64_t crs,
                                 const agl_epilogue *e) {
  quantized_row row;
  if (m == 1 && b->bits == 4 && b->k <= AGL_QUANT_VNNI_MAX_K && g_allow_vnni &&
      quantize_row(a, b, &row)) {
    int64_t q = q0;
    for (; q + 2 <= q1; q += 2)
      vnni_panels(2, q, b, &row, c, e);
    if (q < q1)
      vnni_panels(1, q, b, &row, c, e);
    return;
  }
  agl_quant_small_avx512(m, q0, q1, a, b, c, crs, e);
}
