#include <gtest/gtest.h>

#include <cmath>

#include "core/numeric.h"

using namespace dcukit::core;

TEST(CoreNumeric, HalfRoundTripsAndRoundsToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(1e6f), 0x7C00);  // overflow to infinity
  EXPECT_FLOAT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_FLOAT_EQ(half_to_float(float_to_half(0.1f)), 0.0999755859375f);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_FLOAT_EQ(half_to_float(float_to_half(std::ldexp(1.0f, -20))), std::ldexp(1.0f, -20));  // subnormal
}

TEST(CoreNumeric, Bf16KeepsTheTopSixteenBitsRounded) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_FLOAT_EQ(bf16_to_float(float_to_bf16(3.140625f)), 3.140625f);
  EXPECT_FLOAT_EQ(bf16_to_float(float_to_bf16(0.1f)), 0.10009765625f);
}

TEST(CoreNumeric, E4m3CoversItsRange) {
  EXPECT_FLOAT_EQ(e4m3_to_float(0x38), 1.0f);
  EXPECT_FLOAT_EQ(e4m3_to_float(0x7E), 448.0f);
  EXPECT_TRUE(std::isnan(e4m3_to_float(0x7F)));
  EXPECT_FLOAT_EQ(e4m3_to_float(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(float_to_e4m3(1000.0f), 0x7E);  // saturates
  for (int v = 0; v < 0x7F; ++v) EXPECT_EQ(float_to_e4m3(e4m3_to_float(static_cast<std::uint8_t>(v))), v);
}

TEST(CoreNumeric, RandomUnitIsDeterministicAndSpread) {
  EXPECT_EQ(random_unit(1, 42), random_unit(1, 42));
  EXPECT_NE(random_unit(1, 42), random_unit(2, 42));
  double lo = 1, hi = -1, sum = 0;
  for (int i = 0; i < 10000; ++i) {
    const double r = random_unit(7, static_cast<std::uint64_t>(i));
    lo = std::min(lo, r), hi = std::max(hi, r), sum += r;
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_NEAR(sum / 10000, 0.0, 0.03);
}
