/* Attention rows for AVX2 + FMA: the algorithm of attention_avx512.c (see
 * there) with 8-float vectors and its scratch layout:
 *   kt   the key block transposed (head_dim x BK);
 *   s    the block's scores, then its probabilities (BQ x BK);
 *   acc  the rows' output accumulators (BQ x value_dim, rounded up to 64);
 *   m, l each row's running maximum and sum.
 * With 16 registers, scores take 16 keys x 4 rows per pass (8
 * accumulators) and the product with V 16 value columns x 4 rows, so every
 * vector of K or V loaded still serves 4 rows; the online softmax takes 2
 * rows at a time (their 16 vectors fill the registers).
 * This file is compiled with -mavx2 -mfma. */
#include "kernels_internal.h"

#include "avx2_math.h"

#include <immintrin.h>
#include <math.h>

#define BQ AGL_ATTENTION_BQ
#define BK AGL_ATTENTION_BK
enum { KEY_VECTORS = BK / 8 };
/* How many keys ahead a decode step's rows prefetch K and V (see
 * attention_avx512.c). */
enum { DECODE_AHEAD = 32 };

/* s[x][0..keys) = scale * q_x . kt for R query rows (R is 1 or 4), 16 keys
 * at a time (a causal block's diagonal skips the keys its rows cannot see);
 * the other columns are left as they are. */
static AGL_ALWAYS_INLINE void scores_rows(const int R, int64_t keys,
                                          const float *const *q,
                                          int64_t head_dim, const float *kt,
                                          float scale, float *s) {
  const __m256 factor = _mm256_set1_ps(scale);
  for (int c0 = 0; c0 < keys; c0 += 16) {
    __m256 acc[4][2];
    for (int x = 0; x < R; ++x)
      acc[x][0] = acc[x][1] = _mm256_setzero_ps();
    for (int64_t d = 0; d < head_dim; ++d) {
      const float *row = kt + d * BK + c0;
      __m256 k0 = _mm256_load_ps(row), k1 = _mm256_load_ps(row + 8);
      for (int x = 0; x < R; ++x) {
        __m256 qd = _mm256_broadcast_ss(q[x] + d);
        acc[x][0] = _mm256_fmadd_ps(qd, k0, acc[x][0]);
        acc[x][1] = _mm256_fmadd_ps(qd, k1, acc[x][1]);
      }
    }
    for (int x = 0; x < R; ++x) {
      _mm256_store_ps(s + x * BK + c0, _mm256_mul_ps(acc[x][0], factor));
      _mm256_store_ps(s + x * BK + c0 + 8, _mm256_mul_ps(acc[x][1], factor));
    }
  }
}

/* One query row's scores straight from the keys' rows, for blocks of fewer
 * than 4 rows (see attention_avx512.c). */
static void scores_direct(const float *q, const float *keys, int64_t row_stride,
                          int64_t n, int64_t head_dim, float scale, float *s) {
  for (int64_t c = 0; c < n; ++c) {
    const float *key = keys + c * row_stride;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t d = 0; d < head_dim; d += 16)
      _mm_prefetch((const char *)(key + DECODE_AHEAD * row_stride + d),
                   _MM_HINT_T0);
    for (int64_t d = 0; d < head_dim; d += 8)
      acc = _mm256_fmadd_ps(agl_load_lanes256(q + d, head_dim - d),
                            agl_load_lanes256(key + d, head_dim - d), acc);
    s[c] = scale * agl_sum256(acc);
  }
}

/* acc[x] += sum_c p[x][c] V[c] for R rows (R is 1 or 4), over value
 * columns in chunks of 16. */
static AGL_ALWAYS_INLINE void accumulate_rows(const int R, const float *p,
                                              const float *values,
                                              int64_t row_stride, int64_t n,
                                              int64_t value_dim,
                                              int64_t acc_stride, float *acc) {
  for (int64_t d0 = 0; d0 < value_dim; d0 += 16) {
    const int64_t live0 = value_dim - d0, live1 = value_dim - d0 - 8;
    __m256 sum[4][2];
    for (int x = 0; x < R; ++x) {
      sum[x][0] = _mm256_load_ps(acc + x * acc_stride + d0);
      sum[x][1] = _mm256_load_ps(acc + x * acc_stride + d0 + 8);
    }
    for (int64_t c = 0; c < n; ++c) {
      const float *value = values + c * row_stride + d0;
      if (R == 1)
        _mm_prefetch((const char *)(value + DECODE_AHEAD * row_stride),
                     _MM_HINT_T0);
      __m256 v0 = agl_load_lanes256(value, live0);
      __m256 v1 = agl_load_lanes256(value + 8, live1);
      for (int x = 0; x < R; ++x) {
        __m256 px = _mm256_broadcast_ss(p + x * BK + c);
        sum[x][0] = _mm256_fmadd_ps(px, v0, sum[x][0]);
        sum[x][1] = _mm256_fmadd_ps(px, v1, sum[x][1]);
      }
    }
    for (int x = 0; x < R; ++x) {
      _mm256_store_ps(acc + x * acc_stride + d0, sum[x][0]);
      _mm256_store_ps(acc + x * acc_stride + d0 + 8, sum[x][1]);
    }
  }
}

/* The online-softmax step of R rows (1 or 2; see attention_avx512.c's,
 * which takes four): scores past the block or a row's causal limit count
 * as -inf, vectors wholly past the limit are neither exponentiated nor
 * read again, and the R rows' exponentials are in flight together. */
static AGL_ALWAYS_INLINE void softmax_rows(const int R,
                                           const agl_attention_args *a,
                                           int64_t i, int64_t j0, int64_t n,
                                           float *s, float *m, float *l,
                                           float *acc, int64_t acc_stride) {
  const __m256 minus_inf = _mm256_set1_ps(-INFINITY);
  float new_max[2], alpha[2];
  int64_t limit[2];
  int live[2];
  for (int x = 0; x < R; ++x) {
    limit[x] = agl_attention_seen(a, i + x, j0, n);
    live[x] = (int)((limit[x] + 7) / 8);
    __m256 block_max = minus_inf;
    for (int t = 0; t < live[x]; ++t)
      block_max = _mm256_max_ps(
          block_max,
          _mm256_blendv_ps(minus_inf, _mm256_load_ps(s + x * BK + 8 * t),
                           _mm256_castsi256_ps(agl_lanes8(limit[x] - 8 * t))));
    const float top = agl_max256(block_max);
    new_max[x] = m[x] > top ? m[x] : top;
    /* e^(m_old - m_new); 1 while the row has seen no key (both -inf). */
    alpha[x] = new_max[x] == -INFINITY ? 1.0f : expf(m[x] - new_max[x]);
    if (alpha[x] != 1.0f) {
      __m256 scale = _mm256_set1_ps(alpha[x]);
      float *o = acc + x * acc_stride;
      for (int64_t d = 0; d < acc_stride; d += 8)
        _mm256_store_ps(o + d, _mm256_mul_ps(_mm256_load_ps(o + d), scale));
    }
  }
  __m256 total[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  for (int t = 0; t < KEY_VECTORS; ++t)
    for (int x = 0; x < R; ++x) {
      float *at = s + x * BK + 8 * t;
      if (t >= live[x]) {
        _mm256_store_ps(at, _mm256_setzero_ps());
        continue;
      }
      const __m256 score = _mm256_load_ps(at);
      /* Zero past the row's limit and for -inf scores. */
      const __m256 keep = _mm256_and_ps(
          _mm256_cmp_ps(score, minus_inf, _CMP_NEQ_OQ),
          _mm256_castsi256_ps(agl_lanes8(limit[x] - 8 * t)));
      const __m256 p = _mm256_and_ps(
          keep,
          agl_exp256(_mm256_sub_ps(score, _mm256_set1_ps(new_max[x]))));
      total[x] = _mm256_add_ps(total[x], p);
      _mm256_store_ps(at, p);
    }
  for (int x = 0; x < R; ++x) {
    l[x] = l[x] * alpha[x] + agl_sum256(total[x]);
    m[x] = new_max[x];
  }
}

void agl_attention_rows_avx2(const agl_attention_args *a, int64_t b, int64_t h,
                             int64_t i0, int64_t i1, float *scratch) {
  const int64_t rows = i1 - i0, kv_head = h / a->group;
  const int64_t acc_stride = (a->value_dim + 63) / 64 * 64;
  float *kt = scratch;
  float *s = kt + (a->head_dim > 0 ? a->head_dim : 1) * BK;
  float *acc = s + BQ * BK;
  float *m = acc + BQ * acc_stride;
  float *l = m + BQ;
  const float *q[BQ];
  for (int64_t r = 0; r < rows; ++r) {
    q[r] = a->q + b * a->q_bs + h * a->q_hs + (i0 + r) * a->q_rs;
    m[r] = -INFINITY;
    l[r] = 0.0f;
    for (int64_t d = 0; d < acc_stride; d += 8)
      _mm256_store_ps(acc + r * acc_stride + d, _mm256_setzero_ps());
  }
  /* Keys past the last row's causal limit are never visible. */
  const int64_t visible = agl_attention_seen(a, i1 - 1, 0, a->kv_len);

  for (int64_t j0 = 0, n; j0 < visible; j0 += n) {
    const agl_attention_block block =
        agl_attention_block_at(a, b, kv_head, j0, visible);
    n = block.n;
    const float *block_keys = block.keys;
    if (rows < 4) {
      for (int64_t r = 0; r < rows; ++r)
        scores_direct(q[r], block_keys, block.k_rs, n, a->head_dim, a->scale,
                      s + r * BK);
    } else {
      agl_attention_transpose_keys(block_keys, block.k_rs, n, a->head_dim, kt);
      int64_t r = 0;
      for (; r + 4 <= rows; r += 4)
        scores_rows(4, agl_attention_seen(a, i0 + r + 3, j0, n), q + r,
                    a->head_dim, kt, a->scale, s + r * BK);
      for (; r < rows; ++r)
        scores_rows(1, agl_attention_seen(a, i0 + r, j0, n), q + r, a->head_dim,
                    kt, a->scale, s + r * BK);
    }
    if (a->mask)
      for (int64_t r = 0; r < rows; ++r) {
        float *row = s + r * BK;
        const float *mask = a->mask + b * a->m_bs + h * a->m_hs +
                            (i0 + r) * a->m_rs + j0 * a->m_cs;
        if (a->m_cs == 1) {
          for (int t = 0; t < KEY_VECTORS; ++t)
            _mm256_store_ps(
                row + 8 * t,
                _mm256_add_ps(_mm256_load_ps(row + 8 * t),
                              agl_load_lanes256(mask + 8 * t, n - 8 * t)));
        } else {
          for (int64_t c = 0; c < n; ++c)
            row[c] += mask[c * a->m_cs];
        }
      }
    {
      int64_t r = 0;
      for (; r + 2 <= rows; r += 2)
        softmax_rows(2, a, i0 + r, j0, n, s + r * BK, m + r, l + r,
                     acc + r * acc_stride, acc_stride);
      for (; r < rows; ++r)
        softmax_rows(1, a, i0 + r, j0, n, s + r * BK, m + r, l + r,
                     acc + r * acc_stride, acc_stride);
    }
    const float *block_values = block.values;
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      accumulate_rows(4, s + r * BK, block_values, block.v_rs,
                      agl_attention_seen(a, i0 + r + 3, j0, n), a->value_dim,
                      acc_stride, acc + r * acc_stride);
    for (; r < rows; ++r)
      accumulate_rows(1, s + r * BK, block_values, block.v_rs,
                      agl_attention_seen(a, i0 + r, j0, n), a->value_dim,
                      acc_stride, acc + r * acc_stride);
  }
  for (int64_t r = 0; r < rows; ++r) {
    float *o = a->out + b * a->o_bs + h * a->o_hs + (i0 + r) * a->o_rs;
    const float *sum = acc + r * acc_stride;
    __m256 inverse = _mm256_set1_ps(l[r] > 0.0f ? 1.0f / l[r] : 0.0f);
    for (int64_t d = 0; d < a->value_dim; d += 8)
      agl_store_lanes256(o + d, _mm256_mul_ps(_mm256_load_ps(sum + d), inverse),
                         a->value_dim - d);
  }
}
