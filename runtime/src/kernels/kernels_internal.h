/* Declarations shared by the kernel sources: the pool's internal interface,
 * the packed-GEMM blocking and the per-ISA kernel tables. Not installed. */
#ifndef AUTOGLM_KERNELS_INTERNAL_H
#define AUTOGLM_KERNELS_INTERNAL_H

#include "../internal.h"
#include "autoglm/kernels.h"

#include <stddef.h>
#include <stdint.h>

/* ---- thread pool ---------------------------------------------------------- */

/* Creates the process-wide pool if there is none yet (with every thread's
 * packing memory). Called by instance creation, so that runs allocate
 * nothing. */
AGL_HIDDEN agl_status agl_pool_ensure(void);

/* A top-level caller takes the pool for the duration of one kernel call
 * (waiting while another thread holds it); the calling thread then is pool
 * thread 0 and owns slot 0's scratch. Returns the number of threads, or 0
 * when this thread is already inside a parallel region (then nothing is
 * taken: run serially with agl_pool_scratch()). */
AGL_HIDDEN int agl_pool_acquire(void);
AGL_HIDDEN void agl_pool_release(void);

/* Brackets a compiled model's run (instance.c): while any run is in
 * progress, idle workers keep spinning instead of going to sleep, so that
 * no kernel of the run waits for a sleeping worker to be woken. */
AGL_HIDDEN void agl_pool_hold(void);
AGL_HIDDEN void agl_pool_unhold(void);
/* How many times a worker has gone to sleep since the process started. */
AGL_HIDDEN int64_t agl_pool_sleeps(void);

/* Runs fn over [0, n) on the acquired pool, split into `chunks` equal
 * contiguous chunks that the threads claim one at a time (so chunks may
 * outnumber threads, and a thread may run several); the caller must hold
 * the pool (agl_pool_acquire returned > 0). */
AGL_HIDDEN void agl_pool_run(int64_t n, int64_t chunks, agl_parallel_fn fn,
                             void *ctx);

/* The packing memory of the calling thread while it runs a kernel on the
 * pool (AGL_SCRATCH_FLOATS floats, 64-byte aligned); null outside. */
AGL_HIDDEN float *agl_pool_scratch(void);

/* ---- packed GEMM ------------------------------------------------------------ */

/* Largest micro-tile of any kernel table. */
enum {
  AGL_GEMM_MAX_MR = 14,
  AGL_GEMM_MAX_NR = 32,
};

/* Each pool thread's packing memory (public, for tuning). 626688 floats
 * hold the blocking measured best on Zen 4 with the AVX-512 micro-kernel:
 * kc 384 x (mc 1120 + nc 512). */
#define AGL_SCRATCH_FLOATS ((size_t)AGL_GEMM_SCRATCH_FLOATS)

/* The blocking of one product, in elements: mc and nc whole micro-panels. */
typedef struct agl_block_sizes {
  int64_t kc, nc, mc;
} agl_block_sizes;

struct agl_gemm_isa;
/* The cache blocking for `isa` (blocking.c): the cost model's, with the
 * fields that `request` sets (when not null) taken from it, all fitted into
 * the packing memory. */
AGL_HIDDEN agl_block_sizes agl_gemm_block_sizes(
    const struct agl_gemm_isa *isa, const agl_gemm_blocking *request);
/* `sizes` with the fields that `request` sets (when not null) from it. */
AGL_HIDDEN agl_block_sizes
agl_requested_sizes(agl_block_sizes sizes, const agl_gemm_blocking *request);

/* The cache sizes the cost model reads (bytes, 0 where unknown). */
AGL_HIDDEN void agl_cache_sizes(int64_t *l1d, int64_t *l2, int64_t *l3);
/* This CPU's L2 (per core) as the cost models take it, read once. */
AGL_HIDDEN int64_t agl_l2_bytes(void);
/* This CPU's L2 as the system tells it (0 where it does not), read once. */
AGL_HIDDEN int64_t agl_system_l2_bytes(void);

static inline int64_t agl_ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/* The first row of micro-panel q of a block of mc rows in `panels`
 * panels of balanced heights (differing by at most one row), as the packed
 * products split their blocks: 128 rows are eight panels of 13 and two of
 * 12, not nine of 14 and a last of 2, whose few accumulators cannot keep
 * the FMA pipes busy while it streams B just as the full ones do. */
static inline int64_t agl_panel_start(int64_t mc, int64_t panels, int64_t q) {
  const int64_t base = mc / panels, extra = mc % panels;
  return q * base + (q < extra ? q : extra);
}

/* How threads share a product of `panels` column panels and m rows (row
 * micro-panels of mr) for each of `batch` entries: columns first, each
 * thread reading only its own panels of B, and rows too when there are
 * fewer panels than about two per thread. Tiles are m_step rows by n_step
 * panels; mt x nt of them per batch entry. */
typedef struct agl_tile_split {
  int64_t m_step, n_step, mt, nt;
} agl_tile_split;

static inline agl_tile_split agl_split_tiles(int64_t panels, int64_t m,
                                             int mr, int64_t batch,
                                             int threads) {
  agl_tile_split t = {m, 0, 1, 0};
  int64_t nt = panels < 2 * (int64_t)threads ? panels : 2 * (int64_t)threads;
  if (threads == 1)
    nt = 1;
  t.n_step = agl_ceil_div(panels, nt);
  nt = agl_ceil_div(panels, t.n_step);
  int64_t want = agl_ceil_div(2 * (int64_t)threads, nt * batch);
  int64_t row_panels = agl_ceil_div(m, mr);
  if (threads > 1 && want > 1) {
    t.mt = want < row_panels ? want : row_panels;
    t.m_step = agl_ceil_div(row_panels, t.mt) * mr;
    t.mt = agl_ceil_div(m, t.m_step);
  }
  t.nt = agl_ceil_div(panels, t.n_step);
  return t;
}

/* A strided matrix view: element (r, c) is at data[r * rs + c * cs]. */
typedef struct agl_view {
  const float *data;
  int64_t rs, cs;
} agl_view;

/* What a product does with its element (i, j) before it stores it (the
 * epilogue):
 *   C[i,j] = act((load_c ? C[i,j] : 0) + alpha * acc[i,j]
 *                + (bias ? bias[i * bias_rs + j * bias_cs] : 0))
 *            + (residual ? residual[i * res_rs + j * res_cs] : 0)
 * or, with residual_first, the residual added inside act() (a CNN's
 * relu(conv + shortcut)), or, `gated`, the residual a gate:
 *   act(...) * gate_act(residual[i * res_rs + j * res_cs])
 * (not with residual_first).
 * Tile coordinates: the pointers are advanced to the tile's element (0, 0). */
typedef struct agl_epilogue {
  int load_c, act;
  float alpha;
  const float *bias;
  int64_t bias_rs, bias_cs;
  const float *residual;
  int64_t res_rs, res_cs;
  int residual_first;
  int gated, gate_act;
  /* Not the epilogue proper but the tile's other errand: `prefetch_lines`
   * cache lines from `prefetch` on, which the kernel fetches into the L2
   * while it computes the tile, spread over its depth loop (the packed
   * products' next block of B, see sgemm.c). Kernels that cannot prefetch
   * ignore them. */
  const char *prefetch;
  int64_t prefetch_lines;
} agl_epilogue;

/* The lines of share `share` of `shares` over `panels` panels of `lines`
 * cache lines each (a packed block of B, each panel's lines contiguous):
 * every panel gets as many shares as divide evenly, a range of its lines
 * each; the shares left over, and all of them where there are fewer than
 * panels, get none (0). Else 1, with the panel (counted from 0) and its
 * lines [from, to). Both GEMM drivers spread the next block of B over the
 * tiles of a block this way. */
static inline int agl_prefetch_share(int64_t panels, int64_t lines,
                                     int64_t share, int64_t shares,
                                     int64_t *panel, int64_t *from,
                                     int64_t *to) {
  if (panels <= 0 || shares < panels)
    return 0;
  const int64_t per_panel = shares / panels;
  *panel = share / per_panel;
  const int64_t part = share % per_panel;
  *from = part * lines / per_panel;
  *to = (part + 1) * lines / per_panel;
  return *panel < panels;
}

/* How many depth steps apart a micro-kernel issues the prefetches of its
 * tile's errand (agl_epilogue.prefetch): 4, 2 or 1, the widest spacing
 * that fits the lines into the kc steps (past kc lines, the rest are
 * dropped). */
static inline int64_t agl_prefetch_spacing(int64_t lines, int64_t kc) {
  return lines * 4 <= kc ? 4 : lines * 2 <= kc ? 2 : 1;
}

/* The activation a kernel runs for the code `act` it was given: any code
 * outside the enum runs as none. */
static inline int agl_known_activation(int act) {
  return act >= AGL_ACT_NONE && act <= AGL_ACT_SILU ? act : AGL_ACT_NONE;
}

/* A GEMM's activation argument taken apart: the product's activation and,
 * with AGL_ACT_GATE_FLAG, the gate's (kernels.h); unknown ones are none. */
typedef struct agl_activation_parts {
  int act, gated, gate_act;
} agl_activation_parts;

static inline agl_activation_parts agl_split_activation(int32_t activation) {
  agl_activation_parts p = {agl_known_activation(activation & 0xF), 0,
                            AGL_ACT_NONE};
  if (activation & AGL_ACT_GATE_FLAG) {
    p.gated = 1;
    p.gate_act = agl_known_activation((activation >> 4) & 0xF);
  }
  return p;
}

/* Scalar activation, shared by the portable path and edge cases. */
AGL_HIDDEN float agl_activate_scalar(float x, int act);

/* x with the residual r after the activation: added, or as a gate. */
static inline float agl_residual_scalar(float x, float r, int gated,
                                        int gate_act) {
  return gated ? x * agl_activate_scalar(r, gate_act) : x + r;
}

/* The epilogue of one element, from its old value and its sum. */
static inline float agl_epilogue_scalar(const agl_epilogue *e, float old,
                                        float acc, int64_t i, int64_t j) {
  float x = (e->load_c ? old : 0.0f) + e->alpha * acc;
  if (e->bias)
    x += e->bias[i * e->bias_rs + j * e->bias_cs];
  const int first = e->residual_first && !e->gated;
  if (e->residual && first)
    x += e->residual[i * e->res_rs + j * e->res_cs];
  if (e->act != AGL_ACT_NONE)
    x = agl_activate_scalar(x, e->act);
  if (e->residual && !first)
    x = agl_residual_scalar(x, e->residual[i * e->res_rs + j * e->res_cs],
                            e->gated, e->gate_act);
  return x;
}

/* The epilogue of the tile whose element (0, 0) is C's (i, j), from the
 * product's epilogue `e` (in C's coordinates), for a block of depths that is
 * the product's first (`first`: the bias goes in, C is loaded only when the
 * product accumulates) and/or its last (`last`: the activation and the
 * residual); middle blocks add their sums to C. */
static inline agl_epilogue agl_epilogue_tile(const agl_epilogue *e, int64_t i,
                                             int64_t j, int first, int last) {
  agl_epilogue t = *e;
  t.load_c = e->load_c || !first;
  t.act = last ? e->act : AGL_ACT_NONE;
  t.bias = e->bias && first ? e->bias + i * e->bias_rs + j * e->bias_cs : NULL;
  t.residual =
      e->residual && last ? e->residual + i * e->res_rs + j * e->res_cs : NULL;
  return t;
}

/* The micro-kernel computes an MR x NR tile from an A micro-panel and a
 * packed B micro-panel (kc steps of NR floats, ldb floats apart: NR, or
 * the width of a wider panel packed ahead of time, read in place), then
 * writes its top-left mr x nr corner to C (row stride ldc, column stride 1)
 * through the epilogue `e`, whose bias runs along the tile's columns (bias_rs
 * 0, bias_cs 1) and whose residual has unit column stride. A is packed (kc
 * steps of MR floats) when lda is 0; otherwise its mr rows are read in
 * place, lda apart, each contiguous along k (only for tables with
 * direct_a). The transposed form (kernel_t) takes packed A only, no
 * residual, and writes C's element (i, j) to c[j * ldc + i]: a
 * convolution's tile of positions x filters into NCHW, the bias per
 * filter. */
typedef void (*agl_microkernel_fn)(int64_t kc, const float *ap, int64_t lda,
                                   const float *bp, int64_t ldb, float *c,
                                   int64_t ldc, int mr, int nr,
                                   const agl_epilogue *e);
/* Packs rows [0, rows) x depth [0, kc) of `src` (rows of A, or columns of B
 * seen as rows) into micro-panels of `r` rows: panel q holds, for each depth
 * p, rows q*r .. q*r+r-1 (zero past `rows`). */
typedef void (*agl_pack_fn)(agl_view src, int64_t rows, int64_t kc, int r,
                            float *dst);
/* Small-m products without packing: C rows [0, m) x columns [j0, j1), with
 * m <= 4, for one batch entry; C's element (i, j) is at c[i*crs + j*ccs],
 * stored through the epilogue `e` (in C's coordinates: its bias and
 * residual at (0, 0) of this batch entry, any strides).
 * B has unit column stride, or unit row stride with A's column stride 1. */
typedef void (*agl_small_fn)(int64_t m, int64_t j0, int64_t j1, int64_t k,
                            agl_view a, agl_view b, float *c, int64_t crs,
                            int64_t ccs, const agl_epilogue *e);

/* Small-m products on B packed ahead of time (agl_kernel_sgemm_packed's
 * layout): C rows [0, m) x the columns of panels [q0, q1) below n, m <= 4,
 * through the epilogue `e` as for agl_small_fn (unit column stride). */
typedef void (*agl_small_packed_fn)(int64_t m, int64_t q0, int64_t q1,
                                    int64_t n, int64_t k, agl_view a,
                                    const float *packed_b, float *c,
                                    int64_t crs, const agl_epilogue *e);

typedef struct agl_gemm_isa {
  const char *name;
  int mr, nr;
  int direct_a; /* the kernel can read A's rows in place */
  agl_microkernel_fn kernel;
  agl_microkernel_fn kernel_t; /* C transposed, A packed */
  agl_pack_fn pack_a; /* A rows -> panels of mr */
  agl_pack_fn pack_b; /* B columns -> panels of nr */
  agl_small_fn small; /* null: no small-m path */
  agl_small_packed_fn small_packed; /* null: small() per packed panel */
} agl_gemm_isa;

AGL_HIDDEN extern const agl_gemm_isa agl_gemm_portable;
#if defined(__x86_64__)
/* Compiled with AVX2 and FMA enabled (see runtime/CMakeLists.txt). */
AGL_HIDDEN extern const agl_gemm_isa agl_gemm_avx2;
AGL_HIDDEN void agl_small_avx2(int64_t m, int64_t j0, int64_t j1, int64_t k,
                               agl_view a, agl_view b, float *c, int64_t crs,
                               int64_t ccs, const agl_epilogue *e);
#define AGL_HAVE_AVX2_KERNELS 1
/* Compiled with AVX-512 enabled (see runtime/CMakeLists.txt). */
AGL_HIDDEN extern const agl_gemm_isa agl_gemm_avx512;
AGL_HIDDEN void agl_small_avx512(int64_t m, int64_t j0, int64_t j1, int64_t k,
                                 agl_view a, agl_view b, float *c, int64_t crs,
                                 int64_t ccs, const agl_epilogue *e);
AGL_HIDDEN void agl_small_packed_avx512(int64_t m, int64_t q0, int64_t q1,
                                        int64_t n, int64_t k, agl_view a,
                                        const float *packed_b, float *c,
                                        int64_t crs, const agl_epilogue *e);
#define AGL_HAVE_AVX512_KERNELS 1
/* Whether the CPU has AVX-512 VNNI (vpdpbusd) and BW; checked once. */
AGL_HIDDEN int agl_cpu_has_avx512_vnni(void);
#endif

/* Packs A's block of rows [ic, ic + mc) x depths [pc, pc + kc) of batch
 * entry `batch` into micro-panels of mr rows (zero past mc), for A that is
 * not in memory as a matrix (a convolution's windows). */
typedef void (*agl_pack_a_block_fn)(const void *ctx, int64_t batch,
                                    int64_t ic, int64_t mc, int64_t pc,
                                    int64_t kc, int mr, float *dst);

/* ---- convolution (conv.c) ------------------------------------------------- */

/* The windows of one image, seen as A of an implicit GEMM: row
 * oy * out_w + ox (an output position), column (depth)
 * (c * kernel_h + ki) * kernel_w + kj. */
typedef struct agl_conv_geometry {
  const float *input; /* this image */
  int64_t group_stride, channel_stride, row_stride;
  int64_t in_h, in_w, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int64_t out_w;
  int vector_pack; /* agl_pack_windows_avx512 packs the panels */
} agl_conv_geometry;

#if defined(AGL_HAVE_AVX512_KERNELS)
/* Packs A's block [ic, ic + mc) x [pc, pc + kc) of group `group` into
 * panels of mr (at most 32) positions with vector loads; only for stride_w
 * 1 or 2. */
AGL_HIDDEN void agl_pack_windows_avx512(const agl_conv_geometry *g,
                                        int64_t group, int64_t ic,
                                        int64_t mc, int64_t pc, int64_t kc,
                                        int mr, float *dst);
#endif

/* A direct convolution (conv_direct_avx512.c, conv_bcast_*.c): the
 * arguments, the input at image 0, group 0. */
typedef struct agl_conv_direct {
  const float *input;
  int64_t in_batch_stride, group_stride, channel_stride, row_stride;
  int64_t in_channels, in_h, in_w, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  const float *weights; /* packed as for agl_kernel_conv2d */
  const float *bias;
  int64_t out_channels;
  float *out;
  int64_t out_h, out_w, out_batch_stride, out_channel_stride;
  int accumulate, act;
  const float *residual; /* the output's layout, added before act; or null */
  /* Distinct for every agl_kernel_conv2d call: a task may reuse the copy of
   * the input rows its thread made for an earlier task of the same call. */
  uint64_t call;
} agl_conv_direct;

/* Which way agl_kernel_conv2d computes: 0 chooses per shape, 1 always the
 * implicit GEMM, 2 the direct convolution with positions along the vectors
 * wherever it can (with AVX2, which has none, as 3), 3 the one with filters
 * along the vectors wherever it can (else as 2) (tests compare them).
 * Returns the previous setting. */
AGL_HIDDEN int agl_conv_select(int which);

enum { AGL_CONV_DIRECT_MAX_KW = 16 };

/* The packing memory that the broadcasting kernels' copy of the input
 * rows takes for `rows` output rows (floats). */
AGL_HIDDEN int64_t agl_conv_bcast_floats(const agl_conv_direct *d,
                                         int64_t rows);
/* Copies the input rows that output rows [oy0, oy1) of image n, group g
 * reach into the calling thread's packing memory (conv_rows.c), unless it
 * holds them from an earlier task of the same call. Returns where input row
 * iy (of the image, padding rows included) would start, rows *row_floats
 * apart and channels *plane_floats apart; null, copying nothing, when they
 * do not fit. */
AGL_HIDDEN const float *agl_conv_copy_rows(const agl_conv_direct *d, int64_t n,
                                           int64_t g, int64_t oy0, int64_t oy1,
                                           int64_t *row_floats,
                                           int64_t *plane_floats);
/* Kernel rows [*lo, *hi) of output row oy that fall inside the image. */
AGL_HIDDEN void agl_conv_live_kernel_rows(const agl_conv_direct *d, int64_t oy,
                                          int64_t *lo, int64_t *hi);

#if defined(AGL_HAVE_AVX512_KERNELS)
/* Whether the direct kernel takes this convolution (column stride 1 or 2,
 * kernel at most AGL_CONV_DIRECT_MAX_KW wide). */
AGL_HIDDEN int agl_conv_direct_supported_avx512(const agl_conv_direct *d);
/* Output rows [oy0, oy1) of image n, group g, filters [f0, f1) of the
 * group (f0 a multiple of AGL_CONV_PACKED_NR). */
AGL_HIDDEN void agl_conv_direct_rows_avx512(const agl_conv_direct *d,
                                            int64_t n, int64_t g,
                                            int64_t oy0, int64_t oy1,
                                            int64_t f0, int64_t f1);
/* The same in the GEMM's orientation (14 positions x 32 filters, input
 * elements broadcast from the copy of the rows); returns 0, computing
 * nothing, where it cannot. */
AGL_HIDDEN int agl_conv_bcast_rows_avx512(const agl_conv_direct *d,
                                          int64_t n, int64_t g, int64_t oy0,
                                          int64_t oy1, int64_t f0,
                                          int64_t f1);
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
/* The same with AVX2 (6 positions x 16 filters, any strides and dilations,
 * tiles running over into the next output rows). */
AGL_HIDDEN int agl_conv_bcast_rows_avx2(const agl_conv_direct *d, int64_t n,
                                        int64_t g, int64_t oy0, int64_t oy1,
                                        int64_t f0, int64_t f1);
#endif

/* ---- Winograd F(2x2, 3x3) convolution (conv_winograd.c) ----------------- */

/* Element `at` of a Winograd convolution's output plane from its output
 * transform's value x: plus what the plane held (accumulate), the filter's
 * bias (at it; NULL: none) and the residual plane's element, then the
 * activation. The portable transforms of both tile sizes store by it. */
static inline void agl_winograd_store(float *plane, const float *residual,
                                      int64_t at, float x, int accumulate,
                                      const float *bias, int act) {
  if (accumulate)
    x += plane[at];
  if (bias)
    x += *bias;
  if (residual)
    x += residual[at];
  if (act != AGL_ACT_NONE)
    x = agl_activate_scalar(x, act);
  plane[at] = x;
}

/* One image of agl_kernel_conv2d_winograd. Tile t = ty * tiles_w + tx
 * covers outputs (2ty..2ty+1, 2tx..2tx+1) and reads the input window of
 * rows 2ty - pad_top .. +3 and columns 2tx - pad_left .. +3. */
typedef struct agl_winograd {
  const float *input; /* this image */
  int64_t channel_stride, row_stride, in_h, in_w, pad_top, pad_left;
  int64_t channels, filters, out_h, out_w, tiles_w, tiles;
  float *v; /* B^T d B: 16 matrices [channels][tiles], v_stride apart */
  float *m; /* the products: 16 matrices [filters][tiles], m_stride apart */
  int64_t v_stride, m_stride;
  const float *bias;
  const float *residual; /* this image's, in the output's layout */
  float *out;            /* this image's */
  int64_t out_channel_stride;
  int accumulate, act;
} agl_winograd;

/* The input transform of channels [c0, c1) into v, and the output
 * transform of filters [f0, f1) from m into out with the epilogue. */
AGL_HIDDEN void agl_winograd_input_portable(const agl_winograd *w, int64_t c0,
                                            int64_t c1);
AGL_HIDDEN void agl_winograd_output_portable(const agl_winograd *w, int64_t f0,
                                             int64_t f1);
#if defined(AGL_HAVE_AVX2_KERNELS)
/* The same 8 tiles at a time (AVX2, also on CPUs with AVX-512). */
AGL_HIDDEN void agl_winograd_input_avx2(const agl_winograd *w, int64_t c0,
                                        int64_t c1);
AGL_HIDDEN void agl_winograd_output_avx2(const agl_winograd *w, int64_t f0,
                                         int64_t f1);
#endif

/* ---- Winograd F(4x4, 3x3) convolution (conv_winograd_f4.c) --------------- */

/* One image of agl_kernel_conv2d_winograd_f4. Tile (ty, tx) covers outputs
 * (4ty..4ty+3, 4tx..4tx+3) and reads the input window of rows 4ty -
 * pad_top .. +5 and columns 4tx - pad_left .. +5. */
typedef struct agl_winograd_f4 {
  const float *input; /* this image */
  int64_t channel_stride, row_stride, in_h, in_w, pad_top, pad_left;
  int64_t channels, filters, out_h, out_w;
  agl_winograd_f4_blocks blocks;
  const float *bias;
  const float *residual; /* this image's, in the output's layout */
  float *out;            /* this image's */
  int64_t out_channel_stride;
  int accumulate, act;
} agl_winograd_f4;

/* A block of tiles: rows [ty0, ty1) x columns [tx0, tx1), tile (ty, tx) in
 * lane (ty - ty0) * (tx1 - tx0) + tx - tx0 of the block's matrices. */
typedef struct agl_winograd_f4_block {
  int64_t ty0, ty1, tx0, tx1;
  float *v; /* B^T d B: 36 matrices [channels][32], v_stride apart */
  float *m; /* the products: 36 matrices [filters][32], m_stride apart */
  int64_t v_stride, m_stride;
} agl_winograd_f4_block;

/* The input transform of channels [c0, c1) of block b into b->v (lanes
 * past the block's tiles zeroed), and the output transform of filters
 * [f0, f1) from b->m into the output with the epilogue. */
typedef void (*agl_winograd_f4_input_fn)(const agl_winograd_f4 *w,
                                         const agl_winograd_f4_block *b,
                                         int64_t c0, int64_t c1);
typedef void (*agl_winograd_f4_output_fn)(const agl_winograd_f4 *w,
                                          const agl_winograd_f4_block *b,
                                          int64_t f0, int64_t f1);
AGL_HIDDEN void agl_winograd_f4_input_portable(const agl_winograd_f4 *w,
                                               const agl_winograd_f4_block *b,
                                               int64_t c0, int64_t c1);
AGL_HIDDEN void agl_winograd_f4_output_portable(const agl_winograd_f4 *w,
                                                const agl_winograd_f4_block *b,
                                                int64_t f0, int64_t f1);
#if defined(AGL_HAVE_AVX512_KERNELS)
/* The same 16 tiles of a row at a time (conv_winograd_f4_avx512.c). */
AGL_HIDDEN void agl_winograd_f4_input_avx512(const agl_winograd_f4 *w,
                                             const agl_winograd_f4_block *b,
                                             int64_t c0, int64_t c1);
AGL_HIDDEN void agl_winograd_f4_output_avx512(const agl_winograd_f4 *w,
                                              const agl_winograd_f4_block *b,
                                              int64_t f0, int64_t f1);
#endif

/* ---- max pooling (pool.c) ----------------------------------------------- */

/* The arguments of agl_kernel_maxpool2d, and how it computes a row. */
typedef struct agl_pool_geometry agl_pool_geometry;
/* Output row oy of one plane (image, channel) of the input. */
typedef void (*agl_pool_row_fn)(const agl_pool_geometry *g,
                                const float *plane, int64_t oy, float *out);
struct agl_pool_geometry {
  const float *input;
  int64_t in_batch_stride, in_channel_stride, in_row_stride;
  int64_t channels, in_h, in_w, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  float *out;
  int64_t out_h, out_w, out_batch_stride, out_channel_stride, out_row_stride;
  agl_pool_row_fn pool_row;
};

AGL_HIDDEN void agl_maxpool_row_portable(const agl_pool_geometry *g,
                                         const float *plane, int64_t oy,
                                         float *out);
/* The vector rows' buffer of column maxima (buffer column b holding input
 * column b - pad_left): returns how many columns an output row needs, with
 * the buffer columns [*first, *last) inside the input and the others, and
 * `slack` more past them, set to -inf; 0, setting nothing, where the
 * column stride is not 1 or 2 or the columns exceed `capacity`. */
AGL_HIDDEN int64_t agl_pool_row_buffer(const agl_pool_geometry *g,
                                       float *buffer, int64_t capacity,
                                       int64_t slack, int64_t *first,
                                       int64_t *last);
#if defined(AGL_HAVE_AVX512_KERNELS)
/* Vectors of 16 outputs for column strides 1 and 2, else the portable
 * row. */
AGL_HIDDEN void agl_maxpool_row_avx512(const agl_pool_geometry *g,
                                       const float *plane, int64_t oy,
                                       float *out);
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
/* The same with vectors of 8 outputs. */
AGL_HIDDEN void agl_maxpool_row_avx2(const agl_pool_geometry *g,
                                     const float *plane, int64_t oy,
                                     float *out);
#endif

/* A plane of agl_kernel_transpose32: out[i * out_rs + j] = in[i + j * in_cs]
 * for i < rows, j < cols, moved in blocks of AGL_TRANSPOSE_BLOCK squared
 * elements (16 KiB in, 16 KiB out: both stay in the L1 while a block is
 * moved). */
enum { AGL_TRANSPOSE_BLOCK = 64 };
typedef void (*agl_transpose_plane_fn)(const uint32_t *in, int64_t in_cs,
                                       uint32_t *out, int64_t out_rs,
                                       int64_t rows, int64_t cols);
AGL_HIDDEN void agl_transpose_plane_portable(const uint32_t *in, int64_t in_cs,
                                             uint32_t *out, int64_t out_rs,
                                             int64_t rows, int64_t cols);
#if defined(AGL_HAVE_AVX2_KERNELS)
/* 8 x 8 tiles transposed in registers; the portable loops for the edges. */
AGL_HIDDEN void agl_transpose_plane_avx2(const uint32_t *in, int64_t in_cs,
                                         uint32_t *out, int64_t out_rs,
                                         int64_t rows, int64_t cols);
#endif

/* One product for the packed-GEMM driver (sgemm.c). */
typedef struct agl_gemm_args {
  int64_t batch, m, n, k;
  /* A as a strided matrix, or packed block by block by pack_a_block
   * (given pack_a_ctx). */
  const float *a;
  int64_t a_bs, a_rs, a_cs;
  agl_pack_a_block_fn pack_a_block;
  const void *pack_a_ctx;
  /* Or A packed ahead of time (a null): panels of AGL_CONV_WINOGRAD_PANEL
   * rows over all k depths, element (i, p) at packed_a[(i / 14) * k * 14 +
   * p * 14 + i % 14], zero past m; batch entries a_bs apart. A micro-kernel
   * of 14 rows reads it in place. */
  const float *packed_a;
  /* B as a strided matrix, or packed ahead of time in the layout of
   * agl_kernel_sgemm_packed (batch entries b_bs apart; 0: all share it),
   * with packed_b_exact the last panel only as wide as the columns left. */
  const float *b;
  int64_t b_bs, b_rs, b_cs;
  const float *packed_b;
  int packed_b_exact;
  /* C's element (i, j) is at c[i * c_rs + j], or with c_transposed at
   * c[j * c_rs + i] (only with pack_a_block). */
  float *c;
  int64_t c_bs, c_rs;
  int c_transposed;
  /* The epilogue: C = act((accumulate ? C : 0) + alpha * A B + bias[j])
   * + residual[i, j], or with residual_first the residual inside act(),
   * or with gated times gate_act(residual[i, j]) (not with c_transposed).
   * The bias runs along B's columns j (batch entries bias_bs apart), the
   * residual is C's shape, its element (i, j) at residual[i * res_rs + j]
   * (with c_transposed, at residual[j * res_rs + i]; batch entries res_bs
   * apart); either may be null. agl_gemm takes `act` as the entry points
   * do (AGL_ACT_GATED included) and splits it. */
  float alpha;
  const float *bias;
  int64_t bias_bs;
  const float *residual;
  int64_t res_bs, res_rs;
  int residual_first;
  int accumulate, act;
  int gated, gate_act;
  /* The requested cache blocking, or null for the cost model's. */
  const agl_gemm_blocking *blocking;
  /* Filled in by the driver. */
  const agl_gemm_isa *isa;
  agl_block_sizes block;
  /* Task grid of the packed path: per batch entry, mt x nt tiles of
   * m_step x n_step; of the small path, nt column chunks. */
  int64_t mt, nt, m_step, n_step;
  /* Set while the threads compute blocks of A that they packed together
   * (the shared path): rows [shared_ic, + shared_mc) x depths [shared_pc,
   * + shared_kc), packed at shared_a one KC-deep block after another; the
   * tiles then compute those only, and pack nothing. */
  const float *shared_a;
  int64_t shared_ic, shared_mc, shared_pc, shared_kc;
} agl_gemm_args;

/* Runs the product on the pool (or serially when nested). */
AGL_HIDDEN void agl_gemm(agl_gemm_args *g);

/* The table agl_kernel_sgemm uses: chosen from the CPU on first use, or
 * forced by agl_gemm_select (tests compare both). */
AGL_HIDDEN const agl_gemm_isa *agl_gemm_current(void);
/* 0: choose from the CPU (the widest vectors it has); 1: portable; 2: the
 * same as 0; 3: AVX2 where the CPU has it (else as 0). Tests use it to
 * compare the tables. Returns the table now in use. */
AGL_HIDDEN const agl_gemm_isa *agl_gemm_select(int which);

/* Packing from any strides with plain loops (agl_pack_fn): the portable
 * path's packing, and the AVX-512 path's for sources it has no vector form
 * for. */
AGL_HIDDEN void agl_pack_strided(agl_view src, int64_t rows, int64_t kc, int r,
                                 float *dst);

/* ---- attention (attention.c) ---------------------------------------------- */

/* agl_kernel_attention's arguments; `group` query heads share a K/V head. */
typedef struct agl_attention_args {
  int64_t batch, heads, group, q_len, kv_len, head_dim, value_dim;
  const float *q;
  int64_t q_bs, q_hs, q_rs;
  const float *k;
  int64_t k_bs, k_hs, k_rs;
  const float *v;
  int64_t v_bs, v_hs, v_rs;
  const float *mask; /* or null */
  int64_t m_bs, m_hs, m_rs, m_cs;
  float *out;
  int64_t o_bs, o_hs, o_rs;
  float scale;
  int causal;
  /* agl_kernel_attention_with_past: K's and V's first past_len rows are
   * read from pk and pv, and copied into k_out and v_out (K and V
   * themselves); past_len 0 otherwise. */
  int64_t past_len;
  const float *pk, *pv;
  int64_t pk_bs, pk_hs, pk_rs, pv_bs, pv_hs, pv_rs;
  float *k_out, *v_out;
  /* Set for the AVX-512 rows of a one-query decode step that is its K/V
   * head's only task: they also store the past rows they read into K and
   * V (agl_attention_rows_avx512), instead of a copy before they run. */
  int rows_copy_past;
} agl_attention_args;

/* Query rows and keys per block: a block of rows is one task; its scores
 * against one block of keys live in the scratch (AGL_ATTENTION_BQ x
 * AGL_ATTENTION_BK floats) next to the rows' output accumulators. */
enum { AGL_ATTENTION_BQ = 64, AGL_ATTENTION_BK = 64 };
/* Up to this value size the vector rows copy each key block's values into
 * the scratch too (after the rows' running sums, BK rows rounded up to 16
 * floats). */
enum { AGL_ATTENTION_PACKED_VALUE_DIM = 1024 };

/* How many of the n keys from key j0 query row i sees: all but those past
 * its causal limit. Every row function stops there, and the vector rows'
 * groups of four skip the rest of a block's diagonal. */
static inline int64_t agl_attention_seen(const agl_attention_args *a, int64_t i,
                                         int64_t j0, int64_t n) {
  if (!a->causal)
    return n;
  int64_t limit = i + a->kv_len - a->q_len + 1 - j0;
  return limit < 0 ? 0 : limit < n ? limit : n;
}

/* A block of keys and values as the rows read it: rows before past_len
 * from the past buffers (which agl_kernel_attention_with_past streams to
 * K and V, where nothing reads them back), the others from K and V. */
typedef struct agl_attention_block {
  const float *keys, *values;
  int64_t k_rs, v_rs;
  int64_t n; /* keys in the block: at most AGL_ATTENTION_BK */
} agl_attention_block;

/* The block of K/V head (b, kv_head) from key j0, up to `end` keys and
 * never across past_len. */
static inline agl_attention_block
agl_attention_block_at(const agl_attention_args *a, int64_t b,
                       int64_t kv_head, int64_t j0, int64_t end) {
  int64_t n = end - j0 < AGL_ATTENTION_BK ? end - j0 : AGL_ATTENTION_BK;
  if (j0 < a->past_len) {
    if (n > a->past_len - j0)
      n = a->past_len - j0;
    return (agl_attention_block){
        .keys = a->pk + b * a->pk_bs + kv_head * a->pk_hs + j0 * a->pk_rs,
        .values = a->pv + b * a->pv_bs + kv_head * a->pv_hs + j0 * a->pv_rs,
        .k_rs = a->pk_rs, .v_rs = a->pv_rs, .n = n};
  }
  return (agl_attention_block){
      .keys = a->k + b * a->k_bs + kv_head * a->k_hs + j0 * a->k_rs,
      .values = a->v + b * a->v_bs + kv_head * a->v_hs + j0 * a->v_rs,
      .k_rs = a->k_rs, .v_rs = a->v_rs, .n = n};
}

/* The past rows of K/V head (b, kv_head) copied into K and V
 * (agl_kernel_attention_with_past), with stores that bypass the caches;
 * the caller fences them. */
AGL_HIDDEN void agl_attention_copy_past_head(const agl_attention_args *a,
                                             int64_t b, int64_t kv_head);

/* Computes query rows [i0, i1) (at most AGL_ATTENTION_BQ) of head (b, h).
 * The portable version needs no scratch; the AVX-512 and AVX2 ones need
 * the pool thread's scratch. */
/* The vector rows' key block transposed: kt[d][c] = K[c][d] for c < n,
 * zero for n <= c < AGL_ATTENTION_BK (head_dim x AGL_ATTENTION_BK). */
AGL_HIDDEN void agl_attention_transpose_keys(const float *keys,
                                             int64_t row_stride, int64_t n,
                                             int64_t head_dim, float *kt);
AGL_HIDDEN void agl_attention_rows_portable(const agl_attention_args *a,
                                            int64_t b, int64_t h, int64_t i0,
                                            int64_t i1, float *scratch);
#if defined(AGL_HAVE_AVX512_KERNELS)
AGL_HIDDEN void agl_attention_rows_avx512(const agl_attention_args *a,
                                          int64_t b, int64_t h, int64_t i0,
                                          int64_t i1, float *scratch);
#endif
#if defined(AGL_HAVE_AVX2_KERNELS)
AGL_HIDDEN void agl_attention_rows_avx2(const agl_attention_args *a, int64_t b,
                                        int64_t h, int64_t i0, int64_t i1,
                                        float *scratch);
#endif

#endif /* AUTOGLM_KERNELS_INTERNAL_H */
