/* Vectorized activations for AVX-512 (16 floats at a time), for the GEMM
 * epilogues. Included only by files compiled for AVX-512.
 *
 * exp: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for exactness),
 * e^r by its degree-7 Taylor polynomial (relative error below 3e-9 on that
 * interval, so the float rounding dominates), then scaled by 2^n with
 * vscalefps, which also saturates cleanly.
 * GELU (erf form) by a piecewise quartic table (agl_gelu_erf_table512_n).
 * GELU (tanh form) and SiLU use 0.5 (1 + tanh(u)) = 1 / (1 + e^(-2u)). */
#ifndef AUTOGLM_AVX512_MATH_H
#define AUTOGLM_AVX512_MATH_H

#include "kernels_internal.h"

#include <immintrin.h>

/* The vectors x[0..n) at once: every step for all n before the next,
 * so that n independent chains are in flight (one vector's chain is some 40
 * dependent operations, longer than the scheduler looks ahead). n is a
 * compile-time constant at every call. */
enum { AGL_CHAINS = 8 }; /* the most vectors at once */
#define AGL_EACH(l, n) _Pragma("GCC unroll 8") for (int l = 0; l < (n); ++l)

static inline __attribute__((always_inline)) void agl_exp512_n(__m512 *x,
                                                               const int n) {
  __m512 k[AGL_CHAINS], r[AGL_CHAINS], p[AGL_CHAINS];
  AGL_EACH(l, n) {
    x[l] = _mm512_max_ps(x[l], _mm512_set1_ps(-104.0f));
    x[l] = _mm512_min_ps(x[l], _mm512_set1_ps(88.8f));
    k[l] = _mm512_roundscale_ps(
        _mm512_mul_ps(x[l], _mm512_set1_ps(1.44269504088896341f)),
        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  /* ln 2 in two parts, the first exact in float. */
  AGL_EACH(l, n) {
    r[l] = _mm512_fnmadd_ps(k[l], _mm512_set1_ps(0.693145751953125f), x[l]);
    r[l] = _mm512_fnmadd_ps(k[l], _mm512_set1_ps(1.428606765330187e-06f), r[l]);
  }
  static const float c[] = {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f,
                            1.0f / 6.0f,   0.5f,          1.0f,
                            1.0f};
  AGL_EACH(l, n) p[l] = _mm512_set1_ps(1.0f / 5040.0f);
#pragma GCC unroll 7
  for (int d = 0; d < 7; ++d)
    AGL_EACH(l, n) p[l] = _mm512_fmadd_ps(p[l], r[l], _mm512_set1_ps(c[d]));
  AGL_EACH(l, n) x[l] = _mm512_scalef_ps(p[l], k[l]);
}

static inline __m512 agl_exp512(__m512 x) {
  agl_exp512_n(&x, 1);
  return x;
}

/* x[l] / (1 + e^(-s[l] x[l])) for the scales s[l]. */
static inline __attribute__((always_inline)) void
agl_x_sigmoid512_n(__m512 *x, const __m512 *scaled, const int n) {
  __m512 e[AGL_CHAINS];
  AGL_EACH(l, n) e[l] = _mm512_sub_ps(_mm512_setzero_ps(), scaled[l]);
  agl_exp512_n(e, n);
  AGL_EACH(l, n) {
    x[l] = _mm512_div_ps(x[l], _mm512_add_ps(_mm512_set1_ps(1.0f), e[l]));
  }
}

static inline __attribute__((always_inline)) void
agl_gelu_tanh512_n(__m512 *x, const int n) {
  __m512 s[AGL_CHAINS];
  AGL_EACH(l, n) {
    __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x[l], x[l]), x[l]);
    __m512 u = _mm512_fmadd_ps(x3, _mm512_set1_ps(0.044715f), x[l]);
    /* 2 sqrt(2/pi) u */
    s[l] = _mm512_mul_ps(u, _mm512_set1_ps(1.5957691216057308f));
  }
  agl_x_sigmoid512_n(x, s, n);
}

/* GELU (erf form) in 19 operations, within about one ulp of
 * max(|x|, |GELU(x)|): absolute accuracy in the far negative tail, where
 * GELU(x) is tiny -- as accurate as the graph's own x (1 + erf(x/sqrt 2))/2
 * in float, and 2.4x faster than erfc's t exp(-z^2 + P(t)) carried to a few
 * ulp of the tail's result (46 operations). GELU(x) = x/2 + |x| g(|x|) with
 * g(a) = Phi(a) - 1/2 a piecewise quartic on 31 intervals of [0, 5.4) and
 * 1/2 past them (gelu_table.c, its generator in runtime/tools): a
 * coefficient's 32 entries are two vectors, read for 16 lanes by one
 * vpermt2ps. NaN stays NaN (vminps returns the bound: entry 31). */
enum { AGL_GELU_DEGREE = 4 };
#define AGL_GELU_SCALE 5.74074078f /* 31 / 5.4: intervals per unit of |x| */
AGL_HIDDEN extern const float agl_gelu_table[AGL_GELU_DEGREE + 1][32];

static inline __attribute__((always_inline)) void
agl_gelu_erf_table512_n(__m512 *x, const int n) {
  __m512 a[AGL_CHAINS], t[AGL_CHAINS], p[AGL_CHAINS];
  __m512i entry[AGL_CHAINS];
  AGL_EACH(l, n) {
    a[l] = _mm512_abs_ps(x[l]);
    __m512 s =
        _mm512_min_ps(_mm512_mul_ps(a[l], _mm512_set1_ps(AGL_GELU_SCALE)),
                      _mm512_set1_ps(31.0f));
    __m512 whole =
        _mm512_roundscale_ps(s, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    t[l] = _mm512_sub_ps(s, whole);
    entry[l] = _mm512_cvttps_epi32(whole);
  }
#define AGL_GELU_COEF(d, l)                                                    \
  _mm512_permutex2var_ps(_mm512_load_ps(agl_gelu_table[d]), entry[l],          \
                         _mm512_load_ps(agl_gelu_table[d] + 16))
  AGL_EACH(l, n) p[l] = AGL_GELU_COEF(AGL_GELU_DEGREE, l);
#pragma GCC unroll 4
  for (int d = AGL_GELU_DEGREE - 1; d >= 0; --d)
    AGL_EACH(l, n) p[l] = _mm512_fmadd_ps(p[l], t[l], AGL_GELU_COEF(d, l));
#undef AGL_GELU_COEF
  AGL_EACH(l, n) {
    x[l] =
        _mm512_fmadd_ps(a[l], p[l], _mm512_mul_ps(x[l], _mm512_set1_ps(0.5f)));
  }
}

/* act of x[0..n) (n <= AGL_CHAINS), in place. */
static inline __attribute__((always_inline)) void
agl_activate512_n(__m512 *x, const int n, int act) {
  switch (act) {
  case AGL_ACT_RELU:
    /* max_ps returns its second operand when one is NaN: NaN stays NaN. */
    AGL_EACH(l, n) x[l] = _mm512_max_ps(_mm512_setzero_ps(), x[l]);
    return;
  case AGL_ACT_GELU_ERF:
    agl_gelu_erf_table512_n(x, n);
    return;
  case AGL_ACT_GELU_TANH:
    agl_gelu_tanh512_n(x, n);
    return;
  case AGL_ACT_SILU: {
    __m512 s[AGL_CHAINS];
    AGL_EACH(l, n) s[l] = x[l];
    agl_x_sigmoid512_n(x, s, n);
    return;
  }
  default:
    return;
  }
}

static inline __m512 agl_activate512(__m512 x, int act) {
  agl_activate512_n(&x, 1, act);
  return x;
}

/* x with the residual r after the activation: added, or as a gate
 * (agl_epilogue). */
static inline __attribute__((always_inline)) __m512
agl_residual512(__m512 x, __m512 r, int gated, int gate_act) {
  return gated ? _mm512_mul_ps(x, agl_activate512(r, gate_act))
               : _mm512_add_ps(x, r);
}

/* Lanes [lo, hi) of a 16-lane mask (empty when hi <= lo). */
static inline __mmask16 agl_lane_range16(int64_t lo, int64_t hi) {
  if (lo < 0)
    lo = 0;
  if (hi > 16)
    hi = 16;
  if (hi <= lo)
    return 0;
  return (__mmask16)((1u << hi) - (1u << lo));
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
      acc = agl_residual512(acc, _mm512_maskz_loadu_ps(m, res), e->gated,
                            e->gate_act);
    _mm512_mask_storeu_ps(c, m, acc);
    return;
  }
  float tmp[16], r[16] = {0};
  _mm512_storeu_ps(tmp, acc);
  for (int64_t t = 0; t < count; ++t) {
    tmp[t] = (e->load_c ? c[t * ccs] : 0.0f) + e->alpha * tmp[t] +
             (bias ? bias[t * e->bias_cs] : 0.0f);
    if (res)
      r[t] = res[t * e->res_cs];
  }
  __m512 x = agl_activate512(_mm512_loadu_ps(tmp), e->act);
  if (res)
    x = agl_residual512(x, _mm512_loadu_ps(r), e->gated, e->gate_act);
  _mm512_storeu_ps(tmp, x);
  for (int64_t t = 0; t < count; ++t)
    c[t * ccs] = tmp[t];
}

#endif /* AUTOGLM_AVX512_MATH_H */
