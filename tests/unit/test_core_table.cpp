#include <gtest/gtest.h>

#include "core/table.h"

using namespace dcukit::core;

namespace {
Table sample() {
  Table t{"Title", {{"name", Align::left}, {"value"}}};
  t.add_row({"alpha", "1"});
  t.add_row({"β", "22.5"});
  t.notes.push_back("a note");
  return t;
}
} // namespace

TEST(CoreTable, TextAlignsColumnsCountingCodePoints) {
  const std::string s = render_text(sample());
  EXPECT_EQ(s,
            "Title\n"
            "name   value\n"
            "-----  -----\n"
            "alpha      1\n"
            "β       22.5\n"
            "  a note\n");
}

TEST(CoreTable, MarkdownHasHeadingAlignmentAndEscapedPipes) {
  Table t = sample();
  t.add_row({"a|b", "3"});
  const std::string s = render_markdown(t, 2);
  EXPECT_NE(s.find("## Title\n"), std::string::npos);
  EXPECT_NE(s.find("| name | value |\n| --- | ---: |\n"), std::string::npos);
  EXPECT_NE(s.find("| a\\|b | 3 |"), std::string::npos);
  EXPECT_NE(s.find("- a note"), std::string::npos);
}

TEST(CoreTable, CsvQuotesWhereNeeded) {
  Table t{"", {{"a"}, {"b"}}};
  t.add_row({"x,y", "say \"hi\""});
  EXPECT_EQ(render_csv(t), "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n");
}
