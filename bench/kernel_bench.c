/* Microbenchmark of agl_kernel_sgemm, agl_kernel_sgemm_packed and
 * agl_kernel_attention: the median time of repeated calls (after warm-up)
 * on GEMM, transformer and attention shapes at 1 and 2 threads (the
 * "packed" ones with B packed as compiled weights, several copies in
 * turn, so that it comes from beyond the L2 as a model's do), in
 * GFLOP/s and as a share of the FP32 FMA peak of one core, which it measures
 * first with a loop of independent AVX-512 FMAs.
 *
 * `--isa avx2` or `--isa portable` runs those kernels on a CPU that has
 * better ones.
 *
 *   autoglm-kernel-bench [--reps N] [--threads 1,2] [--only NAME] [--isa ISA]
 */
#include "autoglm/kernels.h"
#include "autoglm/runtime.h"
#include "bench_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The runtime's internal switch (kernels_internal.h): 0 the best this CPU
 * runs, 1 the portable kernels, 3 the AVX2 ones. */
struct agl_gemm_isa;
extern const struct agl_gemm_isa *agl_gemm_select(int which);

static double measure_peak(void) {
  return measure_peak_with(2000000, 7, 4000000);
}

typedef struct shape {
  const char *name;
  int64_t batch, m, n, k;
  int b_transposed; /* B given as B^T (row stride 1, column stride k) */
  /* agl_kernel_attention instead: batch heads, m queries, n keys, head and
   * value size k; 2 = causal; 3 = causal, Q, K and V read in place from one
   * QKV product (m x 3 heads k) and the output written as (m x heads k), as
   * in a compiled model. */
  int attention;
  /* agl_kernel_sgemm_packed instead, its B packed as a compiled model's
   * weights, in this many copies used in turn: 8 copies of a GLM layer's
   * weights (12 MiB each) leave the L2 far behind, as a whole layer's do. */
  int packed_copies;
} shape;

static const shape shapes[] = {
    {"gemm-1024", 1, 1024, 1024, 1024, 0},
    {"gemm-2048", 1, 2048, 2048, 2048, 0},
    {"mlp-up 128x768x3072", 1, 128, 768, 3072, 0},
    {"mlp-down 128x3072x768", 1, 128, 3072, 768, 0},
    {"proj 128x1024x1024", 1, 128, 1024, 1024, 0},
    {"proj-Bt 128x1024x1024", 1, 128, 1024, 1024, 1},
    {"attn-QK^T 16x128x128x64", 16, 128, 128, 64, 1},
    {"attn-PV 16x128x64x128", 16, 128, 64, 128, 0},
    {"decode-attn 16x1x512x64", 16, 1, 512, 64, 1},
    {"decode-mlp 1x3072x1024", 1, 1, 3072, 1024, 0},
    {"decode-mlp-Bt 1x3072x1024", 1, 1, 3072, 1024, 1},
    {"attention 16x128x128x64", 16, 128, 128, 64, 0, 1},
    {"attention-causal 16x128x128x64", 16, 128, 128, 64, 0, 2},
    {"attention-causal-qkv 16x128x128x64", 16, 128, 128, 64, 0, 3},
    {"attention-decode 16x1x512x64", 16, 1, 512, 64, 0, 1},
    {"packed qkv 128x1024x3072", 1, 128, 3072, 1024, 0, 0, 8},
    {"packed down 128x2048x1024", 1, 128, 1024, 2048, 0, 0, 8},
    {"packed mlp-up 128x768x3072", 1, 128, 3072, 768, 0, 0, 8},
    {"packed gemm-1024", 1, 1024, 1024, 1024, 0, 0, 8},
};

/* One call of the shape's kernel: C = A B, or attention with queries A,
 * keys B, values C (heads x n x k) into the output D. */
static void call(const shape *s, const float *a, const float *b, float *c,
                 const float *v, float *out) {
  if (s->packed_copies) {
    static int turn;
    const int64_t panels =
        (s->n + AGL_SGEMM_PACKED_NR - 1) / AGL_SGEMM_PACKED_NR;
    const float *copy = b + (size_t)(turn++ % s->packed_copies) * panels *
                                AGL_SGEMM_PACKED_NR * s->k;
    agl_kernel_sgemm_packed(1, s->m, s->n, s->k, a, 0, s->k, 1, copy, c, 0,
                            s->n, 0, 1.0f, NULL, 0, NULL, 0, 0, NULL);
    return;
  }
  if (s->attention == 3) {
    const int64_t rows = s->m, d = s->k, width = s->batch * d;
    agl_kernel_attention(1, s->batch, s->batch, rows, rows, d, d, a, 0, d,
                         3 * width, a + width, 0, d, 3 * width, a + 2 * width,
                         0, d, 3 * width, NULL, 0, 0, 0, 0, out, 0, d, width,
                         0.125f, 1);
    return;
  }
  if (s->attention) {
    const int64_t q = s->m, kv = s->n, d = s->k;
    agl_kernel_attention(1, s->batch, s->batch, q, kv, d, d, a, 0, q * d, d, b,
                         0, kv * d, d, v, 0, kv * d, d, NULL, 0, 0, 0, 0, out,
                         0, q * d, d, 0.125f, s->attention == 2);
    return;
  }
  agl_kernel_sgemm(s->batch, s->m, s->n, s->k, a, s->m * s->k, s->k, 1, b,
                   s->k * s->n, s->b_transposed ? 1 : s->n,
                   s->b_transposed ? s->k : 1, c, s->m * s->n, s->n, 0, 1.0f,
                   NULL, 0, NULL, 0, 0, NULL);
}

static float *random_floats(size_t count) {
  float *p = aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  unsigned state = 12345;
  for (size_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = (float)((state >> 8) & 0xFFFF) / 65536.0f - 0.5f;
  }
  return p;
}

static void run_shape(const shape *s, int threads, int reps, double peak) {
  size_t a_count = (size_t)(s->batch * s->m * s->k);
  size_t b_count = (size_t)(s->batch * s->k * s->n);
  if (s->packed_copies) /* whole panels of 32 columns, every copy */
    b_count = (size_t)s->packed_copies * s->k *
              ((s->n + AGL_SGEMM_PACKED_NR - 1) / AGL_SGEMM_PACKED_NR *
               AGL_SGEMM_PACKED_NR);
  size_t c_count = (size_t)(s->batch * s->m * s->n);
  if (s->attention) /* keys and values both heads x n x k */
    c_count = b_count;
  if (s->attention == 3) /* the QKV product */
    a_count *= 3;
  float *a = random_floats(a_count), *b = random_floats(b_count),
        *c = random_floats(c_count), *out = random_floats(a_count);
  double flops = 2.0 * (double)s->batch * s->m * s->n * s->k;
  if (s->attention) /* Q K^T and P V; causal: the visible keys only */
    flops = 2.0 * flops * (s->attention >= 2 ? (s->m + 1) / 2.0 / s->n : 1.0);
  /* At least 30 timed runs, and at least about half a second. */
  double t0 = now();
  int warm = 0;
  while (warm < 3 || now() - t0 < 0.2) {
    call(s, a, b, c, c, out);
    ++warm;
  }
  double per_call = (now() - t0) / warm;
  int runs = reps;
  if (runs * per_call < 0.5)
    runs = (int)(0.5 / per_call) + 1;
  if (runs > 20000)
    runs = 20000;
  double *times = malloc((size_t)runs * sizeof *times);
  for (int r = 0; r < runs; ++r) {
    double start = now();
    call(s, a, b, c, c, out);
    times[r] = now() - start;
  }
  qsort(times, (size_t)runs, sizeof *times, compare_doubles);
  double median = times[runs / 2];
  double gflops = flops / median / 1e9;
  printf("%-28s %d thr  %9.1f us  %7.1f GFLOP/s  %5.1f%% of %d-core peak",
         s->name, threads, median * 1e6, gflops,
         peak > 0 ? 100.0 * gflops / (peak * threads) : 0.0, threads);
  if (s->m <= 4)
    printf("  %6.1f GB/s of B", (double)b_count * 4 / median / 1e9);
  printf("\n");
  fflush(stdout);
  free(times);
  free(a);
  free(b);
  free(c);
  free(out);
}

/* A chunk of about 5 microseconds of work. */
static void busy_chunk(void *ctx, int64_t begin, int64_t end) {
  (void)ctx;
  for (int64_t i = begin; i < end; ++i) {
    double until = now() + 5e-6;
    while (now() < until)
      ;
  }
}

/* Median time of agl_parallel_for over one 5-microsecond chunk per thread:
 * the excess over 5 us is the cost of dispatching a kernel call to the
 * pool's threads and waiting for them. */
static void dispatch_latency(int threads) {
  enum { CALLS = 2001 };
  static double times[CALLS];
  for (int r = 0; r < 100; ++r)
    agl_parallel_for(threads, 1, busy_chunk, NULL);
  for (int r = 0; r < CALLS; ++r) {
    double start = now();
    agl_parallel_for(threads, 1, busy_chunk, NULL);
    times[r] = now() - start;
  }
  qsort(times, CALLS, sizeof times[0], compare_doubles);
  printf("%-28s %d thr  %9.2f us  (one 5 us chunk per thread, median)\n",
         "dispatch", threads, times[CALLS / 2] * 1e6);
}

int main(int argc, char **argv) {
  int reps = 30;
  const char *only = NULL;
  int thread_list[8] = {1, 2}, num_threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--isa") && i + 1 < argc &&
             (!strcmp(argv[i + 1], "avx2") || !strcmp(argv[i + 1], "portable")))
      agl_gemm_select(!strcmp(argv[++i], "avx2") ? 3 : 1);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      num_threads = 0;
      for (char *t = strtok(argv[++i], ","); t && num_threads < 8;
           t = strtok(NULL, ","))
        thread_list[num_threads++] = atoi(t);
    } else {
      fprintf(stderr,
              "usage: %s [--reps N] [--threads 1,2] [--only SUBSTRING] "
              "[--isa avx2|portable]\n",
              argv[0]);
      return 2;
    }
  }
  double peak = measure_peak();
  printf("FP32 FMA peak of one core: %.1f GFLOP/s\n", peak);
  for (int t = 0; t < num_threads; ++t) {
    if (agl_set_num_threads(thread_list[t]) != AGL_OK) {
      fprintf(stderr, "%s\n", agl_last_error());
      return 1;
    }
    if (!only || strstr("dispatch", only))
      dispatch_latency(thread_list[t]);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
      if (!only || strstr(shapes[i].name, only))
        run_shape(&shapes[i], thread_list[t], reps, peak);
  }
  return 0;
}
