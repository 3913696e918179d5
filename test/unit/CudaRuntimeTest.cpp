// The runtime's CUDA layer without a GPU: clear errors where there is no
// driver (or only the toolkit's stub), and the whole instance life cycle
// (device memory, weights upload, copies, launches, error reports) against
// a fake driver (fake_cuda_driver.c) that runs kernels on the host.
//
// The driver is chosen by AUTOGLM_CUDA_DRIVER when the first instance is
// created, and a driver that loads stays loaded for the process: ctest runs
// every test in its own process. Run by hand, the tests without a driver
// come first in the file, as gtest runs them.
#include "autoglm/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" const agl_model_desc *fake_cuda_model(void);
extern "C" const agl_model_desc *fake_cuda_model_missing_kernel(void);
extern "C" const agl_model_desc *fake_add_model(void);
extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
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
  static const agl_symbol_info symbol = {"seq", 1, 4};
  agl_model_desc symbolic = *fake_cuda_model();
  symbolic.num_symbols = 1;
  symbolic.symbols = &symbol;
  EXPECT_EQ(agl_instance_create(&symbolic, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("symbolic dimensions"));
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

} // namespace
