/* Attention rows with plain loops (agl_kernel_attention's portable path and
 * its fallback without scratch). Each row streams over blocks of keys: the
 * block's scores go to a small local array, the running maximum m and sum l
 * are updated, and the output row, which accumulates sum_j e^(s_j - m) V_j,
 * is rescaled whenever m grows; it is divided by l at the end. */
#include "kernels_internal.h"

#include <math.h>

void agl_attention_rows_portable(const agl_attention_args *a, int64_t b,
                                 int64_t h, int64_t i0, int64_t i1,
                                 float *scratch) {
  (void)scratch;
  const int64_t kv_head = h / a->group;
  for (int64_t i = i0; i < i1; ++i) {
    const float *q = a->q + b * a->q_bs + h * a->q_hs + i * a->q_rs;
    float *o = a->out + b * a->o_bs + h * a->o_hs + i * a->o_rs;
    const float *mask =
        a->mask ? a->mask + b * a->m_bs + h * a->m_hs + i * a->m_rs : 0;
    const int64_t visible = agl_attention_seen(a, i, 0, a->kv_len);
    for (int64_t d = 0; d < a->value_dim; ++d)
      o[d] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    float s[AGL_ATTENTION_BK];
    for (int64_t j0 = 0, n; j0 < visible; j0 += n) {
      const agl_attention_block block =
          agl_attention_block_at(a, b, kv_head, j0, visible);
      n = block.n;
      float block_max = -INFINITY;
      for (int64_t c = 0; c < n; ++c) {
        const float *key = block.keys + c * block.k_rs;
        float dot = 0.0f;
        for (int64_t d = 0; d < a->head_dim; ++d)
          dot += q[d] * key[d];
        s[c] = a->scale * dot + (mask ? mask[(j0 + c) * a->m_cs] : 0.0f);
        block_max = fmaxf(block_max, s[c]);
      }
      if (block_max == -INFINITY)
        continue; /* every key of the block masked */
      float new_max = fmaxf(m, block_max);
      float alpha = expf(m - new_max);
      if (alpha != 1.0f) {
        l *= alpha;
        for (int64_t d = 0; d < a->value_dim; ++d)
          o[d] *= alpha;
      }
      m = new_max;
      for (int64_t c = 0; c < n; ++c) {
        float p = expf(s[c] - m);
        l += p;
        const float *value = block.values + c * block.v_rs;
        for (int64_t d = 0; d < a->value_dim; ++d)
          o[d] += p * value[d];
      }
    }
    float inverse = l > 0.0f ? 1.0f / l : 0.0f;
    for (int64_t d = 0; d < a->value_dim; ++d)
      o[d] *= inverse;
  }
}
