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

namespace {

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0, start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    widest = std::max(widest, nl - start);
    start = nl + 1;
  }
  return widest;
}

Table wide_table() {
  Table t{"Options", {{"flag", Align::left}, {"value", Align::left}, {"why", Align::left}}};
  t.add_row({"--kv-cache-dtype", "fp8",
             "reaches the target of 8 full-length requests, which auto does not: 13.5 against 6.8 with auto "
             "at TP 1; if a kernel misbehaves with it, serve with --kv-cache-dtype auto and re-plan"});
  t.add_row({"--dtype", "bfloat16", "the checkpoint's dtype"});
  return t;
}

}  // namespace

TEST(CoreTable, AtNoWidthEveryCellIsWhole) {
  const std::string s = render_text(wide_table());
  EXPECT_GT(widest_line(s), 150u);
  EXPECT_NE(s.find("at TP 1; if a kernel"), std::string::npos);
}

TEST(CoreTable, TextColumnsWrapToTheWidthKeepingEveryWord) {
  const TextWidth fit(60);
  const std::string s = render_text(wide_table());
  EXPECT_LE(widest_line(s), 60u) << s;
  // The wrapped cell keeps its column: each continuation starts under "why".
  const std::size_t at = s.find("why");
  ASSERT_NE(at, std::string::npos);
  const std::size_t column = at - (s.rfind('\n', at) + 1);
  EXPECT_NE(s.find("\n" + std::string(column, ' ') + "misbehaves"), std::string::npos) << s;
  for (const char* word : {"reaches", "misbehaves", "re-plan", "checkpoint's", "bfloat16"})
    EXPECT_NE(s.find(word), std::string::npos) << word << " lost:\n" << s;
  EXPECT_EQ(s.find("left out"), std::string::npos) << "wrapping was enough: no column is left out";
}

TEST(CoreTable, FiguresAreNeverCutAndDetailColumnsGoFirst) {
  Table t{"Budget",
          {{"option", Align::left},
           {"weights", Align::right, true},
           {"activation", Align::right, true},
           {"KV budget"},
           {"concurrency"},
           {"verdict", Align::left}}};
  t.add_row({"TP 1", "14.96 GiB", "1.77 GiB", "108.24 GiB", "13.53x", "starts"});
  const TextWidth fit(50);
  const std::string s = render_text(t);
  EXPECT_LE(widest_line(s), 50u) << s;
  for (const char* kept : {"108.24 GiB", "13.53x", "starts"}) EXPECT_NE(s.find(kept), std::string::npos) << s;
  EXPECT_EQ(s.find("1.77 GiB"), std::string::npos) << "a detail column goes before a total: " << s;
  EXPECT_NE(s.find("2 column(s) left out to fit 50 columns (weights,\n  activation)"), std::string::npos) << s;
}

TEST(CoreTable, TheWidthHoldsOnlyWhileItsScopeLives) {
  {
    const TextWidth fit(40);
    EXPECT_EQ(text_width(), 40u);
  }
  EXPECT_EQ(text_width(), 0u);
  EXPECT_GT(widest_line(render_text(wide_table())), 150u);
}
