// Tests of agl_instance_run_shaped: symbol values read from input shapes,
// the checks on them, and output extents, against the hand-written models in
// fake_shaped_model.c (symbolic) and fake_model.c (static).
#include "autoglm/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

extern "C" const agl_model_desc *fake_shaped_model(void);
extern "C" const agl_model_desc *fake_add_model(void);

namespace {

using ::testing::HasSubstr;

std::string lastError() { return agl_last_error(); }

// One shaped run of fake_shaped at batch x seq, buffers at the upper bounds.
struct ShapedCase {
  int64_t batch, seq;
  std::array<float, 64> x{};
  std::array<float, 8> bias{};
  std::array<float, 64> sum{};
  std::array<float, 64> flat{};
  std::array<int64_t, 1> count{};
  std::array<int64_t, 3> xShape, sumShape{-7, -7, -7};
  std::array<int64_t, 1> biasShape, flatShape{-7}, countShape{-7};
  const void *inputs[2] = {x.data(), bias.data()};
  void *outputs[3] = {sum.data(), flat.data(), count.data()};
  const int64_t *inputShapes[2] = {xShape.data(), biasShape.data()};
  int64_t *outputShapes[3] = {sumShape.data(), flatShape.data(),
                              countShape.data()};

  ShapedCase(int64_t batch, int64_t seq)
      : batch(batch), seq(seq), xShape{batch, seq, 2}, biasShape{seq} {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i);
    for (size_t i = 0; i < bias.size(); ++i)
      bias[i] = 100.0f * static_cast<float>(i + 1);
  }

  agl_status run(agl_instance *instance) {
    return agl_instance_run_shaped(instance, inputs, inputShapes, outputs,
                                   outputShapes);
  }

  void expectResult() const {
    EXPECT_EQ(sumShape, (std::array<int64_t, 3>{batch, seq, 2}));
    EXPECT_EQ(flatShape[0], batch * seq * 2);
    EXPECT_EQ(countShape[0], 1);
    EXPECT_EQ(count[0], batch * seq);
    for (int64_t i = 0; i < batch * seq * 2; ++i) {
      const float expected = x[i] + bias[(i / 2) % seq];
      EXPECT_FLOAT_EQ(sum[i], expected) << "at " << i;
      EXPECT_FLOAT_EQ(flat[i], expected) << "at " << i;
    }
  }
};

class ShapedRun : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(agl_instance_create(fake_shaped_model(), &instance_), AGL_OK)
        << agl_last_error();
  }
  void TearDown() override { agl_instance_destroy(instance_); }
  agl_instance *instance_ = nullptr;
};

TEST_F(ShapedRun, ReadsSymbolsFromTheInputShapes) {
  ShapedCase run(2, 3);
  ASSERT_EQ(run.run(instance_), AGL_OK) << agl_last_error();
  run.expectResult();
}

TEST_F(ShapedRun, OneInstanceRunsAtEverySize) {
  for (int64_t batch = 1; batch <= 4; ++batch)
    for (int64_t seq = 1; seq <= 8; ++seq) {
      SCOPED_TRACE("batch=" + std::to_string(batch) +
                   " seq=" + std::to_string(seq));
      ShapedCase run(batch, seq);
      ASSERT_EQ(run.run(instance_), AGL_OK) << agl_last_error();
      run.expectResult();
    }
}

TEST_F(ShapedRun, OutputShapesAreOptional) {
  ShapedCase run(3, 5);
  EXPECT_EQ(agl_instance_run_shaped(instance_, run.inputs, run.inputShapes,
                                    run.outputs, nullptr),
            AGL_OK)
      << agl_last_error();
  EXPECT_EQ(run.count[0], 15);

  int64_t *someShapes[3] = {nullptr, run.flatShape.data(), nullptr};
  EXPECT_EQ(agl_instance_run_shaped(instance_, run.inputs, run.inputShapes,
                                    run.outputs, someShapes),
            AGL_OK);
  EXPECT_EQ(run.flatShape[0], 30);
  EXPECT_EQ(run.sumShape[0], -7) << "not asked for, not written";
}

TEST_F(ShapedRun, StaticExtentsMustMatch) {
  ShapedCase run(2, 3);
  run.xShape[2] = 5;
  EXPECT_EQ(run.run(instance_), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 'x' of model 'fake_shaped' has extent 5 in "
                         "dimension 2, but the model needs 2 there");
}

TEST_F(ShapedRun, DimensionsOfOneSymbolMustAgree) {
  ShapedCase run(2, 3);
  run.biasShape[0] = 4;
  EXPECT_EQ(run.run(instance_), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 'bias' of model 'fake_shaped' has extent 4 in "
                         "dimension 0, but symbol 'seq' is 3 (dimension 1 of "
                         "input 'x')");
  EXPECT_EQ(run.countShape[0], -7) << "a refused run writes nothing";
}

TEST_F(ShapedRun, SymbolsMustBeInRange) {
  ShapedCase tooLarge(5, 3);
  EXPECT_EQ(tooLarge.run(instance_), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 'x' of model 'fake_shaped' has extent 5 in "
                         "dimension 0, outside the range 1..4 of symbol "
                         "'batch'");

  ShapedCase empty(2, 0);
  EXPECT_EQ(empty.run(instance_), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("outside the range 1..8 of symbol 'seq'"));

  ShapedCase negative(2, 3);
  negative.xShape[0] = -1;
  EXPECT_EQ(negative.run(instance_), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 'x' of model 'fake_shaped' has negative "
                         "extent -1 in dimension 0");
}

TEST_F(ShapedRun, NeedsInputShapes) {
  ShapedCase run(2, 3);
  EXPECT_EQ(agl_instance_run_shaped(instance_, run.inputs, nullptr,
                                    run.outputs, run.outputShapes),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("input_shapes is null"));

  run.inputShapes[1] = nullptr;
  EXPECT_EQ(run.run(instance_), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "the shape of input 1 ('bias') of model 'fake_shaped' is null");

  EXPECT_EQ(agl_instance_run_shaped(nullptr, run.inputs, run.inputShapes,
                                    run.outputs, run.outputShapes),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "agl_instance_run_shaped: instance is null");
}

TEST_F(ShapedRun, PlainRunIsRefused) {
  ShapedCase run(2, 3);
  EXPECT_EQ(agl_instance_run(instance_, run.inputs, run.outputs),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("model 'fake_shaped' has symbolic "
                                     "dimensions"));
  EXPECT_THAT(lastError(), HasSubstr("agl_instance_run_shaped"));
}

// A model that claims an output larger than its bound wrote out of bounds.
int32_t overreporting(void *, const void *, const void *const *, void *const *,
                      const int64_t *, int64_t *dims) {
  dims[3] = 65; // flat: at most 64
  return 0;
}

TEST(ShapedRunChecks, OutputExtentsBeyondTheBoundsAreAFailure) {
  agl_model_desc model = *fake_shaped_model();
  model.run = overreporting;
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(&model, &instance), AGL_OK);
  ShapedCase run(1, 1);
  EXPECT_EQ(run.run(instance), AGL_ERR_MODEL_FAILED);
  EXPECT_EQ(lastError(), "model 'fake_shaped' reports extent 65 in dimension "
                         "0 of output 'flat', outside 0..64");
  agl_instance_destroy(instance);
}

// ---- static models through both APIs ---------------------------------------

TEST(ShapedRunStatic, StaticModelsRunThroughBothApis) {
  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(fake_add_model(), &instance), AGL_OK);
  std::array<float, 6> a{1, 2, 3, 4, 5, 6}, b{1, 1, 1, -9, -9, -9}, y{};
  std::array<uint8_t, 6> positive{};
  const void *inputs[2] = {a.data(), b.data()};
  void *outputs[2] = {y.data(), positive.data()};

  ASSERT_EQ(agl_instance_run(instance, inputs, outputs), AGL_OK);
  EXPECT_FLOAT_EQ(y[5], -3);

  const int64_t shape[2] = {2, 3};
  const int64_t *inputShapes[2] = {shape, shape};
  std::array<int64_t, 2> yShape{}, positiveShape{};
  int64_t *outputShapes[2] = {yShape.data(), positiveShape.data()};
  y.fill(0);
  ASSERT_EQ(agl_instance_run_shaped(instance, inputs, inputShapes, outputs,
                                    outputShapes),
            AGL_OK)
      << agl_last_error();
  EXPECT_FLOAT_EQ(y[5], -3);
  EXPECT_EQ(yShape, (std::array<int64_t, 2>{2, 3}));
  EXPECT_EQ(positiveShape, (std::array<int64_t, 2>{2, 3}));

  // Without symbols the shapes may be left out: they are the descriptor's.
  yShape.fill(0);
  ASSERT_EQ(agl_instance_run_shaped(instance, inputs, nullptr, outputs,
                                    outputShapes),
            AGL_OK);
  EXPECT_EQ(yShape, (std::array<int64_t, 2>{2, 3}));

  const int64_t wrong[2] = {3, 2};
  const int64_t *wrongShapes[2] = {shape, wrong};
  EXPECT_EQ(agl_instance_run_shaped(instance, inputs, wrongShapes, outputs,
                                    outputShapes),
            AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 'b' of model 'fake_add' has extent 3 in "
                         "dimension 0, but the model needs 2 there");
  agl_instance_destroy(instance);
}

// ---- descriptor checks ------------------------------------------------------

agl_status create(const agl_model_desc &model) {
  agl_instance *instance = nullptr;
  agl_status status = agl_instance_create(&model, &instance);
  agl_instance_destroy(instance);
  return status;
}

TEST(ShapedDescriptor, FakeModelIsValid) {
  EXPECT_EQ(create(*fake_shaped_model()), AGL_OK) << agl_last_error();
}

TEST(ShapedDescriptor, RejectsMalformedSymbolTables) {
  agl_model_desc model = *fake_shaped_model();
  model.symbols = nullptr;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("malformed symbol table"));

  const agl_symbol_info reversed[2] = {{"batch", 4, 1}, {"seq", 1, 8}};
  model = *fake_shaped_model();
  model.symbols = reversed;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "symbol 'batch' of model 'fake_shaped' has the empty "
                         "or negative range 4..1");

  const agl_symbol_info unnamed[2] = {{nullptr, 1, 4}, {"seq", 1, 8}};
  model.symbols = unnamed;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(lastError(), HasSubstr("symbol 0 of model 'fake_shaped' has no "
                                     "name"));
}

TEST(ShapedDescriptor, RejectsBadDimensionSymbols) {
  const agl_model_desc &good = *fake_shaped_model();
  std::vector<agl_tensor_info> inputs(good.inputs, good.inputs + 2);
  agl_model_desc model = good;
  model.inputs = inputs.data();

  const int32_t unknown[1] = {2};
  inputs[1].dim_symbols = unknown;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 1 ('bias') of model 'fake_shaped' ties "
                         "dimension 0 to symbol 2, which does not exist");

  const int32_t computed[1] = {AGL_DIM_COMPUTED};
  inputs[1].dim_symbols = computed;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT)
      << "only outputs have computed extents";

  const int64_t notTheBound[1] = {7};
  inputs[1] = good.inputs[1];
  inputs[1].shape = notTheBound;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "input 1 ('bias') of model 'fake_shaped' has extent "
                         "7 in dimension 0, but its symbol 'seq' goes up to 8");

  // With seq fixed in x and bias static, no input dimension gives 'seq'.
  const int32_t batchOnly[3] = {0, AGL_DIM_STATIC, AGL_DIM_STATIC};
  const int64_t fixedSeq[3] = {4, 8, 2};
  inputs[0].dim_symbols = batchOnly;
  inputs[0].shape = fixedSeq;
  inputs[1] = good.inputs[1];
  inputs[1].dim_symbols = nullptr;
  EXPECT_EQ(create(model), AGL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "symbol 'seq' of model 'fake_shaped' is the extent "
                         "of no input dimension, so no run can give its value");
}

// ---- as a shared library -----------------------------------------------------

TEST(ShapedLibrary, OpensAndRunsAnArtifact) {
  agl_library *library = nullptr;
  const agl_model_desc *model = nullptr;
  ASSERT_EQ(agl_library_open(FAKE_SHAPED_MODEL_PATH, &library, &model), AGL_OK)
      << agl_last_error();
  EXPECT_STREQ(model->name, "fake_shaped");
  ASSERT_EQ(model->num_symbols, 2);
  EXPECT_STREQ(model->symbols[1].name, "seq");
  EXPECT_EQ(model->symbols[1].max, 8);

  agl_instance *instance = nullptr;
  ASSERT_EQ(agl_instance_create(model, &instance), AGL_OK);
  ShapedCase run(4, 7);
  ASSERT_EQ(run.run(instance), AGL_OK) << agl_last_error();
  run.expectResult();
  agl_instance_destroy(instance);
  agl_library_close(library);
}

} // namespace
