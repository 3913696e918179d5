// The next-token sampler of autoglm-generate.
#include "Sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

using autoglm::generate::Sampler;
using autoglm::generate::SamplingOptions;

TEST(Sampler, GreedyTakesTheFirstLargest) {
  Sampler sampler(SamplingOptions{});
  const float logits[] = {0.5f, 3.0f, -1.0f, 3.0f};
  EXPECT_EQ(sampler.next(logits, 4), 1);
}

TEST(Sampler, TinyTopPIsGreedy) {
  SamplingOptions options;
  options.greedy = false;
  options.topP = 1e-6;
  Sampler sampler(options);
  const float logits[] = {0.1f, 0.2f, 2.0f, 1.9f};
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(sampler.next(logits, 4), 2);
}

TEST(Sampler, TopPDrawsOnlyFromTheNucleusInProportion) {
  // Probabilities 0.5, 0.3, 0.15, 0.05: top-p 0.75 keeps the first two.
  const float logits[] = {std::log(0.5f), std::log(0.3f), std::log(0.15f),
                          std::log(0.05f)};
  SamplingOptions options;
  options.greedy = false;
  options.topP = 0.75;
  options.seed = 7;
  Sampler sampler(options);
  std::map<int64_t, int> counts;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i)
    ++counts[sampler.next(logits, 4)];
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts[0] / double(draws), 0.5 / 0.8, 0.02);
  EXPECT_NEAR(counts[1] / double(draws), 0.3 / 0.8, 0.02);
}

TEST(Sampler, SameSeedSameTokens) {
  SamplingOptions options;
  options.greedy = false;
  options.temperature = 2.0;
  options.seed = 42;
  const float logits[] = {1.0f, 0.5f, 0.25f, 0.0f, -0.5f};
  Sampler a(options), b(options);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(a.next(logits, 5), b.next(logits, 5));
}

TEST(Sampler, LowTemperatureConcentratesOnTheLargest) {
  SamplingOptions options;
  options.greedy = false;
  options.temperature = 0.01;
  Sampler sampler(options);
  const float logits[] = {1.0f, 1.2f, 0.9f};
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(sampler.next(logits, 3), 1);
}
