// The runtime's CUDA layer without a GPU: clear errors where there is no
// driver (or only the toolkit's stub), and the whole instance life cycle
// (device memory, weights upload, copies, launches, error reports) against
// a fake driver (fake_cuda_driver.c) that runs kernels on the host.
//
// The driver is chosen by AUTOGLM_CUDA_DRIVER when the first instance is
// created, and a driver that loads stays loaded for the process: ctest runs
// every test in its own process. Run by hand, the tests without a driver
// come first in the file, as gtest runs them.
#include "autoglm/kernels.h"
#include "autoglm/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

extern "C" const agl_model_desc *fake_cuda_model(void);
extern "C" const agl_model_desc *fake_cuda_model_shaped(void);
extern "C" const agl_model_desc *fake_cuda_model_cached(void);
extern "C" const agl_model_desc *fake_cuda_model_profiled(void);
extern "C" const agl_model_desc *fake_cuda_model_missing_kernel(void);
extern "C" const agl_model_desc *fake_cuda_model_gemm(void);
extern "C" const agl_model_desc *fake_cuda_model_gemm_int8(void);
extern "C" const agl_model_desc *fake_cuda_model_gemm_epilogue(void);
extern "C" const agl_model_desc *fake_cuda_model_host_section(void);
extern "C" void *fake_host_staging_seen;
extern "C" {
#include "fake_cuda.h"
}
extern "C" const agl_model_desc *fake_add_model(void);
extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void *agl_cuda_host_staging(int64_t bytes);
void agl_cuda_copy_to_host(void *host, const void *device, int64_t bytes);
void agl_emulated_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                        const float *a, int64_t a_batch, int64_t a_row,
                        int64_t a_col, const float *b, int64_t b_batch,
                        int64_t b_row, int64_t b_col, float *c, int64_t c_batch,
                        int64_t c_row, int32_t accumulate, float alpha);
void agl_emulated_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k,
                            const void *a, int64_t a_batch, int64_t a_row,
                            int64_t a_col, const void *b, int64_t b_batch,
                            int64_t b_row, int64_t b_col, float *c,
                            int64_t c_batch, int64_t c_row, int32_t accumulate,
                            float alpha, int32_t format);
void agl_emulated_gemm_epilogue(int64_t batch, int64_t m, int64_t n, int64_t k,
                                const void *a, int64_t a_batch, int64_t a_row,
                                int64_t a_col, const void *b, int64_t b_batch,
                                int64_t b_row, int64_t b_col, float *c,
                                int64_t c_batch, int64_t c_row,
                                int32_t accumulate, float alpha, int32_t format,
                                const float *bias, int32_t activation,
                                const float *residual, int64_t r_batch,
                                int64_t r_row);
void agl_emulated_gemm_int8(int64_t batch, int64_t m, int64_t n, int64_t k,
                            const int8_t *a, int64_t a_batch, int64_t a_row,
                            int64_t a_col, const int8_t *b, int64_t b_batch,
                            int64_t b_row, int64_t b_col, int32_t *c,
                            int64_t c_batch, int64_t c_row, int32_t accumulate);
void mgpuLaunchKernel(void *function, intptr_t gx, intptr_t gy, intptr_t gz,
                      intptr_t bx, intptr_t by, intptr_t bz, int32_t shared,
                      void *stream, void **params, void **extra,
                      size_t num_params);
}

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string lastError() { return agl_last_error(); }

void useDriver(const char *path) { setenv("AUTOGLM_CUDA_DRIVER", path, 1); }

// ---- no driver --------------------------------------------------------------

TEST(CudaWithoutDriver, InstanceCreationSaysThereIsNoDevice) {
  useDriver("/nonexistent/libcuda.so.1");
  agl_instance *instance = reinterpret_cast<agl_instance *>(1);
  EXPECT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_ERR_DEVICE);
  EXPECT_EQ(instance, nullptr);
  EXPECT_THAT(lastError(),
              StartsWith("no CUDA device: cannot load the CUDA driver ("));
  EXPECT_THAT(lastError(), HasSubstr("/nonexistent/libcuda.so.1"));
  // Nothing is remembered: the next attempt fails the same way.
  EXPECT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_ERR_DEVICE);
  EXPECT_STREQ(agl_status_string(AGL_ERR_DEVICE), "device error");
}

TEST(CudaWithoutDriver, StubDriverIsNotADevice) {
  const char *stub = AUTOGLM_CUDA_STUB_DRIVER;
  if (access(stub, R_OK) != 0)
    GTEST_SKIP() << "the CUDA toolkit's stub driver " << stub
                 << " is not installed";
  useDriver(stub);
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_ERR_DEVICE);
  EXPECT_EQ(instance, nullptr);
  EXPECT_THAT(lastError(), StartsWith("no CUDA device: cuInit failed: "
                                      "CUDA_ERROR_STUB_LIBRARY"));
}

TEST(CudaWithoutDriver, HostModelsNeedNoDriver) {
  useDriver("/nonexistent/libcuda.so.1");
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  agl_instance_destroy(instance);
}

TEST(CudaWithoutDriver, CallerArenaIsRefused) {
  alignas(64) static char arena[64];
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create_with_arena(fake_cuda_model(), arena,
                                           sizeof arena, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("runs on a CUDA device"));
}

TEST(CudaWithoutDriver, DescriptorChecks) {
  agl_model_desc unknown = *fake_cuda_model();
  unknown.device = 7;
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create(&unknown, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("unknown device 7"));
  static const agl_tensor_info cache = {"past", AGL_DTYPE_F32, 0, nullptr,
                                        nullptr};
  static const uint64_t offset = 0;
  static const agl_kv_cache_info kv = {8, 1, -1, 1, 0, &cache, &offset};
  agl_model_desc cached = *fake_cuda_model();
  cached.kv_cache = &kv;
  EXPECT_EQ(agl_instance_create(&cached, &instance), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("keeps its KV cache length in its arena"));
  // Weights in a file and embedded, or in neither.
  static const float data[4] = {};
  agl_model_desc both = *fake_cuda_model();
  both.weights_data = data;
  EXPECT_EQ(agl_instance_create(&both, &instance), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(),
              HasSubstr("has both a weights file and embedded weights"));
  agl_model_desc neither = *fake_cuda_model();
  neither.weights_file = nullptr;
  EXPECT_EQ(agl_instance_create(&neither, &instance), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("its 16 bytes of weights are neither in "
                                     "a weights file nor embedded"));
}

TEST(CudaWithoutDriver, LaunchFunctionsOutsideARunDoNothing) {
  static int image;
  void *module = mgpuModuleLoad(&image, sizeof image);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(module, "kernel"), nullptr);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  mgpuModuleUnload(module);
  mgpuModuleUnload(nullptr);
}

// ---- a fake driver ------------------------------------------------------------

// A variable of the fake driver's (fake_cuda_driver.c): a counter.
template <typename T> T driverValue(const char *name) {
  void *driver = dlopen(FAKE_CUDA_DRIVER_PATH, RTLD_NOW | RTLD_NOLOAD);
  T *value = driver ? static_cast<T *>(dlsym(driver, name)) : nullptr;
  T result = value ? *value : T(-1);
  if (driver)
    dlclose(driver);
  return result;
}

// fake_cuda_model_shaped (y[n] = x[n] + weights[n], n in 1..16): its
// weights, and one run at extent n of an instance of it, checked: y's
// extent and its n elements, and the rest of `out` (filled with `fill`)
// left alone.
constexpr size_t kShapedBound = 16;
std::array<float, kShapedBound> shapedWeights() {
  std::array<float, kShapedBound> weights{};
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = 10.0f * float(i + 1);
  return weights;
}
void runShapedAndCheck(agl_instance *instance, int64_t n, float fill) {
  std::array<float, kShapedBound> in{}, out{};
  out.fill(fill);
  for (int64_t i = 0; i < n; ++i)
    in[i] = float(n * 100 + i);
  const int64_t shape[1] = {n};
  const int64_t *shapes[1] = {shape};
  int64_t outShape[1] = {0};
  int64_t *outShapes[1] = {outShape};
  const void *ins[1] = {in.data()};
  void *outs[1] = {out.data()};
  ASSERT_EQ(agl_instance_run_shaped(instance, ins, shapes, outs, outShapes),
            AGL_OK)
      << agl_last_error();
  EXPECT_EQ(outShape[0], n);
  const std::array<float, kShapedBound> weights = shapedWeights();
  for (int64_t i = 0; i < int64_t(kShapedBound); ++i)
    EXPECT_EQ(out[i], i < n ? in[i] + weights[i] : fill) << "n=" << n;
}

struct FakeDevice : ::testing::Test {
  void SetUp() override {
    useDriver(FAKE_CUDA_DRIVER_PATH);
    unsetenv("FAKE_CUDA_FAIL");
  }
  void TearDown() override { unsetenv("FAKE_CUDA_FAIL"); }

  std::array<float, 4> x{1, 2, 3, 4}, weights{10, 20, 30, 40}, y{};
  const void *inputs[1] = {x.data()};
  void *outputs[1] = {y.data()};
};

// First: modules are loaded once per process, by the first instance.
TEST_F(FakeDevice, ModuleLoadFailureIsReported) {
  setenv("FAKE_CUDA_FAIL", "load", 1);
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("CUDA_ERROR_NO_BINARY_FOR_GPU"));
  EXPECT_THAT(lastError(), HasSubstr("--gpu-arch"));
}

TEST_F(FakeDevice, RunsOnDeviceBuffers) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_OK)
      << lastError();
  // The weights are needed, then uploaded once.
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs),
            AGL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  weights.fill(0); // the device has its own copy
  for (int run = 0; run < 2; ++run) {
    y.fill(0);
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
        << lastError();
    EXPECT_EQ(y, (std::array<float, 4>{11, 22, 33, 44}));
  }
  ASSERT_EQ(agl_instance_run_shaped(instance, inputs, nullptr, outputs,
                                    nullptr),
            AGL_OK)
      << lastError();
  agl_instance_destroy(instance);
}

// Weights embedded in the artifact (--weights=embed) are uploaded when an
// instance is created: runs need no agl_instance_set_weights, which is
// refused, as for host models that embed theirs.
TEST_F(FakeDevice, EmbeddedWeightsAreUploadedAtCreation) {
  agl_model_desc embedded = *fake_cuda_model();
  embedded.weights_file = nullptr;
  std::array<float, 4> data = weights;
  embedded.weights_data = data.data();
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&embedded, &instance), AGL_OK) << lastError();
  data.fill(0); // the device has its copy since the instance was created
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK) << lastError();
  EXPECT_EQ(y, (std::array<float, 4>{11, 22, 33, 44}));
  EXPECT_EQ(agl_instance_set_weights(instance, weights.data()),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("embeds its weights"));
  agl_instance_destroy(instance);
}

// With FAKE_CUDA_DEFER=1 the fake stream runs its copies and kernels only
// when synchronized, as a GPU finishes them after the calls return.
struct DeferringDevice : FakeDevice {
  void SetUp() override {
    FakeDevice::SetUp();
    setenv("FAKE_CUDA_DEFER", "1", 1);
    ASSERT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_OK)
        << lastError();
    ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  }
  void TearDown() override {
    agl_instance_destroy(instance);
    unsetenv("FAKE_CUDA_DEFER");
    FakeDevice::TearDown();
  }
  static constexpr std::array<float, 4> sum{11, 22, 33, 44};
  agl_instance *instance = nullptr;
};

TEST_F(DeferringDevice, RunWaitsForItsWork) {
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK) << lastError();
  EXPECT_EQ(y, sum);
}

TEST_F(DeferringDevice, AsyncRunEndsAtTheWait) {
  ASSERT_EQ(agl_instance_run_async(instance, inputs, outputs), AGL_OK)
      << lastError();
  EXPECT_EQ(y, (std::array<float, 4>{})); // queued, not run yet
  // The instance's buffers are busy until the wait.
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("a run of model 'fake_cuda' is pending: "
                                     "call agl_instance_wait first"));
  EXPECT_EQ(agl_instance_run_async(instance, inputs, outputs),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_set_weights(instance, weights.data()),
            AGL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(agl_instance_wait(instance), AGL_OK) << lastError();
  EXPECT_EQ(y, sum);
  EXPECT_EQ(agl_instance_wait(instance), AGL_OK); // nothing pending
  y.fill(0);
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK);
  EXPECT_EQ(y, sum);
}

TEST_F(DeferringDevice, DestroyWaitsForAPendingRun) {
  ASSERT_EQ(agl_instance_run_async(instance, inputs, outputs), AGL_OK)
      << lastError();
  agl_instance_destroy(instance);
  instance = nullptr;
  EXPECT_EQ(y, sum); // the copy out ended before the memory was freed
}

TEST_F(DeferringDevice, FailureOfQueuedWorkIsReportedByTheWait) {
  setenv("FAKE_CUDA_FAIL", "sync", 1);
  ASSERT_EQ(agl_instance_run_async(instance, inputs, outputs), AGL_OK)
      << lastError();
  EXPECT_EQ(agl_instance_wait(instance), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("the model's kernels failed "
                                     "(cuStreamSynchronize): "
                                     "CUDA_ERROR_ILLEGAL_ADDRESS"));
  // The synchronous run reports it the same way; then the instance is
  // idle again.
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_DEVICE);
  unsetenv("FAKE_CUDA_FAIL");
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK) << lastError();
}

TEST_F(DeferringDevice, FailureToQueueIsReturnedAtOnce) {
  setenv("FAKE_CUDA_FAIL", "launch", 1);
  EXPECT_EQ(agl_instance_run_async(instance, inputs, outputs), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("kernel launch (grid 1x1x1, block "
                                     "4x1x1) failed"));
  unsetenv("FAKE_CUDA_FAIL");
  // Nothing is pending after it.
  EXPECT_EQ(agl_instance_wait(instance), AGL_OK);
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK) << lastError();
  EXPECT_EQ(y, sum);
}

TEST_F(FakeDevice, TensorsStayOnTheDevice) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_OK)
      << lastError();
  ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  void *deviceX = nullptr, *deviceY = nullptr;
  ASSERT_EQ(agl_instance_device_input(instance, 0, &deviceX), AGL_OK);
  ASSERT_EQ(agl_instance_device_output(instance, 0, &deviceY), AGL_OK);
  ASSERT_NE(deviceX, nullptr);
  ASSERT_NE(deviceX, deviceY);
  // The fake device's memory is host memory: write the input in place.
  const std::array<float, 4> resident{5, 6, 7, 8};
  std::memcpy(deviceX, resident.data(), sizeof resident);
  const void *onDevice[1] = {nullptr};
  void *keep[1] = {nullptr};
  ASSERT_EQ(agl_instance_run(instance, onDevice, keep), AGL_OK) << lastError();
  EXPECT_EQ(y, (std::array<float, 4>{})); // not copied out
  std::array<float, 4> kept{};
  std::memcpy(kept.data(), deviceY, sizeof kept);
  EXPECT_EQ(kept, (std::array<float, 4>{15, 26, 37, 48}));
  // A host input is copied into the same buffer, and stays there.
  ASSERT_EQ(agl_instance_run(instance, inputs, keep), AGL_OK);
  ASSERT_EQ(agl_instance_run(instance, onDevice, outputs), AGL_OK);
  EXPECT_EQ(y, (std::array<float, 4>{11, 22, 33, 44}));

  EXPECT_EQ(agl_instance_device_input(instance, 1, &deviceX),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "agl_instance_device_input: model 'fake_cuda' has no input 1");
  EXPECT_EQ(agl_instance_device_output(instance, -1, &deviceY),
            AGL_ERR_INVALID_ARGUMENT);
  agl_instance_destroy(instance);
}

// An instance's device memory is laid out as runtime.h says (and
// autoglm-compile --report adds up): the arena, input and output rounded
// up to AGL_CUDA_ALIGNMENT, then the weights; with symbols, the buffers
// at their bounds.
TEST_F(FakeDevice, DeviceMemoryAsRuntimeHSays) {
  // Nothing before the first instance loads the driver.
  auto allocated = [] {
    size_t bytes = driverValue<size_t>("fake_cuda_bytes_allocated");
    return bytes == size_t(-1) ? 0 : bytes;
  };
  struct Case {
    const agl_model_desc *model;
    const float *weights;
  };
  const std::array<float, kShapedBound> shaped = shapedWeights();
  for (Case c : {Case{fake_cuda_model(), weights.data()},
                 Case{fake_cuda_model_shaped(), shaped.data()}}) {
    const size_t before = allocated();
    agl_instance *instance = nullptr;
    ASSERT_EQ(agl_instance_create(c.model, &instance), AGL_OK) << lastError();
    ASSERT_EQ(agl_instance_set_weights(instance, c.weights), AGL_OK);
    auto aligned = [](uint64_t bytes) {
      return (bytes + AGL_CUDA_ALIGNMENT - 1) / AGL_CUDA_ALIGNMENT *
             AGL_CUDA_ALIGNMENT;
    };
    EXPECT_EQ(allocated() - before,
              aligned(c.model->arena_size) +
                  aligned(agl_tensor_num_bytes(&c.model->inputs[0])) +
                  aligned(agl_tensor_num_bytes(&c.model->outputs[0])) +
                  c.model->weights_size)
        << c.model->name;
    agl_instance_destroy(instance);
  }
}

// With a symbolic extent the device buffers are sized for its bound, and
// a run copies only its own elements each way.
TEST_F(FakeDevice, SymbolicExtentsMoveOnlyTheRunsElements) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model_shaped(), &instance), AGL_OK)
      << lastError();
  ASSERT_EQ(agl_instance_set_weights(instance, shapedWeights().data()), AGL_OK);
  auto bytesIn = [] {
    return driverValue<size_t>("fake_cuda_bytes_to_device");
  };
  auto bytesOut = [] { return driverValue<size_t>("fake_cuda_bytes_to_host"); };
  for (int64_t n : {3, 16, 1}) {
    const size_t before = bytesIn(), beforeOut = bytesOut();
    runShapedAndCheck(instance, n, -1.0f);
    EXPECT_EQ(bytesIn() - before, n * sizeof(float));
    EXPECT_EQ(bytesOut() - beforeOut, n * sizeof(float));
  }
  const int64_t tooLong[1] = {17};
  const int64_t *tooLongShapes[1] = {tooLong};
  EXPECT_EQ(agl_instance_run_shaped(instance, inputs, tooLongShapes, outputs,
                                    nullptr),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("outside the range 1..16 of symbol 'n'"));
  agl_instance_destroy(instance);
}

TEST_F(FakeDevice, AllocationFailureIsReported) {
  setenv("FAKE_CUDA_FAIL", "alloc", 1);
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_ERR_DEVICE);
  EXPECT_EQ(instance, nullptr);
  EXPECT_THAT(lastError(), HasSubstr("cannot allocate the model's device "
                                     "memory (cuMemAlloc): "
                                     "CUDA_ERROR_OUT_OF_MEMORY"));
}

TEST_F(FakeDevice, LaunchFailureFailsTheRun) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model(), &instance), AGL_OK)
      << lastError();
  ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  setenv("FAKE_CUDA_FAIL", "launch", 1);
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(),
              HasSubstr("kernel launch (grid 1x1x1, block 4x1x1) failed: "
                        "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory "
                        "access was encountered)"));
  // The failure belongs to that run only.
  unsetenv("FAKE_CUDA_FAIL");
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
      << lastError();
  agl_instance_destroy(instance);
}

TEST_F(FakeDevice, MissingKernelIsReported) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model_missing_kernel(), &instance),
            AGL_OK)
      << lastError();
  ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cannot find kernel 'no_such_kernel': "
                                     "CUDA_ERROR_NOT_FOUND"));
  agl_instance_destroy(instance);
}

// ---- matrix products through cuBLAS (a fake one)
// -------------------------------

// What fake_gemm's product must give, on the host, with the strides of
// fake_gemm: C = act(alpha A B + bias (+ C)) + residual, `before` being C
// before it. The bias and residual lie at weights[16] and weights[32] (as
// fake_cuda_model_gemm_epilogue has them), read only when asked for.
std::array<float, 16> productOnHost(const float *a, const float *weights,
                                    std::array<float, 16> out) {
  const fake_cuda_gemm &g = fake_gemm;
  for (int64_t e = 0; e < g.batch; ++e)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        float sum = 0;
        for (int64_t p = 0; p < g.k; ++p)
          sum += a[e * g.a_batch + i * g.a_row + p * g.a_col] *
                 weights[e * g.b_batch + p * g.b_row + j * g.b_col];
        float &o = out[e * g.c_batch + i * g.c_row + j];
        float v = g.alpha * sum + (g.bias ? weights[16 + j] : 0.0f) +
                  (g.accumulate ? o : 0.0f);
        if (g.activation == AGL_ACT_RELU)
          v = std::max(v, 0.0f);
        if (g.activation == AGL_ACT_GELU_TANH)
          v = 0.5f * v *
              (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        if (g.residual)
          v += weights[32 + e * g.r_batch + i * g.r_row + j];
        o = v;
      }
  return out;
}

// The fake cuBLAS computes column-major products as cuBLAS defines them;
// the runtime must describe each row-major product of the model to it
// (operations, leading dimensions, batch strides) so that C = A B.
struct FakeBlas : FakeDevice {
  void SetUp() override {
    FakeDevice::SetUp();
    // The fake model's product is what the test sets before each run; a
    // real model's never changes, and a CUDA graph would repeat the first.
    setenv("AUTOGLM_CUDA_GRAPHS", "0", 1);
    setenv("AUTOGLM_CUBLAS", FAKE_CUBLAS_PATH, 1);
    unsetenv("FAKE_CUBLAS_FAIL");
    for (int i = 0; i < 16; ++i) {
      a[i] = float(i + 1);
      b[i] = float(i % 5) - 2.0f;
    }
    ASSERT_EQ(agl_instance_create(fake_cuda_model_gemm(), &instance), AGL_OK)
        << lastError();
    ASSERT_EQ(agl_instance_set_weights(instance, b.data()), AGL_OK);
  }
  void TearDown() override {
    agl_instance_destroy(instance);
    unsetenv("FAKE_CUBLAS_FAIL");
    unsetenv("AUTOGLM_CUDA_GRAPHS");
    FakeDevice::TearDown();
  }

  std::array<float, 16> expected(const std::array<float, 16> &before) const {
    return productOnHost(a.data(), b.data(), before);
  }

  agl_status run() {
    const void *in[1] = {a.data()};
    void *out[1] = {c.data()};
    return agl_instance_run(instance, in, out);
  }

  agl_instance *instance = nullptr;
  std::array<float, 16> a{}, b{}, c{};
};

TEST_F(FakeBlas, RowMajorOperands) {
  // [2x4] x [4x3] -> [2x3], every row contiguous.
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1};
  ASSERT_EQ(run(), AGL_OK) << lastError();
  std::array<float, 16> want = expected({});
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(c[i], want[i]) << i;
}

TEST_F(FakeBlas, TransposedOperandsAndAlpha) {
  // A stored column by column (a_row 1, a_col 2), B too (b_row 1, b_col 4).
  fake_gemm = {1, 2, 3, 4, 0, 1, 2, 0, 1, 4, 0, 3, 0, 0.5f, -1};
  ASSERT_EQ(run(), AGL_OK) << lastError();
  std::array<float, 16> want = expected({});
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(c[i], want[i]) << i;
}

TEST_F(FakeBlas, BatchWithSharedWeightAndAccumulation) {
  // Two [2x2] x [2x3] products, the same B for both (batch stride 0); the
  // output has a row stride of 4 and accumulates over runs.
  fake_gemm = {2, 2, 3, 2, 4, 2, 1, 0, 3, 1, 8, 4, 0, 1.0f, -1};
  ASSERT_EQ(run(), AGL_OK) << lastError();
  std::array<float, 16> first = c;
  fake_gemm.accumulate = 1;
  ASSERT_EQ(run(), AGL_OK) << lastError();
  std::array<float, 16> want = expected(first);
  int changed = 0;
  for (int e = 0; e < 2; ++e)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) {
        int at = e * 8 + i * 4 + j;
        EXPECT_EQ(c[at], want[at]) << at;
        changed += c[at] != first[at];
      }
  EXPECT_GT(changed, 6); // the second run added its product
}

TEST_F(FakeBlas, StridesCuBlasCannotTakeFailTheRun) {
  fake_gemm = {1, 2, 2, 2, 0, 2, 2, 0, 2, 1, 0, 2, 0, 1.0f, -1};
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("agl_cuda_sgemm: a 2x2x2 product whose "
                                     "operand strides (or format) cuBLAS "
                                     "cannot take"));
}

TEST_F(FakeBlas, CuBlasFailuresFailTheRun) {
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1};
  setenv("FAKE_CUBLAS_FAIL", "create", 1);
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cublasCreate failed: "
                                     "CUBLAS_STATUS_ALLOC_FAILED"));
  setenv("FAKE_CUBLAS_FAIL", "gemm", 1);
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cublasSgemmStridedBatched (1 x 2x3x4) "
                                     "failed: CUBLAS_STATUS_EXECUTION_FAILED"));
  unsetenv("FAKE_CUBLAS_FAIL");
  EXPECT_EQ(run(), AGL_OK) << lastError();
}

// A float that is a small integer as bfloat16 or IEEE half bits.
uint16_t halfBits(float value, int format) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (format == 1 || value == 0)
    return uint16_t(bits >> 16);
  uint32_t exponent = ((bits >> 23) & 0xFF) - 127 + 15;
  return uint16_t(((bits >> 16) & 0x8000) | (exponent << 10) |
                  ((bits >> 13) & 0x3FF));
}

// A [2x4] x [4x3] product in 16-bit floats (format 0: IEEE half, 1:
// bfloat16), exact in them: A stored column by column (a_row 1, a_col 2), B
// row by row, and the float32 product.
struct HalfProduct {
  explicit HalfProduct(int format) {
    for (int i = 0; i < 2; ++i)
      for (int p = 0; p < 4; ++p)
        a[i + 2 * p] = halfBits(float(i + p + 1), format);
    for (int p = 0; p < 4; ++p)
      for (int j = 0; j < 3; ++j)
        b[p * 3 + j] = halfBits(float(p - j), format);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int p = 0; p < 4; ++p)
          want[i][j] += float(i + p + 1) * float(p - j);
  }
  // As many bytes as the fake model's 16 floats of input and weights.
  std::array<uint16_t, 32> a{}, b{};
  float want[2][3] = {};
};

TEST_F(FakeBlas, HalfOperands) {
  // Float32 sums and output.
  for (int format : {0, 1}) {
    SCOPED_TRACE(format);
    HalfProduct half(format);
    std::memcpy(a.data(), half.a.data(), sizeof half.a);
    ASSERT_EQ(agl_instance_set_weights(instance, half.b.data()), AGL_OK);
    fake_gemm = {1, 2, 3, 4, 0, 1, 2, 0, 3, 1, 0, 3, 0, 1.0f, format};
    ASSERT_EQ(run(), AGL_OK) << lastError();
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(c[i * 3 + j], half.want[i][j]) << i << "," << j;
  }
  fake_gemm.format = 2;
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("agl_cuda_gemm_half: a 2x3x4 product "
                                     "whose operand strides (or format)"));
}

TEST_F(FakeBlas, MissingCuBlasIsReported) {
  // cuBLAS stays loaded once found: ctest runs this test in a process of
  // its own, where no product has loaded it yet.
  setenv("AUTOGLM_CUBLAS", "/nonexistent/libcublas.so", 1);
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1};
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cannot load cuBLAS for the model's "
                                     "matrix products"));
  EXPECT_THAT(lastError(), HasSubstr("AUTOGLM_CUBLAS"));
}

// ---- host sections ------------------------------------------------------

// The ops a model places on the host run on host copies of device bytes, in
// the instance's staging memory (fake_cuda_model.c's host section computes
// y = x * weights there).
TEST_F(FakeDevice, HostSectionRunsOnStagedCopies) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model_host_section(), &instance),
            AGL_OK)
      << lastError();
  ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
        << lastError();
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(y[i], x[i] * weights[i]) << i;
    x[0] += 1.0f;
  }
  // The staging memory is made once, at the first run.
  void *first = fake_host_staging_seen;
  EXPECT_NE(first, nullptr);
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK);
  EXPECT_EQ(fake_host_staging_seen, first);
  // With the copies queued until the stream is synchronized, each copy
  // still waits for its data.
  setenv("FAKE_CUDA_DEFER", "1", 1);
  x[1] = 7.0f;
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK);
  unsetenv("FAKE_CUDA_DEFER");
  EXPECT_EQ(y[1], 7.0f * weights[1]);
  agl_instance_destroy(instance);
}

TEST_F(FakeDevice, HostSectionCopyFailureFailsTheRun) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_cuda_model_host_section(), &instance),
            AGL_OK)
      << lastError();
  ASSERT_EQ(agl_instance_set_weights(instance, weights.data()), AGL_OK);
  setenv("FAKE_CUDA_FAIL", "sync", 1);
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("copy of device memory to a host "
                                     "section: CUDA_ERROR_ILLEGAL_ADDRESS"));
  unsetenv("FAKE_CUDA_FAIL");
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK) << lastError();
  agl_instance_destroy(instance);
}

TEST_F(FakeDevice, HostSectionCallsOutsideARunDoNothing) {
  float host[4] = {1, 2, 3, 4}, device[4] = {5, 6, 7, 8};
  EXPECT_EQ(agl_cuda_host_staging(16), nullptr);
  agl_cuda_copy_to_host(host, device, sizeof host);
  EXPECT_EQ(host[0], 1.0f);
}

// ---- products with an epilogue through cuBLASLt (a fake one) ---------------

// agl_cuda_gemm_epilogue: C = act(alpha A B + bias[j] (+ C)) + residual,
// described to the fake cuBLASLt (fake_cublas.c), which computes what
// cuBLASLt's epilogues define (bias per row of its column-major D, then the
// activation).
struct FakeLt : FakeDevice {
  void SetUp() override {
    FakeDevice::SetUp();
    setenv("AUTOGLM_CUDA_GRAPHS", "0", 1); // as in FakeBlas
    setenv("AUTOGLM_CUBLASLT", FAKE_CUBLAS_PATH, 1);
    unsetenv("FAKE_CUBLAS_FAIL");
    for (int i = 0; i < 16; ++i) {
      a[i] = float(i % 7) * 0.25f - 0.5f;
      operands[i] = float(i % 5) * 0.5f - 1.0f;    // B
      operands[16 + i] = float(i % 3) - 1.0f;      // bias
      operands[32 + i] = float(i) * 0.125f - 1.0f; // residual
    }
    ASSERT_EQ(agl_instance_create(fake_cuda_model_gemm_epilogue(), &instance),
              AGL_OK)
        << lastError();
    ASSERT_EQ(agl_instance_set_weights(instance, operands.data()), AGL_OK);
    fake_gemm = {};
    fake_gemm.format = -1;
    fake_gemm.alpha = 1.0f;
  }
  void TearDown() override {
    agl_instance_destroy(instance);
    unsetenv("FAKE_CUBLAS_FAIL");
    unsetenv("AUTOGLM_CUDA_GRAPHS");
    FakeDevice::TearDown();
  }

  std::array<float, 16> expected(const std::array<float, 16> &before) const {
    return productOnHost(a.data(), operands.data(), before);
  }

  agl_status run() {
    const void *in[1] = {a.data()};
    void *out[1] = {c.data()};
    return agl_instance_run(instance, in, out);
  }

  void expectOutput(const std::array<float, 16> &want) const {
    for (int i = 0; i < 16; ++i)
      EXPECT_NEAR(c[i], want[i], 1e-5f) << i;
  }

  // The fake's count of heuristic queries (one per plan the runtime makes).
  static int heuristicCalls() {
    void *library = dlopen(FAKE_CUBLAS_PATH, RTLD_NOW | RTLD_NOLOAD);
    int *calls = library ? static_cast<int *>(
                               dlsym(library, "fake_cublaslt_heuristic_calls"))
                         : nullptr;
    int value = calls ? *calls : -1;
    if (library)
      dlclose(library);
    return value;
  }

  agl_instance *instance = nullptr;
  std::array<float, 16> a{}, c{};
  std::array<float, 48> operands{}; // B, bias, residual
};

TEST_F(FakeLt, BiasAndActivations) {
  // [2x4] x [4x3] -> [2x3] plus a bias per column, then each activation
  // cuBLASLt has.
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, 0, 0, 0, 0};
  for (int act : {AGL_ACT_NONE, AGL_ACT_RELU, AGL_ACT_GELU_TANH}) {
    SCOPED_TRACE(act);
    fake_gemm.activation = act;
    c.fill(7.0f);
    ASSERT_EQ(run(), AGL_OK) << lastError();
    std::array<float, 16> want = expected(c);
    int negative = 0;
    for (int i = 0; i < 6; ++i)
      negative += want[i] < 0;
    expectOutput(want);
    if (act == AGL_ACT_NONE)
      EXPECT_GT(negative, 0); // ReLU has something to clip
  }
}

TEST_F(FakeLt, TransposedOperandsBatchAndResidual) {
  // Two [2x2] x [2x3] products, A stored column by column, B shared (batch
  // stride 0) and transposed; C rows of 4; the residual another buffer
  // with its own strides; alpha 0.5.
  fake_gemm = {2, 2, 3, 2, 4, 1, 2, 0, 1, 2, 8, 4, 0, 0.5f, -1, 0, 0, 1, 6, 3};
  c.fill(0.0f);
  ASSERT_EQ(run(), AGL_OK) << lastError();
  expectOutput(expected(c));
  fake_gemm.bias = 1; // bias and residual together
  ASSERT_EQ(run(), AGL_OK) << lastError();
  expectOutput(expected(c));
}

TEST_F(FakeLt, AccumulatesIntoTheOutput) {
  // The output stays on the device between runs: the second run adds its
  // product and bias to the first one's output.
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, 0, 0, 0, 0};
  ASSERT_EQ(run(), AGL_OK) << lastError();
  const std::array<float, 16> first = c;
  fake_gemm.accumulate = 1;
  ASSERT_EQ(run(), AGL_OK) << lastError();
  expectOutput(expected(first));
  EXPECT_NE(c[0], first[0]);
}

TEST_F(FakeLt, HalfOperands) {
  for (int format : {0, 1}) {
    SCOPED_TRACE(format);
    std::array<uint16_t, 32> a16{};
    std::array<uint16_t, 96> w16{};
    std::array<float, 48> w = operands;
    // Small integers and halves: exact in both formats.
    for (int i = 0; i < 16; ++i) {
      a16[i] = halfBits(a[i], format);
      w16[i] = halfBits(operands[i], format);
    }
    std::memcpy(w16.data() + 32, operands.data() + 16, 32 * sizeof(float));
    ASSERT_EQ(agl_instance_set_weights(instance, w16.data()), AGL_OK);
    std::array<float, 16> a32 = a;
    std::memcpy(a.data(), a16.data(), sizeof a16);
    fake_gemm = {
        1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, format, 1, AGL_ACT_RELU,
        0, 0, 0};
    ASSERT_EQ(run(), AGL_OK) << lastError();
    a = a32;
    std::array<float, 16> got = c;
    c = {};
    std::array<float, 16> want = expected(c);
    for (int i = 0; i < 6; ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
    ASSERT_EQ(agl_instance_set_weights(instance, w.data()), AGL_OK);
  }
}

TEST_F(FakeLt, PlansAreMadeOncePerProduct) {
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, 0, 0, 0, 0};
  ASSERT_EQ(run(), AGL_OK) << lastError(); // loads the fake, makes a plan
  const int before = heuristicCalls();
  ASSERT_GE(before, 1);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(run(), AGL_OK) << lastError();
  EXPECT_EQ(heuristicCalls(), before);
  fake_gemm.activation = AGL_ACT_RELU; // another epilogue: another plan
  ASSERT_EQ(run(), AGL_OK) << lastError();
  ASSERT_EQ(run(), AGL_OK) << lastError();
  EXPECT_EQ(heuristicCalls(), before + 1);
  expectOutput(expected(c));
}

TEST_F(FakeLt, WhatCuBlasLtCannotTakeFailsTheRun) {
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, AGL_ACT_SILU,
               0, 0, 0};
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("agl_cuda_gemm_epilogue: no cuBLASLt "
                                     "epilogue for activation 4"));
  fake_gemm.activation = AGL_ACT_RELU;
  fake_gemm.residual = 1;
  fake_gemm.r_row = 3;
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("with a residual"));
  fake_gemm.activation = AGL_ACT_NONE;
  fake_gemm.a_row = 2; // neither A's rows nor its columns contiguous
  fake_gemm.a_col = 2;
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("a 2x3x4 product whose operand strides "
                                     "(or format) cuBLASLt cannot take"));
}

TEST_F(FakeLt, CuBlasLtFailuresFailTheRun) {
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, 0, 0, 0, 0};
  setenv("FAKE_CUBLAS_FAIL", "lt_create", 1);
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cublasLtCreate failed: "
                                     "CUBLAS_STATUS_ALLOC_FAILED"));
  setenv("FAKE_CUBLAS_FAIL", "lt_heuristic", 1);
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cublasLtMatmulAlgoGetHeuristic failed: "
                                     "CUBLAS_STATUS_INVALID_VALUE"));
  setenv("FAKE_CUBLAS_FAIL", "lt_matmul", 1);
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cublasLtMatmul (1 x 2x3x4) failed: "
                                     "CUBLAS_STATUS_EXECUTION_FAILED"));
  unsetenv("FAKE_CUBLAS_FAIL");
  EXPECT_EQ(run(), AGL_OK) << lastError();
  expectOutput(expected(c));
}

TEST_F(FakeLt, MissingCuBlasLtIsReported) {
  // As for cuBLAS: a process of its own, where nothing has loaded it yet.
  setenv("AUTOGLM_CUBLASLT", "/nonexistent/libcublasLt.so", 1);
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, 0, 0, 0, 0};
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cannot load cuBLASLt for the model's "
                                     "products with an epilogue"));
  EXPECT_THAT(lastError(), HasSubstr("AUTOGLM_CUBLASLT"));
}

// C[i][j] (+)= sum_p A[i][p] * B[p][j] in int32, with fake_gemm's extents
// and strides.
std::array<int32_t, 16>
int8ProductOnHost(const int8_t *a, const int8_t *b,
                  const std::array<int32_t, 16> &before) {
  const fake_cuda_gemm &g = fake_gemm;
  std::array<int32_t, 16> want = before;
  for (int64_t e = 0; e < g.batch; ++e)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        int32_t sum = 0;
        for (int64_t p = 0; p < g.k; ++p)
          sum += int32_t(a[e * g.a_batch + i * g.a_row + p * g.a_col]) *
                 int32_t(b[e * g.b_batch + p * g.b_row + j * g.b_col]);
        int32_t &out = want[e * g.c_batch + i * g.c_row + j];
        out = g.accumulate ? out + sum : sum;
      }
  return want;
}

// Operands that reach -128 and 127.
void fillInt8Operands(std::array<int8_t, 64> &a, std::array<int8_t, 64> &b) {
  for (int i = 0; i < 64; ++i) {
    a[i] = int8_t(i * 37 % 256 - 128);
    b[i] = int8_t(127 - i * 53 % 255);
  }
}

// The integer products of the FakeLtInt8 and EmulatedBlas cases.
const fake_cuda_gemm kInt8Products[] = {
    // [4x8] x [8x4], B column by column
    {1, 4, 4, 8, 0, 8, 1, 0, 1, 8, 0, 4, 0},
    // one row (a decode step), k 16
    {1, 1, 4, 16, 0, 16, 1, 0, 1, 16, 0, 4, 0},
    // two products sharing B, accumulating
    {2, 2, 4, 8, 16, 8, 1, 0, 1, 8, 8, 4, 1},
};

// agl_cuda_gemm_int8: int8 A and B, exact int32 sums, through the fake
// cuBLASLt, which takes only what the real one takes for integer products
// ("TN": A's rows and B's columns contiguous along k; multiples of 4).
struct FakeLtInt8 : FakeDevice {
  void SetUp() override {
    FakeDevice::SetUp();
    setenv("AUTOGLM_CUDA_GRAPHS", "0", 1);
    setenv("AUTOGLM_CUBLASLT", FAKE_CUBLAS_PATH, 1);
    unsetenv("FAKE_CUBLAS_FAIL");
    fillInt8Operands(a, b);
    ASSERT_EQ(agl_instance_create(fake_cuda_model_gemm_int8(), &instance),
              AGL_OK)
        << lastError();
    ASSERT_EQ(agl_instance_set_weights(instance, b.data()), AGL_OK);
    fake_gemm = {};
  }
  void TearDown() override {
    agl_instance_destroy(instance);
    unsetenv("AUTOGLM_CUDA_GRAPHS");
    unsetenv("FAKE_CUBLAS_FAIL");
    FakeDevice::TearDown();
  }
  agl_status run() {
    const void *in[1] = {a.data()};
    void *out[1] = {c.data()};
    return agl_instance_run(instance, in, out);
  }
  agl_instance *instance = nullptr;
  std::array<int8_t, 64> a{}, b{};
  std::array<int32_t, 16> c{};
};

TEST_F(FakeLtInt8, ExactSumsBatchesAndAccumulation) {
  // The output stays on the device between runs: each product starts from
  // the previous run's output (the first writes all of it).
  for (const fake_cuda_gemm &g : kInt8Products) {
    fake_gemm = g;
    const std::array<int32_t, 16> before = c;
    ASSERT_EQ(run(), AGL_OK) << lastError();
    EXPECT_EQ(c, int8ProductOnHost(a.data(), b.data(), before));
  }
}

TEST_F(FakeLtInt8, NoAlgorithmFailsTheRunSayingWhichProduct) {
  setenv("FAKE_CUBLAS_FAIL", "lt_no_algorithm", 1);
  fake_gemm = kInt8Products[0];
  EXPECT_EQ(run(), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cuBLASLt has no algorithm for a 1 x "
                                     "4x4x8 product of int8 operands"));
  unsetenv("FAKE_CUBLAS_FAIL");
  // The next run makes its plan.
  ASSERT_EQ(run(), AGL_OK) << lastError();
}

TEST_F(FakeLtInt8, LayoutsCuBlasLtCannotTakeFailTheRun) {
  for (fake_cuda_gemm g : {
           // B row by row ("NN"): not what integer products take
           fake_cuda_gemm{1, 4, 4, 8, 0, 8, 1, 0, 4, 1, 0, 4, 0},
           // k not a multiple of 4
           fake_cuda_gemm{1, 2, 4, 6, 0, 6, 1, 0, 1, 6, 0, 4, 0},
       }) {
    fake_gemm = g;
    EXPECT_EQ(run(), AGL_ERR_DEVICE);
    EXPECT_THAT(lastError(),
                HasSubstr("agl_cuda_gemm_int8: a " + std::to_string(g.m) +
                          "x4x" + std::to_string(g.k) +
                          " product whose operand strides (or format) "
                          "cuBLASLt cannot take"));
  }
}

// ---- CUDA graphs
// ----------------------------------------------------------------

// From the second run on, an instance's launches are one CUDA graph: the
// fake driver records what the captured run queues and submits it again
// at each graph launch (with FAKE_CUDA_DEFER=1, at the synchronization).
struct FakeGraphs : FakeDevice {
  void SetUp() override {
    FakeDevice::SetUp();
    unsetenv("AUTOGLM_CUDA_GRAPHS");
    setenv("AUTOGLM_CUBLAS", FAKE_CUBLAS_PATH, 1);
    setenv("AUTOGLM_CUBLASLT", FAKE_CUBLAS_PATH, 1);
    unsetenv("FAKE_CUBLAS_FAIL");
  }
  void TearDown() override {
    agl_instance_destroy(instance);
    unsetenv("AUTOGLM_CUDA_GRAPHS");
    unsetenv("FAKE_CUDA_DEFER");
    FakeDevice::TearDown();
  }

  static int driverCount(const char *name) { return driverValue<int>(name); }
  static int captures() { return driverCount("fake_cuda_captures"); }
  static int graphLaunches() { return driverCount("fake_cuda_graph_launches"); }

  void create(const agl_model_desc *model, const float *modelWeights) {
    ASSERT_EQ(agl_instance_create(model, &instance), AGL_OK) << lastError();
    ASSERT_EQ(agl_instance_set_weights(instance, modelWeights), AGL_OK);
  }

  // Runs the kernel model (y = x + weights) with x[0] = value.
  void runAndCheck(float value) {
    x[0] = value;
    y.fill(0);
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
        << lastError();
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(y[i], x[i] + weights[i]) << i;
  }

  agl_instance *instance = nullptr;
};

TEST_F(FakeGraphs, RunsAfterTheFirstAreOneGraph) {
  create(fake_cuda_model(), weights.data());
  const int capturesBefore = captures(), launchesBefore = graphLaunches();
  runAndCheck(1.0f); // op by op: it finds the kernels
  EXPECT_EQ(captures(), capturesBefore);
  EXPECT_EQ(graphLaunches(), launchesBefore);
  for (float value : {2.0f, 3.0f, 4.0f})
    runAndCheck(value); // the new input goes in before the graph
  EXPECT_EQ(captures(), capturesBefore + 1);
  EXPECT_EQ(graphLaunches(), launchesBefore + 3);
  // The instance's graph goes with it.
  agl_instance_destroy(instance);
  instance = nullptr;
  EXPECT_EQ(driverCount("fake_cuda_live_graphs"), 0);
}

// A model with symbols: each shape gets its own graph from its second run
// on; the instance keeps eight, the shape least recently run giving its
// slot (and graph) to a new one.
TEST_F(FakeGraphs, OneGraphPerShape) {
  create(fake_cuda_model_shaped(), shapedWeights().data());
  auto runAt = [&](int64_t n) { runShapedAndCheck(instance, n, 0.0f); };
  const int captures0 = captures(), launches0 = graphLaunches();
  for (int run = 0; run < 3; ++run)
    runAt(3); // op by op, captured, launched
  EXPECT_EQ(captures(), captures0 + 1);
  EXPECT_EQ(graphLaunches(), launches0 + 2);
  runAt(5); // a new shape: op by op
  EXPECT_EQ(captures(), captures0 + 1);
  EXPECT_EQ(graphLaunches(), launches0 + 2);
  runAt(5);
  runAt(3); // the first shape's graph again
  EXPECT_EQ(captures(), captures0 + 2);
  EXPECT_EQ(graphLaunches(), launches0 + 4);
  // Six more shapes fill the eight slots; a ninth takes the slot of the
  // shape run least recently (5), whose graph goes.
  for (int64_t n : {1, 2, 4, 6, 7, 8, 9})
    for (int run = 0; run < 2; ++run)
      runAt(n);
  EXPECT_EQ(captures(), captures0 + 9);
  EXPECT_EQ(driverCount("fake_cuda_live_graphs"), 8);
  const int launches = graphLaunches();
  runAt(3); // kept
  EXPECT_EQ(graphLaunches(), launches + 1);
  runAt(5); // evicted: op by op again
  EXPECT_EQ(graphLaunches(), launches + 1);
  agl_instance_destroy(instance);
  instance = nullptr;
  EXPECT_EQ(driverCount("fake_cuda_live_graphs"), 0);
}

// A KV cache's length, kept by the runtime after the symbol values, is
// part of a run's shape: each length gets its graph, and a graph is
// launched again only at its length (after a rewind). A captured launch at
// the wrong length would leave elements of an earlier run in y.
TEST_F(FakeGraphs, KVCacheLengthIsPartOfTheShape) {
  create(fake_cuda_model_cached(), weights.data());
  const int captures0 = captures(), launches0 = graphLaunches();
  auto step = [&](int64_t length, float base) {
    for (int i = 0; i < 4; ++i)
      x[i] = base + float(i);
    y.fill(0);
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
        << lastError();
    for (int64_t i = 0; i <= length; ++i)
      EXPECT_EQ(y[i], x[i] + weights[i]) << "length " << length;
    int64_t now = -1;
    ASSERT_EQ(agl_instance_cache_length(instance, &now), AGL_OK);
    EXPECT_EQ(now, length + 1);
  };
  for (int round = 0; round < 3; ++round) {
    for (int64_t length = 0; length < 4; ++length)
      step(length, float(100 * round + 10 * length));
    EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_CACHE_FULL);
    ASSERT_EQ(agl_instance_set_cache_length(instance, 0), AGL_OK);
  }
  // Each of the four lengths: op by op, captured, launched.
  EXPECT_EQ(captures(), captures0 + 4);
  EXPECT_EQ(graphLaunches(), launches0 + 8);
}

// A model compiled with --profile: while the instance profiles, each run
// is launched op by op and each bracketed launch becomes an event with the
// GPU's times (the fake's stream records the host clock); events beyond
// the capacity are counted as dropped; capacity 0 frees the CUDA events.
TEST_F(FakeGraphs, ProfiledRunsTimeEachLaunch) {
  const int events0 = driverCount("fake_cuda_live_events");
  create(fake_cuda_model_profiled(), weights.data());
  ASSERT_EQ(agl_instance_set_profile_capacity(instance, 6), AGL_OK)
      << lastError();
  EXPECT_EQ(driverCount("fake_cuda_live_events"), std::max(events0, 0) + 12);
  const int captures0 = captures();
  for (int run = 0; run < 4; ++run) {
    y.fill(0);
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
        << lastError();
    EXPECT_EQ(y, (std::array<float, 4>{11, 22, 33, 44}));
  }
  EXPECT_EQ(captures(), captures0); // never a graph while profiling
  const agl_profile_event *events = nullptr;
  uint64_t dropped = 0;
  ASSERT_EQ(agl_instance_profile_events(instance, &events, &dropped), 6u);
  EXPECT_EQ(dropped, 2u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(events[i].kernel, i % 2);
    EXPECT_NE(events[i].thread, 0);
    EXPECT_LE(events[i].begin_ns, events[i].end_ns);
    if (i % 2) // the second launch after the first, on one stream
      EXPECT_LE(events[i - 1].end_ns, events[i].begin_ns);
  }
  // Asynchronous: the events come with the wait.
  agl_instance_clear_profile(instance);
  setenv("FAKE_CUDA_DEFER", "1", 1);
  ASSERT_EQ(agl_instance_run_async(instance, inputs, outputs), AGL_OK);
  EXPECT_EQ(agl_instance_profile_events(instance, &events, nullptr), 0u);
  ASSERT_EQ(agl_instance_wait(instance), AGL_OK) << lastError();
  EXPECT_EQ(agl_instance_profile_events(instance, &events, nullptr), 2u);
  unsetenv("FAKE_CUDA_DEFER");
  // Profiling off: the events go, and runs become a graph again.
  ASSERT_EQ(agl_instance_set_profile_capacity(instance, 0), AGL_OK);
  EXPECT_EQ(driverCount("fake_cuda_live_events"), std::max(events0, 0));
  for (int run = 0; run < 2; ++run)
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK);
  EXPECT_EQ(captures(), captures0 + 1);
  // A driver that fails to make events: the capacity is refused.
  setenv("FAKE_CUDA_FAIL", "event", 1);
  EXPECT_EQ(agl_instance_set_profile_capacity(instance, 2), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cuEventCreate"));
  unsetenv("FAKE_CUDA_FAIL");
}

TEST_F(FakeGraphs, AsyncGraphRunEndsAtTheWait) {
  setenv("FAKE_CUDA_DEFER", "1", 1);
  create(fake_cuda_model(), weights.data());
  runAndCheck(1.0f);
  runAndCheck(2.0f);
  x[0] = 5.0f;
  y.fill(0);
  const int launchesBefore = graphLaunches();
  ASSERT_EQ(agl_instance_run_async(instance, inputs, outputs), AGL_OK)
      << lastError();
  EXPECT_EQ(graphLaunches(), launchesBefore + 1);
  EXPECT_EQ(y[0], 0.0f); // queued, not run yet
  ASSERT_EQ(agl_instance_wait(instance), AGL_OK) << lastError();
  EXPECT_EQ(y[0], 5.0f + weights[0]);
}

TEST_F(FakeGraphs, TurnedOffByTheEnvironment) {
  setenv("AUTOGLM_CUDA_GRAPHS", "0", 1);
  create(fake_cuda_model(), weights.data());
  const int capturesBefore = captures();
  for (float value : {1.0f, 2.0f, 3.0f})
    runAndCheck(value);
  EXPECT_EQ(captures(), capturesBefore);
}

TEST_F(FakeGraphs, FailedCaptureLeavesRunsOpByOp) {
  create(fake_cuda_model(), weights.data());
  runAndCheck(1.0f);
  setenv("FAKE_CUDA_FAIL", "capture", 1);
  const int capturesBefore = captures(), launchesBefore = graphLaunches();
  runAndCheck(2.0f); // the capture fails: the run launches op by op
  unsetenv("FAKE_CUDA_FAIL");
  runAndCheck(3.0f); // and so do the later ones
  EXPECT_EQ(captures(), capturesBefore);
  EXPECT_EQ(graphLaunches(), launchesBefore);
}

TEST_F(FakeGraphs, GraphLaunchFailureFailsTheRun) {
  create(fake_cuda_model(), weights.data());
  runAndCheck(1.0f);
  runAndCheck(2.0f);
  setenv("FAKE_CUDA_FAIL", "graph_launch", 1);
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_DEVICE);
  EXPECT_THAT(lastError(), HasSubstr("cannot launch the model's CUDA graph "
                                     "(cuGraphLaunch): "
                                     "CUDA_ERROR_ILLEGAL_ADDRESS"));
  unsetenv("FAKE_CUDA_FAIL");
  runAndCheck(3.0f);
}

TEST_F(FakeGraphs, HostSectionsAreNeverCaptured) {
  create(fake_cuda_model_host_section(), weights.data());
  const int capturesBefore = captures();
  for (float value : {1.0f, 2.0f, 3.0f}) {
    x[0] = value;
    ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK)
        << lastError();
    EXPECT_EQ(y[0], value * weights[0]);
  }
  EXPECT_EQ(captures(), capturesBefore);
}

TEST_F(FakeGraphs, ProductsRunInTheGraph) {
  // cuBLAS and cuBLASLt queue their products on the captured stream: a
  // [2x4] x [4x3] product, then one with a bias and GELU.
  std::array<float, 48> operands{};
  std::array<float, 16> a{}, c{};
  for (int i = 0; i < 48; ++i)
    operands[i] = float(i % 5) * 0.5f - 1.0f;
  for (const agl_model_desc *model :
       {fake_cuda_model_gemm(), fake_cuda_model_gemm_epilogue()}) {
    const bool epilogue = model == fake_cuda_model_gemm_epilogue();
    fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1};
    fake_gemm.bias = epilogue;
    fake_gemm.activation = epilogue ? AGL_ACT_GELU_TANH : AGL_ACT_NONE;
    create(model, operands.data());
    const int capturesBefore = captures();
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 16; ++i)
        a[i] = float((i + round) % 7) * 0.25f - 0.5f;
      c = {};
      const void *in[1] = {a.data()};
      void *out[1] = {c.data()};
      ASSERT_EQ(agl_instance_run(instance, in, out), AGL_OK) << lastError();
      std::array<float, 16> want = productOnHost(a.data(), operands.data(), {});
      for (int i = 0; i < 16; ++i)
        EXPECT_NEAR(c[i], want[i], 1e-5f) << "run " << round << ", " << i;
    }
    EXPECT_EQ(captures(), capturesBefore + 1);
    agl_instance_destroy(instance);
    instance = nullptr;
  }
}

// ---- the host versions of the products (--target=cuda-emulated) -----------

// agl_emulated_* compute what the GPU calls compute, through the same
// mapping to cuBLAS's column-major view: the products of the FakeBlas and
// FakeLt cases, against the host reference.
struct EmulatedBlas : ::testing::Test {
  void SetUp() override {
    for (int i = 0; i < 16; ++i) {
      a[i] = float(i % 7) * 0.25f - 0.5f;
      operands[i] = float(i % 5) * 0.5f - 1.0f;    // B
      operands[16 + i] = float(i % 3) - 1.0f;      // bias
      operands[32 + i] = float(i) * 0.125f - 1.0f; // residual
    }
  }
  void sgemm() {
    const fake_cuda_gemm &g = fake_gemm;
    agl_emulated_sgemm(g.batch, g.m, g.n, g.k, a.data(), g.a_batch, g.a_row,
                       g.a_col, operands.data(), g.b_batch, g.b_row, g.b_col,
                       c.data(), g.c_batch, g.c_row, g.accumulate, g.alpha);
  }
  void epilogue() {
    const fake_cuda_gemm &g = fake_gemm;
    agl_emulated_gemm_epilogue(
        g.batch, g.m, g.n, g.k, a.data(), g.a_batch, g.a_row, g.a_col,
        operands.data(), g.b_batch, g.b_row, g.b_col, c.data(), g.c_batch,
        g.c_row, g.accumulate, g.alpha, 2 /* AGL_CUDA_FLOAT */,
        g.bias ? operands.data() + 16 : nullptr, g.activation,
        g.residual ? operands.data() + 32 : nullptr, g.r_batch, g.r_row);
  }
  void expect(const std::array<float, 16> &want) const {
    for (int i = 0; i < 16; ++i)
      EXPECT_NEAR(c[i], want[i], 1e-5f) << i;
  }
  std::array<float, 16> a{}, c{};
  std::array<float, 48> operands{};
};

TEST_F(EmulatedBlas, RowMajorTransposedAndBatchedProducts) {
  for (fake_cuda_gemm g :
       {// [2x4] x [4x3], rows contiguous
        fake_cuda_gemm{1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1},
        // both operands stored column by column, alpha 0.5
        fake_cuda_gemm{1, 2, 3, 4, 0, 1, 2, 0, 1, 4, 0, 3, 0, 0.5f, -1},
        // two products sharing B, C rows 4 apart, accumulating
        fake_cuda_gemm{2, 2, 3, 2, 4, 2, 1, 0, 3, 1, 8, 4, 1, 1.0f, -1}}) {
    fake_gemm = g;
    c.fill(0.25f);
    std::array<float, 16> want = productOnHost(a.data(), operands.data(), c);
    sgemm();
    expect(want);
  }
}

TEST_F(EmulatedBlas, EpiloguesAndResiduals) {
  for (int32_t activation : {AGL_ACT_NONE, AGL_ACT_RELU, AGL_ACT_GELU_TANH}) {
    fake_gemm = {1, 2, 3, 4,    0,  4, 1,          0, 3, 1,
                 0, 3, 0, 1.0f, -1, 1, activation, 0, 0, 0};
    c = {};
    std::array<float, 16> want = productOnHost(a.data(), operands.data(), c);
    epilogue();
    expect(want);
  }
  // A transposed A, a batch of two and a residual (its own strides).
  fake_gemm = {2, 2, 3, 2, 4, 1, 2, 0, 3, 1, 8, 4, 0, 1.0f, -1, 0, AGL_ACT_NONE,
               1, 6, 3};
  c = {};
  std::array<float, 16> want = productOnHost(a.data(), operands.data(), c);
  epilogue();
  expect(want);
}

TEST_F(EmulatedBlas, HalfOperands) {
  for (int32_t format : {0, 1}) {
    HalfProduct half(format);
    c = {};
    agl_emulated_gemm_half(1, 2, 3, 4, half.a.data(), 0, 1, 2, half.b.data(),
                           0, 3, 1, c.data(), 0, 3, 0, 1.0f, format);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(c[i * 3 + j], half.want[i][j]) << format << ": " << i << j;
  }
}

TEST(EmulatedBlasInt8, ExactSumsAndRefusals) {
  std::array<int8_t, 64> a{}, b{};
  fillInt8Operands(a, b);
  for (const fake_cuda_gemm &g : kInt8Products) {
    fake_gemm = g;
    std::array<int32_t, 16> c;
    c.fill(-7);
    std::array<int32_t, 16> want = int8ProductOnHost(a.data(), b.data(), c);
    agl_emulated_gemm_int8(g.batch, g.m, g.n, g.k, a.data(), g.a_batch, g.a_row,
                           g.a_col, b.data(), g.b_batch, g.b_row, g.b_col,
                           c.data(), g.c_batch, g.c_row, g.accumulate);
    EXPECT_EQ(c, want);
  }
  // B row by row: what cuBLASLt refuses marks the output.
  std::array<int32_t, 16> c{};
  agl_emulated_gemm_int8(1, 4, 4, 8, a.data(), 0, 8, 1, b.data(), 0, 4, 1,
                         c.data(), 0, 4, 0);
  for (int32_t v : c)
    EXPECT_EQ(v, INT32_MIN);
}

TEST_F(EmulatedBlas, WhatTheGpuCallsRefuseIsNaN) {
  // Neither of A's strides is 1 (cuBLAS takes neither view).
  fake_gemm = {1, 2, 2, 2, 0, 2, 2, 0, 2, 1, 0, 2, 0, 1.0f, -1};
  sgemm();
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(std::isnan(c[i])) << i;
  // SiLU has no cuBLASLt epilogue.
  fake_gemm = {1, 2, 3, 4, 0, 4, 1, 0, 3, 1, 0, 3, 0, 1.0f, -1, 1, AGL_ACT_SILU,
               0, 0, 0};
  c = {};
  epilogue();
  EXPECT_TRUE(std::isnan(c[0]));
}

} // namespace
