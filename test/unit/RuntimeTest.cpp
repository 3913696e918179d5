// Tests of the runtime C API against the hand-written model in fake_model.c,
// linked in directly and also loaded from shared libraries.
#include "autoglm/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

extern "C" const agl_model_desc *fake_add_model(void);
extern "C" uint64_t fake_add_arena_size(void);

namespace {

using ::testing::HasSubstr;

std::string lastError() { return agl_last_error(); }

// Inputs and expected outputs of one run of the fake model.
struct AddCase {
  std::array<float, 6> a{1, 2, 3, 4, 5, 6};
  std::array<float, 6> b{0.5f, -4, 0.25f, -4, 1, -10};
  std::array<float, 6> y{};
  std::array<uint8_t, 6> positive{};
  const void *inputs[2] = {a.data(), b.data()};
  void *outputs[2] = {y.data(), positive.data()};

  void expectResult() const {
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_FLOAT_EQ(y[i], a[i] + b[i]) << "at " << i;
      EXPECT_EQ(positive[i], a[i] + b[i] > 0) << "at " << i;
    }
  }
};

agl_model_desc withAbiVersion(uint32_t version) {
  agl_model_desc model = *fake_add_model();
  model.abi_version = version;
  return model;
}

int32_t failingRun(void *, const void *, const void *const *, void *const *,
                   const int64_t *, int64_t *) {
  return 7;
}

int32_t runWithoutArena(void *arena, const void *, const void *const *,
                        void *const *, const int64_t *, int64_t *) {
  return arena == nullptr ? 0 : 1;
}

// ---- status ----------------------------------------------------------------

TEST(Status, EveryCodeHasAString) {
  EXPECT_STREQ(agl_status_string(AGL_OK), "ok");
  EXPECT_STREQ(agl_status_string(AGL_ERR_INVALID_ARGUMENT), "invalid argument");
  EXPECT_STREQ(agl_status_string(AGL_ERR_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(agl_status_string(AGL_ERR_IO), "I/O error");
  EXPECT_STREQ(agl_status_string(AGL_ERR_ABI_MISMATCH), "ABI version mismatch");
  EXPECT_STREQ(agl_status_string(AGL_ERR_NOT_FOUND), "not found");
  EXPECT_STREQ(agl_status_string(AGL_ERR_MODEL_FAILED), "model failed");
  EXPECT_STREQ(agl_status_string(static_cast<agl_status>(42)),
               "unknown status");
}

TEST(Status, LastErrorIsPerThreadAndKeptUntilTheNextFailure) {
  std::string fresh;
  std::thread([&] { fresh = agl_last_error(); }).join();
  EXPECT_EQ(fresh, "");

  int32_t index = 0;
  ASSERT_EQ(agl_model_find_input(fake_add_model(), "nope", &index),
            AGL_ERR_NOT_FOUND);
  const std::string failure = lastError();
  EXPECT_THAT(failure, HasSubstr("nope"));

  ASSERT_EQ(agl_model_find_input(fake_add_model(), "a", &index), AGL_OK);
  EXPECT_EQ(lastError(), failure);

  std::string other;
  std::thread([&] { other = agl_last_error(); }).join();
  EXPECT_EQ(other, "");
}

// ---- dtypes and tensor sizes ----------------------------------------------

TEST(Dtype, SizesAndNames) {
  struct Expected {
    int32_t dtype;
    size_t size;
    const char *name;
  };
  const Expected table[] = {
      {AGL_DTYPE_F32, 4, "float32"},   {AGL_DTYPE_U8, 1, "uint8"},
      {AGL_DTYPE_I8, 1, "int8"},       {AGL_DTYPE_U16, 2, "uint16"},
      {AGL_DTYPE_I16, 2, "int16"},     {AGL_DTYPE_I32, 4, "int32"},
      {AGL_DTYPE_I64, 8, "int64"},     {AGL_DTYPE_BOOL, 1, "bool"},
      {AGL_DTYPE_F16, 2, "float16"},   {AGL_DTYPE_F64, 8, "float64"},
      {AGL_DTYPE_U32, 4, "uint32"},    {AGL_DTYPE_U64, 8, "uint64"},
      {AGL_DTYPE_BF16, 2, "bfloat16"},
      // One byte per element, sub-byte types included.
      {AGL_DTYPE_F8E4M3FN, 1, "float8e4m3fn"},
      {AGL_DTYPE_F8E4M3FNUZ, 1, "float8e4m3fnuz"},
      {AGL_DTYPE_F8E5M2, 1, "float8e5m2"},
      {AGL_DTYPE_F8E5M2FNUZ, 1, "float8e5m2fnuz"},
      {AGL_DTYPE_U4, 1, "uint4"},      {AGL_DTYPE_I4, 1, "int4"},
      {AGL_DTYPE_F4E2M1, 1, "float4e2m1"},
      {AGL_DTYPE_F8E8M0, 1, "float8e8m0"},
      {AGL_DTYPE_U2, 1, "uint2"},      {AGL_DTYPE_I2, 1, "int2"},
  };
  for (const Expected &e : table) {
    EXPECT_EQ(agl_dtype_size(e.dtype), e.size) << e.name;
    EXPECT_STREQ(agl_dtype_name(e.dtype), e.name);
  }
  for (int32_t unknown : {0, 8, 14, 15, 27, -1}) {
    EXPECT_EQ(agl_dtype_size(unknown), 0u) << unknown;
    EXPECT_STREQ(agl_dtype_name(unknown), "unknown");
  }
}

TEST(Dtype, TensorElementsAndBytes) {
  const int64_t shape[] = {2, 3, 4};
  agl_tensor_info info{"t", AGL_DTYPE_F64, 3, shape};
  EXPECT_EQ(agl_tensor_num_elements(&info), 24u);
  EXPECT_EQ(agl_tensor_num_bytes(&info), 192u);

  agl_tensor_info scalar{"s", AGL_DTYPE_I16, 0, nullptr};
  EXPECT_EQ(agl_tensor_num_elements(&scalar), 1u);
  EXPECT_EQ(agl_tensor_num_bytes(&scalar), 2u);

  const int64_t empty[] = {4, 0};
  agl_tensor_info none{"e", AGL_DTYPE_F32, 2, empty};
  EXPECT_EQ(agl_tensor_num_elements(&none), 0u);

  agl_tensor_info unknown{"u", 99, 3, shape};
  EXPECT_EQ(agl_tensor_num_bytes(&unknown), 0u);

  EXPECT_EQ(agl_tensor_num_elements(nullptr), 0u);
  EXPECT_EQ(agl_tensor_num_bytes(nullptr), 0u);
}

// ---- lookup by name ---------------------------------------------------------

TEST(Model, FindsInputsAndOutputsByName) {
  const agl_model_desc *model = fake_add_model();
  int32_t index = -1;
  EXPECT_EQ(agl_model_find_input(model, "a", &index), AGL_OK);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(agl_model_find_input(model, "b", &index), AGL_OK);
  EXPECT_EQ(index, 1);
  EXPECT_EQ(agl_model_find_output(model, "y", &index), AGL_OK);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(agl_model_find_output(model, "y/positive", &index), AGL_OK);
  EXPECT_EQ(index, 1);
}

TEST(Model, UnknownNamesAreNotFound) {
  const agl_model_desc *model = fake_add_model();
  int32_t index = 5;
  EXPECT_EQ(agl_model_find_input(model, "y", &index), AGL_ERR_NOT_FOUND);
  EXPECT_EQ(index, -1);
  EXPECT_EQ(lastError(), "model 'fake_add' has no input named 'y'");
  EXPECT_EQ(agl_model_find_output(model, "a", &index), AGL_ERR_NOT_FOUND);
  EXPECT_EQ(lastError(), "model 'fake_add' has no output named 'a'");
}

TEST(Model, FindRejectsNullArguments) {
  const agl_model_desc *model = fake_add_model();
  int32_t index = 0;
  EXPECT_EQ(agl_model_find_input(nullptr, "a", &index),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_model_find_input(model, nullptr, &index),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_model_find_output(model, "y", nullptr),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("agl_model_find_output"));
}

// ---- kernel profiles -------------------------------------------------------

// An instance of the fake model (which times its two kernels) that records
// up to `capacity` events.
struct ProfiledAdd {
  agl_instance *instance = nullptr;
  AddCase run;

  explicit ProfiledAdd(size_t capacity) {
    EXPECT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
    if (capacity > 0)
      EXPECT_EQ(agl_instance_set_profile_capacity(instance, capacity),
                AGL_OK);
  }
  ~ProfiledAdd() { agl_instance_destroy(instance); }

  void runTimes(int runs) {
    for (int i = 0; i < runs; ++i)
      ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  }
  std::vector<agl_profile_event> events(uint64_t *dropped = nullptr) const {
    const agl_profile_event *data = nullptr;
    size_t count = agl_instance_profile_events(instance, &data, dropped);
    return {data, data + count};
  }
};

TEST(Profile, RecordsOneEventPerKernelCall) {
  ProfiledAdd profiled(16);
  profiled.runTimes(3);
  profiled.run.expectResult();
  uint64_t dropped = 99;
  std::vector<agl_profile_event> events = profiled.events(&dropped);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(dropped, 0u);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].kernel, int32_t(i % 2));
    EXPECT_EQ(events[i].thread, int32_t(gettid()));
    EXPECT_LE(events[i].begin_ns, events[i].end_ns);
    if (i > 0)
      EXPECT_LE(events[i - 1].end_ns, events[i].begin_ns);
  }
}

TEST(Profile, AFullBufferCountsWhatItDrops) {
  ProfiledAdd profiled(3);
  profiled.runTimes(3);
  uint64_t dropped = 0;
  EXPECT_EQ(profiled.events(&dropped).size(), 3u);
  EXPECT_EQ(dropped, 3u);

  agl_instance_clear_profile(profiled.instance);
  EXPECT_TRUE(profiled.events(&dropped).empty());
  EXPECT_EQ(dropped, 0u);
  profiled.runTimes(1); // the buffer is still there
  EXPECT_EQ(profiled.events().size(), 2u);
}

TEST(Profile, NothingIsRecordedWithoutABuffer) {
  ProfiledAdd profiled(0);
  profiled.runTimes(2);
  profiled.run.expectResult();
  EXPECT_TRUE(profiled.events().empty());

  ASSERT_EQ(agl_instance_set_profile_capacity(profiled.instance, 4), AGL_OK);
  profiled.runTimes(1);
  EXPECT_EQ(profiled.events().size(), 2u);
  ASSERT_EQ(agl_instance_set_profile_capacity(profiled.instance, 0), AGL_OK);
  profiled.runTimes(1);
  EXPECT_TRUE(profiled.events().empty());
  // Outside a profiled run the hooks do nothing.
  EXPECT_EQ(agl_profile_begin(), 0u);
  agl_profile_end(0, 0);
}

TEST(Profile, InstancesOnTwoThreadsKeepTheirOwnEvents) {
  ProfiledAdd first(8), second(8);
  std::thread other([&] { second.runTimes(2); });
  first.runTimes(1);
  other.join();
  EXPECT_EQ(first.events().size(), 2u);
  std::vector<agl_profile_event> events = second.events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_NE(events[0].thread, int32_t(gettid()));
}

TEST(Profile, RejectsModelsCompiledWithoutProfile) {
  agl_model_desc plain = *fake_add_model();
  plain.num_kernels = 0;
  plain.kernels = nullptr;
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&plain, &instance), AGL_OK);
  EXPECT_EQ(agl_instance_set_profile_capacity(instance, 8),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("compiled without --profile"));
  EXPECT_EQ(agl_instance_set_profile_capacity(nullptr, 8),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_profile_events(nullptr, nullptr, nullptr), 0u);
  agl_instance_destroy(instance);
}

// ---- instances with their own arena ---------------------------------------

TEST(Instance, RunsTheModel) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  EXPECT_EQ(agl_instance_model(instance), fake_add_model());

  AddCase run;
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK)
      << agl_last_error();
  run.expectResult();

  // An instance is reusable; its arena is allocated once.
  run.a.fill(-1);
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  run.expectResult();
  agl_instance_destroy(instance);
}

TEST(Instance, CreateRejectsNullArguments) {
  agl_instance *instance = reinterpret_cast<agl_instance *>(0x1);
  EXPECT_EQ(agl_instance_create(nullptr, &instance), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(instance, nullptr);
  EXPECT_EQ(lastError(), "model descriptor is null");
  EXPECT_EQ(agl_instance_create(fake_add_model(), nullptr),
            AGL_ERR_INVALID_ARGUMENT);
}

TEST(Instance, RejectsAnotherAbiVersion) {
  agl_model_desc model = withAbiVersion(AGL_ABI_VERSION + 1);
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create(&model, &instance), AGL_ERR_ABI_MISMATCH);
  EXPECT_EQ(instance, nullptr);
  EXPECT_EQ(lastError(), "model 'fake_add' was built for runtime ABI " +
                             std::to_string(AGL_ABI_VERSION + 1) +
                             ", but this runtime implements ABI " +
                             std::to_string(AGL_ABI_VERSION));

  char arena[64];
  EXPECT_EQ(
      agl_instance_create_with_arena(&model, arena, sizeof arena, &instance),
      AGL_ERR_ABI_MISMATCH);
}

TEST(Instance, RejectsMalformedDescriptors) {
  agl_instance *instance = nullptr;

  agl_model_desc noEntry = *fake_add_model();
  noEntry.run = nullptr;
  EXPECT_EQ(agl_instance_create(&noEntry, &instance), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("no entry function"));

  agl_model_desc oddAlignment = *fake_add_model();
  oddAlignment.arena_alignment = 48;
  EXPECT_EQ(agl_instance_create(&oddAlignment, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("alignment 48"));

  agl_model_desc noInputs = *fake_add_model();
  noInputs.inputs = nullptr;
  EXPECT_EQ(agl_instance_create(&noInputs, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("malformed input table"));

  const agl_tensor_info badOutput[] = {{"y", 99, 0, nullptr}};
  agl_model_desc unknownType = *fake_add_model();
  unknownType.num_outputs = 1;
  unknownType.outputs = badOutput;
  EXPECT_EQ(agl_instance_create(&unknownType, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("unknown element type 99"));

  const agl_tensor_info unnamed[] = {{nullptr, AGL_DTYPE_F32, 0, nullptr}};
  agl_model_desc noName = *fake_add_model();
  noName.num_outputs = 1;
  noName.outputs = unnamed;
  EXPECT_EQ(agl_instance_create(&noName, &instance), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "output 0 of model 'fake_add' has no name");
  EXPECT_EQ(instance, nullptr);

  agl_model_desc noKernelTable = *fake_add_model();
  noKernelTable.kernels = nullptr;
  EXPECT_EQ(agl_instance_create(&noKernelTable, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "model 'fake_add' declares 2 kernels but no kernel table");
}

TEST(Instance, ModelWithoutArenaGetsNone) {
  agl_model_desc model = *fake_add_model();
  model.num_inputs = 0;
  model.num_outputs = 0;
  model.arena_size = 0;
  model.arena_alignment = 0; // irrelevant without an arena
  model.run = runWithoutArena;

  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&model, &instance), AGL_OK) << agl_last_error();
  EXPECT_EQ(agl_instance_run(instance, nullptr, nullptr), AGL_OK);
  agl_instance_destroy(instance);

  ASSERT_EQ(agl_instance_create_with_arena(&model, nullptr, 0, &instance),
            AGL_OK);
  EXPECT_EQ(agl_instance_run(instance, nullptr, nullptr), AGL_OK);
  agl_instance_destroy(instance);
}

TEST(Instance, RunReportsModelFailure) {
  agl_model_desc model = *fake_add_model();
  model.run = failingRun;
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&model, &instance), AGL_OK);
  AddCase run;
  EXPECT_EQ(agl_instance_run(instance, run.inputs, run.outputs),
            AGL_ERR_MODEL_FAILED);
  EXPECT_EQ(lastError(), "model 'fake_add' failed with code 7");
  agl_instance_destroy(instance);
}

TEST(Instance, RunRejectsNullBuffers) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  AddCase run;

  EXPECT_EQ(agl_instance_run(nullptr, run.inputs, run.outputs),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_run(instance, nullptr, run.outputs),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("input array is null"));
  EXPECT_EQ(agl_instance_run(instance, run.inputs, nullptr),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("output array is null"));

  const void *missingInput[2] = {run.a.data(), nullptr};
  EXPECT_EQ(agl_instance_run(instance, missingInput, run.outputs),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 1 ('b') of model 'fake_add' is null");

  void *missingOutput[2] = {nullptr, run.positive.data()};
  EXPECT_EQ(agl_instance_run(instance, run.inputs, missingOutput),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "output 0 ('y') of model 'fake_add' is null");
  agl_instance_destroy(instance);
}

TEST(Instance, AsyncRunOfAHostModelEndsBeforeItReturns) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  AddCase run;
  ASSERT_EQ(agl_instance_run_async(instance, run.inputs, run.outputs), AGL_OK)
      << agl_last_error();
  run.expectResult(); // before the wait
  EXPECT_EQ(agl_instance_wait(instance), AGL_OK);
  // Nothing is pending: the next run is accepted, and so is a second wait.
  EXPECT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  EXPECT_EQ(agl_instance_wait(instance), AGL_OK);
  EXPECT_EQ(agl_instance_wait(nullptr), AGL_ERR_INVALID_ARGUMENT);

  agl_model_desc failing = *fake_add_model();
  failing.run = failingRun;
  agl_instance *failingInstance = nullptr;
  ASSERT_EQ(agl_instance_create(&failing, &failingInstance), AGL_OK);
  EXPECT_EQ(agl_instance_run_async(failingInstance, run.inputs, run.outputs),
            AGL_ERR_MODEL_FAILED);
  EXPECT_EQ(agl_instance_wait(failingInstance), AGL_OK);
  agl_instance_destroy(failingInstance);
  agl_instance_destroy(instance);
}

TEST(Instance, HostModelsHaveNoDeviceBuffers) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  void *address = &instance;
  EXPECT_EQ(agl_instance_device_input(instance, 0, &address),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "agl_instance_device_input: model 'fake_add' runs "
                         "on the host; only a CUDA model's tensors have "
                         "device buffers");
  EXPECT_EQ(agl_instance_device_output(instance, 0, &address),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_device_output(nullptr, 0, &address),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_device_output(instance, 0, nullptr),
            AGL_ERR_INVALID_ARGUMENT);
  agl_instance_destroy(instance);
}

TEST(Instance, DestroyAcceptsNull) {
  agl_instance_destroy(nullptr);
  EXPECT_EQ(agl_instance_model(nullptr), nullptr);
}

TEST(Instance, DistinctInstancesRunConcurrently) {
  std::array<std::thread, 4> threads;
  std::array<bool, 4> ok{};
  for (size_t t = 0; t < threads.size(); ++t) {
    threads[t] = std::thread([t, &ok] {
      agl_instance *instance = nullptr;
      if (agl_instance_create(fake_add_model(), &instance) != AGL_OK)
        return;
      bool all = true;
      for (int i = 0; i < 1000 && all; ++i) {
        AddCase run;
        run.a.fill(static_cast<float>(t * 1000 + i));
        all = agl_instance_run(instance, run.inputs, run.outputs) == AGL_OK &&
              run.y[2] == run.a[2] + run.b[2];
      }
      agl_instance_destroy(instance);
      ok[t] = all;
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (bool threadOk : ok)
    EXPECT_TRUE(threadOk);
}

// ---- instances with a caller arena ------------------------------------------

TEST(CallerArena, ModelUsesTheGivenArena) {
  alignas(64) float arena[16];
  std::fill(std::begin(arena), std::end(arena), -123.0f);
  ASSERT_EQ(fake_add_arena_size(), 24u);

  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create_with_arena(fake_add_model(), arena,
                                           sizeof arena, &instance),
            AGL_OK)
      << agl_last_error();
  AddCase run;
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  run.expectResult();
  for (size_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(arena[i], run.y[i]) << "the sum is staged in the arena";
  EXPECT_FLOAT_EQ(arena[6], -123.0f) << "nothing beyond arena_size is touched";

  // Not owned: destroying the instance leaves the caller's memory alone.
  agl_instance_destroy(instance);
  EXPECT_FLOAT_EQ(arena[0], run.y[0]);
}

TEST(CallerArena, ExactSizeIsEnough) {
  alignas(64) unsigned char arena[24];
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create_with_arena(fake_add_model(), arena,
                                           sizeof arena, &instance),
            AGL_OK);
  agl_instance_destroy(instance);
}

TEST(CallerArena, RejectsASmallArena) {
  alignas(64) unsigned char arena[64];
  agl_instance *instance = nullptr;
  EXPECT_EQ(
      agl_instance_create_with_arena(fake_add_model(), arena, 8, &instance),
      AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(instance, nullptr);
  EXPECT_EQ(lastError(), "arena of 8 bytes is smaller than the 24 bytes model "
                         "'fake_add' needs");
}

TEST(CallerArena, RejectsAMisalignedArena) {
  alignas(64) unsigned char arena[128];
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create_with_arena(fake_add_model(), arena + 4, 100,
                                           &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "arena is not 64-byte aligned, as model 'fake_add' requires");
}

TEST(CallerArena, RejectsNullArguments) {
  agl_instance *instance = nullptr;
  EXPECT_EQ(agl_instance_create_with_arena(fake_add_model(), nullptr, 1024,
                                           &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "arena is null, but model 'fake_add' needs 24 bytes");
  alignas(64) unsigned char arena[64];
  EXPECT_EQ(agl_instance_create_with_arena(fake_add_model(), arena,
                                           sizeof arena, nullptr),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(
      agl_instance_create_with_arena(nullptr, arena, sizeof arena, &instance),
      AGL_ERR_INVALID_ARGUMENT);
}

// ---- shared-library artifacts
// ------------------------------------------------

TEST(Library, OpensAndRunsAnArtifact) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  ASSERT_EQ(agl_library_open(FAKE_MODEL_PATH, &library, &model), AGL_OK)
      << agl_last_error();
  ASSERT_NE(model, nullptr);
  EXPECT_STREQ(model->name, "fake_add");
  EXPECT_NE(model, fake_add_model()) << "the library's own copy";

  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(model, &instance), AGL_OK);
  AddCase run;
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  run.expectResult();
  agl_instance_destroy(instance);
  agl_library_close(library);
}

TEST(Library, BareFileNameMeansTheCurrentDirectory) {
  const std::string path = FAKE_MODEL_PATH;
  const size_t slash = path.rfind('/');
  char previous[4096];
  ASSERT_NE(getcwd(previous, sizeof previous), nullptr);
  ASSERT_EQ(chdir(path.substr(0, slash).c_str()), 0);

  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  const agl_status status =
      agl_library_open(path.substr(slash + 1).c_str(), &library, &model);
  ASSERT_EQ(chdir(previous), 0);
  EXPECT_EQ(status, AGL_OK) << agl_last_error();
  agl_library_close(library);
}

TEST(Library, MissingFileIsAnIoError) {
  agl_library *library = reinterpret_cast<agl_library *>(0x1);
  const agl_model_desc *model = fake_add_model();
  EXPECT_EQ(agl_library_open("/nonexistent/model.so", &library, &model),
            AGL_ERR_IO);
  EXPECT_EQ(library, nullptr);
  EXPECT_EQ(model, nullptr);
  EXPECT_THAT(lastError(), HasSubstr("cannot open '/nonexistent/model.so': "));
  EXPECT_THAT(lastError(), HasSubstr("No such file"));
}

TEST(Library, NotASharedLibraryIsAnIoError) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  EXPECT_EQ(agl_library_open(__FILE__, &library, &model), AGL_ERR_IO);
  EXPECT_THAT(lastError(), HasSubstr("cannot open '"));
}

TEST(Library, MissingEntrySymbolIsNotFound) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  EXPECT_EQ(agl_library_open(FAKE_MODEL_UNLOADABLE_PATH, &library, &model),
            AGL_ERR_NOT_FOUND);
  EXPECT_EQ(library, nullptr);
  EXPECT_THAT(lastError(), HasSubstr("does not export autoglm_loadable_model"));
}

TEST(Library, RejectsAnotherAbiVersion) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  EXPECT_EQ(agl_library_open(FAKE_MODEL_ABI99_PATH, &library, &model),
            AGL_ERR_ABI_MISMATCH);
  EXPECT_EQ(library, nullptr);
  EXPECT_EQ(model, nullptr);
  EXPECT_THAT(lastError(), HasSubstr("cannot load '"));
  EXPECT_THAT(lastError(), HasSubstr("built for runtime ABI 99"));
}

TEST(Library, RejectsNullArguments) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  EXPECT_EQ(agl_library_open(nullptr, &library, &model),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_library_open(FAKE_MODEL_PATH, nullptr, &model),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_library_open(FAKE_MODEL_PATH, &library, nullptr),
            AGL_ERR_INVALID_ARGUMENT);
  agl_library_close(nullptr);
}

} // namespace

namespace {

// ---- KV caches -----------------------------------------------------------

// A model whose cache (7 positions of one float) and length live in the
// arena; each run appends 3 positions, as compiled models advance the
// length themselves.
constexpr uint64_t kLengthOffset = 64;
int32_t appendThree(void *arena, const void *, const void *const *,
                    void *const *, const int64_t *, int64_t *) {
  *reinterpret_cast<int64_t *>(static_cast<char *>(arena) + kLengthOffset) += 3;
  return 0;
}

struct CacheModel {
  int64_t shape[1] = {7};
  agl_tensor_info cache{"past", AGL_DTYPE_F32, 1, shape, nullptr};
  uint64_t offsets[1] = {128};
  agl_kv_cache_info info{7, 3, -1, 1, kLengthOffset, &cache, offsets};
  agl_model_desc model = *fake_add_model();
  CacheModel() {
    model.arena_size = 256;
    model.run = appendThree;
    model.kv_cache = &info;
  }
};

TEST(KVCache, RunsAdvanceTheLengthUntilTheCacheIsFull) {
  CacheModel m;
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&m.model, &instance), AGL_OK)
      << agl_last_error();
  int64_t length = -1;
  ASSERT_EQ(agl_instance_cache_length(instance, &length), AGL_OK);
  EXPECT_EQ(length, 0) << "a new instance's cache is empty";
  AddCase run;
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  ASSERT_EQ(agl_instance_cache_length(instance, &length), AGL_OK);
  EXPECT_EQ(length, 6);
  EXPECT_EQ(agl_instance_run(instance, run.inputs, run.outputs),
            AGL_ERR_CACHE_FULL);
  EXPECT_EQ(lastError(), "the KV cache of model 'fake_add' holds 7 positions; "
                         "6 are in use and this run appends 3 (reset it with "
                         "agl_instance_set_cache_length)");
  ASSERT_EQ(agl_instance_cache_length(instance, &length), AGL_OK);
  EXPECT_EQ(length, 6) << "a refused run changes nothing";
  agl_instance_destroy(instance);
}

TEST(KVCache, LengthRewindsButNeverGrows) {
  CacheModel m;
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&m.model, &instance), AGL_OK);
  AddCase run;
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  EXPECT_EQ(agl_instance_set_cache_length(instance, 4),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("it holds 3 positions"));
  EXPECT_EQ(agl_instance_set_cache_length(instance, -1),
            AGL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(agl_instance_set_cache_length(instance, 1), AGL_OK);
  int64_t length = -1;
  ASSERT_EQ(agl_instance_cache_length(instance, &length), AGL_OK);
  EXPECT_EQ(length, 1);
  agl_instance_destroy(instance);
}

// The same cache with its length after the symbol values (as GPU models
// keep it): the model only reads it; the runtime advances it after a run
// that succeeded.
std::vector<int64_t> lengthsSeen;
int32_t readLength(void *, const void *, const void *const *, void *const *,
                   const int64_t *symbols, int64_t *) {
  if (!symbols)
    return 9;
  lengthsSeen.push_back(symbols[0]);
  return symbols[0] == 4 ? 1 : 0; // a failing run at length 4
}

TEST(KVCache, LengthKeptAfterTheSymbolValuesIsTheRuntimes) {
  CacheModel m;
  m.info.length_offset = AGL_KV_LENGTH_IN_SYMBOLS;
  m.model.run = readLength;
  lengthsSeen.clear();
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&m.model, &instance), AGL_OK)
      << agl_last_error();
  AddCase run;
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK)
      << agl_last_error();
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  EXPECT_EQ(agl_instance_run(instance, run.inputs, run.outputs),
            AGL_ERR_CACHE_FULL);
  EXPECT_EQ(lengthsSeen, (std::vector<int64_t>{0, 3}))
      << "a refused run does not reach the model";
  int64_t length = -1;
  ASSERT_EQ(agl_instance_cache_length(instance, &length), AGL_OK);
  EXPECT_EQ(length, 6);
  ASSERT_EQ(agl_instance_set_cache_length(instance, 1), AGL_OK);
  ASSERT_EQ(agl_instance_run(instance, run.inputs, run.outputs), AGL_OK);
  EXPECT_EQ(agl_instance_run(instance, run.inputs, run.outputs),
            AGL_ERR_MODEL_FAILED);
  ASSERT_EQ(agl_instance_cache_length(instance, &length), AGL_OK);
  EXPECT_EQ(length, 4) << "a failed run does not advance the length";
  EXPECT_EQ(lengthsSeen, (std::vector<int64_t>{0, 3, 1, 4}));
  agl_instance_destroy(instance);
}

TEST(KVCache, ModelsWithoutACacheHaveNoLength) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  int64_t length = 0;
  EXPECT_EQ(agl_instance_cache_length(instance, &length),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("has no KV cache"));
  EXPECT_EQ(agl_instance_set_cache_length(instance, 0),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(agl_instance_cache_length(nullptr, &length),
            AGL_ERR_INVALID_ARGUMENT);
  agl_instance_destroy(instance);
}

TEST(KVCache, RejectsCachesOutsideTheArena) {
  agl_instance *instance = nullptr;
  CacheModel lengthOutside;
  lengthOutside.info.length_offset = 256;
  EXPECT_EQ(agl_instance_create(&lengthOutside.model, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("length outside its arena"));
  CacheModel cacheOutside;
  cacheOutside.offsets[0] = 240;
  EXPECT_EQ(agl_instance_create(&cacheOutside.model, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("places KV cache 'past' outside"));
  CacheModel noStep;
  noStep.info.step = 0;
  EXPECT_EQ(agl_instance_create(&noStep.model, &instance),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("no valid step"));
  EXPECT_EQ(instance, nullptr);
}

} // namespace
