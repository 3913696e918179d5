// Tests of autoglm-run's matching of input tensors to a model with symbolic
// dimensions, on the descriptor of fake_shaped_model.c.
#include "Bindings.h"
#include "SymbolBinding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

extern "C" const agl_model_desc *fake_shaped_model(void);
extern "C" const agl_model_desc *fake_add_model(void);

namespace autoglm::run {
namespace {

using ::testing::HasSubstr;

std::vector<Tensor> shapedInputs(int64_t batch, int64_t seq, int64_t biasSeq) {
  std::vector<Tensor> inputs;
  inputs.emplace_back(AGL_DTYPE_F32, std::vector<int64_t>{batch, seq, 2});
  inputs.emplace_back(AGL_DTYPE_F32, std::vector<int64_t>{biasSeq});
  return inputs;
}

const std::vector<std::string> kPaths = {"x.npy", "bias.npy"};

TEST(SymbolBinding, DescribesSymbolicTypes) {
  const agl_model_desc &model = *fake_shaped_model();
  EXPECT_EQ(describeExpectedType(model, model.inputs[0]), "float32[batch,seq,2]");
  EXPECT_EQ(describeExpectedType(model, model.outputs[1]), "float32[?]");
  EXPECT_EQ(describeExpectedType(model, model.outputs[2]), "int64[1]");
  const agl_model_desc &add = *fake_add_model();
  EXPECT_EQ(describeExpectedType(add, add.inputs[0]), "float32[2,3]");
}

TEST(SymbolBinding, TypesFitExceptInSymbolicExtents) {
  const agl_model_desc &model = *fake_shaped_model();
  const std::vector<Tensor> inputs = shapedInputs(2, 3, 3);
  EXPECT_TRUE(fitsType(model.inputs[0], inputs[0]));
  EXPECT_TRUE(fitsType(model.inputs[1], inputs[1]));
  EXPECT_FALSE(fitsType(model.inputs[0], Tensor(AGL_DTYPE_F32, {2, 3, 5})));
  EXPECT_FALSE(fitsType(model.inputs[0], Tensor(AGL_DTYPE_F32, {2, 3})));
  EXPECT_FALSE(fitsType(model.inputs[0], Tensor(AGL_DTYPE_F64, {2, 3, 2})));
}

TEST(SymbolBinding, ReadsTheValues) {
  const agl_model_desc &model = *fake_shaped_model();
  const std::vector<int64_t> values =
      bindSymbols(model, shapedInputs(2, 3, 3), kPaths);
  EXPECT_EQ(values, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(describeSymbols(model, values), "batch=2 seq=3");
}

TEST(SymbolBinding, RejectsDisagreementAndValuesOutOfRange) {
  const agl_model_desc &model = *fake_shaped_model();
  try {
    bindSymbols(model, shapedInputs(2, 3, 4), kPaths);
    FAIL() << "disagreeing extents accepted";
  } catch (const BindingError &error) {
    EXPECT_STREQ(error.what(), "input 'bias': dimension 0 is 4 in bias.npy, "
                               "but symbol 'seq' is 3 from input 'x'");
  }
  try {
    bindSymbols(model, shapedInputs(5, 3, 3), kPaths);
    FAIL() << "a value out of range accepted";
  } catch (const BindingError &error) {
    EXPECT_STREQ(error.what(), "input 'x': dimension 0 is 5 in x.npy, outside "
                               "the range 1..4 of symbol 'batch'");
  }
}

} // namespace
} // namespace autoglm::run
