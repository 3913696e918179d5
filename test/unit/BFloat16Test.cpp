// __truncsfbf2, which libautoglm_rt provides for models that LLVM compiled
// for a CPU without bfloat16 conversion instructions: round to nearest
// even, NaN kept (quiet), called with the psABI's registers (the float in
// xmm0, the bf16 back in xmm0's low 16 bits).
#if defined(__x86_64__) && defined(__ELF__)

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <random>

// Declared with a vector result: the bf16 comes back in xmm0, as a vector's
// does, which a compiler without a __bf16 type cannot express otherwise.
extern "C" __m128 __truncsfbf2(float);

namespace {

uint16_t truncate(float x) {
  return (uint16_t)(_mm_cvtsi128_si32(_mm_castps_si128(__truncsfbf2(x))) &
                    0xffff);
}

float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// The definition on the bits, for numbers (not NaN): the nearest bf16, the
// even one on a tie.
uint16_t nearestEven(uint32_t bits) {
  const uint32_t high = bits >> 16, low = bits & 0xffff;
  if (low > 0x8000 || (low == 0x8000 && (high & 1)))
    return (uint16_t)(high + 1);
  return (uint16_t)high;
}

TEST(BFloat16Test, RoundsToNearestEven) {
  EXPECT_EQ(truncate(1.0f), 0x3F80);
  EXPECT_EQ(truncate(-2.5f), 0xC020);
  // Halfway between 1.0 (0x3F80) and its successor: to the even 0x3F80;
  // halfway between 0x3F81 and 0x3F82: to 0x3F82.
  EXPECT_EQ(truncate(fromBits(0x3F808000)), 0x3F80);
  EXPECT_EQ(truncate(fromBits(0x3F818000)), 0x3F82);
  EXPECT_EQ(truncate(fromBits(0x3F808001)), 0x3F81);
  // The largest float rounds up to infinity; infinities and zeros stay.
  EXPECT_EQ(truncate(fromBits(0x7F7FFFFF)), 0x7F80);
  EXPECT_EQ(truncate(fromBits(0x7F800000)), 0x7F80);
  EXPECT_EQ(truncate(fromBits(0xFF800000)), 0xFF80);
  EXPECT_EQ(truncate(-0.0f), 0x8000);
  EXPECT_EQ(truncate(fromBits(0x00018000)), 0x0002); // subnormal tie up
}

TEST(BFloat16Test, KeepsNaNQuiet) {
  EXPECT_EQ(truncate(fromBits(0x7FC00000)), 0x7FC0);
  EXPECT_EQ(truncate(fromBits(0xFFC00000)), 0xFFC0);
  // A signaling NaN whose payload lies in the low bits only: still a NaN.
  EXPECT_EQ(truncate(fromBits(0x7F800001)), 0x7FC0);
  EXPECT_EQ(truncate(fromBits(0x7FBFFFFF)), 0x7FFF);
}

TEST(BFloat16Test, MatchesTheDefinitionOnRandomBits) {
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t bits = (uint32_t)rng();
    const uint16_t got = truncate(fromBits(bits));
    if ((bits & 0x7fffffff) > 0x7f800000) {
      ASSERT_EQ(got & 0x7FC0, 0x7FC0) << std::hex << bits;
      ASSERT_EQ(got & 0x8000, (bits >> 16) & 0x8000) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(got, nearestEven(bits)) << std::hex << bits;
  }
}

} // namespace

#endif
