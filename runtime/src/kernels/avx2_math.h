/* Vectorized activations and epilogue stores for AVX2 + FMA (8 floats at a
 * time): the AVX2 kernels' counterpart of avx512_math.h, with the same
 * approximations (see there). AVX2 has no vscalefps: 2^n is applied as two
 * exact powers of two built in the exponent field, so results that
 * underflow to subnormals or overflow to infinity come out as the AVX-512
 * path gives them. Included only by files compiled with -mavx2 -mfma. */
#ifndef AUTOGLM_AVX2_MATH_H
#define AUTOGLM_AVX2_MATH_H

#include "kernels_internal.h"

#include <immintrin.h>

#define AGL_ALWAYS_INLINE inline __attribute__((always_inline))

/* A lane mask with the first `count` lanes (clamped to 0..8) set, for
 * maskload / maskstore. */
static AGL_ALWAYS_INLINE __m256i agl_lanes8(int64_t count) {
  static const int32_t ones_then_zeros[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                              0,  0,  0,  0,  0,  0,  0,  0};
  count = count < 0 ? 0 : count > 8 ? 8 : count;
  return _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - count));
}

/* The sum and the maximum of v's 8 lanes. */
static AGL_ALWAYS_INLINE float agl_sum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static AGL_ALWAYS_INLINE float agl_max256(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/* 2^n for integral n in [-150, 128], as two normal powers of two. */
static AGL_ALWAYS_INLINE __m256 agl_scale_pow2_256(__m256 p, __m256 n) {
  __m256i ni = _mm256_cvtps_epi32(n);
  __m256i half = _mm256_srai_epi32(ni, 1);
  __m256i rest = _mm256_sub_epi32(ni, half);
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 s1 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  __m256 s2 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(rest, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

static AGL_ALWAYS_INLINE __m256 agl_exp256(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-104.0f));
  x = _mm256_min_ps(x, _mm256_set1_ps(88.8f));
  __m256 n =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187e-06f), r);
  __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  return agl_scale_pow2_256(p, n);
}

/* x / (1 + e^(-s)) for s = `scaled`. */
static AGL_ALWAYS_INLINE __m256 agl_x_sigmoid256(__m256 x, __m256 scaled) {
  __m256 e = agl_exp256(_mm256_sub_ps(_mm256_setzero_ps(), scaled));
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

static AGL_ALWAYS_INLINE __m256 agl_gelu_erf256(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 z = _mm256_mul_ps(_mm256_andnot_ps(sign, x),
                           _mm256_set1_ps(0.70710678118654752f));
  __m256 one = _mm256_set1_ps(1.0f);
  __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(z, _mm256_set1_ps(0.5f), one));
  __m256 p = _mm256_set1_ps(0.17087277f);
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.82215223f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.48851587f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.13520398f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.27886807f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.18628806f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.09678418f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.37409196f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.00002368f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.26551223f));
  /* The exponent p - x^2/2 as a sum hi + lo (see avx512_math.h). */
  __m256 half = _mm256_set1_ps(0.5f);
  __m256 x2 = _mm256_mul_ps(x, x);
  __m256 x2_lo = _mm256_fmsub_ps(x, x, x2);
  __m256 u = _mm256_mul_ps(x2, _mm256_set1_ps(-0.5f));
  __m256 hi = _mm256_add_ps(p, u);
  __m256 bb = _mm256_sub_ps(hi, p);
  __m256 lo = _mm256_add_ps(_mm256_sub_ps(p, _mm256_sub_ps(hi, bb)),
                            _mm256_sub_ps(u, bb));
  lo = _mm256_fnmadd_ps(x2_lo, half, lo);
  __m256 e = agl_exp256(hi);
  __m256 erfc = _mm256_mul_ps(t, _mm256_fmadd_ps(e, lo, e));
  /* x >= 0: x (1 - erfc/2); x < 0: x erfc/2. */
  __m256 h = _mm256_mul_ps(erfc, half);
  __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  __m256 factor = _mm256_blendv_ps(_mm256_sub_ps(one, h), h, negative);
  return _mm256_mul_ps(x, factor);
}

static AGL_ALWAYS_INLINE __m256 agl_gelu_tanh256(__m256 x) {
  __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
  __m256 u = _mm256_fmadd_ps(x3, _mm256_set1_ps(0.044715f), x);
  /* 2 sqrt(2/pi) u */
  return agl_x_sigmoid256(
      x, _mm256_mul_ps(u, _mm256_set1_ps(1.5957691216057308f)));
}

static AGL_ALWAYS_INLINE __m256 agl_activate256(__m256 x, int act) {
  switch (act) {
  case AGL_ACT_RELU:
    /* max_ps returns its second operand when one is NaN: NaN stays NaN. */
    return _mm256_max_ps(_mm256_setzero_ps(), x);
  case AGL_ACT_GELU_ERF:
    return agl_gelu_erf256(x);
  case AGL_ACT_GELU_TANH:
    return agl_gelu_tanh256(x);
  case AGL_ACT_SILU:
    return agl_x_sigmoid256(x, x);
  default:
    return x;
  }
}

/* x with the residual r after the activation: added, or as a gate
 * (agl_epilogue). */
static AGL_ALWAYS_INLINE __m256 agl_residual256(__m256 x, __m256 r, int gated,
                                                int gate_act) {
  return gated ? _mm256_mul_ps(x, agl_activate256(r, gate_act))
               : _mm256_add_ps(x, r);
}

/* The first `count` (0..3) floats at p; the rest of the lanes are zero. */
static AGL_ALWAYS_INLINE __m128 agl_load_lanes128(const float *p,
                                                  int64_t count) {
  const __m128 zero = _mm_setzero_ps();
  switch (count) {
  case 1:
    return _mm_load_ss(p);
  case 2:
    return _mm_loadl_pi(zero, (const __m64 *)p);
  case 3:
    return _mm_movelh_ps(_mm_loadl_pi(zero, (const __m64 *)p),
                         _mm_load_ss(p + 2));
  default:
    return zero;
  }
}

/* Loads the first `count` floats at p (all 8 when count is 8 or more); the
 * rest of the lanes are zero. As agl_store_lanes256, in pieces: in the
 * convolutions' epilogues a vmaskmovps load of lines just stored in pieces
 * was the hottest instruction (a masked load spanning several stores is
 * not forwarded from the store buffer). */
static AGL_ALWAYS_INLINE __m256 agl_load_lanes256(const float *p,
                                                  int64_t count) {
  if (count >= 8)
    return _mm256_loadu_ps(p);
  if (count >= 4)
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)),
                                agl_load_lanes128(p + 4, count - 4), 1);
  return _mm256_insertf128_ps(
      _mm256_castps128_ps256(agl_load_lanes128(p, count)), _mm_setzero_ps(), 1);
}

/* Stores the first `count` lanes of v at p. Not with vmaskmovps: its
 * stores are microcoded and slow on AMD's cores; pieces of 4, 2 and 1
 * lanes instead. */
static AGL_ALWAYS_INLINE void agl_store_lanes256(float *p, __m256 v,
                                                 int64_t count) {
  if (count >= 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  __m128 part = _mm256_castps256_ps128(v);
  if (count >= 4) {
    _mm_storeu_ps(p, part);
    part = _mm256_extractf128_ps(v, 1);
    p += 4;
    count -= 4;
  }
  if (count >= 2) {
    _mm_storel_pi((__m64 *)p, part);
    part = _mm_movehl_ps(part, part);
    p += 2;
    count -= 2;
  }
  if (count >= 1)
    _mm_store_ss(p, part);
}

/* Writes acc through the epilogue to `count` (at most 8) elements of C that
 * lie `stride` apart, the first at c, which is element (i, j) of the
 * epilogue's coordinates; element t is (i + t * di, j + t * dj), so the
 * same code stores a stretch of a row (di 0, dj 1) or of a column (di 1,
 * dj 0). */
static AGL_ALWAYS_INLINE void
agl_store_epilogue256(__m256 acc, float *c, int64_t stride, int64_t count,
                      const agl_epilogue *e, int64_t i, int64_t j, int di,
                      int dj) {
  if (count > 8)
    count = 8;
  const float *bias =
      e->bias ? e->bias + i * e->bias_rs + j * e->bias_cs : NULL;
  const float *res =
      e->residual ? e->residual + i * e->res_rs + j * e->res_cs : NULL;
  const int64_t bias_step = di * e->bias_rs + dj * e->bias_cs;
  const int64_t res_step = di * e->res_rs + dj * e->res_cs;
  __m256 old = _mm256_setzero_ps(), add = _mm256_setzero_ps(),
         r = _mm256_setzero_ps();
  if (stride == 1 && (!bias || bias_step <= 1) && (!res || res_step == 1)) {
    if (e->load_c)
      old = agl_load_lanes256(c, count);
    if (bias)
      add = bias_step ? agl_load_lanes256(bias, count) : _mm256_set1_ps(*bias);
    if (res)
      r = agl_load_lanes256(res, count);
  } else {
    float o[8] = {0}, b[8] = {0}, q[8] = {0};
    for (int64_t t = 0; t < count; ++t) {
      if (e->load_c)
        o[t] = c[t * stride];
      if (bias)
        b[t] = bias[t * bias_step];
      if (res)
        q[t] = res[t * res_step];
    }
    old = _mm256_loadu_ps(o);
    add = _mm256_loadu_ps(b);
    r = _mm256_loadu_ps(q);
  }
  __m256 x = acc;
  if (e->alpha != 1.0f)
    x = _mm256_mul_ps(x, _mm256_set1_ps(e->alpha));
  x = _mm256_add_ps(_mm256_add_ps(x, old), add);
  const int first = e->residual_first && !e->gated;
  if (res && first)
    x = _mm256_add_ps(x, r);
  if (e->act != AGL_ACT_NONE)
    x = agl_activate256(x, e->act);
  if (res && !first)
    x = agl_residual256(x, r, e->gated, e->gate_act);
  if (stride == 1) {
    agl_store_lanes256(c, x, count);
    return;
  }
  float out[8];
  _mm256_storeu_ps(out, x);
  for (int64_t t = 0; t < count; ++t)
    c[t * stride] = out[t];
}

#endif /* AUTOGLM_AVX2_MATH_H */
