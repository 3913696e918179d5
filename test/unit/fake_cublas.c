/* A stand-in for libcublas.so on machines without a GPU, next to the fake
 * driver (fake_cuda_driver.c), whose device memory is host memory: the
 * product is computed on the host, column-major as cuBLAS defines it. The
 * runtime loads it through AUTOGLM_CUBLAS. FAKE_CUBLAS_FAIL=create|gemm
 * makes that call fail as the real library would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int cublasStatus_t;
enum {
  SUCCESS = 0,
  ALLOC_FAILED = 3,
  INVALID_VALUE = 7,
  EXECUTION_FAILED = 13,
  OP_T = 1,
  R_32F = 0,
  R_16F = 2,
  R_16BF = 14,
  COMPUTE_32F = 68
};

static int handle_storage;

static int failing(const char *call) {
  const char *fail = getenv("FAKE_CUBLAS_FAIL");
  return fail && strcmp(fail, call) == 0;
}

cublasStatus_t cublasCreate_v2(void **handle) {
  if (failing("create"))
    return ALLOC_FAILED;
  *handle = &handle_storage;
  return SUCCESS;
}

cublasStatus_t cublasDestroy_v2(void *handle) {
  return handle == &handle_storage ? SUCCESS : EXECUTION_FAILED;
}

cublasStatus_t cublasSetStream_v2(void *handle, void *stream) {
  (void)stream;
  return handle == &handle_storage ? SUCCESS : EXECUTION_FAILED;
}

const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/* Element (i, j) of op(X), X column-major with leading dimension ld. */
static float at(const float *x, int ld, int op, int i, int j) {
  return op == OP_T ? x[j + (long)i * ld] : x[i + (long)j * ld];
}

cublasStatus_t
cublasSgemmStridedBatched(void *handle, int transa, int transb, int m, int n,
                          int k, const float *alpha, const float *a, int lda,
                          long long stride_a, const float *b, int ldb,
                          long long stride_b, const float *beta, float *c,
                          int ldc, long long stride_c, int batch_count) {
  if (handle != &handle_storage || failing("gemm"))
    return EXECUTION_FAILED;
  for (int e = 0; e < batch_count; ++e)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        float sum = 0;
        for (int p = 0; p < k; ++p)
          sum += at(a + e * stride_a, lda, transa, i, p) *
                 at(b + e * stride_b, ldb, transb, p, j);
        float *out = c + e * stride_c + i + (long)j * ldc;
        *out = *alpha * sum + (*beta != 0 ? *beta * *out : 0);
      }
  return SUCCESS;
}

/* A 16-bit float as a float. */
static float widen(uint16_t bits, int type) {
  uint32_t out;
  if (type == R_16BF) {
    out = (uint32_t)bits << 16;
  } else { /* IEEE half; no subnormals, infinities or NaNs in the tests */
    uint32_t exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    out = exponent ? ((exponent + 112) << 23) | (mantissa << 13) : 0;
    out |= (uint32_t)(bits & 0x8000) << 16;
  }
  float f;
  memcpy(&f, &out, sizeof f);
  return f;
}

/* Element (i, j) of op(X), 16-bit X column-major with leading dimension
 * ld. */
static float at16(const uint16_t *x, int type, int ld, int op, int i, int j) {
  return widen(op == OP_T ? x[j + (long)i * ld] : x[i + (long)j * ld], type);
}

cublasStatus_t cublasGemmStridedBatchedEx(
    void *handle, int transa, int transb, int m, int n, int k,
    const void *alpha, const void *a, int a_type, int lda, long long stride_a,
    const void *b, int b_type, int ldb, long long stride_b, const void *beta,
    void *c, int c_type, int ldc, long long stride_c, int batch_count,
    int compute_type, int algo) {
  (void)algo;
  if (handle != &handle_storage || failing("gemm"))
    return EXECUTION_FAILED;
  if (a_type != b_type || (a_type != R_16F && a_type != R_16BF) ||
      c_type != R_32F || compute_type != COMPUTE_32F)
    return INVALID_VALUE;
  const float alpha_value = *(const float *)alpha;
  const float beta_value = *(const float *)beta;
  for (int e = 0; e < batch_count; ++e)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        float sum = 0;
        for (int p = 0; p < k; ++p)
          sum += at16((const uint16_t *)a + e * stride_a, a_type, lda, transa,
                      i, p) *
                 at16((const uint16_t *)b + e * stride_b, b_type, ldb, transb,
                      p, j);
        float *out = (float *)c + e * stride_c + i + (long)j * ldc;
        *out = alpha_value * sum + (beta_value != 0 ? beta_value * *out : 0);
      }
  return SUCCESS;
}
