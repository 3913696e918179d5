/* Declarations shared by the GEMM sources for weights stored in fewer bits
 * (sgemm_quant*.c: int8, int4, bfloat16, IEEE half). Not installed. */
#ifndef AUTOGLM_QUANT_INTERNAL_H
#define AUTOGLM_QUANT_INTERNAL_H

#include "kernels_internal.h"

#include "autoglm/kernels_quant.h"

/* A B stored in fewer bits as the kernels read it: bits 8 or 4 (quantized,
 * n a multiple of 32) or 16 (a 16-bit float, bfloat16 or IEEE half as
 * `w16` says: one group of k depths, no scales; the last panel may hold
 * fewer than 32 of the n columns). */
typedef struct agl_quant_b {
  const unsigned char *data;
  int64_t k, n, group, panel_bytes, group_bytes, row_bytes;
  int bits;
  agl_w16_format w16;
} agl_quant_b;

/* Small-m product: C rows [0, m) (m <= 4) x panels [q0, q1) of B, for one
 * batch entry; A's element (i, p) at a.data[i * a.rs + p * a.cs], C's
 * element (i, j) at c[i * crs + j], stored through the epilogue `e` (in C's
 * coordinates: its bias and residual at these rows' (0, 0)). */
typedef void (*agl_quant_small_fn)(int m, int64_t q0, int64_t q1,
                                   agl_view a, const agl_quant_b *b,
                                   float *c, int64_t crs,
                                   const agl_epilogue *e);
/* Dequantizes depths [pc, pc + kc) of panel `panel` of B into kc rows of
 * 32 floats, `ld` floats apart, starting at dst (columns 0..31). */
typedef void (*agl_quant_dequant_fn)(const agl_quant_b *b, int64_t panel,
                                     int64_t pc, int64_t kc, float *dst,
                                     int64_t ld);

AGL_HIDDEN void agl_quant_small_portable(int m, int64_t q0, int64_t q1,
                                         agl_view a, const agl_quant_b *b,
                                         float *c, int64_t crs,
                                         const agl_epilogue *e);
AGL_HIDDEN void agl_quant_dequant_portable(const agl_quant_b *b,
                                           int64_t panel, int64_t pc,
                                           int64_t kc, float *dst,
                                           int64_t ld);
/* The same for 16-bit float B (bits 16, either format): the small kernel
 * stores only the n columns of C, the widening writes the zero columns of
 * the last panel. */
AGL_HIDDEN void agl_w16_small_portable(int m, int64_t q0, int64_t q1,
                                        agl_view a, const agl_quant_b *b,
                                        float *c, int64_t crs,
                                        const agl_epilogue *e);
AGL_HIDDEN void agl_w16_widen_portable(const agl_quant_b *b, int64_t panel,
                                        int64_t pc, int64_t kc, float *dst,
                                        int64_t ld);
#if defined(AGL_HAVE_AVX2_KERNELS)
AGL_HIDDEN void agl_w16_small_avx2(int m, int64_t q0, int64_t q1, agl_view a,
                                   const agl_quant_b *b, float *c, int64_t crs,
                                   const agl_epilogue *e);
AGL_HIDDEN void agl_w16_widen_avx2(const agl_quant_b *b, int64_t panel,
                                   int64_t pc, int64_t kc, float *dst,
                                   int64_t ld);
AGL_HIDDEN void agl_quant_small_avx2(int m, int64_t q0, int64_t q1, agl_view a,
                                     const agl_quant_b *b, float *c,
                                     int64_t crs, const agl_epilogue *e);
AGL_HIDDEN void agl_quant_dequant_avx2(const agl_quant_b *b, int64_t panel,
                                       int64_t pc, int64_t kc, float *dst,
                                       int64_t ld);
#endif
#if defined(AGL_HAVE_AVX512_KERNELS)
AGL_HIDDEN void agl_w16_small_avx512(int m, int64_t q0, int64_t q1,
                                      agl_view a, const agl_quant_b *b,
                                      float *c, int64_t crs,
                                      const agl_epilogue *e);
AGL_HIDDEN void agl_w16_widen_avx512(const agl_quant_b *b, int64_t panel,
                                      int64_t pc, int64_t kc, float *dst,
                                      int64_t ld);
AGL_HIDDEN void agl_quant_small_avx512(int m, int64_t q0, int64_t q1,
                                       agl_view a, const agl_quant_b *b,
                                       float *c, int64_t crs,
                                       const agl_epilogue *e);
AGL_HIDDEN void agl_quant_dequant_avx512(const agl_quant_b *b, int64_t panel,
                                         int64_t pc, int64_t kc, float *dst,
                                         int64_t ld);
/* agl_quant_small_avx512 with one row of A and 4-bit B on AVX-512 VNNI
 * (CPUs that have it, agl_cpu_has_avx512_vnni): A's row quantized to int8
 * per group, the products in integers (sgemm_quant_vnni.c); depths up to
 * AGL_QUANT_VNNI_MAX_K (A's bytes live on the stack). Other products, and
 * rows with values that are not finite, go to agl_quant_small_avx512. */
enum { AGL_QUANT_VNNI_MAX_K = 8192 };
AGL_HIDDEN void agl_quant_small_avx512_vnni(int m, int64_t q0, int64_t q1,
                                            agl_view a, const agl_quant_b *b,
                                            float *c, int64_t crs,
                                            const agl_epilogue *e);
/* 0: the decode rows keep the float kernel (tests compare the two). */
AGL_HIDDEN void agl_quant_allow_vnni(int allow);
#endif

#endif /* AUTOGLM_QUANT_INTERNAL_H */
