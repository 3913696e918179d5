/* The entry of autoglm-gelu-table-test, compiled for the baseline target:
 * it runs the AVX-512 checks (gelu_table_test.c) only where the CPU has
 * AVX-512, and exits 77 (skipped) elsewhere. */
#include <stdio.h>

int gelu_table_test(void);

int main(void) {
  if (!__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512vl") ||
      !__builtin_cpu_supports("avx512dq") ||
      !__builtin_cpu_supports("avx512bw")) {
    printf("skipped: this CPU has no AVX-512\n");
    return 77;
  }
  return gelu_table_test();
}
