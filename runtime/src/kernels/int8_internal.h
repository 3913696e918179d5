/* Declarations shared by the int8 GEMM sources (gemm_int8*.c). Not
 * installed. */
#ifndef AUTOGLM_INT8_INTERNAL_H
#define AUTOGLM_INT8_INTERNAL_H

#include "kernels_internal.h"

#include "autoglm/kernels_int8.h"

/* A's rows are read in place, or packed into panels of AGL_S8_MR rows: for
 * each depth quad r, the panel's rows' depths 4r..4r+3 (4 bytes per row,
 * AGL_S8_MR * 4 bytes per quad), zero past k and past the last row. */
enum { AGL_S8_MR = 14, AGL_S8_QUAD_BYTES = AGL_S8_MR * 4 };

/* What the micro-kernel does with its tile's sums. Depth blocks after the
 * first add to the int32 partial sums the earlier ones left in C (`load`;
 * C's 4-byte elements hold them as int32 even when C is float); the last
 * block (`last`) subtracts the zero point's term and stores C: as int32
 * without `scale`, else through the float epilogue
 *   act(alpha * scale[j] * acc + bias[j]) + residual[i * res_rs + j]
 * (`gated`: times gate_act(residual[...]) instead), and with `quantize` that
 * quantized to uint8 (agl_quantize_u8; C then holds bytes, and comes in one
 * block: there is no room for partial sums). Pointers are at the tile's column
 * 0 (the residual at its element (0, 0)). */
typedef struct agl_s8_epilogue {
  int load, last;
  int32_t zero_point;
  /* The panel's 32 column sums (int32, as stored: any alignment). */
  const unsigned char *colsum;
  float alpha;
  const float *scale, *bias;
  int act;
  const float *residual;
  int64_t res_rs;
  int gated, gate_act;
  int quantize;
  float out_scale;
  int32_t out_zero_point;
  /* C transposed: element (i, j) at c + (j * ldc + i) * 4 bytes; int32
   * sums only, in one block (no load, no scale). */
  int transposed;
  /* The tile's other errand, as agl_epilogue's: `prefetch_lines` cache
   * lines from `prefetch` on (the next block of B) to fetch into the L2
   * while it computes. Kernels that cannot prefetch ignore them. */
  const char *prefetch;
  int64_t prefetch_lines;
} agl_s8_epilogue;

/* ONNX QuantizeLinear to uint8: saturate(round_half_even(y / scale) +
 * zero_point), in the current (nearest-even) rounding mode; NaN gives 0. */
static inline uint8_t agl_quantize_u8(float y, float scale,
                                      int32_t zero_point) {
  float q = __builtin_rintf(y / scale) + (float)zero_point;
  if (!(q >= 0.0f))
    return 0;
  return q >= 255.0f ? 255 : (uint8_t)q;
}

/* A tile of `rows` (<= AGL_S8_MR) x `cols` (<= 32) of C from kq depth quads
 * of A and of a packed B panel (bp, at the block's first quad, 128 bytes per
 * quad); C's element (i, j) is at c + (i * ldc + j) * 4 bytes (1 with
 * `quantize`). A is a
 * packed panel when lda is 0, else its rows in place, lda bytes apart
 * (the block's first depth at ap, every quad whole). */
typedef void (*agl_s8_kernel_fn)(int64_t kq, const uint8_t *ap, int64_t lda,
                                 const int8_t *bp, int rows, int cols, void *c,
                                 int64_t ldc, const agl_s8_epilogue *e);

AGL_HIDDEN void agl_s8_kernel_portable(int64_t kq, const uint8_t *ap,
                                       int64_t lda, const int8_t *bp, int rows,
                                       int cols, void *c, int64_t ldc,
                                       const agl_s8_epilogue *e);
#if defined(AGL_HAVE_AVX2_KERNELS)
/* Compiled with AVX2 enabled; only for CPUs that have it. */
AGL_HIDDEN void agl_s8_kernel_avx2(int64_t kq, const uint8_t *ap, int64_t lda,
                                   const int8_t *bp, int rows, int cols,
                                   void *c, int64_t ldc,
                                   const agl_s8_epilogue *e);
#endif
/* A micro-kernel and the A it reads: `mr` rows a call, from A's rows in
 * place or packed panels; packed as quads (AGL_S8_QUAD_BYTES per quad,
 * lda 0) or with `row_major` as rows (lda then the packed row stride);
 * depth blocks whole multiples of `kc_step` quads but for the last. */
typedef struct agl_s8_kernel {
  agl_s8_kernel_fn run;
  int mr, row_major, kc_step;
  /* Called when a thread's calls of `run` for one product end (or null). */
  void (*done)(void);
} agl_s8_kernel;

enum { AGL_S8_MAX_MR = 32 };

#if defined(AGL_HAVE_AVX512_KERNELS)
/* Compiled with AMX and AVX-512 enabled; only where agl_s8_amx_usable. 32
 * rows a call, A's rows in place or packed row-major. */
AGL_HIDDEN void agl_s8_kernel_amx(int64_t kq, const uint8_t *ap, int64_t lda,
                                  const int8_t *bp, int rows, int cols, void *c,
                                  int64_t ldc, const agl_s8_epilogue *e);
/* Releases the tile registers agl_s8_kernel_amx configured on this
 * thread. */
AGL_HIDDEN void agl_s8_amx_release(void);
/* Whether the CPU has AMX int8 (and AVX-512) and Linux lets this process
 * use the tile registers (asked for once, here). */
AGL_HIDDEN int agl_s8_amx_usable(void);
#endif
/* Whether AVX-512 int8 products may run on AMX where it is usable (1, the
 * default) or on VNNI (0: tests compare both). */
AGL_HIDDEN void agl_s8_allow_amx(int allow);

#if defined(AGL_HAVE_AVX512_KERNELS)
/* Compiled with AVX-512 VNNI enabled; only for CPUs that have it. */
AGL_HIDDEN void agl_s8_kernel_avx512(int64_t kq, const uint8_t *ap, int64_t lda,
                                     const int8_t *bp, int rows, int cols,
                                     void *c, int64_t ldc,
                                     const agl_s8_epilogue *e);
#endif

#endif /* AUTOGLM_INT8_INTERNAL_H */
