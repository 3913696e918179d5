/* Vectorized activations for AVX-512 (16 floats at a time), for the GEMM
 * epilogues. Included only by files compiled for AVX-512.
 *
 * exp: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for exactness),
 * e^r by its degree-7 Taylor polynomial (relative error below 3e-9 on that
 * interval, so the float rounding dominates), then scaled by 2^n with
 * vscalefps, which also saturates cleanly.
 * erfc (for GELU): for z >= 0, erfc(z) = t exp(-z^2 + P(t)), t = 1/(1+z/2),
 * with the degree-9 Chebyshev fit P of Numerical Recipes (fractional error
 * below 1.2e-7 for every z >= 0); erf of negative arguments by symmetry.
 * GELU (tanh form) and SiLU use 0.5 (1 + tanh(u)) = 1 / (1 + e^(-2u)). */
#ifndef AUTOGLM_AVX512_MATH_H
#define AUTOGLM_AVX512_MATH_H

#include "kernels_internal.h"

#include <immintrin.h>

static inline __m512 agl_exp512(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));
  x = _mm512_min_ps(x, _mm512_set1_ps(88.8f));
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
  __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

/* x / (1 + e^(-s x)) for the scale s. */
static inline __m512 agl_x_sigmoid512(__m512 x, __m512 scaled) {
  __m512 e = agl_exp512(_mm512_sub_ps(_mm512_setzero_ps(), scaled));
  return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

static inline __m512 agl_gelu_erf512(__m512 x) {
  __m512 z = _mm512_mul_ps(_mm512_abs_ps(x),
                           _mm512_set1_ps(0.70710678118654752f));
  __m512 one = _mm512_set1_ps(1.0f);
  __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(z, _mm512_set1_ps(0.5f), one));
  __m512 p = _mm512_set1_ps(0.17087277f);
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.82215223f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.48851587f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.13520398f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.27886807f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.18628806f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.09678418f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.37409196f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.00002368f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.26551223f));
  /* The exponent p - z^2 with z^2 = x^2 / 2 from x itself (not from the
   * rounded z), as a sum hi + lo: exp(hi) (1 + lo). The rounding of z^2
   * and of the sum would otherwise cost ~2 z^2 ulp in the tail. */
  __m512 half = _mm512_set1_ps(0.5f);
  __m512 x2 = _mm512_mul_ps(x, x);
  __m512 x2_lo = _mm512_fmsub_ps(x, x, x2);
  __m512 u = _mm512_mul_ps(x2, _mm512_set1_ps(-0.5f));
  __m512 hi = _mm512_add_ps(p, u);
  __m512 bb = _mm512_sub_ps(hi, p);
  __m512 lo = _mm512_add_ps(_mm512_sub_ps(p, _mm512_sub_ps(hi, bb)),
                            _mm512_sub_ps(u, bb));
  lo = _mm512_fnmadd_ps(x2_lo, half, lo);
  __m512 e = agl_exp512(hi);
  __m512 erfc = _mm512_mul_ps(t, _mm512_fmadd_ps(e, lo, e));
  /* x >= 0: x (1 - erfc/2); x < 0: x erfc/2. */
  __m512 h = _mm512_mul_ps(erfc, half);
  __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  __m512 factor = _mm512_mask_blend_ps(negative, _mm512_sub_ps(one, h), h);
  return _mm512_mul_ps(x, factor);
}

static inline __m512 agl_gelu_tanh512(__m512 x) {
  __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
  __m512 u = _mm512_fmadd_ps(x3, _mm512_set1_ps(0.044715f), x);
  /* 2 sqrt(2/pi) u */
  return agl_x_sigmoid512(x, _mm512_mul_ps(u, _mm512_set1_ps(1.5957691216057308f)));
}

static inline __m512 agl_activate512(__m512 x, int act) {
  switch (act) {
  case AGL_ACT_RELU:
    /* max_ps returns its second operand when one is NaN: NaN stays NaN. */
    return _mm512_max_ps(_mm512_setzero_ps(), x);
  case AGL_ACT_GELU_ERF:
    return agl_gelu_erf512(x);
  case AGL_ACT_GELU_TANH:
    return agl_gelu_tanh512(x);
  case AGL_ACT_SILU:
    return agl_x_sigmoid512(x, x);
  default:
    return x;
  }
}

/* The first `count` lanes (0..16). */
static inline __mmask16 agl_lanes16(int64_t count) {
  return count >= 16 ? (__mmask16)0xFFFF
         : count <= 0 ? (__mmask16)0
                      : (__mmask16)((1u << count) - 1u);
}

/* Writes acc through the epilogue to C's row i, columns j..j+count-1 (at
 * most 16), the first of them at c, C's column stride ccs: the epilogue
 * code of the small-m products (gemv_avx512.c, sgemm_quant_avx512.c). */
static inline __attribute__((always_inline)) void
agl_store_epilogue512(__m512 acc, float *c, int64_t ccs,
                                    int64_t count, const agl_epilogue *e,
                                    int64_t i, int64_t j) {
  if (count > 16)
    count = 16;
  __mmask16 m = agl_lanes16(count);
  const float *bias =
      e->bias ? e->bias + i * e->bias_rs + j * e->bias_cs : NULL;
  const float *res =
      e->residual ? e->residual + i * e->res_rs + j * e->res_cs : NULL;
  if (ccs == 1 && (!bias || e->bias_cs == 1) && (!res || e->res_cs == 1)) {
    if (e->alpha != 1.0f)
      acc = _mm512_mul_ps(acc, _mm512_set1_ps(e->alpha));
    if (e->load_c)
      acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(m, c));
    if (bias)
      acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(m, bias));
    if (e->act != AGL_ACT_NONE)
      acc = agl_activate512(acc, e->act);
    if (res)
      acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(m, res));
    _mm512_mask_storeu_ps(c, m, acc);
    return;
  }
  float tmp[16];
  _mm512_storeu_ps(tmp, acc);
  for (int64_t t = 0; t < count; ++t)
    tmp[t] = (e->load_c ? c[t * ccs] : 0.0f) + e->alpha * tmp[t] +
             (bias ? bias[t * e->bias_cs] : 0.0f);
  if (e->act != AGL_ACT_NONE)
    _mm512_storeu_ps(tmp, agl_activate512(_mm512_loadu_ps(tmp), e->act));
  for (int64_t t = 0; t < count; ++t)
    c[t * ccs] = tmp[t] + (res ? res[t * e->res_cs] : 0.0f);
}

#endif /* AUTOGLM_AVX512_MATH_H */
