/* What the fake CUDA driver (fake_cuda_driver.c) and the fake CUDA model
 * (fake_cuda_model.c) share: a "GPU image" is this struct, and a kernel a
 * host function run once per launch with the launch's thread count. */
#ifndef AUTOGLM_TEST_FAKE_CUDA_H
#define AUTOGLM_TEST_FAKE_CUDA_H

typedef struct fake_cuda_image {
  const char *kernel_name;
  void (*kernel)(unsigned threads, void **params);
} fake_cuda_image;

#endif
