#include <gtest/gtest.h>

#include "core/units.h"

using namespace dcukit::core;

TEST(CoreUnits, ParseSizeTakesBinaryUnitsAndPlainBytes) {
  EXPECT_EQ(*parse_size("256MiB"), 256 * kMiB);
  EXPECT_EQ(*parse_size("4GiB"), 4 * kGiB);
  EXPECT_EQ(*parse_size("1G"), kGiB);
  EXPECT_EQ(*parse_size("1.5GiB"), kGiB + kGiB / 2);
  EXPECT_EQ(*parse_size("65536"), 65536u);
  EXPECT_EQ(*parse_size(" 64 mib "), 64 * kMiB);
}

TEST(CoreUnits, ParseSizeErrorsNameTheText) {
  auto r = parse_size("12 parsecs");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("12 parsecs"), std::string::npos);
  EXPECT_NE(r.error().message.find("GiB"), std::string::npos);
  EXPECT_FALSE(parse_size("abc").ok());
  EXPECT_FALSE(parse_size("-1GiB").ok());
}

TEST(CoreUnits, ParseNumberTakesSiSuffixes) {
  EXPECT_DOUBLE_EQ(*parse_number("480e12"), 480e12);
  EXPECT_DOUBLE_EQ(*parse_number("1.6T"), 1.6e12);
  EXPECT_DOUBLE_EQ(*parse_number("63G"), 63e9);
  EXPECT_DOUBLE_EQ(*parse_number("2.5"), 2.5);
  EXPECT_FALSE(parse_number("12x").ok());
  EXPECT_FALSE(parse_number("").ok());
}

TEST(CoreUnits, FormatsPickTheRightUnit) {
  EXPECT_EQ(format_bytes(256 * kMiB), "256 MiB");
  EXPECT_EQ(format_bytes(4 * kGiB), "4 GiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bandwidth(4.31e12), "4.31 TB/s");
  EXPECT_EQ(format_bandwidth(48.6e9), "48.6 GB/s");
  EXPECT_EQ(format_ops(731.2e12), "731.2 TFLOPS");
  EXPECT_EQ(format_ops(1.2e15, true), "1200.0 TOPS");
}
