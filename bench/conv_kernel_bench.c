/* Microbenchmark of agl_kernel_conv2d: its three ways (the implicit GEMM
 * that packs windows; the direct kernel with output positions along the
 * vectors, "rows"; the direct kernel with filters along the vectors and the
 * input broadcast from a copy of its rows, "bcast") and its own choice
 * ("auto"), and for 3x3 convolutions with unit strides
 * agl_kernel_conv2d_winograd ("wino", in the direct convolution's FLOPs)
 * and agl_kernel_conv2d_winograd_f4 ("wf4", the same),
 * side by side on the convolutions of bench/workloads.py's resnet224 and a
 * few others, alternating call by call, fastest of the repetitions, at 1
 * and 2 threads. Prints GFLOP/s of each, the ratio auto/GEMM (time), and
 * the largest difference between the other ways' results and the GEMM's,
 * relative to the largest output.
 *
 * At 1 thread the times are the thread's CPU time (the machine may be
 * shared), at more, wall-clock time.
 *
 *   autoglm-conv-kernel-bench [--reps N] [--threads 1,2] [--only NAME]
 */
#include "autoglm/kernels.h"
#include "autoglm/runtime.h"
#include "bench_timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's internal switch (kernels_internal.h): 0 by shape, 1 the
 * implicit GEMM, 2 and 3 the direct kernels where they can. */
extern int agl_conv_select(int which);

/* The FP32 FMA peak of one core, the best of a few short runs (in CPU
 * time, as the 1-thread times). */
static double measure_peak(void) {
  return measure_peak_with(1000000, 9, 1000000);
}

typedef struct conv_shape {
  const char *name;
  int64_t cin, h, w, cout, k, stride, pad;
} conv_shape;

static const conv_shape kShapes[] = {
    {"stem 7x7/2 3->64 224", 3, 224, 224, 64, 7, 2, 3},
    {"stage1 3x3 64->64 56", 64, 56, 56, 64, 3, 1, 1},
    {"stage2.ds 1x1/2 64->128", 64, 56, 56, 128, 1, 2, 0},
    {"stage2.conv1 3x3/2 64->128", 64, 56, 56, 128, 3, 2, 1},
    {"stage2.conv2 3x3 128->128 28", 128, 28, 28, 128, 3, 1, 1},
    {"stage3.ds 1x1/2 128->256", 128, 28, 28, 256, 1, 2, 0},
    {"stage3.conv1 3x3/2 128->256", 128, 28, 28, 256, 3, 2, 1},
    {"stage3.conv2 3x3 256->256 14", 256, 14, 14, 256, 3, 1, 1},
    {"stage4.ds 1x1/2 256->512", 256, 14, 14, 512, 1, 2, 0},
    {"stage4.conv1 3x3/2 256->512", 256, 14, 14, 512, 3, 2, 1},
    {"stage4.conv2 3x3 512->512 7", 512, 7, 7, 512, 3, 1, 1},
    /* Others. */
    {"3x3 32->32 112", 32, 112, 112, 32, 3, 1, 1},
    {"3x3 64->128 56", 64, 56, 56, 128, 3, 1, 1},
    {"3x3 128->64 28", 128, 28, 28, 64, 3, 1, 1},
    {"1x1 64->64 56", 64, 56, 56, 64, 1, 1, 0},
    {"5x5 16->48 40", 16, 40, 40, 48, 5, 1, 2},
    {"3x3 16->16 112", 16, 112, 112, 16, 3, 1, 1},
    {"3x3 32->32 56", 32, 56, 56, 32, 3, 1, 1},
    {"3x3 48->48 28", 48, 28, 28, 48, 3, 1, 1},
    {"3x3 64->32 56", 64, 56, 56, 32, 3, 1, 1},
    {"3x3 32->64 112", 32, 112, 112, 64, 3, 1, 1},
    {"3x3/2 32->32 112", 32, 112, 112, 32, 3, 2, 1},
};

typedef struct buffers {
  float *in, *w, *bias, *out;
  float *transformed, *workspace; /* Winograd's, or null */
  float *transformed_f4, *workspace_f4; /* F(4x4, 3x3)'s, or null */
  int64_t oh, ow;
} buffers;

static void call(const conv_shape *s, buffers *b) {
  agl_kernel_conv2d(1, 1, s->cin, s->h, s->w, b->in, s->cin * s->h * s->w,
                    s->h * s->w, s->w, s->cout, s->k, s->k, s->stride,
                    s->stride, 1, 1, s->pad, s->pad, b->w, b->bias, b->out,
                    b->oh, b->ow, s->cout * b->oh * b->ow, b->oh * b->ow, 0,
                    AGL_ACT_RELU, NULL, NULL);
}

/* Packs w[f, depth] in place into agl_kernel_conv2d's layout (panels of
 * AGL_CONV_PACKED_NR filters, depth by depth). */
static void pack_filters(float *w, int64_t filters, int64_t depth) {
  const int64_t nr = AGL_CONV_PACKED_NR;
  float *packed = malloc(sizeof(float) * filters * depth);
  for (int64_t f = 0; f < filters; ++f) {
    const int64_t first = f / nr * nr;
    const int64_t width = filters - first < nr ? filters - first : nr;
    for (int64_t d = 0; d < depth; ++d)
      packed[first * depth + d * width + (f - first)] = w[f * depth + d];
  }
  memcpy(w, packed, sizeof(float) * filters * depth);
  free(packed);
}

static void call_winograd(const conv_shape *s, buffers *b) {
  agl_kernel_conv2d_winograd(1, s->cin, s->h, s->w, b->in, s->cin * s->h * s->w,
                             s->h * s->w, s->w, s->cout, s->pad, s->pad,
                             b->transformed, b->bias, b->out, b->oh, b->ow,
                             s->cout * b->oh * b->ow, b->oh * b->ow, 0,
                             AGL_ACT_RELU, NULL, b->workspace, NULL);
}

static void call_winograd_f4(const conv_shape *s, buffers *b) {
  agl_kernel_conv2d_winograd_f4(
      1, s->cin, s->h, s->w, b->in, s->cin * s->h * s->w, s->h * s->w, s->w,
      s->cout, s->pad, s->pad, b->transformed_f4, b->bias, b->out, b->oh, b->ow,
      s->cout * b->oh * b->ow, b->oh * b->ow, 0, AGL_ACT_RELU, NULL,
      b->workspace_f4, NULL);
}

/* Runs way 0-3 (agl_conv_select's), 4 (Winograd F(2x2, 3x3)) or 5
 * (F(4x4, 3x3)). */
static void call_way(const conv_shape *s, buffers *b, int way) {
  if (way == 5) {
    call_winograd_f4(s, b);
    return;
  }
  if (way == 4) {
    call_winograd(s, b);
    return;
  }
  agl_conv_select(way);
  call(s, b);
}

int main(int argc, char **argv) {
  int reps = 30;
  const char *threads_arg = "1,2", *only = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads_arg = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--reps N] [--threads 1,2] [--only NAME]\n",
              argv[0]);
      return 2;
    }
  }
  if (reps < 1)
    reps = 1;
  double *times[6]; /* by way: auto, GEMM, rows, bcast, Winograd F2, F4 */
  for (int w = 0; w < 6; ++w)
    times[w] = malloc(sizeof(double) * reps);
  g_cpu_clock = 1; /* the peak in CPU time, as the 1-thread times */
  printf("FP32 FMA peak of one core: %.1f GFLOP/s\n", measure_peak());
  printf("%-30s %3s %9s %9s %9s %9s %9s %9s %9s %9s\n", "convolution", "thr",
         "gemm GF/s", "rows GF/s", "bcst GF/s", "auto GF/s", "wino GF/s",
         "wf4 GF/s", "auto/gemm", "max diff");
  char list[64];
  snprintf(list, sizeof list, "%s", threads_arg);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    int threads = atoi(tok);
    agl_set_num_threads(threads);
    g_cpu_clock = threads == 1;
    for (size_t si = 0; si < sizeof kShapes / sizeof kShapes[0]; ++si) {
      const conv_shape *s = &kShapes[si];
      if (only && !strstr(s->name, only))
        continue;
      buffers b;
      b.oh = (s->h + 2 * s->pad - s->k) / s->stride + 1;
      b.ow = (s->w + 2 * s->pad - s->k) / s->stride + 1;
      int64_t depth = s->cin * s->k * s->k;
      int64_t nin = s->cin * s->h * s->w, nw = s->cout * depth,
              nout = s->cout * b.oh * b.ow;
      b.in = malloc(sizeof(float) * nin);
      b.w = malloc(sizeof(float) * nw);
      b.bias = malloc(sizeof(float) * s->cout);
      b.out = malloc(sizeof(float) * nout);
      const int winograd = s->k == 3 && s->stride == 1;
      b.transformed =
          winograd ? malloc(sizeof(float) * agl_conv_winograd_filters_floats(
                                                s->cout, s->cin))
                   : NULL;
      b.workspace =
          winograd ? malloc(sizeof(float) * agl_conv_winograd_workspace_floats(
                                                s->cin, s->cout, b.oh, b.ow))
                   : NULL;
      b.transformed_f4 =
          winograd
              ? malloc(sizeof(float) *
                       agl_conv_winograd_f4_filters_floats(s->cout, s->cin))
              : NULL;
      b.workspace_f4 =
          winograd
              ? malloc(sizeof(float) * agl_conv_winograd_f4_workspace_floats(
                                           s->cin, s->cout, b.oh, b.ow))
              : NULL;
      float *ref = malloc(sizeof(float) * nout);
      srand(7);
      for (int64_t i = 0; i < nin; ++i)
        b.in[i] = (float)rand() / RAND_MAX - 0.5f;
      for (int64_t i = 0; i < nw; ++i)
        b.w[i] = (float)rand() / RAND_MAX - 0.5f;
      for (int64_t i = 0; i < s->cout; ++i)
        b.bias[i] = (float)rand() / RAND_MAX - 0.5f;
      if (winograd) {
        agl_conv_winograd_filters(b.w, s->cout, s->cin, b.transformed);
        agl_conv_winograd_f4_filters(b.w, s->cout, s->cin, b.transformed_f4);
      }
      pack_filters(b.w, s->cout, depth);
      /* The GEMM's result, the direct kernels' against it, warm-up. */
      agl_conv_select(1);
      call(s, &b);
      memcpy(ref, b.out, sizeof(float) * nout);
      double diff = 0, top = 0;
      for (int way = 2; way <= (winograd ? 5 : 3); ++way) {
        call_way(s, &b, way);
        for (int64_t i = 0; i < nout; ++i) {
          double d = fabs((double)b.out[i] - ref[i]);
          if (d > diff)
            diff = d;
          if (fabs(ref[i]) > top)
            top = fabs(ref[i]);
        }
      }
      const int ways = winograd ? 6 : 4;
      for (int r = 0; r < reps; ++r)
        for (int k = 0; k < ways; ++k) {
          const int way = k < 4 ? (k + 1) % 4 : k; /* GEMM first */
          double t0 = now();
          call_way(s, &b, way);
          times[way][r] = now() - t0;
        }
      double best[6];
      for (int w = 0; w < ways; ++w) {
        qsort(times[w], reps, sizeof(double), compare_doubles);
        /* The machine is shared: the fastest of the repetitions shows what
         * each way costs with the least interference. */
        best[w] = times[w][0];
      }
      double flops = 2.0 * (double)nout * depth;
      char wino[16] = "-", wf4[16] = "-";
      if (winograd) {
        snprintf(wino, sizeof wino, "%.1f", flops / best[4] * 1e-9);
        snprintf(wf4, sizeof wf4, "%.1f", flops / best[5] * 1e-9);
      }
      printf("%-30s %3d %9.1f %9.1f %9.1f %9.1f %9s %9s %9.3f %9.2e\n", s->name,
             threads, flops / best[1] * 1e-9, flops / best[2] * 1e-9,
             flops / best[3] * 1e-9, flops / best[0] * 1e-9, wino, wf4,
             best[0] / best[1], top > 0 ? diff / top : diff);
      fflush(stdout);
      free(b.in);
      free(b.w);
      free(b.bias);
      free(b.out);
      free(b.transformed);
      free(b.workspace);
      free(b.transformed_f4);
      free(b.workspace_f4);
      free(ref);
    }
  }
  agl_conv_select(0);
  for (int w = 0; w < 6; ++w)
    free(times[w]);
  return 0;
}
