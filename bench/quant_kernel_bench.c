/* Microbenchmark of the GEMMs with weights in fewer bits against the float
 * one: agl_kernel_sgemm_packed, agl_kernel_sgemm_bf16, agl_kernel_sgemm_f16,
 * agl_kernel_sgemm_q8 and agl_kernel_sgemm_q4 on the same weights (packed,
 * rounded with agl_pack_b_w16, or quantized with agl_quantize_b), on the GLM
 * layer's products at decode (m = 1) and prefill (m = 128) sizes; median
 * time of repeated calls after warm-up, GFLOP/s and GB/s of weights read.
 * The modes alternate call by call, so that other load falls on all five.
 *
 *   autoglm-quant-kernel-bench [--reps N] [--threads 1,2] [--group-size G]
 */
#include "autoglm/kernels_quant.h"
#include "autoglm/runtime.h"
#include "bench_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
  const char *name;
  int64_t m, n, k;
} shape;

static const shape shapes[] = {
    {"decode qkv 1x3072x1024", 1, 3072, 1024},
    {"decode mlp up 1x2048x1024", 1, 2048, 1024},
    {"decode mlp down 1x1024x2048", 1, 1024, 2048},
    {"decode 4 rows 4x3072x1024", 4, 3072, 1024},
    {"prefill qkv 128x3072x1024", 128, 3072, 1024},
};

static void *aligned(size_t bytes) {
  return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static void run_shape(const shape *s, int threads, int reps, int64_t group) {
  const int64_t m = s->m, n = s->n, k = s->k, nr = AGL_SGEMM_PACKED_NR;
  float *a = aligned((size_t)(m * k) * 4), *c = aligned((size_t)(m * n) * 4);
  float *w = aligned((size_t)(k * n) * 4), *packed = aligned((size_t)(k * n) * 4);
  unsigned state = 12345;
  for (int64_t i = 0; i < k * n; ++i) {
    state = state * 1664525u + 1013904223u;
    w[i] = (float)((state >> 8) & 0xFFFF) / 65536.0f - 0.5f;
  }
  for (int64_t i = 0; i < m * k; ++i)
    a[i] = (float)(i % 17) * 0.01f;
  for (int64_t p = 0; p < n / nr; ++p)
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < nr; ++j)
        packed[(p * k + r) * nr + j] = w[r * n + p * nr + j];
  int64_t bytes8 = agl_quant_weight_bytes(k, n, 8, group);
  int64_t bytes4 = agl_quant_weight_bytes(k, n, 4, group);
  void *q8 = aligned((size_t)bytes8), *q4 = aligned((size_t)bytes4);
  agl_quantize_b(w, k, n, n, 1, 8, group, q8);
  agl_quantize_b(w, k, n, n, 1, 4, group, q4);
  int64_t bytes16 = agl_w16_weight_bytes(k, n);
  void *b16 = aligned((size_t)bytes16), *h16 = aligned((size_t)bytes16);
  agl_pack_b_w16(AGL_W16_BF16, w, k, n, n, 1, b16);
  agl_pack_b_w16(AGL_W16_F16, w, k, n, n, 1, h16);
  int runs = reps;
  enum { MODES = 5 };
  double *times[MODES];
  for (int mode = 0; mode < MODES; ++mode)
    times[mode] = malloc((size_t)runs * sizeof(double));
  for (int r = -3; r < runs; ++r)
    for (int mode = 0; mode < MODES; ++mode) {
      double start = now();
      if (mode == 0)
        agl_kernel_sgemm_packed(1, m, n, k, a, 0, k, 1, packed, c, 0, n, 0,
                                1.0f, NULL, 0, NULL, 0, 0, NULL);
      else if (mode == 1)
        agl_kernel_sgemm_bf16(1, m, n, k, a, 0, k, 1, b16, c, 0, n, 0, 1.0f,
                              NULL, 0, NULL, 0, 0, NULL);
      else if (mode == 2)
        agl_kernel_sgemm_f16(1, m, n, k, a, 0, k, 1, h16, c, 0, n, 0, 1.0f,
                             NULL, 0, NULL, 0, 0, NULL);
      else if (mode == 3)
        agl_kernel_sgemm_q8(1, m, n, k, a, 0, k, 1, q8, group, c, 0, n, 0,
                            1.0f, NULL, 0, NULL, 0, 0, NULL);
      else
        agl_kernel_sgemm_q4(1, m, n, k, a, 0, k, 1, q4, group, c, 0, n, 0,
                            1.0f, NULL, 0, NULL, 0, 0, NULL);
      if (r >= 0)
        times[mode][r] = now() - start;
    }
  static const char *names[MODES] = {"fp32", "bf16", "fp16", "int8",
                                     "int4"};
  double bytes[MODES] = {(double)(k * n * 4), (double)bytes16,
                         (double)bytes16, (double)bytes8, (double)bytes4};
  double fp32 = 0;
  for (int mode = 0; mode < MODES; ++mode) {
    qsort(times[mode], (size_t)runs, sizeof(double), compare_doubles);
    double median = times[mode][runs / 2];
    if (mode == 0)
      fp32 = median;
    printf("%-28s %d thr %s %9.1f us %7.1f GFLOP/s %6.1f GB/s of B  %.2fx\n",
           s->name, threads, names[mode], median * 1e6,
           2.0 * m * n * k / median / 1e9, bytes[mode] / median / 1e9,
           fp32 / median);
    free(times[mode]);
  }
  fflush(stdout);
  free(a);
  free(c);
  free(w);
  free(packed);
  free(q8);
  free(q4);
  free(b16);
  free(h16);
}

int main(int argc, char **argv) {
  int reps = 100;
  int64_t group = 128;
  int thread_list[8] = {1, 2}, num_threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--group-size") && i + 1 < argc)
      group = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      num_threads = 0;
      for (char *t = strtok(argv[++i], ","); t && num_threads < 8;
           t = strtok(NULL, ","))
        thread_list[num_threads++] = atoi(t);
    } else {
      fprintf(stderr,
              "usage: %s [--reps N] [--threads 1,2] [--group-size G]\n",
              argv[0]);
      return 2;
    }
  }
  if (reps < 1 || group <= 0 || group % 32 != 0) {
    fprintf(stderr, "reps must be positive, the group size a multiple of 32\n");
    return 2;
  }
  for (int t = 0; t < num_threads; ++t) {
    if (agl_set_num_threads(thread_list[t]) != AGL_OK) {
      fprintf(stderr, "%s\n", agl_last_error());
      return 1;
    }
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
      run_shape(&shapes[i], thread_list[t],
                shapes[i].m > 4 ? (reps + 9) / 10 : reps, group);
  }
  return 0;
}
