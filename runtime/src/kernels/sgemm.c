/* agl_kernel_sgemm: argument handling, the choice between the small-m path
 * and the packed (Goto/BLIS) path, and the split of the work over the pool.
 *
 * Packed path, for one task (a batch entry's rows [i0, i1) x columns
 * [j0, j1)):
 *   for each MC block of rows, for each KC block of depth:
 *     pack A (MC x KC) into micro-panels of MR rows          -> L3
 *     for each NC block of columns:
 *       pack B (KC x NC) into micro-panels of NR columns      -> L2
 *       for each A micro-panel (MR x KC, stays in L1):
 *         for each B micro-panel: micro-kernel MR x NR
 * The micro-kernel adds into C after the first KC block and applies the
 * activation on the last one. Packing zero-pads the edges, the micro-kernel
 * stores partial tiles with masks. */
#include "kernels_internal.h"

#include <stdatomic.h>
#include <string.h>

#if defined(AGL_HAVE_AVX512_KERNELS)
static int cpu_has_avx512(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma");
}
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
static int cpu_has_avx2(void) {
  __builtin_cpu_init();
  /* F16C too: the IEEE half weights' kernels (every AVX2 CPU has it). */
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
}
#endif

static const agl_gemm_isa *_Atomic g_isa;

const agl_gemm_isa *agl_gemm_select(int which) {
  const agl_gemm_isa *isa = &agl_gemm_portable;
  if (which != 1) {
#if defined(AGL_HAVE_AVX2_KERNELS)
    if (cpu_has_avx2())
      isa = &agl_gemm_avx2;
#endif
#if defined(AGL_HAVE_AVX512_KERNELS)
    if (which != 3 && cpu_has_avx512())
      isa = &agl_gemm_avx512;
#endif
  }
  atomic_store(&g_isa, isa);
  return isa;
}

const agl_gemm_isa *agl_gemm_current(void) {
  const agl_gemm_isa *isa = atomic_load_explicit(&g_isa, memory_order_acquire);
  return isa ? isa : agl_gemm_select(0);
}

void agl_kernel_sgemm_describe(agl_sgemm_plan *out) {
  if (!out)
    return;
  const agl_gemm_isa *isa = agl_gemm_current();
  out->isa = isa->name;
  out->mr = isa->mr;
  out->nr = isa->nr;
  agl_block_sizes sizes = agl_gemm_block_sizes(isa, NULL);
  out->kc = (int32_t)sizes.kc;
  out->nc = (int32_t)sizes.nc;
  out->mc = (int32_t)sizes.mc;
  agl_cache_sizes(&out->l1d_bytes, &out->l2_bytes, &out->l3_bytes);
}

typedef agl_gemm_args gemm_args;

/* ---- packed path -------------------------------------------------------- */

/* The epilogue of batch entry bt in C's coordinates (i, j). */
static agl_epilogue epilogue_at(const gemm_args *g, int64_t bt) {
  return (agl_epilogue){.load_c = g->accumulate,
                        .act = g->act,
                        .alpha = g->alpha,
                        .bias = g->bias ? g->bias + bt * g->bias_bs : NULL,
                        .bias_cs = 1,
                        .residual =
                            g->residual ? g->residual + bt * g->res_bs : NULL,
                        .res_rs = g->c_transposed ? 1 : g->res_rs,
                        .res_cs = g->c_transposed ? g->res_rs : 1,
                        .residual_first = g->residual_first,
                        .gated = g->gated,
                        .gate_act = g->gate_act};
}

/* The ahead-of-time panel of B that holds column `col`, from depth pc on:
 * element (col + t, pc + p) is at data[t + p * cs], cs being the panel's
 * width (32, or with packed_b_exact, the columns left for the last one). */
static agl_view packed_panel(const gemm_args *g, const float *packed_b,
                             int64_t col, int64_t pc) {
  const int64_t pnr = AGL_SGEMM_PACKED_NR;
  int64_t panel = col / pnr, width = pnr;
  if (g->packed_b_exact && panel == g->n / pnr)
    width = g->n % pnr;
  return (agl_view){packed_b + panel * pnr * g->k + pc * width + col % pnr, 1,
                    width};
}

/* A's element (i, p) from its ahead-of-time panels (zero past m). */
static float packed_a_at(const float *packed_a, int64_t k, int64_t i,
                         int64_t p) {
  const int64_t pmr = AGL_CONV_WINOGRAD_PANEL;
  return packed_a[i / pmr * k * pmr + p * pmr + i % pmr];
}

/* Rows [ic, ic + mc) x depths [pc, pc + kc) of an A packed ahead of time in
 * panels of 14 rows, repacked into panels of the micro-kernel's mr rows
 * (zero past m). */
static void repack_a(const float *packed_a, int64_t m, int64_t k, int64_t ic,
                     int64_t mc, int64_t pc, int64_t kc, int mr, float *dst) {
  for (int64_t ir = 0; ir < mc; ir += mr)
    for (int64_t p = 0; p < kc; ++p)
      for (int t = 0; t < mr; ++t) {
        const int64_t i = ic + ir + t;
        *dst++ = ir + t < mc && i < m ? packed_a_at(packed_a, k, i, pc + p)
                                      : 0.0f;
      }
}

/* The height of the MC blocks of `rows` rows: equal blocks (in whole
 * micro-panels), as few as the blocking allows. */
static int64_t mc_block(const gemm_args *g, int64_t rows) {
  const int mr = g->isa->mr;
  const int64_t panels = agl_ceil_div(rows, mr);
  const int64_t blocks = agl_ceil_div(panels, g->block.mc / mr);
  return agl_ceil_div(panels, blocks) * mr;
}

/* The first row of micro-panel q in a block of mc rows: balanced heights
 * (agl_panel_start), except where A lies in place in panels of 14 rows. */
static int64_t panel_row(int in_place, int64_t mc, int64_t panels, int mr,
                         int64_t q) {
  if (in_place)
    return q * mr < mc ? q * mr : mc;
  return agl_panel_start(mc, panels, q);
}

/* Share `share` of `shares` of a block of B packed ahead of time (columns
 * [jc, jc + nc), depths [pc, pc + kc)), as the cache lines a tile fetches
 * into the L2 while it computes (agl_epilogue.prefetch, agl_prefetch_share).
 * In each 32-column panel those depths lie together, 2 * kc lines. The last
 * panel of an exact packing (narrower, laid out otherwise) is left to the
 * kernel. */
static agl_epilogue with_prefetch(agl_epilogue e, const gemm_args *g,
                                  const float *packed_b, int64_t jc, int64_t nc,
                                  int64_t pc, int64_t kc, int64_t share,
                                  int64_t shares) {
  const int64_t pnr = AGL_SGEMM_PACKED_NR;
  const int64_t first = jc / pnr;
  int64_t end = agl_ceil_div(jc + nc, pnr);
  if (g->packed_b_exact && end > g->n / pnr)
    end = g->n / pnr;
  int64_t panel, from, to;
  if (!agl_prefetch_share(end - first, 2 * kc, share, shares, &panel, &from,
                          &to))
    return e;
  e.prefetch = (const char *)(packed_b + (first + panel) * pnr * g->k +
                              pc * pnr) +
               from * 64;
  e.prefetch_lines = to - from;
  return e;
}

static void gemm_tile(const gemm_args *g, int64_t batch, int64_t i0,
                      int64_t i1, int64_t j0, int64_t j1, float *scratch) {
  const agl_gemm_isa *isa = g->isa;
  const int mr = isa->mr, nr = isa->nr;
  const int64_t KC = g->block.kc;
  const int64_t mc_max = mc_block(g, i1 - i0);
  const int64_t rows_max = i1 - i0 < mc_max ? i1 - i0 : mc_max;
  const float *packed_b = g->packed_b ? g->packed_b + batch * g->b_bs : NULL;
  /* B packed ahead of time in panels this kernel's divide: read in place. */
  const int b_in_place = packed_b && AGL_SGEMM_PACKED_NR % nr == 0;
  const int64_t NC = g->blocking && g->blocking->nc > 0
                         ? g->block.nc
                         : agl_gemm_column_block(
                               g->block.nc, KC, rows_max, agl_system_l2_bytes(),
                               nr, b_in_place && rows_max > mr ? 2 : 1);
  /* B's block first: kc x nc, a multiple of 32 floats, keeps A's aligned. */
  float *bp = scratch;
  float *ap = scratch + KC * NC;
  const float *a = g->a ? g->a + batch * g->a_bs : NULL;
  const float *packed_a = g->packed_a ? g->packed_a + batch * g->a_bs : NULL;
  const int64_t pmr = AGL_CONV_WINOGRAD_PANEL;
  const int a_in_place = packed_a && mr == pmr;
  /* Rows of A contiguous along k are read in place rather than packed when
   * packing would cost much next to the work (few columns per A panel),
   * unless their stride is a multiple of 4 KiB, where the 14 rows would
   * fall into the same L1 sets. */
  const int direct = a && isa->direct_a && g->a_cs == 1 && g->a_rs > 0 &&
                     j1 - j0 <= NC && g->a_rs % 1024 != 0;
  const float *b = g->b ? g->b + batch * g->b_bs : NULL;
  const agl_microkernel_fn kernel = g->c_transposed ? isa->kernel_t
                                                    : isa->kernel;
  float *c = g->c + batch * g->c_bs;
  /* The product's epilogue in C's coordinates (i, j) of this batch entry;
   * agl_epilogue_tile gives each tile's. */
  const agl_epilogue whole = epilogue_at(g, batch);

  /* The shared path computes the one block of A the threads packed. */
  const int64_t ic_begin = g->shared_a ? g->shared_ic : i0,
                ic_end = g->shared_a ? g->shared_ic + g->shared_mc : i1,
                pc_begin = g->shared_a ? g->shared_pc : 0,
                pc_end = g->shared_a ? g->shared_pc + g->shared_kc : g->k;
  for (int64_t ic = ic_begin; ic < ic_end; ic += mc_max) {
    int64_t mc = ic_end - ic < mc_max ? ic_end - ic : mc_max;
    for (int64_t pc = pc_begin; pc < pc_end; pc += KC) {
      int64_t kc = pc_end - pc < KC ? pc_end - pc : KC;
      /* The bias goes in with the first depth block, the activation and
       * the residual with the last. */
      const int first = pc == 0, last = pc + kc == g->k;
      agl_view av = {a ? a + ic * g->a_rs + pc * g->a_cs : NULL, g->a_rs,
                     g->a_cs};
      const int64_t panels = agl_ceil_div(mc, mr);
      if (g->shared_a) {
        /* Packed by all threads before: the depth blocks in turn. */
        ap = (float *)g->shared_a + (pc - pc_begin) * panels * mr;
      } else if (!a_in_place && (g->pack_a_block || packed_a || !direct)) {
        for (int64_t q = 0; q < panels; ++q) {
          const int64_t r0 = agl_panel_start(mc, panels, q);
          const int64_t h = agl_panel_start(mc, panels, q + 1) - r0;
          float *dst = ap + q * kc * mr;
          if (g->pack_a_block)
            g->pack_a_block(g->pack_a_ctx, batch, ic + r0, h, pc, kc, mr, dst);
          else if (packed_a)
            repack_a(packed_a, g->m, g->k, ic + r0, h, pc, kc, mr, dst);
          else
            isa->pack_a((agl_view){av.data + r0 * g->a_rs, g->a_rs, g->a_cs}, h,
                        kc, mr, dst);
        }
      }
      for (int64_t jc = j0; jc < j1; jc += NC) {
        int64_t nc = j1 - jc < NC ? j1 - jc : NC;
        /* B's micro-panels left of column `in_place_end` are read where
         * they were packed ahead of time, the others from bp (nr wide
         * each). */
        int64_t in_place_end = 0;
        if (b_in_place) {
          /* Packed in panels this kernel's divide: read in place, except
           * from an exact last panel (narrower, so its depths lie closer):
           * its micro-panels are copied out, zero-padded. */
          in_place_end = jc + nc;
          const int64_t tail = g->n / AGL_SGEMM_PACKED_NR * AGL_SGEMM_PACKED_NR;
          if (g->packed_b_exact && tail < jc + nc) {
            in_place_end = tail > jc ? tail : jc;
            for (int64_t jr = in_place_end - jc; jr < nc; jr += nr) {
              agl_view pv = packed_panel(g, packed_b, jc + jr, pc);
              int64_t live = pv.cs - (jc + jr) % AGL_SGEMM_PACKED_NR;
              float *dst = bp + jr / nr * kc * nr;
              for (int64_t p = 0; p < kc; ++p)
                for (int t = 0; t < nr; ++t)
                  dst[p * nr + t] = t < live ? pv.data[p * pv.cs + t] : 0.0f;
            }
          }
        } else if (packed_b) {
          /* Another panel width: repack from the ahead-of-time panels, a
           * k x 32 row-major block each. */
          for (int64_t q = 0; q < nc;) {
            agl_view pv = packed_panel(g, packed_b, jc + q, pc);
            int64_t width = pv.cs - (jc + q) % AGL_SGEMM_PACKED_NR;
            if (width > nc - q)
              width = nc - q;
            isa->pack_b(pv, width, kc, nr, bp + q * kc);
            q += width;
          }
        } else {
          /* B's columns are the rows being packed. */
          agl_view bv = {b + pc * g->b_rs + jc * g->b_cs, g->b_cs, g->b_rs};
          isa->pack_b(bv, nc, kc, nr, bp);
        }
        /* B's block after this one, where it lies packed ahead of time:
         * the A panels after the first find this block in the L2 and
         * fetch that one meanwhile, a share per tile, so that the next
         * block's first A panel does not wait on memory. That panel would
         * read B at 128 bytes per 14 cycles, faster than one core's misses
         * bring it in: the GLM layer's 128 x 3072 x 1024 product with its
         * weights out of cache ran at 138 GFLOP/s, 156 with them in (and
         * with this prefetch), on a Xeon with a 2 MiB L2. */
        int64_t next_jc = jc + NC, next_pc = pc;
        if (next_jc >= j1) {
          next_jc = j0;
          next_pc = pc + KC < pc_end   ? pc + KC
                    : ic + mc < ic_end ? pc_begin
                                       : -1;
        }
        const int prefetch_next = b_in_place && next_pc >= 0 && panels > 1;
        const int64_t next_kc = pc_end - next_pc < KC ? pc_end - next_pc : KC;
        const int64_t next_nc = j1 - next_jc < NC ? j1 - next_jc : NC;
        const int64_t tiles_per_panel = agl_ceil_div(nc, nr);
        for (int64_t q = 0; q < panels; ++q) {
          const int64_t ir = panel_row(a_in_place, mc, panels, mr, q);
          const int rows =
              (int)(panel_row(a_in_place, mc, panels, mr, q + 1) - ir);
          const float *apanel =
              a_in_place ? packed_a + (ic + ir) / pmr * g->k * pmr + pc * pmr
              : direct   ? av.data + ir * g->a_rs
                         : ap + q * kc * mr;
          for (int64_t jr = 0; jr < nc; jr += nr) {
            int cols = nc - jr < nr ? (int)(nc - jr) : nr;
            /* C's tile (i, j), its bias and residual. */
            float *tile = g->c_transposed
                              ? c + (jc + jr) * g->c_rs + ic + ir
                              : c + (ic + ir) * g->c_rs + jc + jr;
            agl_epilogue e =
                agl_epilogue_tile(&whole, ic + ir, jc + jr, first, last);
            if (prefetch_next && q > 0)
              e = with_prefetch(e, g, packed_b, next_jc, next_nc, next_pc,
                                next_kc, (q - 1) * tiles_per_panel + jr / nr,
                                (panels - 1) * tiles_per_panel);
            const int64_t col = jc + jr;
            const float *bpanel = bp + jr / nr * kc * nr;
            int64_t ldb = nr;
            if (col < in_place_end) {
              const int64_t pnr = AGL_SGEMM_PACKED_NR;
              bpanel = packed_b + col / pnr * g->k * pnr + pc * pnr + col % pnr;
              ldb = pnr;
            }
            kernel(kc, apanel, direct ? g->a_rs : 0, bpanel, ldb, tile, g->c_rs,
                   rows, cols, &e);
          }
        }
      }
    }
  }
}

static void packed_tasks(void *raw, int64_t begin, int64_t end) {
  const gemm_args *g = raw;
  float *scratch = agl_pool_scratch();
  int64_t per_batch = g->mt * g->nt;
  for (int64_t t = begin; t < end; ++t) {
    int64_t batch = t / per_batch, r = t % per_batch;
    int64_t i0 = r / g->nt * g->m_step, j0 = r % g->nt * g->n_step;
    int64_t i1 = i0 + g->m_step < g->m ? i0 + g->m_step : g->m;
    int64_t j1 = j0 + g->n_step < g->n ? j0 + g->n_step : g->n;
    if (i0 < i1 && j0 < j1)
      gemm_tile(g, batch, i0, i1, j0, j1, scratch);
  }
}

/* The shared path: where the task grid splits only the columns (mt == 1)
 * of one product whose A is packed block by block (a convolution's
 * windows), every task would pack all of A for itself, the same blocks on
 * every thread: at 2 threads about a fifth of resnet224's 14x14 and 7x7
 * layers. Here the threads pack blocks of A together into thread 0's
 * packing memory, then compute them, column tiles as before: two phases
 * for as many depth blocks as that memory holds (7x7 x 512 filters: all 8
 * at once; 14x14 x 256: 3 of 4), not for each, each phase ending where its
 * slowest thread does. */
typedef struct shared_pack {
  const gemm_args *g;
  float *ap;
  int64_t ic, mc, pc, depth; /* rows [ic, ic + mc), depths [pc, pc + depth) */
} shared_pack;

/* Tasks [t0, t1): task t packs micro-panel t % panels of the phase's depth
 * block t / panels, laid out as gemm_tile reads it: each block's panels in
 * turn, every block before the last KC deep. */
static void pack_shared(void *raw, int64_t t0, int64_t t1) {
  const shared_pack *s = raw;
  const int mr = s->g->isa->mr;
  const int64_t KC = s->g->block.kc;
  const int64_t panels = agl_ceil_div(s->mc, mr);
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t block = t / panels, q = t % panels;
    const int64_t pc = s->pc + block * KC;
    const int64_t kc = s->pc + s->depth - pc < KC ? s->pc + s->depth - pc : KC;
    const int64_t r0 = agl_panel_start(s->mc, panels, q);
    s->g->pack_a_block(s->g->pack_a_ctx, 0, s->ic + r0,
                       agl_panel_start(s->mc, panels, q + 1) - r0, pc, kc, mr,
                       s->ap + block * panels * mr * KC + q * kc * mr);
  }
}

static int shares_a(const gemm_args *g, int threads) {
  return threads > 1 && g->batch == 1 && g->mt == 1 && g->nt > 1 &&
         g->pack_a_block;
}

static void shared_a_run(gemm_args *g, int threads) {
  const int mr = g->isa->mr;
  const int64_t KC = g->block.kc;
  /* gemm_tile's MC blocks of rows [0, m), which its tiles also take. */
  const int64_t mc_max = mc_block(g, g->m);
  const int64_t room = (int64_t)AGL_SCRATCH_FLOATS - KC * g->block.nc;
  shared_pack s = {g, agl_pool_scratch() + KC * g->block.nc, 0, 0, 0, 0};
  for (s.ic = 0; s.ic < g->m; s.ic += mc_max) {
    s.mc = g->m - s.ic < mc_max ? g->m - s.ic : mc_max;
    const int64_t panels = agl_ceil_div(s.mc, mr);
    /* mc <= the blocking's mc: one depth block always fits. */
    int64_t per_phase = room / (panels * mr * KC);
    if (per_phase < 1)
      per_phase = 1;
    for (s.pc = 0; s.pc < g->k; s.pc += per_phase * KC) {
      s.depth = g->k - s.pc < per_phase * KC ? g->k - s.pc : per_phase * KC;
      const int64_t tasks = panels * agl_ceil_div(s.depth, KC);
      agl_pool_run(tasks, tasks < threads ? tasks : threads, pack_shared, &s);
      g->shared_ic = s.ic;
      g->shared_mc = s.mc;
      g->shared_pc = s.pc;
      g->shared_kc = s.depth;
      g->shared_a = s.ap;
      agl_pool_run(g->nt, g->nt, packed_tasks, g);
      g->shared_a = NULL;
    }
  }
}

/* Picks the task grid for `threads` threads: tiles of whole micro-panels,
 * scored by the most work one thread gets (padded multiply-adds, plus
 * packing, which measures about 2 cycles, 32 multiply-add lanes, per
 * element) plus a quarter task. */
static void plan_packed(gemm_args *g, int threads) {
  const int mr = g->isa->mr, nr = g->isa->nr;
  int64_t mp = agl_ceil_div(g->m, mr), np = agl_ceil_div(g->n, nr);
  g->mt = 1;
  g->nt = 1;
  if (threads > 1) {
    double best = -1;
    int64_t limit = 4 * (int64_t)threads;
    for (int64_t mt = 1; mt <= limit && mt <= mp; ++mt)
      for (int64_t nt = 1; nt <= limit && nt <= np; ++nt) {
        int64_t tm = agl_ceil_div(mp, mt) * mr, tn = agl_ceil_div(np, nt) * nr;
        /* Tiles that would be empty are not counted as work. */
        int64_t used_mt = agl_ceil_div(mp, agl_ceil_div(mp, mt));
        int64_t used_nt = agl_ceil_div(np, agl_ceil_div(np, nt));
        int64_t tasks = g->batch * used_mt * used_nt;
        int64_t per_thread = agl_ceil_div(tasks, threads);
        double mc_blocks = (double)agl_ceil_div(tm, g->block.mc);
        double cost =
            (double)tm * tn * g->k +
            32.0 * ((double)tm * g->k + (double)g->k * tn * mc_blocks) +
            2000.0; /* per-task overhead */
        /* Chunks are claimed dynamically: the +1 stands for the tail (one
         * task's worth of imbalance when a thread starts late), which
         * favours more, smaller tasks as long as packing stays cheap. */
        cost *= (double)per_thread + 0.05;
        if (best < 0 || cost < best * 0.999) {
          best = cost;
          g->mt = used_mt;
          g->nt = used_nt;
        }
      }
  }
  g->m_step = agl_ceil_div(mp, g->mt) * mr;
  g->n_step = agl_ceil_div(np, g->nt) * nr;
}

/* ---- small-m path --------------------------------------------------------- */

/* A product with few rows (or, transposed, few columns) streams the other
 * operand once: the task grid is batch x column chunks. */
typedef struct small_args {
  gemm_args g; /* in the small problem's orientation */
  int64_t c_cs;
  /* The epilogue in that orientation, at batch entry 0. */
  agl_epilogue e;
  int64_t chunk; /* columns per task */
} small_args;

static void small_tasks(void *raw, int64_t begin, int64_t end) {
  small_args *s = raw;
  const gemm_args *g = &s->g;
  float *rows = agl_pool_scratch();
  int64_t packed_batch = -1;
  for (int64_t t = begin; t < end; ++t) {
    int64_t batch = t / g->nt, j0 = t % g->nt * s->chunk;
    int64_t j1 = j0 + s->chunk < g->n ? j0 + s->chunk : g->n;
    agl_view a = {g->a + batch * g->a_bs, g->a_rs, g->a_cs};
    float *c = g->c + batch * g->c_bs;
    agl_epilogue e = s->e;
    if (e.bias)
      e.bias += batch * g->bias_bs;
    if (e.residual)
      e.residual += batch * g->res_bs;
    if (g->packed_b && g->isa->small_packed) {
      const int64_t pnr = AGL_SGEMM_PACKED_NR;
      g->isa->small_packed(g->m, j0 / pnr, agl_ceil_div(j1, pnr), j1, g->k, a,
                           g->packed_b + batch * g->b_bs, c, g->c_rs, &e);
      continue;
    }
    if (g->packed_b) {
      /* Each ahead-of-time panel is a k x 32 row-major block of B. */
      const int pnr = AGL_SGEMM_PACKED_NR;
      for (int64_t j = j0; j < j1; j += pnr) {
        agl_view b = {g->packed_b + j / pnr * g->k * pnr, pnr, 1};
        int64_t width = j1 - j < pnr ? j1 - j : pnr;
        agl_epilogue ej = e;
        if (ej.bias)
          ej.bias += j * ej.bias_cs;
        if (ej.residual)
          ej.residual += j * ej.res_cs;
        g->isa->small(g->m, 0, width, g->k, a, b, c + j, g->c_rs, 1, &ej);
      }
      continue;
    }
    if (g->b_cs != 1 && g->a_cs != 1) {
      /* Dot products want A's few rows contiguous: copy them (m x k). */
      if (packed_batch < 0 || (batch != packed_batch && g->a_bs != 0))
        for (int64_t i = 0; i < g->m; ++i)
          for (int64_t p = 0; p < g->k; ++p)
            rows[i * g->k + p] = a.data[i * a.rs + p * a.cs];
      packed_batch = batch;
      a = (agl_view){rows, g->k, 1};
    }
    agl_view b = {g->b + batch * g->b_bs, g->b_rs, g->b_cs};
    g->isa->small(g->m, j0, j1, g->k, a, b, c, g->c_rs, s->c_cs, &e);
  }
}

/* Whether the small path takes this problem, which it then orients so that
 * the few rows are its m. */
static int plan_small(const gemm_args *g, small_args *s) {
  if (!g->isa->small || g->k == 0 || g->pack_a_block || g->packed_a ||
      g->c_transposed)
    return 0;
  s->g = *g;
  s->c_cs = 1;
  s->e = (agl_epilogue){.load_c = g->accumulate,
                        .act = g->act,
                        .alpha = g->alpha,
                        .bias = g->bias,
                        .bias_rs = 0,
                        .bias_cs = 1,
                        .residual = g->residual,
                        .res_rs = g->res_rs,
                        .res_cs = 1,
                        .gated = g->gated,
                        .gate_act = g->gate_act};
  if (g->packed_b)
    return g->m <= 4; /* the panels are rows of B: only that orientation */
  if (g->m > 4) {
    if (g->n > 4)
      return 0;
    /* C^T = B^T A^T: rows of C become columns. */
    s->g.m = g->n;
    s->g.n = g->m;
    s->g.a = g->b;
    s->g.a_bs = g->b_bs;
    s->g.a_rs = g->b_cs;
    s->g.a_cs = g->b_rs;
    s->g.b = g->a;
    s->g.b_bs = g->a_bs;
    s->g.b_rs = g->a_cs;
    s->g.b_cs = g->a_rs;
    s->g.c_rs = 1;
    s->c_cs = g->c_rs;
    s->e.bias_rs = 1;
    s->e.bias_cs = 0;
    s->e.res_rs = 1;
    s->e.res_cs = g->res_rs;
  }
  /* The small kernels read B along rows (unit column stride) or along
   * columns (unit row stride; A's rows are then copied into the packing
   * memory unless they are contiguous already). */
  const gemm_args *o = &s->g;
  if (o->b_cs == 1)
    return 1;
  return o->b_rs == 1 &&
         (o->a_cs == 1 || (size_t)(4 * o->k) <= AGL_SCRATCH_FLOATS);
}

/* ---- entry ---------------------------------------------------------------- */

/* A's element (i, p) of batch entry bt, except from pack_a_block. */
static float a_at(const gemm_args *g, int64_t bt, int64_t i, int64_t p) {
  if (g->packed_a)
    return packed_a_at(g->packed_a + bt * g->a_bs, g->k, i, p);
  return g->a[bt * g->a_bs + i * g->a_rs + p * g->a_cs];
}

/* B's element (p, j) of batch entry bt. */
static float b_at(const gemm_args *g, int64_t bt, int64_t p, int64_t j) {
  if (g->packed_b)
    return packed_panel(g, g->packed_b + bt * g->b_bs, j, p).data[0];
  return g->b[bt * g->b_bs + p * g->b_rs + j * g->b_cs];
}

/* C's element (i, j) of batch entry bt. */
static float *c_at(const gemm_args *g, int64_t bt, int64_t i, int64_t j) {
  float *c = g->c + bt * g->c_bs;
  return g->c_transposed ? c + j * g->c_rs + i : c + i * g->c_rs + j;
}

/* Without pool memory (it could not be allocated): plain loops, over A's
 * rows packed a few depths at a time when pack_a_block makes them. */
static void gemm_unpacked(const gemm_args *g) {
  enum { DEPTHS = 64 };
  float row[DEPTHS];
  for (int64_t bt = 0; bt < g->batch; ++bt) {
    agl_epilogue e = epilogue_at(g, bt);
    for (int64_t i = 0; i < g->m; ++i)
      for (int64_t j = 0; j < g->n; ++j) {
        float *cij = c_at(g, bt, i, j);
        float sum = 0.0f;
        for (int64_t p0 = 0; p0 < g->k; p0 += DEPTHS) {
          int64_t kc = g->k - p0 < DEPTHS ? g->k - p0 : DEPTHS;
          if (g->pack_a_block)
            g->pack_a_block(g->pack_a_ctx, bt, i, 1, p0, kc, 1, row);
          for (int64_t p = 0; p < kc; ++p)
            sum += (g->pack_a_block ? row[p] : a_at(g, bt, i, p0 + p)) *
                   b_at(g, bt, p0 + p, j);
        }
        *cij = agl_epilogue_scalar(&e, *cij, sum, i, j);
      }
  }
}

static void gemm_run(gemm_args *g, int threads) {
  /* Below about this many multiply-adds per extra thread, waking the
   * workers costs more than it saves. */
  const double min_work_per_thread = 65536.0;
  double work = (double)g->batch * g->m * g->n * g->k;
  int useful = (int)(work / min_work_per_thread) + 1;
  if (threads > useful)
    threads = useful;

  small_args s;
  if (plan_small(g, &s)) {
    /* Column chunks, multiples of 64 columns (whole vectors), about two
     * per thread: claimed dynamically, they balance the load when a thread
     * starts late. */
    int64_t chunks = 1;
    if (threads > 1)
      chunks = agl_ceil_div(2 * (int64_t)threads, s.g.batch);
    s.chunk = agl_ceil_div(agl_ceil_div(s.g.n, chunks), 64) * 64;
    s.g.nt = agl_ceil_div(s.g.n, s.chunk);
    int64_t tasks = s.g.batch * s.g.nt;
    if (threads > 1 && tasks > 1)
      agl_pool_run(tasks, tasks, small_tasks, &s);
    else
      small_tasks(&s, 0, tasks);
    return;
  }

  plan_packed(g, threads);
  if (shares_a(g, threads)) {
    shared_a_run(g, threads);
    return;
  }
  int64_t tasks = g->batch * g->mt * g->nt;
  if (threads > 1 && tasks > 1)
    agl_pool_run(tasks, tasks, packed_tasks, g);
  else
    packed_tasks(g, 0, tasks);
}

void agl_gemm(gemm_args *g) {
  if (g->batch <= 0 || g->m <= 0 || g->n <= 0)
    return;
  const agl_activation_parts act = agl_split_activation(g->act);
  g->act = act.act;
  g->gated = act.gated;
  g->gate_act = act.gate_act;
  const agl_gemm_isa *isa = g->isa = agl_gemm_current();
  agl_gemm_blocking request = {0, 0, 0};
  if (g->blocking)
    request = *g->blocking;
  if (request.kc <= 0)
    request.kc =
        (int32_t)agl_gemm_depth_block(agl_gemm_block_sizes(isa, NULL).kc, g->k);
  g->block = agl_gemm_block_sizes(isa, &request);
  if (g->k <= 0) {
    for (int64_t bt = 0; bt < g->batch; ++bt) {
      agl_epilogue e = epilogue_at(g, bt);
      for (int64_t i = 0; i < g->m; ++i)
        for (int64_t j = 0; j < g->n; ++j) {
          float *cij = c_at(g, bt, i, j);
          *cij = agl_epilogue_scalar(&e, *cij, 0.0f, i, j);
        }
    }
    return;
  }
  int threads = agl_pool_acquire();
  if (threads == 0) {
    gemm_run(g, 1); /* nested in a parallel region */
    return;
  }
  if (threads < 0) {
    gemm_unpacked(g);
    return;
  }
  gemm_run(g, threads);
  agl_pool_release();
}

void agl_kernel_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                      const float *a, int64_t a_batch_stride,
                      int64_t a_row_stride, int64_t a_col_stride,
                      const float *b, int64_t b_batch_stride,
                      int64_t b_row_stride, int64_t b_col_stride, float *c,
                      int64_t c_batch_stride, int64_t c_row_stride,
                      int32_t accumulate, float alpha, const float *bias,
                      int32_t activation, const float *residual,
                      int64_t residual_batch_stride,
                      int64_t residual_row_stride,
                      const agl_gemm_blocking *blocking) {
  gemm_args g = {.batch = batch, .m = m, .n = n, .k = k,
                 .a = a, .a_bs = a_batch_stride, .a_rs = a_row_stride,
                 .a_cs = a_col_stride,
                 .b = b, .b_bs = b_batch_stride, .b_rs = b_row_stride,
                 .b_cs = b_col_stride,
                 .c = c, .c_bs = c_batch_stride, .c_rs = c_row_stride,
                 .alpha = alpha, .bias = bias, .residual = residual,
                 .res_bs = residual_batch_stride,
                 .res_rs = residual_row_stride,
                 .accumulate = accumulate != 0, .act = activation,
                 .blocking = blocking};
  agl_gemm(&g);
}

void agl_kernel_sgemm_packed(int64_t batch, int64_t m, int64_t n, int64_t k,
                             const float *a, int64_t a_batch_stride,
                             int64_t a_row_stride, int64_t a_col_stride,
                             const float *packed_b, float *c,
                             int64_t c_batch_stride, int64_t c_row_stride,
                             int32_t accumulate, float alpha,
                             const float *bias, int32_t activation,
                             const float *residual,
                             int64_t residual_batch_stride,
                             int64_t residual_row_stride,
                             const agl_gemm_blocking *blocking) {
  gemm_args g = {.batch = batch, .m = m, .n = n, .k = k,
                 .a = a, .a_bs = a_batch_stride, .a_rs = a_row_stride,
                 .a_cs = a_col_stride, .packed_b = packed_b,
                 .c = c, .c_bs = c_batch_stride, .c_rs = c_row_stride,
                 .alpha = alpha, .bias = bias, .residual = residual,
                 .res_bs = residual_batch_stride,
                 .res_rs = residual_row_stride,
                 .accumulate = accumulate != 0, .act = activation,
                 .blocking = blocking};
  agl_gemm(&g);
}
