#include <gtest/gtest.h>

#include "util/duration.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

TEST(UtilDuration, ReadsEveryUnitAndBareSeconds) {
  EXPECT_EQ(*parse_duration("500ms"), 500ms);
  EXPECT_EQ(*parse_duration("5s"), 5000ms);
  EXPECT_EQ(*parse_duration("1.5s"), 1500ms);
  EXPECT_EQ(*parse_duration("20m"), 20min);
  EXPECT_EQ(*parse_duration("2h"), 2h);
  EXPECT_EQ(*parse_duration("30"), 30s);
  EXPECT_EQ(*parse_duration("0"), 0ms);
}

TEST(UtilDuration, RefusesWhatIsNotADurationAndSaysTheForms) {
  for (const char* bad : {"", "s", "-5s", "5 s", "5d", "abc", "1e3s", "5sec", "nan"}) {
    auto r = parse_duration(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("ms, s, m or h"), std::string::npos) << r.error().message;
  }
  EXPECT_FALSE(parse_duration("99999999999999h"));
}

TEST(UtilDuration, FormatsTheShortestExactForm) {
  EXPECT_EQ(format_duration(1500ms), "1500ms");
  EXPECT_EQ(format_duration(5s), "5s");
  EXPECT_EQ(format_duration(2min), "2m");
  EXPECT_EQ(format_duration(3h), "3h");
  EXPECT_EQ(format_duration(0ms), "0s");
  for (const char* text : {"250ms", "7s", "20m", "1h"}) EXPECT_EQ(format_duration(*parse_duration(text)), text);
}
