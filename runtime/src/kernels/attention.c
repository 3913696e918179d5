/* agl_kernel_attention: argument handling and the split over the pool. One
 * task is a block of AGL_ATTENTION_BQ query rows of one (batch, head); the
 * per-ISA row functions stream over the keys (attention_portable.c,
 * attention_avx512.c, attention_avx2.c). The vector rows run when the GEMM
 * uses the same instruction set (the same CPU check and the same switch for
 * tests, agl_gemm_select). */
#include "kernels_internal.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void agl_attention_transpose_keys(const float *keys, int64_t row_stride,
                                  int64_t n, int64_t head_dim, float *kt) {
  const int64_t bk = AGL_ATTENTION_BK;
  for (int64_t c = 0; c < n; ++c) {
    const float *key = keys + c * row_stride;
    for (int64_t d = 0; d < head_dim; ++d)
      kt[d * bk + c] = key[d];
  }
  if (n < bk)
    for (int64_t d = 0; d < head_dim; ++d)
      for (int64_t c = n; c < bk; ++c)
        kt[d * bk + c] = 0.0f;
}

_Static_assert((size_t)AGL_ATTENTION_MAX_HEAD_DIM * AGL_ATTENTION_BK +
                       (size_t)AGL_ATTENTION_BQ *
                           (AGL_ATTENTION_BK + AGL_ATTENTION_MAX_HEAD_DIM + 2) <=
                   AGL_SCRATCH_FLOATS,
               "attention blocks must fit a pool thread's scratch");
/* With a value block copied (after the running sums, BK rows). */
_Static_assert((size_t)AGL_ATTENTION_MAX_HEAD_DIM * AGL_ATTENTION_BK +
                       (size_t)AGL_ATTENTION_BQ *
                           (AGL_ATTENTION_BK + AGL_ATTENTION_PACKED_VALUE_DIM +
                            2) +
                       (size_t)AGL_ATTENTION_BK *
                           AGL_ATTENTION_PACKED_VALUE_DIM <=
                   AGL_SCRATCH_FLOATS,
               "copied value blocks must fit a pool thread's scratch");

typedef void (*rows_fn)(const agl_attention_args *a, int64_t b, int64_t h,
                        int64_t i0, int64_t i1, float *scratch);

/* The rows that can store the past as they read it (rows_copy_past). */
#if defined(AGL_HAVE_AVX512_KERNELS)
static const rows_fn copying_rows = agl_attention_rows_avx512;
#else
static const rows_fn copying_rows = NULL;
#endif

typedef struct task_grid {
  const agl_attention_args *args;
  rows_fn rows;
  int64_t query_blocks;
  /* agl_kernel_attention_with_past: each K/V head's past rows are
   * written into K and V by the first task that reads the head: by its
   * rows as they read them (rows_copy_past), or before they run. */
  int copy_past;
} task_grid;

/* dst[i] = src[i] for n floats, stored around the caches where the
 * instruction set allows: the attention reads the past rows from src, and
 * whoever reads dst (the next decode step) does so after the caches have
 * long moved on, so that a store through them would only cost a read of
 * the line it fills and evict what the attention is about to read. */
static void stream_floats(float *dst, const float *src, int64_t n) {
#if defined(__SSE2__)
  int64_t i = 0;
  for (; i < n && ((uintptr_t)(dst + i) & 15) != 0; ++i)
    dst[i] = src[i];
  for (; i + 4 <= n; i += 4)
    _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
  for (; i < n; ++i)
    dst[i] = src[i];
#else
  memcpy(dst, src, (size_t)n * sizeof(float));
#endif
}

static void copy_rows(float *dst, int64_t dst_rs, const float *src,
                      int64_t src_rs, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0)
    return;
  if (dst_rs == cols && src_rs == cols) {
    stream_floats(dst, src, rows * cols);
    return;
  }
  for (int64_t r = 0; r < rows; ++r)
    stream_floats(dst + r * dst_rs, src + r * src_rs, cols);
}

void agl_attention_copy_past_head(const agl_attention_args *a, int64_t b,
                                  int64_t kv_head) {
  copy_rows(a->k_out + b * a->k_bs + kv_head * a->k_hs, a->k_rs,
            a->pk + b * a->pk_bs + kv_head * a->pk_hs, a->pk_rs, a->past_len,
            a->head_dim);
  copy_rows(a->v_out + b * a->v_bs + kv_head * a->v_hs, a->v_rs,
            a->pv + b * a->pv_bs + kv_head * a->pv_hs, a->pv_rs, a->past_len,
            a->value_dim);
}

static void run_tasks(void *ctx, int64_t begin, int64_t end) {
  const task_grid *grid = ctx;
  const agl_attention_args *a = grid->args;
  float *scratch = agl_pool_scratch();
  /* Without the pool's scratch only the portable rows can run. */
  rows_fn rows = scratch ? grid->rows : agl_attention_rows_portable;
  for (int64_t t = begin; t < end; ++t) {
    int64_t block = t % grid->query_blocks, bh = t / grid->query_blocks;
    int64_t i0 = block * AGL_ATTENTION_BQ;
    int64_t i1 = i0 + AGL_ATTENTION_BQ < a->q_len ? i0 + AGL_ATTENTION_BQ
                                                  : a->q_len;
    const int64_t b = bh / a->heads, h = bh % a->heads;
    if (grid->copy_past && block == 0 && h % a->group == 0) {
      if (rows == copying_rows && a->q_len == 1 && a->group == 1) {
        /* This task alone reads the head, and its one row every key. */
        agl_attention_args copying = *a;
        copying.rows_copy_past = 1;
        rows(&copying, b, h, i0, i1, scratch);
        continue;
      }
      agl_attention_copy_past_head(a, b, h / a->group);
    }
    rows(a, b, h, i0, i1, scratch);
  }
#if defined(__SSE2__)
  if (grid->copy_past)
    _mm_sfence(); /* the streamed stores done before the pool's barrier */
#endif
}

static void run_attention(const agl_attention_args *a) {
  task_grid grid = {.args = a, .rows = agl_attention_rows_portable,
                    .query_blocks = (a->q_len + AGL_ATTENTION_BQ - 1) /
                                    AGL_ATTENTION_BQ};
  const int fits = a->head_dim <= AGL_ATTENTION_MAX_HEAD_DIM &&
                   a->value_dim <= AGL_ATTENTION_MAX_HEAD_DIM;
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (agl_gemm_current() == &agl_gemm_avx512 && fits)
    grid.rows = agl_attention_rows_avx512;
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
  if (agl_gemm_current() == &agl_gemm_avx2 && fits)
    grid.rows = agl_attention_rows_avx2;
#endif
  grid.copy_past = a->past_len > 0;
  int64_t tasks = a->batch * a->heads * grid.query_blocks;
  int threads = agl_pool_acquire();
  if (threads <= 0) {
    /* Nested in a parallel region (serially, on this thread's scratch), or
     * no pool could be made (the portable rows, which need no scratch). */
    run_tasks(&grid, 0, tasks);
    return;
  }
  agl_pool_run(tasks, tasks, run_tasks, &grid);
  agl_pool_release();
}

/* The plain call is the one with no past: K and V are then only read. */
void agl_kernel_attention(int64_t batch, int64_t heads, int64_t kv_heads,
                          int64_t q_len, int64_t kv_len, int64_t head_dim,
                          int64_t value_dim, const float *q,
                          int64_t q_batch_stride, int64_t q_head_stride,
                          int64_t q_row_stride, const float *k,
                          int64_t k_batch_stride, int64_t k_head_stride,
                          int64_t k_row_stride, const float *v,
                          int64_t v_batch_stride, int64_t v_head_stride,
                          int64_t v_row_stride, const float *mask,
                          int64_t mask_batch_stride, int64_t mask_head_stride,
                          int64_t mask_row_stride, int64_t mask_col_stride,
                          float *out, int64_t out_batch_stride,
                          int64_t out_head_stride, int64_t out_row_stride,
                          float scale, int32_t causal) {
  agl_kernel_attention_with_past(
      batch, heads, kv_heads, q_len, kv_len, head_dim, value_dim, q,
      q_batch_stride, q_head_stride, q_row_stride, (float *)k, k_batch_stride,
      k_head_stride, k_row_stride, (float *)v, v_batch_stride, v_head_stride,
      v_row_stride, mask, mask_batch_stride, mask_head_stride,
      mask_row_stride, mask_col_stride, out, out_batch_stride,
      out_head_stride, out_row_stride, scale, causal, 0, NULL, 0, 0, 0, NULL,
      0, 0, 0);
}

void agl_kernel_attention_with_past(
    int64_t batch, int64_t heads, int64_t kv_heads, int64_t q_len,
    int64_t kv_len, int64_t head_dim, int64_t value_dim, const float *q,
    int64_t q_batch_stride, int64_t q_head_stride, int64_t q_row_stride,
    float *k, int64_t k_batch_stride, int64_t k_head_stride,
    int64_t k_row_stride, float *v, int64_t v_batch_stride,
    int64_t v_head_stride, int64_t v_row_stride, const float *mask,
    int64_t mask_batch_stride, int64_t mask_head_stride,
    int64_t mask_row_stride, int64_t mask_col_stride, float *out,
    int64_t out_batch_stride, int64_t out_head_stride, int64_t out_row_stride,
    float scale, int32_t causal, int64_t past_len, const float *past_k,
    int64_t past_k_batch_stride, int64_t past_k_head_stride,
    int64_t past_k_row_stride, const float *past_v,
    int64_t past_v_batch_stride, int64_t past_v_head_stride,
    int64_t past_v_row_stride) {
  if (batch <= 0 || heads <= 0)
    return;
  kv_len = kv_len > 0 ? kv_len : 0;
  agl_attention_args a = {
      .batch = batch, .heads = heads,
      .group = kv_heads > 0 && heads % kv_heads == 0 ? heads / kv_heads : 1,
      .q_len = q_len, .kv_len = kv_len,
      .head_dim = head_dim > 0 ? head_dim : 0, .value_dim = value_dim,
      .q = q, .q_bs = q_batch_stride, .q_hs = q_head_stride,
      .q_rs = q_row_stride,
      .k = k, .k_bs = k_batch_stride, .k_hs = k_head_stride,
      .k_rs = k_row_stride,
      .v = v, .v_bs = v_batch_stride, .v_hs = v_head_stride,
      .v_rs = v_row_stride,
      .mask = mask, .m_bs = mask_batch_stride, .m_hs = mask_head_stride,
      .m_rs = mask_row_stride, .m_cs = mask_col_stride,
      .out = out, .o_bs = out_batch_stride, .o_hs = out_head_stride,
      .o_rs = out_row_stride,
      .scale = scale, .causal = causal != 0,
      .past_len = past_len > kv_len ? kv_len : past_len > 0 ? past_len : 0,
      .pk = past_k, .pk_bs = past_k_batch_stride,
      .pk_hs = past_k_head_stride, .pk_rs = past_k_row_stride,
      .pv = past_v, .pv_bs = past_v_batch_stride,
      .pv_hs = past_v_head_stride, .pv_rs = past_v_row_stride,
      .k_out = k, .v_out = v};
  if (q_len > 0 && value_dim > 0) {
    run_attention(&a);
    return;
  }
  if (a.past_len == 0)
    return;
  /* No query to compute: the cache is still extended. */
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t kv_head = 0; kv_head < heads / a.group; ++kv_head)
      agl_attention_copy_past_head(&a, b, kv_head);
#if defined(__SSE2__)
  _mm_sfence();
#endif
}
