// Tests of the activation range estimators of int8 calibration
// (tools/autoglm-compile/ActivationRange.h): the extremes, percentiles, and
// the entropy (KL divergence) search, on distributions whose good ranges
// are known: outliers must be clipped, dense data kept, 0 always inside.
#include "ActivationRange.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using autoglm::ActivationRange;

namespace {

std::vector<float> gaussian(size_t n, float sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(rng);
  return values;
}

TEST(ActivationRangeTest, MinMaxAndPercentile) {
  std::vector<float> values = {3.0f, -1.0f, 0.5f, 7.0f, -4.0f};
  ActivationRange r = autoglm::minMaxRange(values);
  EXPECT_EQ(r.lo, -4.0);
  EXPECT_EQ(r.hi, 7.0);
  std::vector<float> many(1001);
  for (size_t i = 0; i < many.size(); ++i)
    many[i] = float(1000 - i); // 1000 down to 0
  r = autoglm::percentileRange(many, 99.0);
  EXPECT_EQ(r.lo, 10.0);
  EXPECT_EQ(r.hi, 990.0);
  EXPECT_EQ(autoglm::minMaxRange({}).hi, 0.0);
}

// A Gaussian with a few outliers 40 sigma out: the extremes waste nearly
// every level on them; the entropy range clips them and keeps the bulk.
TEST(ActivationRangeTest, EntropyClipsOutliers) {
  std::vector<float> values = gaussian(200000, 1.0f, 7);
  values.push_back(40.0f);
  values.push_back(-38.0f);
  ActivationRange r = autoglm::entropyRange(values);
  EXPECT_LT(r.hi, 10.0);
  EXPECT_GT(r.hi, 2.5);
  EXPECT_GT(r.lo, -10.0);
  EXPECT_LT(r.lo, -2.5);
}

// Dense data with no outliers (uniform): nearly the whole range is kept.
TEST(ActivationRangeTest, EntropyKeepsDenseData) {
  std::vector<float> values(100000);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 3.0f);
  for (float &v : values)
    v = dist(rng);
  ActivationRange r = autoglm::entropyRange(values);
  EXPECT_LT(r.lo, -0.9);
  EXPECT_GT(r.hi, 2.7);
}

// One-sided data (as after a ReLU): the range starts at 0, since the
// quantization keeps 0 exact; a long tail is clipped.
TEST(ActivationRangeTest, EntropyOneSided) {
  std::vector<float> values = gaussian(100000, 1.0f, 11);
  for (float &v : values)
    v = std::max(v, 0.0f);
  values.push_back(50.0f);
  ActivationRange r = autoglm::entropyRange(values);
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_GT(r.hi, 2.0);
  EXPECT_LT(r.hi, 12.0);
  // All values above 0: the range still reaches down to 0.
  std::vector<float> positive = {1.0f, 2.0f, 1.5f};
  r = autoglm::entropyRange(positive);
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_GT(r.hi, 1.0);
}

TEST(ActivationRangeTest, EntropyOfNothing) {
  ActivationRange r = autoglm::entropyRange({});
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_EQ(r.hi, 0.0);
  r = autoglm::entropyRange({0.0f, 0.0f});
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_EQ(r.hi, 0.0);
}

} // namespace
