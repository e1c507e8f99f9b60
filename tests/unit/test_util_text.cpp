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

TEST(UtilText, TerminalSafeEscapesEveryControlAndKeepsPrintableUtf8) {
  using dcukit::util::terminal_safe;
  // A model id as a hostile server sent it: retitle the window, ring, clear the screen.
  EXPECT_EQ(terminal_safe("m\x1b]0;pwned\x07\x1b[2Jx"), "m\\x1b]0;pwned\\x07\\x1b[2Jx");
  EXPECT_EQ(terminal_safe("a\rb\bc\x7f"), "a\\x0db\\x08c\\x7f");
  EXPECT_EQ(terminal_safe("tab\tand\nnewline"), "tab\tand\nnewline");
  EXPECT_EQ(terminal_safe("\xc2\x9b" "31m"), "\\u009b31m");  // C1 CSI, as UTF-8
  EXPECT_EQ(terminal_safe("\x9b" "31m"), "\\x9b31m");        // C1 CSI, a bare byte
  EXPECT_EQ(terminal_safe("\xff\xc3"), "\\xff\\xc3");         // not UTF-8, and a cut sequence
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate is not UTF-8
  const std::string text = "海光 DCU · µs — ok \xf0\x9f\x99\x82";
  EXPECT_EQ(terminal_safe(text), text);
  EXPECT_EQ(terminal_safe(std::string("nul\0end", 7)), "nul\\x00end");
}

TEST(UtilText, SplitKeepsOrSkipsEmptyFields) {
  EXPECT_EQ(dcukit::util::split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(dcukit::util::split("a,,b,", ',', dcukit::util::Empties::skip), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dcukit::util::split("", ':'), (std::vector<std::string>{""}));
  EXPECT_TRUE(dcukit::util::split("", ':', dcukit::util::Empties::skip).empty());
}

TEST(UtilText, ParseIntTakesABareWholeNumberOnly) {
  EXPECT_EQ(dcukit::util::parse_int(" 42 "), 42);
  EXPECT_EQ(dcukit::util::parse_int("-7"), -7);
  for (const char* bad : {"", "4.2", "42 MiB", "x", "99999999999999999999"})
    EXPECT_FALSE(dcukit::util::parse_int(bad).has_value()) << bad;
}
