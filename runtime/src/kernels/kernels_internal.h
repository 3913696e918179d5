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

/* Largest micro-tile of any kernel table, and the cache blocking (in
 * elements) of the packed path, measured best on Zen 4 (32 KiB L1d, 1 MiB
 * L2 per core, shared L3) with the AVX-512 micro-kernel (MR x NR = 14 x 32
 * floats of accumulators):
 *  - KC = 384: one packed A micro-panel (MR x KC floats, 21 KiB) stays in the
 *    L1d while the kernel sweeps the packed B block; C tiles are read and
 *    written once per 384 depths.
 *  - NC = 512: the packed B block (KC x NC floats, 768 KiB) stays in the
 *    1 MiB L2 across all the A micro-panels of an MC block.
 *  - MC = 80 micro-panels (1120 rows), split into equal blocks: the packed
 *    A block (MC x KC, 1.7 MiB) lives in L3 and is packed once per (MC, KC)
 *    block; B is repacked once per MC block of C (once up to 1120 rows).
 * 256 x 512 and 512 x 384 (KC x NC) were within a few per cent. */
enum {
  AGL_GEMM_MAX_MR = 14,
  AGL_GEMM_MAX_NR = 32,
  AGL_GEMM_KC = 384,
  AGL_GEMM_NC = 512,
  AGL_GEMM_MC_PANELS = 80,
};

/* Packed A block (MC rounded to the largest MR) + packed B block. */
#define AGL_SCRATCH_A_FLOATS                                                   \
  ((size_t)AGL_GEMM_MC_PANELS * AGL_GEMM_MAX_MR * AGL_GEMM_KC)
#define AGL_SCRATCH_B_FLOATS ((size_t)AGL_GEMM_KC * AGL_GEMM_NC)
#define AGL_SCRATCH_FLOATS (AGL_SCRATCH_A_FLOATS + AGL_SCRATCH_B_FLOATS)

/* A strided matrix view: element (r, c) is at data[r * rs + c * cs]. */
typedef struct agl_view {
  const float *data;
  int64_t rs, cs;
} agl_view;

/* The micro-kernel computes an MR x NR tile from an A micro-panel and a
 * packed B micro-panel (kc steps of NR floats), then writes its top-left
 * mr x nr corner to C (row stride ldc, column stride 1): C = acc (+ C when
 * load_c) (+ bias[i] on row i when bias is not null), then activation
 * `act`. A is packed (kc steps of MR floats) when lda is 0; otherwise its mr
 * rows are read in place, lda apart, each contiguous along k (only for
 * tables with direct_a). */
typedef void (*agl_microkernel_fn)(int64_t kc, const float *ap, int64_t lda,
                                   const float *bp, float *c, int64_t ldc,
                                   int mr, int nr, int load_c,
                                   const float *bias, int act);
/* Packs rows [0, rows) x depth [0, kc) of `src` (rows of A, or columns of B
 * seen as rows) into micro-panels of `r` rows: panel q holds, for each depth
 * p, rows q*r .. q*r+r-1 (zero past `rows`). */
typedef void (*agl_pack_fn)(agl_view src, int64_t rows, int64_t kc, int r,
                            float *dst);
/* Small-m products without packing: C rows [0, m) x columns [j0, j1), with
 * m <= 4, for one batch entry; C's element (i, j) is at c[i*crs + j*ccs].
 * B has unit column stride, or unit row stride with A's column stride 1. */
typedef void (*agl_small_fn)(int64_t m, int64_t j0, int64_t j1, int64_t k,
                            agl_view a, agl_view b, float *c, int64_t crs,
                            int64_t ccs, int accumulate, int act);

typedef struct agl_gemm_isa {
  const char *name;
  int mr, nr;
  int direct_a; /* the kernel can read A's rows in place */
  agl_microkernel_fn kernel;
  agl_pack_fn pack_a; /* A rows -> panels of mr */
  agl_pack_fn pack_b; /* B columns -> panels of nr */
  agl_small_fn small; /* null: no small-m path */
  /* Applies the activation to n contiguous floats in place. */
  void (*activate)(float *x, int64_t n, int act);
} agl_gemm_isa;

AGL_HIDDEN extern const agl_gemm_isa agl_gemm_portable;
#if defined(__x86_64__)
/* Compiled with AVX-512 enabled (see runtime/CMakeLists.txt). */
AGL_HIDDEN extern const agl_gemm_isa agl_gemm_avx512;
AGL_HIDDEN void agl_small_avx512(int64_t m, int64_t j0, int64_t j1, int64_t k,
                                 agl_view a, agl_view b, float *c, int64_t crs,
                                 int64_t ccs, int accumulate, int act);
#define AGL_HAVE_AVX512_KERNELS 1
#endif

/* Packs B's block of depths [pc, pc + kc) x columns [jc, jc + nc) of batch
 * entry `batch` into micro-panels of nr columns (zero past nc), for B that
 * is not in memory as a matrix (a convolution's windows). */
typedef void (*agl_pack_b_block_fn)(const void *ctx, int64_t batch,
                                    int64_t pc, int64_t kc, int64_t jc,
                                    int64_t nc, int nr, float *dst);

/* ---- convolution (conv.c) ------------------------------------------------- */

/* The windows of one image, seen as B of an implicit GEMM: row
 * (c * kernel_h + ki) * kernel_w + kj, column oy * out_w + ox. */
typedef struct agl_conv_geometry {
  const float *input; /* this image */
  int64_t group_stride, channel_stride, row_stride;
  int64_t in_h, in_w, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int64_t out_w;
  int vector_pack; /* 32-column panels go to agl_pack_windows_avx512 */
} agl_conv_geometry;

#if defined(AGL_HAVE_AVX512_KERNELS)
/* Packs B's block [pc, pc + kc) x [jc, jc + nc) of group `group` into
 * panels of 32 columns with vector loads; only for stride_w 1 or 2. */
AGL_HIDDEN void agl_pack_windows_avx512(const agl_conv_geometry *g,
                                        int64_t group, int64_t pc,
                                        int64_t kc, int64_t jc, int64_t nc,
                                        float *dst);
#endif

/* One product for the packed-GEMM driver (sgemm.c). */
typedef struct agl_gemm_args {
  int64_t batch, m, n, k;
  /* A as a strided matrix, or (packed_a) packed ahead of time in panels of
   * AGL_CONV_PACKED_MR rows over all k depths, batch entries a_bs apart. */
  const float *a;
  int64_t a_bs, a_rs, a_cs;
  const float *packed_a;
  /* B as a strided matrix, or packed ahead of time (agl_kernel_sgemm_packed),
   * or packed block by block by pack_b_block (given pack_b_ctx). */
  const float *b;
  int64_t b_bs, b_rs, b_cs;
  const float *packed_b;
  agl_pack_b_block_fn pack_b_block;
  const void *pack_b_ctx;
  float *c;
  int64_t c_bs, c_rs;
  /* Added to every element of row i (batch entries row_bias_bs apart), or null. */
  const float *row_bias;
  int64_t row_bias_bs;
  int accumulate, act;
  /* Filled in by the driver. */
  const agl_gemm_isa *isa;
  /* Task grid of the packed path: per batch entry, mt x nt tiles of
   * m_step x n_step; of the small path, nt column chunks. */
  int64_t mt, nt, m_step, n_step;
} agl_gemm_args;

/* Runs the product on the pool (or serially when nested). */
AGL_HIDDEN void agl_gemm(agl_gemm_args *g);

/* The table agl_kernel_sgemm uses: chosen from the CPU on first use, or
 * forced by agl_gemm_select (tests compare both). */
AGL_HIDDEN const agl_gemm_isa *agl_gemm_current(void);
/* 0: choose from the CPU; 1: portable; 2: AVX-512 (ignored when the CPU
 * lacks it). Returns the table now in use. */
AGL_HIDDEN const agl_gemm_isa *agl_gemm_select(int which);

/* Packing from any strides with plain loops (agl_pack_fn): the portable
 * path's packing, and the AVX-512 path's for sources it has no vector form
 * for. */
AGL_HIDDEN void agl_pack_strided(agl_view src, int64_t rows, int64_t kc, int r,
                                 float *dst);

/* Scalar activation, shared by the portable path and edge cases. */
AGL_HIDDEN float agl_activate_scalar(float x, int act);

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
} agl_attention_args;

/* Query rows and keys per block: a block of rows is one task; its scores
 * against one block of keys live in the scratch (AGL_ATTENTION_BQ x
 * AGL_ATTENTION_BK floats) next to the rows' output accumulators. */
enum { AGL_ATTENTION_BQ = 64, AGL_ATTENTION_BK = 64 };

/* Computes query rows [i0, i1) (at most AGL_ATTENTION_BQ) of head (b, h).
 * The portable version needs no scratch; the AVX-512 one needs the pool
 * thread's scratch. */
AGL_HIDDEN void agl_attention_rows_portable(const agl_attention_args *a,
                                            int64_t b, int64_t h, int64_t i0,
                                            int64_t i1, float *scratch);
#if defined(AGL_HAVE_AVX512_KERNELS)
AGL_HIDDEN void agl_attention_rows_avx512(const agl_attention_args *a,
                                          int64_t b, int64_t h, int64_t i0,
                                          int64_t i1, float *scratch);
#endif

#endif /* AUTOGLM_KERNELS_INTERNAL_H */
