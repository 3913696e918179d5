// Tests of binding --input/--expect arguments to a model's tensors.
#include "Bindings.h"
#include "OutputDirectory.h"

#include <gtest/gtest.h>

namespace {

using namespace autoglm::run;

const std::vector<std::string> kNames = {"a", "b", "c"};

std::vector<std::string> bind(const std::vector<std::string> &arguments) {
  return bindFileArguments(arguments, kNames, "input", "m");
}

std::string bindError(const std::vector<std::string> &arguments) {
  try {
    bind(arguments);
  } catch (const BindingError &error) {
    return error.what();
  }
  return "";
}

TEST(Bindings, ByPositionAndByName) {
  EXPECT_EQ(bind({"x.npy", "y.npy"}),
            (std::vector<std::string>{"x.npy", "y.npy", ""}));
  EXPECT_EQ(bind({"c=z.npy", "a=x.npy"}),
            (std::vector<std::string>{"x.npy", "", "z.npy"}));
  // The i-th unnamed argument is input i, whatever the named ones are.
  EXPECT_EQ(bind({"c=z.npy", "x.npy"}),
            (std::vector<std::string>{"x.npy", "", "z.npy"}));
  EXPECT_EQ(bind({"b=dir/k=v.npy"}),
            (std::vector<std::string>{"", "dir/k=v.npy", ""}));
}

TEST(Bindings, Errors) {
  EXPECT_EQ(bindError({"d=x.npy"}),
            "unknown input 'd'; model 'm' has inputs: a, b, c");
  EXPECT_EQ(bindError({"1", "2", "3", "4"}),
            "too many inputs: model 'm' has 3 (a, b, c)");
  EXPECT_EQ(bindError({"a=x.npy", "x.npy"}), "input 'a' is given twice");
  EXPECT_EQ(bindError({"b="}), "input 'b' has an empty path");
  EXPECT_EQ(bindFileArguments({}, {}, "output", "m"),
            std::vector<std::string>{});
  try {
    bindFileArguments({"x.npy"}, {}, "input", "m");
    FAIL() << "no error";
  } catch (const BindingError &error) {
    EXPECT_STREQ(error.what(), "too many inputs: model 'm' has 0 (none)");
  }
}

TEST(OutputDirectory, FileNamesAreSafe) {
  EXPECT_EQ(fileNameFor("logits"), "logits");
  EXPECT_EQ(fileNameFor("/layer.0/Add:0"), "_layer.0_Add_0");
  EXPECT_EQ(fileNameFor(".."), "_..");
  EXPECT_EQ(fileNameFor(""), "_");
}

} // namespace
