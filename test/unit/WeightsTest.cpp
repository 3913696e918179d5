// Tests of weights files: mapping, size checks, and instances of models that
// keep their weights outside the code.
#include "autoglm/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" const agl_model_desc *fake_add_model(void);

namespace {

using ::testing::HasSubstr;

// y = a + b + weights[0]: proves the run receives the mapped weights.
int32_t addWithWeights(void *, const void *weights, const void *const *in,
                       void *const *out, const int64_t *, int64_t *) {
  if (!weights)
    return 9;
  float bias = static_cast<const float *>(weights)[0];
  const float *a = static_cast<const float *>(in[0]);
  const float *b = static_cast<const float *>(in[1]);
  float *y = static_cast<float *>(out[0]);
  for (int i = 0; i < 6; ++i)
    y[i] = a[i] + b[i] + bias;
  return 0;
}

class WeightsFile : public ::testing::Test {
protected:
  void SetUp() override {
    char name[] = "/tmp/autoglm-weights-XXXXXX";
    int fd = mkstemp(name);
    ASSERT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream file(path_, std::ios::binary);
    float values[4] = {10.0f, 1, 2, 3};
    file.write(reinterpret_cast<const char *>(values), sizeof values);
    model_ = *fake_add_model();
    model_.weights_size = sizeof values;
    model_.weights_file = "weights.bin";
    model_.run = addWithWeights;
  }
  void TearDown() override { std::remove(path_.c_str()); }

  std::string path_;
  agl_model_desc model_{};
};

TEST_F(WeightsFile, MapsTheFileReadOnly) {
  agl_weights *weights = nullptr;
  ASSERT_EQ(agl_weights_map(&model_, path_.c_str(), &weights), AGL_OK)
      << agl_last_error();
  const float *data = static_cast<const float *>(agl_weights_data(weights));
  ASSERT_NE(data, nullptr);
  EXPECT_FLOAT_EQ(data[0], 10.0f);
  EXPECT_FLOAT_EQ(data[3], 3.0f);
  agl_weights_unmap(weights);
  agl_weights_unmap(nullptr); // harmless
  EXPECT_EQ(agl_weights_data(nullptr), nullptr);
}

TEST_F(WeightsFile, RejectsAFileOfAnotherSize) {
  model_.weights_size = 12;
  agl_weights *weights = nullptr;
  EXPECT_EQ(agl_weights_map(&model_, path_.c_str(), &weights), AGL_ERR_IO);
  EXPECT_EQ(weights, nullptr);
  EXPECT_THAT(agl_last_error(), HasSubstr("has 16 bytes, but model 'fake_add' needs 12"));
}

TEST_F(WeightsFile, RejectsAMissingFile) {
  agl_weights *weights = nullptr;
  EXPECT_EQ(agl_weights_map(&model_, "/nonexistent/w.bin", &weights), AGL_ERR_IO);
  EXPECT_THAT(agl_last_error(), HasSubstr("cannot open weights file '/nonexistent/w.bin'"));
  EXPECT_EQ(agl_weights_map(nullptr, path_.c_str(), &weights),
            AGL_ERR_INVALID_ARGUMENT);
}

TEST_F(WeightsFile, InstanceRunsWithItsWeights) {
  agl_weights *weights = nullptr;
  ASSERT_EQ(agl_weights_map(&model_, path_.c_str(), &weights), AGL_OK);
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&model_, &instance), AGL_OK) << agl_last_error();

  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0}, y[6] = {0};
  uint8_t positive[6];
  const void *inputs[2] = {a, b};
  void *outputs[2] = {y, positive};
  // Without weights the run is refused, naming the file to map.
  EXPECT_EQ(agl_instance_run(instance, inputs, outputs), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(agl_last_error(), HasSubstr("keeps its weights in 'weights.bin'"));

  EXPECT_EQ(agl_instance_set_weights(instance, nullptr), AGL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(agl_instance_set_weights(instance, agl_weights_data(weights)), AGL_OK);
  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK) << agl_last_error();
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(y[i], a[i] + 10.0f);
  agl_instance_destroy(instance);
  agl_weights_unmap(weights);
}

TEST(Weights, EmbeddedModelsTakeNoWeights) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  float dummy = 0;
  EXPECT_EQ(agl_instance_set_weights(instance, &dummy), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(agl_last_error(), HasSubstr("embeds its weights"));
  EXPECT_EQ(agl_instance_set_weights(nullptr, &dummy), AGL_ERR_INVALID_ARGUMENT);
  agl_instance_destroy(instance);
}

} // namespace
