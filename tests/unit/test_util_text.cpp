// util/text: the helpers every parser shares.
#include <gtest/gtest.h>

#include "util/text.h"

using namespace dcukit::util;

TEST(UtilText, TrimTakesWhiteSpaceFromBothEndsOnly) {
  EXPECT_EQ(trim("  \t K100_AI \r\n"), "K100_AI");
  EXPECT_EQ(trim("a b"), "a b");
  EXPECT_EQ(trim(" \v\f "), "");
  EXPECT_EQ(trim(""), "");
}

TEST(UtilText, LowerIsAsciiOnly) {
  EXPECT_EQ(lower("BW1000 HCU"), "bw1000 hcu");
  EXPECT_EQ(lower("海光DCU"), "海光dcu");  // bytes past ASCII pass through
}

TEST(UtilText, ContainsWithAndWithoutCase) {
  EXPECT_TRUE(starts_with("gfx936", "gfx"));
  EXPECT_FALSE(starts_with("gf", "gfx"));
  EXPECT_TRUE(contains("AMD Instinct MI300X", "MI300"));
  EXPECT_FALSE(contains("AMD Instinct MI300X", "mi300"));
  EXPECT_TRUE(icontains("AMD Instinct MI300X", "mi300"));
  EXPECT_TRUE(icontains("radeon pro w7900", "Radeon"));
  EXPECT_FALSE(icontains("K100", "K100_AI"));
}
