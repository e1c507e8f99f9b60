#include <gtest/gtest.h>

#include <string>

#include "util/json_text.h"
#include "util/regex.h"

using namespace dcukit::util;

TEST(UtilRegex, GroupsPositionsAndAnchors) {
  const Regex re(R"(Lnk(Cap|Sta):.*Speed ([0-9.]+)GT/s)");
  Match m;
  const std::string line = "  LnkSta: Port #0, Speed 16GT/s, Width x16";
  ASSERT_TRUE(re.search(line, &m));
  EXPECT_TRUE(m[1] == "Sta");
  EXPECT_EQ(m[2].str(), "16");
  EXPECT_EQ(m.position(0), 2u);
  EXPECT_FALSE(m[7].matched);
  EXPECT_FALSE(Regex("(GPU|NIC)\\d+").full_match("GPU0 "));
  EXPECT_TRUE(Regex("(GPU|NIC)\\d+").full_match("NIC12"));
  EXPECT_TRUE(Regex("xid", Regex::Case::insensitive).search("NVRM: Xid 79"));
  EXPECT_FALSE(Regex("(unclosed").ok());
  EXPECT_EQ(Regex(R"((a+)b)").replace_all("aab ab", "<\\1>"), "<aa> <a>");
}

TEST(UtilRegex, OneLongLineIsReadInLinearTimeWithoutRecursion) {
  // std::regex recursed once per character: 30-40 KB in one line was a stack overflow.
  const std::string line = "0000:03:00.0 VGA compatible controller: " + std::string(8 << 20, 'x');
  const Regex re(R"(^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]+):\s+(.*)$)");
  Match m;
  ASSERT_TRUE(re.full_match(line, &m));
  EXPECT_EQ(m[3].text.size(), std::size_t{8} << 20);
}

TEST(UtilJsonText, NestingIsBoundedBeforeParsing) {
  EXPECT_EQ(json_depth(R"({"a": [1, {"b": "[[[["}]})"), 3) << "brackets inside strings do not count";
  EXPECT_EQ(json_depth(R"("\"[")"), 0);
  const std::string deep = std::string(1 << 20, '[') + std::string(1 << 20, ']');
  EXPECT_EQ(json_depth(deep), kMaxJsonDepth + 1);
  EXPECT_TRUE(parse_json(deep).is_discarded());
  EXPECT_EQ(parse_json(R"({"a": [[1]]})")["a"][0][0], 1);
  EXPECT_TRUE(parse_json("{nope").is_discarded());
}
