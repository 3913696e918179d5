/* agl_kernel_sgemm_q8 / _q4 / _bf16 / _f16: products with B stored in
 * fewer bits than float32, weight-only quantized or rounded to a 16-bit
 * float, bfloat16 or IEEE half (layouts in autoglm/kernels_quant.h). One
 * driver serves the four formats; they differ in how a panel's row becomes
 * 32 floats.
 *
 * Two regimes:
 *  - small m (decode steps, m <= 4): the stored panels are streamed once
 *    and turned into floats in registers (sgemm_quant_avx512.c,
 *    sgemm_quant_avx2.c), so the time is that of reading the stored
 *    bytes. Threads take chunks of panels.
 *  - larger m (prefill): the packed GEMM's loop nest (see sgemm.c) with B's
 *    block dequantized (or widened) into the packing memory, in the
 *    micro-kernel's panel layout, instead of packed: each weight is
 *    converted once per block of rows, and the micro-kernel runs as on
 *    float weights. Threads take tiles of whole panels (columns first, rows
 *    when there are few).
 * Neither allocates. */
#include "quant_internal.h"

#include <string.h>

/* ---- portable kernels ----------------------------------------------------- */

/* The 32 values q of depth p of a panel, whose group's first depth row is at
 * `rows`, p counted in the group. */
static void row_values(const agl_quant_b *b, const unsigned char *rows,
                       int64_t p, float *w) {
  if (b->bits == 8) {
    const unsigned char *row = rows + p * 32;
    for (int t = 0; t < 32; ++t)
      w[t] = (float)(signed char)row[t];
    return;
  }
  int shift = (int)(p % 2) * 4;
  for (int t = 0; t < 32; ++t)
    w[t] = (float)(((rows[agl_quant_nibble_offset(p, t)] >> shift) & 0x0F) - 8);
}

void agl_quant_dequant_portable(const agl_quant_b *b, int64_t panel,
                                int64_t pc, int64_t kc, float *dst,
                                int64_t ld) {
  const unsigned char *pb = b->data + panel * b->panel_bytes;
  for (int64_t r = 0; r < kc; ++r) {
    int64_t p = pc + r;
    const unsigned char *block = pb + p / b->group * b->group_bytes;
    const float *scale = (const float *)block;
    float *out = dst + r * ld;
    row_values(b, block + 32 * sizeof(float), p % b->group, out);
    for (int t = 0; t < 32; ++t)
      out[t] *= scale[t];
  }
}

void agl_quant_small_portable(int m, int64_t q0, int64_t q1, agl_view a,
                              const agl_quant_b *b, float *c, int64_t crs,
                              const agl_epilogue *e) {
  float w[32];
  for (int64_t q = q0; q < q1; ++q) {
    float acc[4][32], gacc[4][32];
    memset(acc, 0, sizeof acc);
    for (int64_t g0 = 0; g0 < b->k; g0 += b->group) {
      int64_t rows = b->k - g0 < b->group ? b->k - g0 : b->group;
      memset(gacc, 0, sizeof gacc);
      for (int64_t p = g0; p < g0 + rows; ++p) {
        /* Unit scales: the group's scale is applied once, at its end. */
        row_values(b,
                   b->data + q * b->panel_bytes +
                       p / b->group * b->group_bytes + 32 * sizeof(float),
                   p % b->group, w);
        for (int i = 0; i < m; ++i) {
          float x = a.data[i * a.rs + p * a.cs];
          for (int t = 0; t < 32; ++t)
            gacc[i][t] += x * w[t];
        }
      }
      const float *scale = (const float *)(b->data + q * b->panel_bytes +
                                           g0 / b->group * b->group_bytes);
      for (int i = 0; i < m; ++i)
        for (int t = 0; t < 32; ++t)
          acc[i][t] += gacc[i][t] * scale[t];
    }
    for (int i = 0; i < m; ++i) {
      float *out = c + i * crs + q * 32;
      for (int t = 0; t < 32; ++t)
        out[t] = agl_epilogue_scalar(e, out[t], acc[i][t], i, q * 32 + t);
    }
  }
}

/* 16-bit floats: row p of a panel is 16 words, word t holding column t
 * (low half) and column t + 16 (high half). */
static void w16_row(const agl_quant_b *b, int64_t panel, int64_t p,
                    float *w) {
  const unsigned char *row = b->data + panel * b->panel_bytes + p * 64;
  for (int t = 0; t < 16; ++t) {
    uint16_t lo, hi;
    memcpy(&lo, row + 4 * t, 2);
    memcpy(&hi, row + 4 * t + 2, 2);
    w[t] = agl_float_from_w16(b->w16, lo);
    w[t + 16] = agl_float_from_w16(b->w16, hi);
  }
}

void agl_w16_widen_portable(const agl_quant_b *b, int64_t panel, int64_t pc,
                            int64_t kc, float *dst, int64_t ld) {
  for (int64_t r = 0; r < kc; ++r)
    w16_row(b, panel, pc + r, dst + r * ld);
}

void agl_w16_small_portable(int m, int64_t q0, int64_t q1, agl_view a,
                             const agl_quant_b *b, float *c, int64_t crs,
                             const agl_epilogue *e) {
  float w[32];
  for (int64_t q = q0; q < q1; ++q) {
    float acc[4][32];
    memset(acc, 0, sizeof acc);
    for (int64_t p = 0; p < b->k; ++p) {
      w16_row(b, q, p, w);
      for (int i = 0; i < m; ++i) {
        float x = a.data[i * a.rs + p * a.cs];
        for (int t = 0; t < 32; ++t)
          acc[i][t] += x * w[t];
      }
    }
    int64_t width = b->n - q * 32 < 32 ? b->n - q * 32 : 32;
    for (int i = 0; i < m; ++i) {
      float *out = c + i * crs + q * 32;
      for (int t = 0; t < width; ++t)
        out[t] = agl_epilogue_scalar(e, out[t], acc[i][t], i, q * 32 + t);
    }
  }
}

/* ---- driver --------------------------------------------------------------- */

typedef struct quant_args {
  int64_t batch, m, n, k;
  const float *a;
  int64_t a_bs, a_rs, a_cs;
  agl_quant_b b;
  float *c;
  int64_t c_bs, c_rs;
  /* The epilogue as for agl_kernel_sgemm_packed: in C's coordinates of
   * batch entry 0, the bias shared by every batch entry, the residual's
   * entries res_bs apart. */
  agl_epilogue e;
  int64_t res_bs;
  const agl_gemm_isa *isa;
  agl_quant_small_fn small;
  agl_quant_dequant_fn dequant;
  agl_block_sizes block;
  /* Task grid: per batch entry, mt x nt tiles of m_step rows x n_step
   * panels of 32 columns. */
  int64_t mt, nt, m_step, n_step;
} quant_args;


/* The epilogue of batch entry bt, in C's coordinates. */
static agl_epilogue epilogue_at(const quant_args *g, int64_t bt) {
  agl_epilogue e = g->e;
  if (e.residual)
    e.residual += bt * g->res_bs;
  return e;
}

/* Rows [i0, i1) x panels [q0, q1) of batch entry bt, by the small kernel in
 * blocks of up to 4 rows. */
static void small_rows(const quant_args *g, int64_t bt, int64_t i0,
                       int64_t i1, int64_t q0, int64_t q1) {
  const agl_epilogue whole = epilogue_at(g, bt);
  for (int64_t i = i0; i < i1; i += 4) {
    int rows = i1 - i < 4 ? (int)(i1 - i) : 4;
    agl_view a = {g->a + bt * g->a_bs + i * g->a_rs, g->a_rs, g->a_cs};
    /* One pass over all depths: the tile epilogue of the first and last
     * block, at row i and column 0. */
    agl_epilogue e = agl_epilogue_tile(&whole, i, 0, 1, 1);
    g->small(rows, q0, q1, a, &g->b, g->c + bt * g->c_bs + i * g->c_rs,
             g->c_rs, &e);
  }
}

/* The packed path on one tile: rows [i0, i1) x panels [q0, q1). */
static void packed_tile(const quant_args *g, int64_t bt, int64_t i0,
                        int64_t i1, int64_t q0, int64_t q1, float *scratch) {
  const agl_gemm_isa *isa = g->isa;
  const int mr = isa->mr, nr = isa->nr;
  const int64_t KC = g->block.kc;
  /* Whole quantized panels per block of B. */
  const int64_t NCP = g->block.nc / 32 > 0 ? g->block.nc / 32 : 1;
  const int64_t panels = agl_ceil_div(i1 - i0, mr);
  const int64_t mc_panels = g->block.mc / mr > 0 ? g->block.mc / mr : 1;
  const int64_t blocks = agl_ceil_div(panels, mc_panels);
  const int64_t mc_max = agl_ceil_div(panels, blocks) * mr;
  float *bp = scratch;
  float *ap = scratch + KC * NCP * 32;
  const float *a = g->a + bt * g->a_bs;
  float *c = g->c + bt * g->c_bs;
  const agl_epilogue whole = epilogue_at(g, bt);
  for (int64_t ic = i0; ic < i1; ic += mc_max) {
    int64_t mc = i1 - ic < mc_max ? i1 - ic : mc_max;
    for (int64_t pc = 0; pc < g->k; pc += KC) {
      int64_t kc = g->k - pc < KC ? g->k - pc : KC;
      /* As the float GEMM: the bias with the first block of depths, the
       * activation and the residual with the last. */
      const int first = pc == 0, last = pc + kc == g->k;
      agl_view av = {a + ic * g->a_rs + pc * g->a_cs, g->a_rs, g->a_cs};
      isa->pack_a(av, mc, kc, mr, ap);
      for (int64_t qc = q0; qc < q1; qc += NCP) {
        int64_t ncp = q1 - qc < NCP ? q1 - qc : NCP;
        /* Dequantize B's block into panels of 32 columns, which the
         * micro-kernel reads in place (ldb 32; every table's nr divides
         * 32). */
        for (int64_t q = 0; q < ncp; ++q)
          g->dequant(&g->b, qc + q, pc, kc, bp + q * kc * 32, 32);
        int64_t nc = ncp * 32;
        for (int64_t ir = 0; ir < mc; ir += mr) {
          int rows = mc - ir < mr ? (int)(mc - ir) : mr;
          for (int64_t jr = 0; jr < nc; jr += nr) {
            int64_t left = g->n - (qc * 32 + jr); /* 16 bits' last panel */
            int cols = nc - jr < nr ? (int)(nc - jr) : nr;
            if (left <= 0)
              break;
            if (cols > left)
              cols = (int)left;
            agl_epilogue e = agl_epilogue_tile(&whole, ic + ir,
                                               qc * 32 + jr, first, last);
            isa->kernel(kc, ap + ir * kc, 0, bp + jr / 32 * kc * 32 + jr % 32,
                        32, c + (ic + ir) * g->c_rs + qc * 32 + jr, g->c_rs,
                        rows, cols, &e);
          }
        }
      }
    }
  }
}

static void quant_tasks(void *raw, int64_t begin, int64_t end) {
  const quant_args *g = raw;
  float *scratch = agl_pool_scratch();
  int64_t per_batch = g->mt * g->nt;
  int64_t panels = agl_ceil_div(g->n, 32);
  for (int64_t t = begin; t < end; ++t) {
    int64_t bt = t / per_batch, r = t % per_batch;
    int64_t i0 = r / g->nt * g->m_step, q0 = r % g->nt * g->n_step;
    int64_t i1 = i0 + g->m_step < g->m ? i0 + g->m_step : g->m;
    int64_t q1 = q0 + g->n_step < panels ? q0 + g->n_step : panels;
    if (i0 >= i1 || q0 >= q1)
      continue;
    if (g->m <= 4 || !scratch)
      small_rows(g, bt, i0, i1, q0, q1);
    else
      packed_tile(g, bt, i0, i1, q0, q1, scratch);
  }
}

static void quant_run(quant_args *g, int threads) {
  const int64_t panels = agl_ceil_div(g->n, 32);
  /* As for the float GEMM: below this much work per extra thread, waking
   * the workers costs more than it saves. */
  double work = (double)g->batch * g->m * g->n * g->k;
  int useful = (int)(work / 65536.0) + 1;
  if (threads > useful)
    threads = useful;
  g->mt = 1;
  g->m_step = g->m;
  if (g->m <= 4) {
    /* Chunks of panels, about four per thread: claimed dynamically, they
     * balance the load when a thread starts late. */
    int64_t chunks = threads > 1 ? agl_ceil_div(4 * (int64_t)threads, g->batch) : 1;
    g->n_step = agl_ceil_div(panels, chunks);
  } else {
    /* Each thread dequantizes only its own panels. */
    agl_tile_split t =
        agl_split_tiles(panels, g->m, g->isa->mr, g->batch, threads);
    g->m_step = t.m_step;
    g->n_step = t.n_step;
    g->mt = t.mt;
  }
  g->nt = agl_ceil_div(panels, g->n_step);
  int64_t tasks = g->batch * g->mt * g->nt;
  if (threads > 1 && tasks > 1)
    agl_pool_run(tasks, tasks, quant_tasks, g);
  else
    quant_tasks(g, 0, tasks);
}

/* bits 8, 4 (quantized; w16 unused) or 16 (the 16-bit float format w16). */
static void sgemm_quant(int bits, agl_w16_format w16, int64_t batch,
                        int64_t m, int64_t n, int64_t k, const float *a,
                        int64_t a_bs, int64_t a_rs, int64_t a_cs,
                        const void *quantized_b, int64_t group, float *c,
                        int64_t c_bs, int64_t c_rs, int32_t accumulate,
                        float alpha, const float *bias, int32_t activation,
                        const float *residual, int64_t res_bs, int64_t res_rs,
                        const agl_gemm_blocking *blocking) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  const agl_activation_parts act = agl_split_activation(activation);
  const agl_epilogue e = {.load_c = accumulate != 0,
                          .act = act.act,
                          .alpha = alpha,
                          .bias = bias,
                          .bias_cs = 1,
                          .residual = residual,
                          .res_rs = res_rs,
                          .res_cs = 1,
                          .gated = act.gated,
                          .gate_act = act.gate_act};
  if (k <= 0 || group <= 0) {
    for (int64_t bt = 0; bt < batch; ++bt) {
      agl_epilogue eb = e;
      if (eb.residual)
        eb.residual += bt * res_bs;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float *cij = c + bt * c_bs + i * c_rs + j;
          *cij = agl_epilogue_scalar(&eb, *cij, 0.0f, i, j);
        }
    }
    return;
  }
  quant_args g = {
      .batch = batch, .m = m, .n = n, .k = k, .a = a, .a_bs = a_bs,
      .a_rs = a_rs, .a_cs = a_cs,
      .b = {.data = quantized_b, .k = k, .n = n, .group = group,
            .bits = bits, .w16 = w16},
      .c = c, .c_bs = c_bs, .c_rs = c_rs, .e = e, .res_bs = res_bs};
  if (bits == 16) { /* 16-bit floats: one group of every depth, no scales */
    g.b.panel_bytes = g.b.group_bytes = k * 64;
    g.b.row_bytes = 64;
  } else {
    g.b.panel_bytes = agl_quant_panel_bytes(k, bits, group);
    g.b.group_bytes = agl_quant_group_bytes(bits, group);
    g.b.row_bytes = agl_quant_row_bytes(bits);
  }
  g.isa = agl_gemm_current();
  g.small = bits == 16 ? agl_w16_small_portable : agl_quant_small_portable;
  g.dequant = bits == 16 ? agl_w16_widen_portable : agl_quant_dequant_portable;
#if defined(AGL_HAVE_AVX2_KERNELS)
  if (g.isa == &agl_gemm_avx2) {
    g.small = bits == 16 ? agl_w16_small_avx2 : agl_quant_small_avx2;
    g.dequant = bits == 16 ? agl_w16_widen_avx2 : agl_quant_dequant_avx2;
  }
#endif
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (g.isa == &agl_gemm_avx512) {
    g.small = bits == 16 ? agl_w16_small_avx512 : agl_quant_small_avx512;
    if (bits == 4 && agl_cpu_has_avx512_vnni())
      g.small = agl_quant_small_avx512_vnni;
    g.dequant = bits == 16 ? agl_w16_widen_avx512 : agl_quant_dequant_avx512;
  }
#endif
  g.block = agl_gemm_block_sizes(g.isa, blocking);
  int threads = agl_pool_acquire();
  if (threads == 0) {
    quant_run(&g, 1); /* nested in a parallel region */
    return;
  }
  if (threads < 0) {
    /* No pool memory: the small kernel needs none, at any m. */
    g.mt = g.nt = 1;
    g.m_step = m;
    g.n_step = agl_ceil_div(n, 32);
    for (int64_t bt = 0; bt < batch; ++bt)
      small_rows(&g, bt, 0, m, 0, g.n_step);
    return;
  }
  quant_run(&g, threads);
  agl_pool_release();
}

void agl_kernel_sgemm_q8(int64_t batch, int64_t m, int64_t n, int64_t k,
                         const float *a, int64_t a_batch_stride,
                         int64_t a_row_stride, int64_t a_col_stride,
                         const void *quantized_b, int64_t group_size,
                         float *c, int64_t c_batch_stride,
                         int64_t c_row_stride, int32_t accumulate,
                         float alpha, const float *bias, int32_t activation,
                         const float *residual,
                         int64_t residual_batch_stride,
                         int64_t residual_row_stride,
                         const agl_gemm_blocking *blocking) {
  sgemm_quant(8, AGL_W16_BF16, batch, m, n, k, a, a_batch_stride,
              a_row_stride, a_col_stride, quantized_b, group_size, c,
              c_batch_stride, c_row_stride, accumulate, alpha, bias,
              activation, residual, residual_batch_stride,
              residual_row_stride, blocking);
}

void agl_kernel_sgemm_q4(int64_t batch, int64_t m, int64_t n, int64_t k,
                         const float *a, int64_t a_batch_stride,
                         int64_t a_row_stride, int64_t a_col_stride,
                         const void *quantized_b, int64_t group_size,
                         float *c, int64_t c_batch_stride,
                         int64_t c_row_stride, int32_t accumulate,
                         float alpha, const float *bias, int32_t activation,
                         const float *residual,
                         int64_t residual_batch_stride,
                         int64_t residual_row_stride,
                         const agl_gemm_blocking *blocking) {
  sgemm_quant(4, AGL_W16_BF16, batch, m, n, k, a, a_batch_stride,
              a_row_stride, a_col_stride, quantized_b, group_size, c,
              c_batch_stride, c_row_stride, accumulate, alpha, bias,
              activation, residual, residual_batch_stride,
              residual_row_stride, blocking);
}

void agl_kernel_sgemm_bf16(int64_t batch, int64_t m, int64_t n, int64_t k,
                           const float *a, int64_t a_batch_stride,
                           int64_t a_row_stride, int64_t a_col_stride,
                           const void *packed_b, float *c,
                           int64_t c_batch_stride, int64_t c_row_stride,
                           int32_t accumulate, float alpha,
                           const float *bias, int32_t activation,
                           const float *residual,
                           int64_t residual_batch_stride,
                           int64_t residual_row_stride,
                           const agl_gemm_blocking *blocking) {
  /* The group size only has to be positive: 16-bit floats have no scales. */
  sgemm_quant(16, AGL_W16_BF16, batch, m, n, k, a, a_batch_stride,
              a_row_stride, a_col_stride, packed_b, k > 0 ? k : 1, c,
              c_batch_stride, c_row_stride, accumulate, alpha, bias,
              activation, residual, residual_batch_stride,
              residual_row_stride, blocking);
}

void agl_kernel_sgemm_f16(int64_t batch, int64_t m, int64_t n, int64_t k,
                          const float *a, int64_t a_batch_stride,
                          int64_t a_row_stride, int64_t a_col_stride,
                          const void *packed_b, float *c,
                          int64_t c_batch_stride, int64_t c_row_stride,
                          int32_t accumulate, float alpha,
                          const float *bias, int32_t activation,
                          const float *residual,
                          int64_t residual_batch_stride,
                          int64_t residual_row_stride,
                          const agl_gemm_blocking *blocking) {
  sgemm_quant(16, AGL_W16_F16, batch, m, n, k, a, a_batch_stride,
              a_row_stride, a_col_stride, packed_b, k > 0 ? k : 1, c,
              c_batch_stride, c_row_stride, accumulate, alpha, bias,
              activation, residual, residual_batch_stride,
              residual_row_stride, blocking);
}
