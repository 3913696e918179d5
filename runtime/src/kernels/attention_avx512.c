/* Attention rows for AVX-512: a block of up to AGL_ATTENTION_BQ query rows
 * of one head against blocks of AGL_ATTENTION_BK keys, all in the pool
 * thread's scratch:
 *   kt   the key block transposed (head_dim x BK), so that one query row's
 *        64 scores are 4 vectors of fused multiply-adds over head_dim;
 *   s    the block's scores, then its probabilities (BQ x BK);
 *   acc  the rows' output accumulators (BQ x value_dim, rounded up to 16);
 *   m, l each row's running maximum and sum.
 * Scores, the online softmax and the product with V work on 4 rows at a
 * time, so every vector of K or V loaded serves 4 rows and 4 rows'
 * exponentials are in flight together. A block of fewer than 4 rows (a
 * decode step) takes its scores as dot products along the keys' rows,
 * without the transpose. Rows whose keys run out (causal) see -inf scores,
 * which become zero probabilities; a group of 4 rows computes scores and
 * products only for the keys its last row sees (a causal block's diagonal
 * half). Values whose rows are a multiple of 4 KiB apart (read in place
 * from a QKV product) are copied per block into the scratch, after l.
 * A decode step of agl_kernel_attention_with_past reads the past rows from
 * the past buffers (the blocks stop at past_len) and, as the head's only
 * task (rows_copy_past), stores every vector of them it loads into K and V
 * with non-temporal stores. This file is compiled with AVX-512 enabled. */
#include "kernels_internal.h"

#include "avx512_tiles.h"

#include <immintrin.h>
#include <math.h>

#define BQ AGL_ATTENTION_BQ
#define BK AGL_ATTENTION_BK
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* How many keys ahead a decode step's rows prefetch K and V: they stream
 * the whole cache once, from memory or L3 (16 heads x 512 x 64 on Zen 5,
 * one thread: 300-350 us with the cache evicted by the weights, 180-190
 * with the prefetch; just written by the step's concatenation 200-230 and
 * 105-110; 8 or 16 keys ahead in between). */
enum { DECODE_AHEAD = 32 };

static ALWAYS_INLINE __mmask16 lanes(int64_t count) {
  return count >= 16 ? (__mmask16)0xFFFF
         : count <= 0 ? (__mmask16)0
                      : (__mmask16)((1u << count) - 1u);
}

/* Whether rows of `cols` floats, `row_stride` apart from dst, are whole
 * 64-byte aligned vectors (for _mm512_stream_ps). */
static int streamable(const float *dst, int64_t row_stride, int64_t cols) {
  return (uintptr_t)dst % 64 == 0 && row_stride % 16 == 0 && cols % 16 == 0;
}

/* s[x][0..16 T) = scale * q_x . kt for R query rows (R is 1 or 4); the
 * other columns are left as they are. */
static ALWAYS_INLINE void scores_tile(const int R, const int T,
                                      const float *const *q, int64_t head_dim,
                                      const float *kt, float scale, float *s) {
  __m512 acc[4][4];
  for (int x = 0; x < R; ++x)
    for (int t = 0; t < T; ++t)
      acc[x][t] = _mm512_setzero_ps();
  for (int64_t d = 0; d < head_dim; ++d) {
    const float *row = kt + d * BK;
    __m512 k[4];
    for (int t = 0; t < T; ++t)
      k[t] = _mm512_load_ps(row + 16 * t);
    for (int x = 0; x < R; ++x) {
      __m512 qd = _mm512_set1_ps(q[x][d]);
      for (int t = 0; t < T; ++t)
        acc[x][t] = _mm512_fmadd_ps(qd, k[t], acc[x][t]);
    }
  }
  __m512 factor = _mm512_set1_ps(scale);
  for (int x = 0; x < R; ++x)
    for (int t = 0; t < T; ++t)
      _mm512_store_ps(s + x * BK + 16 * t, _mm512_mul_ps(acc[x][t], factor));
}

/* The scores of R rows against the block's first `keys` keys (1..BK),
 * whole vectors of 16: a causal row block's diagonal skips the keys its
 * rows cannot see. */
static ALWAYS_INLINE void scores_rows(const int R, int64_t keys,
                                      const float *const *q, int64_t head_dim,
                                      const float *kt, float scale, float *s) {
  switch ((keys + 15) / 16) {
  case 0:
    return;
  case 1:
    scores_tile(R, 1, q, head_dim, kt, scale, s);
    return;
  case 2:
    scores_tile(R, 2, q, head_dim, kt, scale, s);
    return;
  case 3:
    scores_tile(R, 3, q, head_dim, kt, scale, s);
    return;
  default:
    scores_tile(R, 4, q, head_dim, kt, scale, s);
    return;
  }
}

/* The key block transposed, kt[d][c] = K[c][d] (zero past n), by 16 x 16
 * tiles in registers. */
static void transpose_keys(const float *keys, int64_t row_stride, int64_t n,
                           int64_t head_dim, float *kt) {
  for (int64_t d0 = 0; d0 < head_dim; d0 += 16) {
    const __mmask16 md = lanes(head_dim - d0);
    const int64_t dn = head_dim - d0 < 16 ? head_dim - d0 : 16;
    for (int64_t c0 = 0; c0 < BK; c0 += 16) {
      __m512 r[16];
      for (int c = 0; c < 16; ++c)
        r[c] =
            c0 + c < n
                ? _mm512_maskz_loadu_ps(md, keys + (c0 + c) * row_stride + d0)
                : _mm512_setzero_ps();
      agl_transpose16(r);
      for (int64_t d = 0; d < dn; ++d)
        _mm512_store_ps(kt + (d0 + d) * BK + c0, r[d]);
    }
  }
}

/* One query row's scores straight from the keys' rows (dot products along
 * head_dim), for blocks of fewer than 4 rows: transposing the keys would
 * cost more than it saves. Columns n..BK are left as they are. */
static void scores_direct(const float *q, const float *keys,
                          int64_t row_stride, int64_t n, int64_t head_dim,
                          float scale, float *s, float *copy,
                          int64_t copy_rs) {
  for (int64_t c = 0; c < n; ++c) {
    const float *key = keys + c * row_stride;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t d = 0; d < head_dim; d += 16) {
      _mm_prefetch((const char *)(key + DECODE_AHEAD * row_stride + d),
                   _MM_HINT_T0);
      __mmask16 mk = lanes(head_dim - d);
      __m512 k = _mm512_maskz_loadu_ps(mk, key + d);
      if (copy) /* whole vectors to aligned rows (streamable) */
        _mm512_stream_ps(copy + c * copy_rs + d, k);
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk, q + d), k, acc);
    }
    s[c] = scale * _mm512_reduce_add_ps(acc);
  }
}

/* acc[x] += sum_c p[x][c] V[c] for R rows (R is 1 or 4), over value
 * columns in chunks of 64. */
static ALWAYS_INLINE void accumulate_rows(const int R, const float *p,
                                          const float *values,
                                          int64_t row_stride, int64_t n,
                                          int64_t value_dim,
                                          int64_t acc_stride, float *acc,
                                          float *copy, int64_t copy_rs) {
  for (int64_t d0 = 0; d0 < value_dim; d0 += 64) {
    __mmask16 mk[4];
    for (int t = 0; t < 4; ++t)
      mk[t] = lanes(value_dim - d0 - 16 * t);
    __m512 sum[4][4];
    for (int x = 0; x < R; ++x)
      for (int t = 0; t < 4; ++t)
        sum[x][t] = _mm512_load_ps(acc + x * acc_stride + d0 + 16 * t);
    for (int64_t c = 0; c < n; ++c) {
      const float *value = values + c * row_stride + d0;
      if (R == 1)
        for (int t = 0; t < 4; ++t)
          _mm_prefetch(
              (const char *)(value + DECODE_AHEAD * row_stride + 16 * t),
              _MM_HINT_T0);
      __m512 v[4];
      for (int t = 0; t < 4; ++t)
        v[t] = _mm512_maskz_loadu_ps(mk[t], value + 16 * t);
      if (R == 1 && copy) /* one row: whole vectors, aligned rows */
        for (int t = 0; t < 4 && d0 + 16 * t < value_dim; ++t)
          _mm512_stream_ps(copy + c * copy_rs + d0 + 16 * t, v[t]);
      for (int x = 0; x < R; ++x) {
        __m512 px = _mm512_set1_ps(p[x * BK + c]);
        for (int t = 0; t < 4; ++t)
          sum[x][t] = _mm512_fmadd_ps(px, v[t], sum[x][t]);
      }
    }
    for (int x = 0; x < R; ++x)
      for (int t = 0; t < 4; ++t)
        _mm512_store_ps(acc + x * acc_stride + d0 + 16 * t, sum[x][t]);
  }
}

/* The online-softmax step of R rows (1 or 4, s + x BK for row x = query
 * i + x) over a block of n keys from key j0: scores past the block or past
 * a row's causal limit count as -inf; each row's running maximum m and sum
 * l are updated, its output accumulators rescaled by e^(m_old - m_new),
 * and its scores replaced by e^(score - m_new) (zero where -inf). The R
 * rows go through each step together, so that their exponentials (a chain
 * of some 15 dependent operations per vector) are in flight at once rather
 * than one row's after another's. */
static ALWAYS_INLINE void softmax_rows(const int R,
                                       const agl_attention_args *a, int64_t i,
                                       int64_t j0, int64_t n, float *s,
                                       float *m, float *l, float *acc,
                                       int64_t acc_stride) {
  const __m512 lowest = _mm512_set1_ps(-INFINITY);
  float new_max[4];
  __mmask16 seen[4][4];
  for (int x = 0; x < R; ++x) {
    const int64_t limit = agl_attention_seen(a, i + x, j0, n);
    __m512 block_max = lowest;
    for (int t = 0; t < 4; ++t) {
      seen[x][t] = lanes(limit - 16 * t);
      block_max = _mm512_mask_max_ps(block_max, seen[x][t], block_max,
                                     _mm512_load_ps(s + x * BK + 16 * t));
    }
    const float top = _mm512_reduce_max_ps(block_max);
    new_max[x] = m[x] > top ? m[x] : top;
  }
  float alpha[4];
  for (int x = 0; x < R; ++x) {
    /* e^(m_old - m_new); 1 while the row has seen no key (both -inf). */
    alpha[x] = new_max[x] == -INFINITY ? 1.0f : expf(m[x] - new_max[x]);
    if (alpha[x] != 1.0f) {
      __m512 scale = _mm512_set1_ps(alpha[x]);
      float *o = acc + x * acc_stride;
      for (int64_t d = 0; d < acc_stride; d += 16)
        _mm512_store_ps(o + d, _mm512_mul_ps(_mm512_load_ps(o + d), scale));
    }
  }
  /* Two rows' four vectors at a time: AGL_CHAINS exponentials in flight. */
  for (int x0 = 0; x0 < R; x0 += 2) {
    const int pair = R - x0 < 2 ? R - x0 : 2;
    __m512 p[8];
    __mmask16 live[8];
    for (int y = 0; y < pair; ++y)
      for (int t = 0; t < 4; ++t) {
        const __m512 score = _mm512_load_ps(s + (x0 + y) * BK + 16 * t);
        /* Zero past the row's limit and for -inf scores. */
        live[4 * y + t] = _mm512_mask_cmp_ps_mask(seen[x0 + y][t], score,
                                                  lowest, _CMP_NEQ_OQ);
        p[4 * y + t] =
            _mm512_sub_ps(score, _mm512_set1_ps(new_max[x0 + y]));
      }
    agl_exp512_n(p, 4 * pair);
    for (int y = 0; y < pair; ++y) {
      const int x = x0 + y;
      __m512 total = _mm512_setzero_ps();
      for (int t = 0; t < 4; ++t) {
        const __m512 e = _mm512_maskz_mov_ps(live[4 * y + t], p[4 * y + t]);
        total = _mm512_add_ps(total, e);
        _mm512_store_ps(s + x * BK + 16 * t, e);
      }
      l[x] = l[x] * alpha[x] + _mm512_reduce_add_ps(total);
      m[x] = new_max[x];
    }
  }
}

void agl_attention_rows_avx512(const agl_attention_args *a, int64_t b,
                               int64_t h, int64_t i0, int64_t i1,
                               float *scratch) {
  const int64_t rows = i1 - i0, kv_head = h / a->group;
  const int64_t acc_stride = (a->value_dim + 63) / 64 * 64;
  float *kt = scratch;
  float *s = kt + (a->head_dim > 0 ? a->head_dim : 1) * BK;
  float *acc = s + BQ * BK;
  float *m = acc + BQ * acc_stride;
  float *l = m + BQ;
  /* The block's values copied, where rows a multiple of 4 KiB apart would
   * all fall into the same L1 sets (V read in place from a QKV product:
   * 3 x 1024 floats a row) and there are rows enough to reuse the copy. */
  const int64_t vb_rs = (a->value_dim + 15) / 16 * 16;
  float *vb = rows >= 4 && a->value_dim <= AGL_ATTENTION_PACKED_VALUE_DIM
                  ? l + BQ
                  : NULL;
  const float *q[BQ];
  for (int64_t r = 0; r < rows; ++r) {
    q[r] = a->q + b * a->q_bs + h * a->q_hs + (i0 + r) * a->q_rs;
    m[r] = -INFINITY;
    l[r] = 0.0f;
    for (int64_t d = 0; d < acc_stride; d += 16)
      _mm512_store_ps(acc + r * acc_stride + d, _mm512_setzero_ps());
  }
  /* Keys past the last row's causal limit are never visible. */
  const int64_t visible = agl_attention_seen(a, i1 - 1, 0, a->kv_len);
  /* rows_copy_past, one query: its row reads every key and value (its
   * causal limit is the last one), so it stores the past rows into K and V
   * as it loads them, in whole vectors to 64-byte aligned rows; where
   * they are not, the head is copied first. */
  float *copy_k = NULL, *copy_v = NULL;
  if (a->rows_copy_past) {
    float *k_dst = a->k_out + b * a->k_bs + kv_head * a->k_hs;
    float *v_dst = a->v_out + b * a->v_bs + kv_head * a->v_hs;
    if (streamable(k_dst, a->k_rs, a->head_dim) &&
        streamable(v_dst, a->v_rs, a->value_dim)) {
      copy_k = k_dst;
      copy_v = v_dst;
    } else {
      agl_attention_copy_past_head(a, b, kv_head);
    }
  }

  for (int64_t j0 = 0, n; j0 < visible; j0 += n) {
    const agl_attention_block block =
        agl_attention_block_at(a, b, kv_head, j0, visible);
    n = block.n;
    const float *block_keys = block.keys;
    if (rows < 4) {
      for (int64_t r = 0; r < rows; ++r)
        scores_direct(q[r], block_keys, block.k_rs, n, a->head_dim, a->scale,
                      s + r * BK,
                      copy_k && j0 < a->past_len ? copy_k + j0 * a->k_rs : NULL,
                      a->k_rs);
    } else {
      transpose_keys(block_keys, block.k_rs, n, a->head_dim, kt);
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
          for (int t = 0; t < 4; ++t) {
            __mmask16 mk = lanes(n - 16 * t);
            __m512 x = _mm512_load_ps(row + 16 * t);
            _mm512_store_ps(row + 16 * t,
                            _mm512_add_ps(x, _mm512_maskz_loadu_ps(
                                                 mk, mask + 16 * t)));
          }
        } else {
          for (int64_t c = 0; c < n; ++c)
            row[c] += mask[c * a->m_cs];
        }
      }
    /* The online softmax, four rows at a time. */
    {
      int64_t r = 0;
      for (; r + 4 <= rows; r += 4)
        softmax_rows(4, a, i0 + r, j0, n, s + r * BK, m + r, l + r,
                     acc + r * acc_stride, acc_stride);
      for (; r < rows; ++r)
        softmax_rows(1, a, i0 + r, j0, n, s + r * BK, m + r, l + r,
                     acc + r * acc_stride, acc_stride);
    }
    const float *block_values = block.values;
    int64_t v_rs = block.v_rs;
    if (vb && v_rs * sizeof(float) % 4096 == 0) {
      for (int64_t c = 0; c < n; ++c)
        for (int64_t d = 0; d < a->value_dim; d += 16)
          _mm512_store_ps(
              vb + c * vb_rs + d,
              _mm512_maskz_loadu_ps(lanes(a->value_dim - d),
                                    block_values + c * v_rs + d));
      block_values = vb;
      v_rs = vb_rs;
    }
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
      accumulate_rows(4, s + r * BK, block_values, v_rs,
                      agl_attention_seen(a, i0 + r + 3, j0, n), a->value_dim,
                      acc_stride, acc + r * acc_stride, NULL, 0);
    for (; r < rows; ++r)
      accumulate_rows(1, s + r * BK, block_values, v_rs,
                      agl_attention_seen(a, i0 + r, j0, n), a->value_dim,
                      acc_stride, acc + r * acc_stride,
                      copy_v && j0 < a->past_len ? copy_v + j0 * a->v_rs
                                                 : NULL,
                      a->v_rs);
  }
  for (int64_t r = 0; r < rows; ++r) {
    float *o = a->out + b * a->o_bs + h * a->o_hs + (i0 + r) * a->o_rs;
    const float *sum = acc + r * acc_stride;
    __m512 inverse = _mm512_set1_ps(l[r] > 0.0f ? 1.0f / l[r] : 0.0f);
    for (int64_t d = 0; d < a->value_dim; d += 16)
      _mm512_mask_storeu_ps(o + d, lanes(a->value_dim - d),
                            _mm512_mul_ps(_mm512_load_ps(sum + d), inverse));
  }
}
