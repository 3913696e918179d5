// Tests of result comparison, summaries and latency statistics.
#include "Compare.h"
#include "Benchmark.h"
#include "Json.h"
#include "TensorSummary.h"
#include "autoglm/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace {

using namespace autoglm::run;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
Tensor tensorOf(int32_t dtype, std::initializer_list<T> values) {
  Tensor tensor(dtype, {static_cast<int64_t>(values.size())});
  size_t i = 0;
  for (T value : values)
    std::memcpy(tensor.bytes.data() + sizeof(T) * i++, &value, sizeof(T));
  return tensor;
}

Tensor floats(std::initializer_list<float> values) {
  return tensorOf<float>(AGL_DTYPE_F32, values);
}

TEST(Compare, WithinToleranceIsOk) {
  const Comparison c =
      compareTensors(floats({1.0f, 100.0f, 0.0f}),
                     floats({1.00001f, 100.005f, 0.0f}), Tolerance{1e-4, 1e-5});
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.elements, 3u);
  EXPECT_NEAR(c.maxAbsError, 0.005, 1e-5);
  EXPECT_NEAR(c.maxRelError, 5e-5, 1e-6);
}

TEST(Compare, CountsAndLocatesMismatches) {
  const Comparison c = compareTensors(
      floats({1, 2, 3, 4}), floats({1, 2.5f, 3, 0}), Tolerance{1e-4, 1e-5});
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.maxAbsError, 4.0);
  EXPECT_EQ(c.maxRelError, 0.2) << "expected zeros do not count as relative";
  ASSERT_EQ(c.firstMismatches.size(), 2u);
  EXPECT_EQ(c.firstMismatches[0].index, 1u);
  EXPECT_EQ(c.firstMismatches[0].got, 2.0);
  EXPECT_EQ(c.firstMismatches[0].expected, 2.5);
}

TEST(Compare, AbsoluteToleranceCoversZeros) {
  EXPECT_TRUE(
      compareTensors(floats({1e-6f}), floats({0}), Tolerance{0, 1e-5}).ok());
  EXPECT_FALSE(
      compareTensors(floats({1e-6f}), floats({0}), Tolerance{1, 0}).ok());
}

TEST(Compare, NanMatchesOnlyNan) {
  const float nan = std::nanf("");
  EXPECT_TRUE(compareTensors(floats({nan}), floats({nan}), {}).ok());
  const Comparison oneSided =
      compareTensors(floats({nan, 1}), floats({1, nan}), {});
  EXPECT_EQ(oneSided.mismatches, 2u);
  EXPECT_TRUE(std::isinf(oneSided.maxAbsError));
  EXPECT_TRUE(std::isinf(oneSided.maxRelError));
}

TEST(Compare, InfinitiesMustBeEqual) {
  const float inf = INFINITY;
  EXPECT_TRUE(
      compareTensors(floats({inf, -inf}), floats({inf, -inf}), {}).ok());
  EXPECT_EQ(compareTensors(floats({inf, 1e30f}), floats({-inf, inf}),
                           Tolerance{1e9, 1e9})
                .mismatches,
            2u);
}

TEST(Compare, IntegersAreExact) {
  const Comparison c = compareTensors(
      tensorOf<int64_t>(AGL_DTYPE_I64, {INT64_MAX, 5}),
      tensorOf<int64_t>(AGL_DTYPE_I64, {INT64_MAX - 1, 5}), Tolerance{1, 1});
  EXPECT_EQ(c.mismatches, 1u) << "differs beyond double precision";

  const Comparison small =
      compareTensors(tensorOf<int32_t>(AGL_DTYPE_I32, {10, -3}),
                     tensorOf<int32_t>(AGL_DTYPE_I32, {11, -3}), {});
  EXPECT_EQ(small.mismatches, 1u);
  EXPECT_EQ(small.maxAbsError, 1.0);
}

TEST(Compare, BooleansCompareByTruth) {
  EXPECT_TRUE(compareTensors(tensorOf<uint8_t>(AGL_DTYPE_BOOL, {0, 1}),
                             tensorOf<uint8_t>(AGL_DTYPE_BOOL, {0, 1}), {})
                  .ok());
  EXPECT_EQ(compareTensors(tensorOf<uint8_t>(AGL_DTYPE_BOOL, {0, 1}),
                           tensorOf<uint8_t>(AGL_DTYPE_BOOL, {1, 1}), {})
                .mismatches,
            1u);
}

TEST(Compare, HalfPrecision) {
  // 0x3c00 is 1.0, 0x3c01 the next half above it (1 + 2^-10).
  const Comparison c = compareTensors(
      tensorOf<uint16_t>(AGL_DTYPE_F16, {0x3c01}),
      tensorOf<uint16_t>(AGL_DTYPE_F16, {0x3c00}), Tolerance{1e-2, 0});
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.maxAbsError, std::ldexp(1.0, -10));
}

TEST(Summary, MinMaxMeanIgnoringNans) {
  const TensorSummary s = summarize(floats({2, -1, std::nanf(""), 5}));
  EXPECT_EQ(s.elements, 4u);
  EXPECT_EQ(s.nans, 1u);
  EXPECT_EQ(s.min, -1.0);
  EXPECT_EQ(s.max, 5.0);
  EXPECT_EQ(s.mean, 2.0);
  EXPECT_FALSE(summarize(Tensor(AGL_DTYPE_F32, {0})).hasValues());
}

TEST(Latency, MedianAndNearestRankPercentile) {
  const LatencyStats odd = summarizeLatencies({5, 1, 3});
  EXPECT_EQ(odd.runs, 3u);
  EXPECT_EQ(odd.minMs, 1.0);
  EXPECT_EQ(odd.medianMs, 3.0);
  EXPECT_EQ(odd.p90Ms, 5.0);

  std::vector<double> ten;
  for (int i = 10; i >= 1; --i)
    ten.push_back(i);
  const LatencyStats even = summarizeLatencies(ten);
  EXPECT_EQ(even.medianMs, 5.5);
  EXPECT_EQ(even.p90Ms, 9.0);

  EXPECT_EQ(summarizeLatencies({}).runs, 0u);
}

TEST(Latency, TimesEveryRun) {
  int calls = 0;
  const std::vector<double> times = timeRuns([&] { ++calls; }, 2, 5);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(times.size(), 5u);
  for (double t : times)
    EXPECT_GE(t, 0.0);
}

TEST(Json, StringsAndNumbers) {
  EXPECT_EQ(jsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(jsonNumber(0.5), "0.5");
  EXPECT_EQ(jsonNumber(kNan), "null");
  EXPECT_EQ(jsonNumber(kInf), "null");
}

TEST(Compare, Float8IsBitExactAndNanMatchesNan) {
  // e4m3fn: 0x38 = 1.0, 0x39 = 1.125, 0x7F and 0xFF are NaN, 0x80 is -0.
  const auto f8 = [](std::initializer_list<uint8_t> bytes) {
    return tensorOf<uint8_t>(AGL_DTYPE_F8E4M3FN, bytes);
  };
  const Tolerance loose{1.0, 1.0};
  EXPECT_TRUE(compareTensors(f8({0x38, 0x7F}), f8({0x38, 0xFF}), loose).ok());
  EXPECT_FALSE(compareTensors(f8({0x39}), f8({0x38}), loose).ok())
      << "no tolerance for float8";
  EXPECT_FALSE(compareTensors(f8({0x80}), f8({0x00}), loose).ok())
      << "-0 is not +0";
}

} // namespace
