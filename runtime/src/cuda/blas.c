/* Matrix products of compiled CUDA models, run by cuBLAS.
 *
 * --target=cuda turns each f32 matrix product whose layout cuBLAS takes
 * into a call of agl_cuda_sgemm on device pointers (agl_cuda_gemm_half on
 * 16-bit copies of the operands with --precision fp16 or bf16), made by
 * the model's host code during agl_instance_run
 * (autoglm-contractions-to-kernels with `cuda`). Like the driver, cuBLAS
 * is loaded at run time, the first time a model multiplies:
 * libcublas.so.13, .12 or .11, or the library named by AUTOGLM_CUBLAS. Each
 * instance creates its cuBLAS handle at its first product (cuBLAS allocates its
 * workspace then) and queues every product on the run's stream, between the
 * model's kernels. The types are cuBLAS's own ABI (cublas_api.h), declared here
 * so that building the runtime needs no CUDA headers. */
#include "blas.h"
#include "launch.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
/* cudaDataType, cublasComputeType_t and cublasGemmAlgo_t values. */
enum {
  CUDA_R_32F = 0,
  CUDA_R_16F = 2,
  CUDA_R_16BF = 14,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_GEMM_DEFAULT = -1
};

typedef struct blas_api {
  cublasStatus_t (*create)(cublasHandle_t *handle);
  cublasStatus_t (*destroy)(cublasHandle_t handle);
  cublasStatus_t (*set_stream)(cublasHandle_t handle, CUstream stream);
  cublasStatus_t (*sgemm_strided_batched)(
      cublasHandle_t handle, int transa, int transb, int m, int n, int k,
      const float *alpha, const float *a, int lda, long long stride_a,
      const float *b, int ldb, long long stride_b, const float *beta, float *c,
      int ldc, long long stride_c, int batch_count);
  cublasStatus_t (*gemm_strided_batched_ex)(
      cublasHandle_t handle, int transa, int transb, int m, int n, int k,
      const void *alpha, const void *a, int a_type, int lda, long long stride_a,
      const void *b, int b_type, int ldb, long long stride_b, const void *beta,
      void *c, int c_type, int ldc, long long stride_c, int batch_count,
      int compute_type, int algo);
  const char *(*status_string)(cublasStatus_t status); /* may be null */
} blas_api;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static blas_api api;
static int loaded;

void *agl_cuda_open_library(const char *variable, const char *const *candidates,
                            size_t count, const char *purpose, char *why,
                            size_t size) {
  const char *named = getenv(variable);
  void *library = NULL;
  if (named && *named) {
    library = dlopen(named, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (size_t i = 0; i < count && !library; ++i)
      library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (!library) {
    const char *error = dlerror();
    snprintf(why, size, "cannot load %s (%s); set %s to its path", purpose,
             error ? error : "not found", variable);
  }
  return library;
}

/* Loads cuBLAS once; on failure writes why into `why` (and a later call
 * tries again). */
static int load_blas(char *why, size_t size) {
  pthread_mutex_lock(&load_lock);
  if (!loaded) {
    static const char *const candidates[] = {
        "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
    void *library = agl_cuda_open_library(
        "AUTOGLM_CUBLAS", candidates, sizeof candidates / sizeof *candidates,
        "cuBLAS for the model's matrix products (libcublas.so)", why, size);
    if (library) {
      *(void **)&api.create = dlsym(library, "cublasCreate_v2");
      *(void **)&api.destroy = dlsym(library, "cublasDestroy_v2");
      *(void **)&api.set_stream = dlsym(library, "cublasSetStream_v2");
      *(void **)&api.sgemm_strided_batched =
          dlsym(library, "cublasSgemmStridedBatched");
      *(void **)&api.gemm_strided_batched_ex =
          dlsym(library, "cublasGemmStridedBatchedEx");
      *(void **)&api.status_string = dlsym(library, "cublasGetStatusString");
      if (api.create && api.destroy && api.set_stream &&
          api.sgemm_strided_batched && api.gemm_strided_batched_ex) {
        loaded = 1;
      } else {
        snprintf(why, size,
                 "libcublas lacks cublasCreate_v2, cublasDestroy_v2, "
                 "cublasSetStream_v2, cublasSgemmStridedBatched "
                 "or cublasGemmStridedBatchedEx");
        dlclose(library);
      }
    }
  }
  int ok = loaded;
  pthread_mutex_unlock(&load_lock);
  return ok;
}

void agl_cuda_blas_failed(const char *what, int status, const char *text) {
  char message[400];
  snprintf(message, sizeof message, "%s failed: %s (cuBLAS status %d)", what,
           text ? text : "unknown error", status);
  agl_cuda_run_failed(message);
}

static void blas_failed(const char *what, cublasStatus_t status) {
  agl_cuda_blas_failed(what, status,
                       api.status_string ? api.status_string(status) : NULL);
}

void agl_cuda_blas_destroy(agl_cuda_blas *blas) {
  if (!blas)
    return;
  if (loaded && blas->handle)
    api.destroy(blas->handle);
  agl_cuda_lt_destroy(blas->lt);
  free(blas->staging);
  free(blas);
}

agl_cuda_blas *agl_cuda_blas_of_run(const char *caller, CUstream *stream) {
  agl_cuda_blas **slot;
  if (!agl_cuda_run_binding(caller, stream, &slot))
    return NULL;
  if (!*slot && !(*slot = calloc(1, sizeof **slot)))
    agl_cuda_run_failed("out of host memory for the instance's run state");
  return *slot;
}

/* Neither with no unit stride, or with a leading dimension that does not
 * cover the other extent. A stride along an extent of 1 is never used. */
int agl_cuda_blas_layout(int64_t rows, int64_t cols, int64_t row_stride,
                         int64_t col_stride, int *transposed, int64_t *ld) {
  int64_t need;
  if (col_stride == 1 || cols == 1) {
    need = cols > 1 ? cols : 1;
    *transposed = 0;
    *ld = rows == 1 && row_stride < need ? need : row_stride;
  } else if (row_stride == 1 || rows == 1) {
    need = rows > 1 ? rows : 1;
    *transposed = 1;
    *ld = cols == 1 && col_stride < need ? need : col_stride;
  } else {
    return 0;
  }
  return *ld >= need && *ld <= INT_MAX;
}

int agl_cuda_product_layout(int64_t m, int64_t n, int64_t k,
                            int64_t a_row_stride, int64_t a_col_stride,
                            int64_t b_row_stride, int64_t b_col_stride,
                            int64_t c_row_stride, agl_cuda_product *out) {
  int c_transposed;
  return agl_cuda_blas_layout(m, k, a_row_stride, a_col_stride,
                              &out->a_transposed, &out->lda) &&
         agl_cuda_blas_layout(k, n, b_row_stride, b_col_stride,
                              &out->b_transposed, &out->ldb) &&
         agl_cuda_blas_layout(m, n, c_row_stride, 1, &c_transposed,
                              &out->ldc) &&
         !c_transposed;
}

void agl_cuda_blas_refuse(const char *caller, const char *library, int64_t m,
                          int64_t n, int64_t k) {
  char message[200];
  snprintf(message, sizeof message,
           "%s: a %lldx%lldx%lld product whose operand strides (or format) "
           "%s cannot take",
           caller, (long long)m, (long long)n, (long long)k, library);
  agl_cuda_run_failed(message);
}

/* One product, f32 (`format` < 0) or 16-bit operands: checks the layout,
 * loads cuBLAS, makes the instance's handle, queues the product. */
static void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const void *a,
                 int64_t a_batch_stride, int64_t a_row_stride,
                 int64_t a_col_stride, const void *b, int64_t b_batch_stride,
                 int64_t b_row_stride, int64_t b_col_stride, float *c,
                 int64_t c_batch_stride, int64_t c_row_stride,
                 int32_t accumulate, float alpha, int format,
                 const char *caller) {
  CUstream stream;
  agl_cuda_blas *blas = agl_cuda_blas_of_run(caller, &stream);
  if (!blas || batch <= 0 || m <= 0 || n <= 0)
    return;
  agl_cuda_product p;
  if (!agl_cuda_product_layout(m, n, k, a_row_stride, a_col_stride,
                               b_row_stride, b_col_stride, c_row_stride, &p) ||
      batch > INT_MAX || m > INT_MAX || n > INT_MAX || k > INT_MAX ||
      format > AGL_CUDA_BF16) {
    agl_cuda_blas_refuse(caller, "cuBLAS", m, n, k);
    return;
  }
  char why[400];
  if (!load_blas(why, sizeof why)) {
    agl_cuda_run_failed(why);
    return;
  }
  if (!blas->handle) {
    cublasStatus_t status = api.create(&blas->handle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      blas->handle = NULL;
      blas_failed("cublasCreate", status);
      return;
    }
  }
  cublasHandle_t handle = blas->handle;
  cublasStatus_t status = api.set_stream(handle, stream);
  if (status != CUBLAS_STATUS_SUCCESS) {
    blas_failed("cublasSetStream", status);
    return;
  }
  /* Row-major C = A B is column-major C^T = B^T A^T: cuBLAS multiplies
   * B's view by A's. */
  const float beta = accumulate ? 1.0f : 0.0f;
  const int op_b = p.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int op_a = p.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const char *what;
  if (format < 0) {
    what = "cublasSgemmStridedBatched";
    status = api.sgemm_strided_batched(
        handle, op_b, op_a, (int)n, (int)m, (int)k, &alpha, b, (int)p.ldb,
        b_batch_stride, a, (int)p.lda, a_batch_stride, &beta, c, (int)p.ldc,
        c_batch_stride, (int)batch);
  } else {
    what = "cublasGemmStridedBatchedEx";
    const int type = format == AGL_CUDA_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    status = api.gemm_strided_batched_ex(
        handle, op_b, op_a, (int)n, (int)m, (int)k, &alpha, b, type,
        (int)p.ldb, b_batch_stride, a, type, (int)p.lda, a_batch_stride, &beta,
        c, CUDA_R_32F, (int)p.ldc, c_batch_stride, (int)batch, CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT);
  }
  if (status != CUBLAS_STATUS_SUCCESS) {
    char text[160];
    snprintf(text, sizeof text, "%s (%lld x %lldx%lldx%lld)", what,
             (long long)batch, (long long)m, (long long)n, (long long)k);
    blas_failed(text, status);
  }
}

void agl_cuda_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                    const float *a, int64_t a_batch_stride,
                    int64_t a_row_stride, int64_t a_col_stride, const float *b,
                    int64_t b_batch_stride, int64_t b_row_stride,
                    int64_t b_col_stride, float *c, int64_t c_batch_stride,
                    int64_t c_row_stride, int32_t accumulate, float alpha) {
  gemm(batch, m, n, k, a, a_batch_stride, a_row_stride, a_col_stride, b,
       b_batch_stride, b_row_stride, b_col_stride, c, c_batch_stride,
       c_row_stride, accumulate, alpha, -1, "agl_cuda_sgemm");
}

void agl_cuda_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k,
                        const void *a, int64_t a_batch_stride,
                        int64_t a_row_stride, int64_t a_col_stride,
                        const void *b, int64_t b_batch_stride,
                        int64_t b_row_stride, int64_t b_col_stride, float *c,
                        int64_t c_batch_stride, int64_t c_row_stride,
                        int32_t accumulate, float alpha, int32_t format) {
  gemm(batch, m, n, k, a, a_batch_stride, a_row_stride, a_col_stride, b,
       b_batch_stride, b_row_stride, b_col_stride, c, c_batch_stride,
       c_row_stride, accumulate, alpha, format < 0 ? AGL_CUDA_BF16 + 1 : format,
       "agl_cuda_gemm_half");
}
