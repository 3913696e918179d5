/* agl_kernel_gemm_u8s8: uint8 x int8 products summed in int32 (layout of B
 * in autoglm/kernels_int8.h). The loop nest of the packed float GEMM (see
 * sgemm.c), for one task (a batch entry's rows [i0, i1) x panels [q0, q1)):
 *   for each MC block of rows, for each KC block of depth quads:
 *     (pack A (MC x KC) into panels of 14 rows)            -> L2/L3
 *     for each NC block of columns (B, packed ahead of time) -> L2
 *       for each A panel (14 x KC, stays in L1):
 *         for each B panel: micro-kernel 14 x 32
 * A is already bytes along k, so the micro-kernel reads its rows in place
 * (measured 1-5% faster than packing on Zen 4), except where they would not
 * serve: with k % 4 != 0 the last quad would read past a row's end, and
 * with a row stride that is a multiple of 4 KiB the 14 rows fall into the
 * same L1 sets (measured 30% slower at k = 4096). Packing zero-pads the
 * tail quad and gives one stream of A whatever its stride.
 * The blocking is the float GEMM's cost model, read with one depth quad
 * (4 bytes of a row of A, 128 bytes of a B panel) in place of one float:
 * every block then takes the bytes it takes in the float GEMM, so the
 * model's cache budget holds as it is (kc quads x 14 rows of A in the L1,
 * kc quads x nc columns of B in the L2). Partial sums of all depth blocks
 * but the last are kept in C as int32; a C quantized to uint8, or stored
 * transposed, comes from one block of every depth instead. Nothing is
 * allocated. */
#include "int8_internal.h"

#include <stdatomic.h>
#include <string.h>

/* Element (i, j) of C, in elements from its batch entry's start: row i at
 * i * rs, or with C transposed column j at j * rs. */
static inline int64_t c_offset(int transposed, int64_t rs, int64_t i,
                               int64_t j) {
  return transposed ? j * rs + i : i * rs + j;
}

/* ---- portable micro-kernel ------------------------------------------------ */

void agl_s8_kernel_portable(int64_t kq, const uint8_t *ap, int64_t lda,
                            const int8_t *bp, int rows, int cols, void *c,
                            int64_t ldc, const agl_s8_epilogue *e) {
  const int64_t a_row = lda ? lda : 4, a_quad = lda ? 4 : AGL_S8_QUAD_BYTES;
  /* Unsigned sums wrap as vpdpbusd's do, so the final sum is exact
   * whenever it fits in int32. Each quad of B is first spread into rows
   * of 32 columns, so that the loops over columns vectorize; a product of
   * a uint8 and an int8 fits in 16 bits (16-bit vector multiplies). */
  uint32_t acc[AGL_S8_MR][32];
  memset(acc, 0, sizeof acc);
  for (int64_t r = 0; r < kq; ++r) {
    int16_t w[4][32];
    const int8_t *quad = bp + r * 128;
    for (int j = 0; j < 32; ++j)
      for (int d = 0; d < 4; ++d)
        w[d][j] = quad[j / 16 * 64 + j % 16 * 4 + d];
    for (int i = 0; i < rows; ++i) {
      const uint8_t *x = ap + i * a_row + r * a_quad;
      for (int d = 0; d < 4; ++d) {
        const int16_t xd = x[d];
        for (int j = 0; j < 32; ++j)
          acc[i][j] += (uint32_t)(int32_t)(int16_t)(xd * w[d][j]);
      }
    }
  }
  unsigned char *cb = c;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      uint32_t sum = acc[i][j];
      unsigned char *cij = cb + c_offset(e->transposed, ldc, i, j) * 4;
      if (e->load) {
        int32_t old;
        memcpy(&old, cij, 4);
        sum += (uint32_t)old;
      }
      if (e->last) {
        int32_t colsum;
        memcpy(&colsum, e->colsum + 4 * j, 4);
        sum -= (uint32_t)e->zero_point * (uint32_t)colsum;
      }
      int32_t exact = (int32_t)sum;
      if (!e->last || !e->scale) {
        memcpy(cij, &exact, 4);
        continue;
      }
      float x = (float)exact * (e->alpha * e->scale[j]);
      if (e->bias)
        x += e->bias[j];
      if (e->act != AGL_ACT_NONE)
        x = agl_activate_scalar(x, e->act);
      if (e->residual)
        x = agl_residual_scalar(x, e->residual[i * e->res_rs + j], e->gated,
                                e->gate_act);
      if (e->quantize)
        cb[i * ldc + j] = agl_quantize_u8(x, e->out_scale, e->out_zero_point);
      else
        memcpy(cij, &x, 4);
    }
}

/* ---- driver --------------------------------------------------------------- */

typedef struct s8_args {
  int64_t batch, m, n, k;
  const uint8_t *a;
  int64_t a_bs, a_rs;
  int32_t zero_point;
  const unsigned char *b;
  int64_t panel_bytes;
  unsigned char *c; /* int32 or float elements, or uint8 with quantize */
  int64_t c_bs, c_rs, c_elem; /* c_elem: bytes per element */
  float alpha;
  const float *scale, *bias;
  int act;
  const float *residual;
  int64_t res_bs, res_rs;
  int gated, gate_act;
  int quantize;
  float out_scale;
  int32_t out_zero_point;
  int transposed; /* int32 C transposed: c_rs is its column stride */
  agl_s8_kernel kernel;
  /* Blocking: kc depth quads, nc columns (whole panels), mc rows (whole
   * A panels). */
  int64_t kc, nc, mc;
  /* Task grid: per batch entry, mt x nt tiles of m_step rows x n_step
   * panels. */
  int64_t mt, nt, m_step, n_step;
} s8_args;

/* The bytes of quad q of A's row `row` (stride lda), zero past k. */
static void quad_of_row(const uint8_t *a, int64_t lda, int64_t row, int64_t k,
                        int64_t q, uint8_t out[4]) {
  memset(out, 0, 4);
  for (int64_t d = 4 * q; d < k && d < 4 * q + 4; ++d)
    out[d - 4 * q] = a[row * lda + d];
}

/* Packs rows [0, rows) x quads [q0, q0 + kq) of A (row stride lda) into
 * panels of AGL_S8_MR rows; depths past k are zero. */
static void pack_a(const uint8_t *a, int64_t lda, int64_t rows, int64_t k,
                   int64_t q0, int64_t kq, uint8_t *dst) {
  const int64_t whole = k / 4 - q0 < kq ? k / 4 - q0 : kq; /* full quads */
  for (int64_t i0 = 0; i0 < rows; i0 += AGL_S8_MR) {
    int live = rows - i0 < AGL_S8_MR ? (int)(rows - i0) : AGL_S8_MR;
    for (int i = 0; i < AGL_S8_MR; ++i) {
      uint8_t *out = dst + 4 * i;
      if (i >= live) {
        for (int64_t r = 0; r < kq; ++r)
          memset(out + r * AGL_S8_QUAD_BYTES, 0, 4);
        continue;
      }
      const uint8_t *row = a + (i0 + i) * lda + 4 * q0;
      for (int64_t r = 0; r < whole; ++r)
        memcpy(out + r * AGL_S8_QUAD_BYTES, row + 4 * r, 4);
      for (int64_t r = whole > 0 ? whole : 0; r < kq; ++r)
        quad_of_row(a, lda, i0 + i, k, q0 + r, out + r * AGL_S8_QUAD_BYTES);
    }
    dst += kq * AGL_S8_QUAD_BYTES;
  }
}

/* Packs rows [0, rows) x quads [q0, q0 + kq) of A as rows `stride` bytes
 * apart, for a row-major kernel; depths past k are zero. */
static void pack_a_rows(const uint8_t *a, int64_t lda, int64_t rows, int64_t k,
                        int64_t q0, int64_t kq, int64_t stride, uint8_t *dst) {
  const int64_t whole = k / 4 - q0 < kq ? k / 4 - q0 : kq;
  for (int64_t i = 0; i < rows; ++i) {
    uint8_t *out = dst + i * stride;
    if (whole > 0)
      memcpy(out, a + i * lda + 4 * q0, (size_t)(4 * whole));
    for (int64_t r = whole > 0 ? whole : 0; r < kq; ++r)
      quad_of_row(a, lda, i, k, q0 + r, out + 4 * r);
  }
}

/* The row strides that crowd a micro-panel of mr rows into too few L1
 * sets: the L1d has 64 sets (of 8 ways on the smallest), rows a multiple
 * of 4 KiB apart fall in one set, a multiple of 2 KiB in two; more than
 * 16 rows need four. */
static int64_t crowding_stride(int mr) { return mr > 16 ? 2048 : 4096; }

/* The row stride of a row-major packed block of kq quads for mr rows:
 * whole cache lines, never a crowding stride. */
static int64_t packed_row_stride(int mr, int64_t kq) {
  int64_t stride = agl_ceil_div(4 * kq, 64) * 64;
  return stride % crowding_stride(mr) ? stride : stride + 64;
}

/* Bytes of a packed panel of mr rows x kq quads. */
static int64_t packed_panel_bytes(const agl_s8_kernel *kernel, int64_t kq) {
  return kernel->row_major ? kernel->mr * packed_row_stride(kernel->mr, kq)
                           : kq * kernel->mr * 4;
}

/* Whether the micro-kernel reads A's rows in place (whole quads, and rows
 * not a crowding stride apart) rather than from packed panels. */
static int reads_a_in_place(const s8_args *g) {
  return g->k % 4 == 0 && g->a_rs % crowding_stride(g->kernel.mr) != 0;
}

/* The float epilogue of one element's exact sum, for the driver's own loops
 * (a zero depth, a quantized product without room to pack A). */
static float epilogue_scalar(const s8_args *g, int32_t sum, int64_t bt,
                             int64_t i, int64_t j) {
  float x = (float)sum * (g->alpha * g->scale[j]);
  if (g->bias)
    x += g->bias[j];
  x = agl_activate_scalar(x, g->act);
  if (g->residual)
    x = agl_residual_scalar(x, g->residual[bt * g->res_bs + i * g->res_rs + j],
                            g->gated, g->gate_act);
  return x;
}

/* Share `share` of `shares` of B's block of panels [q0, q1) at depth quads
 * [pq, pq + kq), as the cache lines a tile fetches into the L2 while it
 * computes (agl_s8_epilogue.prefetch, agl_prefetch_share): in each panel
 * those quads lie together, 2 * kq lines after its column sums. */
static void prefetch_share(const s8_args *g, int64_t q0, int64_t q1, int64_t pq,
                           int64_t kq, int64_t share, int64_t shares,
                           agl_s8_epilogue *e) {
  int64_t q, from, to;
  if (!agl_prefetch_share(q1 - q0, 2 * kq, share, shares, &q, &from, &to))
    return;
  e->prefetch = (const char *)g->b + (q0 + q) * g->panel_bytes +
                32 * sizeof(int32_t) + pq * 128 + from * 64;
  e->prefetch_lines = to - from;
}

/* Rows [i0, i1) x panels [q0, q1) of batch entry bt; `abuf` holds a packed
 * block of A (mc x kc quads). */
static void s8_tile(const s8_args *g, int64_t bt, int64_t i0, int64_t i1,
                    int64_t q0, int64_t q1, uint8_t *abuf, int64_t kc_max,
                    int64_t mc_max) {
  const int64_t quads = agl_ceil_div(g->k, 4);
  const agl_s8_kernel *kernel = &g->kernel;
  const int mr = kernel->mr;
  /* Equal depth blocks (no thin last one), whole steps of the kernel's. */
  const int64_t step = kernel->kc_step;
  int64_t kc = agl_ceil_div(quads, agl_ceil_div(quads, kc_max));
  if (kc < quads && kc_max >= step) {
    const int64_t up = agl_ceil_div(kc, step) * step,
                  cap = kc_max / step * step;
    kc = up < cap ? up : cap;
  }
  const int64_t ncp = g->nc / AGL_S8_PACKED_NR;
  const uint8_t *a = g->a + bt * g->a_bs;
  const int direct = reads_a_in_place(g);
  unsigned char *c = g->c + bt * g->c_bs * g->c_elem;
  const float *residual = g->residual ? g->residual + bt * g->res_bs : NULL;
  for (int64_t ic = i0; ic < i1; ic += mc_max) {
    int64_t mc = i1 - ic < mc_max ? i1 - ic : mc_max;
    for (int64_t pq = 0; pq < quads; pq += kc) {
      int64_t kq = quads - pq < kc ? quads - pq : kc;
      /* Micro-panels of balanced heights. */
      const int64_t panels = agl_ceil_div(mc, mr);
      const int64_t panel_bytes = packed_panel_bytes(kernel, kq);
      const int64_t stride = packed_row_stride(mr, kq);
      if (!direct)
        for (int64_t p = 0; p < panels; ++p) {
          const int64_t r0 = agl_panel_start(mc, panels, p);
          const int64_t rows = agl_panel_start(mc, panels, p + 1) - r0;
          const uint8_t *from = a + (ic + r0) * g->a_rs;
          if (kernel->row_major)
            pack_a_rows(from, g->a_rs, rows, g->k, pq, kq, stride,
                        abuf + p * panel_bytes);
          else
            pack_a(from, g->a_rs, rows, g->k, pq, kq, abuf + p * panel_bytes);
        }
      const int64_t lda = direct ? g->a_rs : kernel->row_major ? stride : 0;
      for (int64_t qc = q0; qc < q1; qc += ncp) {
        int64_t qe = q1 - qc < ncp ? q1 : qc + ncp;
        /* The block of B after this one, which the A panels after the
         * first fetch into the L2 while they sweep this one (as the float
         * GEMM does, sgemm.c). */
        int64_t next_qc = qc + ncp, next_pq = pq;
        if (next_qc >= q1) {
          next_qc = q0;
          next_pq = pq + kc < quads ? pq + kc : ic + mc < i1 ? 0 : -1;
        }
        const int prefetch_next = next_pq >= 0 && panels > 1;
        const int64_t next_kq = quads - next_pq < kc ? quads - next_pq : kc;
        const int64_t next_qe = q1 - next_qc < ncp ? q1 : next_qc + ncp;
        for (int64_t p = 0; p < panels; ++p) {
          const int64_t ir = agl_panel_start(mc, panels, p);
          const int rows = (int)(agl_panel_start(mc, panels, p + 1) - ir);
          const uint8_t *ap = direct ? a + (ic + ir) * g->a_rs + 4 * pq
                                     : abuf + p * panel_bytes;
          int64_t i = ic + ir;
          for (int64_t q = qc; q < qe; ++q) {
            const unsigned char *panel = g->b + q * g->panel_bytes;
            int64_t j = q * AGL_S8_PACKED_NR;
            int cols = g->n - j < AGL_S8_PACKED_NR ? (int)(g->n - j)
                                                   : AGL_S8_PACKED_NR;
            agl_s8_epilogue e = {
                .load = pq > 0,
                .last = pq + kq == quads,
                .zero_point = g->zero_point,
                .colsum = panel,
                .alpha = g->alpha,
                .scale = g->scale ? g->scale + j : NULL,
                .bias = g->bias ? g->bias + j : NULL,
                .act = g->act,
                .residual = residual ? residual + i * g->res_rs + j : NULL,
                .res_rs = g->res_rs,
                .gated = g->gated,
                .gate_act = g->gate_act,
                .quantize = g->quantize,
                .out_scale = g->out_scale,
                .out_zero_point = g->out_zero_point,
                .transposed = g->transposed};
            if (prefetch_next && p > 0)
              prefetch_share(g, next_qc, next_qe, next_pq, next_kq,
                             (p - 1) * (qe - qc) + (q - qc),
                             (panels - 1) * (qe - qc), &e);
            const int64_t at = c_offset(g->transposed, g->c_rs, i, j);
            kernel->run(
                kq, ap, lda,
                (const int8_t *)(panel + 32 * sizeof(int32_t) + pq * 128), rows,
                cols, c + at * g->c_elem, g->c_rs, &e);
          }
        }
      }
    }
  }
}

/* Task t's rows [i0, i1) and panels [q0, q1) of batch entry bt. */
static void task_tile(const s8_args *g, int64_t t, int64_t *bt, int64_t *i0,
                      int64_t *i1, int64_t *q0, int64_t *q1) {
  const int64_t panels = agl_ceil_div(g->n, AGL_S8_PACKED_NR);
  const int64_t per_batch = g->mt * g->nt;
  int64_t r = t % per_batch;
  *bt = t / per_batch;
  *i0 = r / g->nt * g->m_step;
  *q0 = r % g->nt * g->n_step;
  *i1 = *i0 + g->m_step < g->m ? *i0 + g->m_step : g->m;
  *q1 = *q0 + g->n_step < panels ? *q0 + g->n_step : panels;
}

/* A task of a product in one block (quantized, or transposed) as plain
 * loops, element by element. */
static void s8_task_plain(const s8_args *g, int64_t t) {
  int64_t bt, i0, i1, q0, q1;
  task_tile(g, t, &bt, &i0, &i1, &q0, &q1);
  const int64_t j1 = q1 * AGL_S8_PACKED_NR < g->n ? q1 * AGL_S8_PACKED_NR
                                                  : g->n;
  for (int64_t i = i0; i < i1; ++i) {
    const uint8_t *row = g->a + bt * g->a_bs + i * g->a_rs;
    for (int64_t j = q0 * AGL_S8_PACKED_NR; j < j1; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < g->k; ++p)
        sum += ((int32_t)row[p] - g->zero_point) *
               (int32_t)(int8_t)g->b[agl_s8_packed_offset(g->k, p, j)];
      if (g->transposed) {
        memcpy(g->c + (bt * g->c_bs + c_offset(1, g->c_rs, i, j)) * 4, &sum, 4);
        continue;
      }
      g->c[bt * g->c_bs + i * g->c_rs + j] = agl_quantize_u8(
          epilogue_scalar(g, sum, bt, i, j), g->out_scale, g->out_zero_point);
    }
  }
}

static void s8_tasks(void *raw, int64_t begin, int64_t end) {
  const s8_args *g = raw;
  /* Without pool memory, a small block of A on the stack. */
  enum { STACK_QUADS = 64 };
  _Alignas(64) uint8_t stack[AGL_S8_MAX_MR * (STACK_QUADS * 4 + 64)];
  uint8_t *abuf = (uint8_t *)agl_pool_scratch();
  int64_t kc = g->kc, mc = g->mc;
  if (!abuf) {
    abuf = stack;
    kc = STACK_QUADS;
    mc = g->kernel.mr;
  }
  /* Quantized or transposed output comes in one depth block: A read in
   * place, or packed whole into the packing memory (the entry sized mc for
   * that, or set kc to 0 where not even one panel fits); else plain
   * loops. */
  if (g->quantize || g->transposed) {
    const int64_t quads = agl_ceil_div(g->k, 4);
    if (!reads_a_in_place(g) && (abuf == stack || g->kc < quads)) {
      for (int64_t t = begin; t < end; ++t)
        s8_task_plain(g, t);
      return;
    }
    kc = quads;
  }
  for (int64_t t = begin; t < end; ++t) {
    int64_t bt, i0, i1, q0, q1;
    task_tile(g, t, &bt, &i0, &i1, &q0, &q1);
    if (i0 < i1 && q0 < q1)
      s8_tile(g, bt, i0, i1, q0, q1, abuf, kc, mc);
  }
  if (g->kernel.done)
    g->kernel.done();
}

static void s8_run(s8_args *g, int threads) {
  const int64_t panels = agl_ceil_div(g->n, AGL_S8_PACKED_NR);
  /* As for the float GEMM: below this much work per extra thread, waking
   * the workers costs more than it saves (int8 work is about 4x cheaper). */
  double work = (double)g->batch * g->m * g->n * g->k / 4;
  int useful = (int)(work / 65536.0) + 1;
  if (threads > useful)
    threads = useful;
  /* A is packed by each thread. */
  agl_tile_split t =
      agl_split_tiles(panels, g->m, g->kernel.mr, g->batch, threads);
  g->m_step = t.m_step;
  g->n_step = t.n_step;
  g->mt = t.mt;
  g->nt = t.nt;
  int64_t tasks = g->batch * g->mt * g->nt;
  if (threads > 1 && tasks > 1)
    agl_pool_run(tasks, tasks, s8_tasks, g);
  else
    s8_tasks(g, 0, tasks);
}

#if defined(AGL_HAVE_AVX512_KERNELS)
static int cpu_has_vnni(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

/* Checked once each; a race only repeats a check. */
static _Atomic int g_vnni = -1, g_amx = -1;

static int checked(_Atomic int *flag, int (*check)(void)) {
  int has = atomic_load_explicit(flag, memory_order_relaxed);
  if (has < 0)
    atomic_store_explicit(flag, has = check(), memory_order_relaxed);
  return has;
}

int agl_cpu_has_avx512_vnni(void) { return checked(&g_vnni, cpu_has_vnni); }
#endif

static _Atomic int g_allow_amx = 1;

void agl_s8_allow_amx(int allow) { atomic_store(&g_allow_amx, allow != 0); }

#if defined(AGL_HAVE_AVX512_KERNELS)
/* Whether AMX beats VNNI on a product of m rows, n columns and depth k.
 * A few rows stream B past fixed costs per tile (its configuration, the
 * sums' round trip through memory): on Sapphire Rapids, one row ran 15-25%
 * slower on AMX, 4 to 8 rows as fast or up to 35% faster where B was in
 * the L2 and 15-20% slower where it came from memory, 12 rows and more
 * faster either way. */
static int amx_pays(int64_t m, int64_t n, int64_t k) {
  if (m < 4)
    return 0;
  return m > 8 || n * k <= agl_l2_bytes();
}
#endif

/* A kernel of AGL_S8_MR rows reading A as packed quads, any depth block. */
static agl_s8_kernel quad_kernel(agl_s8_kernel_fn run) {
  return (agl_s8_kernel){.run = run, .mr = AGL_S8_MR, .kc_step = 1};
}

/* Where the float GEMM runs AVX-512 (tests force the others through
 * agl_gemm_select) and the CPU has VNNI: the AMX kernel where the CPU has
 * AMX, the process may use it and it pays for the shape (amx_pays), else
 * the AVX-512 VNNI one; else the AVX2 one where the float GEMM runs vector
 * code (AVX2, or AVX-512 without VNNI: every CPU with AVX-512 has AVX2). */
static agl_s8_kernel s8_kernel(int64_t m, int64_t n, int64_t k) {
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (agl_gemm_current() == &agl_gemm_avx512 &&
      checked(&g_vnni, cpu_has_vnni)) {
    if (atomic_load(&g_allow_amx) && amx_pays(m, n, k) &&
        checked(&g_amx, agl_s8_amx_usable))
      return (agl_s8_kernel){.run = agl_s8_kernel_amx,
                             .mr = AGL_S8_MAX_MR,
                             .row_major = 1,
                             .kc_step = 16,
                             .done = agl_s8_amx_release};
    return quad_kernel(agl_s8_kernel_avx512);
  }
#else
  (void)m, (void)n, (void)k;
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
  if (agl_gemm_current() != &agl_gemm_portable)
    return quad_kernel(agl_s8_kernel_avx2);
#endif
  return quad_kernel(agl_s8_kernel_portable);
}

/* The cache blocking: the float GEMM's model, or for AMX its own (both
 * overridden by a requested one's sizes). AMX keeps a tile's sums in its
 * registers through one depth block and pays for every block boundary (the
 * tiles drain to memory, the next block's partial sums come back from C),
 * so its blocks run as deep as 4096 bytes and the widths follow: kc x nc of
 * B and mc x kc of A a quarter of the L2 each. On Sapphire Rapids at 2048^3
 * (kc 512, nc 256, mc 256) that ran 6-20% faster than the float model's
 * kc 576, nc 672 in interleaved runs; shallower blocks that keep A in the
 * L1 ran slower, their partial sums' round trip through C costing more. */
static agl_block_sizes s8_block_sizes(const agl_s8_kernel *kernel, int64_t k,
                                      const agl_gemm_blocking *request) {
#if defined(AGL_HAVE_AVX512_KERNELS)
  if (kernel->run == agl_s8_kernel_amx) {
    enum { MAX_QUADS = 1024 };
    const int64_t quads = agl_ceil_div(k, 4);
    agl_block_sizes s;
    s.kc = quads < MAX_QUADS ? quads : MAX_QUADS;
    const int64_t quarter = agl_l2_bytes() / 4 / (4 * s.kc) / 32 * 32;
    s.nc = s.mc = quarter > 32 ? quarter : 32;
    return agl_requested_sizes(s, request);
  }
#else
  (void)kernel, (void)k;
#endif
  return agl_gemm_block_sizes(agl_gemm_current(), request);
}

/* Every entry point: quantize 0 with 4-byte C, 1 with uint8 C; transposed
 * with int32 C, c_row_stride then its column stride. */
static void gemm_u8s8(int64_t batch, int64_t m, int64_t n, int64_t k,
                      const uint8_t *a, int64_t a_batch_stride,
                      int64_t a_row_stride, int32_t a_zero_point,
                      const void *packed_b, void *c, int64_t c_batch_stride,
                      int64_t c_row_stride, float alpha, const float *scale,
                      const float *bias, int32_t activation,
                      const float *residual, int64_t residual_batch_stride,
                      int64_t residual_row_stride, int quantize,
                      float out_scale, int32_t out_zero_point, int transposed,
                      const agl_gemm_blocking *blocking) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  agl_activation_parts act = agl_split_activation(activation);
  if (!scale) { /* int32 output: no epilogue */
    bias = residual = NULL;
    act.act = AGL_ACT_NONE;
  }
  const int64_t c_elem = quantize ? 1 : 4;
  if (k <= 0) {
    /* The epilogue of a zero sum. */
    for (int64_t bt = 0; bt < batch; ++bt)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          unsigned char *cij =
              (unsigned char *)c +
              (bt * c_batch_stride + c_offset(transposed, c_row_stride, i, j)) *
                  c_elem;
          if (!scale) {
            memset(cij, 0, 4);
            continue;
          }
          float x = bias ? bias[j] : 0.0f;
          x = agl_activate_scalar(x, act.act);
          if (residual)
            x = agl_residual_scalar(x,
                                    residual[bt * residual_batch_stride +
                                             i * residual_row_stride + j],
                                    act.gated, act.gate_act);
          if (quantize)
            *cij = agl_quantize_u8(x, out_scale, out_zero_point);
          else
            memcpy(cij, &x, 4);
        }
    return;
  }
  s8_args g = {.batch = batch,
               .m = m,
               .n = n,
               .k = k,
               .a = a,
               .a_bs = a_batch_stride,
               .a_rs = a_row_stride,
               .zero_point = a_zero_point,
               .b = packed_b,
               .panel_bytes = agl_s8_panel_bytes(k),
               .c = c,
               .c_bs = c_batch_stride,
               .c_rs = c_row_stride,
               .c_elem = c_elem,
               .alpha = alpha,
               .scale = scale,
               .bias = bias,
               .act = act.act,
               .residual = residual,
               .res_bs = residual_batch_stride,
               .res_rs = residual_row_stride,
               .gated = act.gated,
               .gate_act = act.gate_act,
               .quantize = quantize,
               .out_scale = out_scale,
               .out_zero_point = out_zero_point,
               .transposed = transposed,
               .kernel = s8_kernel(m, n, k)};
  agl_block_sizes sizes = s8_block_sizes(&g.kernel, k, blocking);
  g.kc = sizes.kc > 0 ? sizes.kc : 1;
  g.nc = sizes.nc / AGL_S8_PACKED_NR * AGL_S8_PACKED_NR;
  if (g.nc < AGL_S8_PACKED_NR)
    g.nc = AGL_S8_PACKED_NR;
  /* The packed A block (mc rows of kc quads, whole panels) takes what the
   * float GEMM's A block takes: at most kc * mc floats of the packing
   * memory. */
  const agl_s8_kernel *kernel = &g.kernel;
  const int mr = kernel->mr;
  g.mc = sizes.mc / mr * mr;
  if (g.mc < mr)
    g.mc = mr;
  const int64_t room = (int64_t)(AGL_SCRATCH_FLOATS * sizeof(float));
  if (quantize || transposed) {
    /* One block of every depth: as many rows as then fit (kc 0 where not
     * even one panel does, which s8_tasks takes to plain loops). */
    g.kc = agl_ceil_div(k, 4);
    int64_t fit = room / packed_panel_bytes(kernel, g.kc) * mr;
    if (fit < mr)
      g.kc = 0;
    else if (g.mc > fit)
      g.mc = fit;
  } else if (g.mc / mr * packed_panel_bytes(kernel, g.kc) > room) {
    g.mc = mr;
    if (packed_panel_bytes(kernel, g.kc) > room)
      g.kc = (room / mr - 128) / 4; /* a row: 4 kc bytes, 128 of padding */
  }
  int threads = agl_pool_acquire();
  if (threads <= 0) {
    s8_run(&g, 1); /* nested in a parallel region, or no pool memory */
    return;
  }
  s8_run(&g, threads);
  agl_pool_release();
}

void agl_kernel_gemm_u8s8(int64_t batch, int64_t m, int64_t n, int64_t k,
                          const uint8_t *a, int64_t a_batch_stride,
                          int64_t a_row_stride, int32_t a_zero_point,
                          const void *packed_b, void *c,
                          int64_t c_batch_stride, int64_t c_row_stride,
                          float alpha, const float *scale, const float *bias,
                          int32_t activation, const float *residual,
                          int64_t residual_batch_stride,
                          int64_t residual_row_stride,
                          const agl_gemm_blocking *blocking) {
  gemm_u8s8(batch, m, n, k, a, a_batch_stride, a_row_stride, a_zero_point,
            packed_b, c, c_batch_stride, c_row_stride, alpha, scale, bias,
            activation, residual, residual_batch_stride, residual_row_stride, 0,
            1.0f, 0, 0, blocking);
}

void agl_kernel_gemm_u8s8_requantize(
    int64_t batch, int64_t m, int64_t n, int64_t k, const uint8_t *a,
    int64_t a_batch_stride, int64_t a_row_stride, int32_t a_zero_point,
    const void *packed_b, uint8_t *c, int64_t c_batch_stride,
    int64_t c_row_stride, float alpha, const float *scale, const float *bias,
    int32_t activation, const float *residual, int64_t residual_batch_stride,
    int64_t residual_row_stride, float out_scale, int32_t out_zero_point,
    const agl_gemm_blocking *blocking) {
  if (!scale)
    return; /* documented as required: nothing to quantize */
  gemm_u8s8(batch, m, n, k, a, a_batch_stride, a_row_stride, a_zero_point,
            packed_b, c, c_batch_stride, c_row_stride, alpha, scale, bias,
            activation, residual, residual_batch_stride, residual_row_stride, 1,
            out_scale, out_zero_point, 0, blocking);
}

void agl_kernel_gemm_u8s8_transposed(
    int64_t batch, int64_t m, int64_t n, int64_t k, const uint8_t *a,
    int64_t a_batch_stride, int64_t a_row_stride, int32_t a_zero_point,
    const void *packed_b, int32_t *c, int64_t c_batch_stride,
    int64_t c_col_stride, const agl_gemm_blocking *blocking) {
  gemm_u8s8(batch, m, n, k, a, a_batch_stride, a_row_stride, a_zero_point,
            packed_b, c, c_batch_stride, c_col_stride, 1.0f, NULL, NULL,
            AGL_ACT_NONE, NULL, 0, 0, 0, 1.0f, 0, 1, blocking);
}
