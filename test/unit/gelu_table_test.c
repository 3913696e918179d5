/* agl_gelu_erf_table512_n (avx512_math.h), the erf GELU of the AVX-512
 * epilogues, against a double reference: within 2 ulp of
 * max(|x|, |GELU(x)|) on a dense grid over [-12, 12], near 0 and at every
 * interval boundary of its table; NaN stays NaN, +inf stays +inf. This file
 * is compiled with AVX-512 enabled; gelu_table_main.c calls it only after
 * checking the CPU. */
#include "avx512_math.h"

#include <math.h>
#include <stdio.h>

static double gelu(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }

static double worst_ulp = 0, worst_x = 0;

static void check16(const float *x) {
  __m512 v = _mm512_loadu_ps(x);
  agl_gelu_erf_table512_n(&v, 1);
  float y[16];
  _mm512_storeu_ps(y, v);
  for (int l = 0; l < 16; ++l) {
    double want = gelu(x[l]);
    double size = fmax(fabs((double)x[l]), fabs(want));
    double unit = size > 0 ? ldexp(1.0, ilogb(size) - 23) : 0x1p-149;
    double error = fabs(y[l] - want) / unit;
    if (error > worst_ulp) {
      worst_ulp = error;
      worst_x = x[l];
    }
  }
}

static void check(float x) {
  float lanes[16];
  for (int l = 0; l < 16; ++l)
    lanes[l] = l % 2 ? -x : x;
  check16(lanes);
}

int gelu_table_test(void) {
  float lanes[16];
  const int count = 1 << 21;
  for (int i = 0; i < count; i += 16) {
    for (int l = 0; l < 16; ++l)
      lanes[l] = -12.0f + 24.0f * (float)(i + l) / (float)count;
    check16(lanes);
  }
  for (float x = 1e-30f; x < 1e-2f; x *= 1.37f)
    check(x);
  check(0.0f);
  /* Both sides of every interval boundary, and the table's end. */
  for (int i = 1; i <= 31; ++i) {
    float edge = (float)i / AGL_GELU_SCALE;
    check(nextafterf(edge, 0.0f));
    check(edge);
    check(nextafterf(edge, 100.0f));
  }
  printf("worst error %.2f ulp of max(|x|, |y|) at x = %g\n", worst_ulp,
         worst_x);
  int failures = worst_ulp > 2.0;

  for (int l = 0; l < 16; ++l)
    lanes[l] = l % 2 ? NAN : INFINITY;
  __m512 v = _mm512_loadu_ps(lanes);
  agl_gelu_erf_table512_n(&v, 1);
  float y[16];
  _mm512_storeu_ps(y, v);
  for (int l = 0; l < 16; ++l)
    if (l % 2 ? !isnan(y[l]) : y[l] != INFINITY) {
      printf("GELU(%g) = %g\n", lanes[l], y[l]);
      failures = 1;
    }
  if (failures)
    printf("FAILED\n");
  return failures;
}
