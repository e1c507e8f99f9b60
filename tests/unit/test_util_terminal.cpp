// Text fitted to a terminal: words wrapped under their indent, widths in code points, and the
// width taken from --wide, COLUMNS or the terminal.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/terminal.h"

using namespace dcukit::util;

TEST(UtilTerminal, WidthCountsCodePoints) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("8 × H200"), 8u);
  EXPECT_EQ(display_width(""), 0u);
}

TEST(UtilTerminal, WordsWrapAtSpacesAndLongWordsAreCut) {
  EXPECT_EQ(wrap_words("one two three four", 9), (std::vector<std::string>{"one two", "three", "four"}));
  EXPECT_EQ(wrap_words("short", 80), (std::vector<std::string>{"short"}));
  EXPECT_EQ(wrap_words("abcdefghij", 4), (std::vector<std::string>{"abcd", "efgh", "ij"}));
  EXPECT_EQ(wrap_words("a × b × c", 5), (std::vector<std::string>{"a × b", "× c"}));
  EXPECT_EQ(wrap_words("", 10), (std::vector<std::string>{""}));
  EXPECT_EQ(wrap_words("never cut at width zero", 0), (std::vector<std::string>{"never cut at width zero"}));
}

TEST(UtilTerminal, LongLinesWrapUnderTheirIndentAndBullet) {
  const std::string text = "head\n  * recommended: the fewest cards that hold eight requests at once\nshort\n";
  EXPECT_EQ(fit_lines(text, 40),
            "head\n"
            "  * recommended: the fewest cards that\n"
            "    hold eight requests at once\n"
            "short\n");
  EXPECT_EQ(fit_lines(text, 0), text);
}

TEST(UtilTerminal, ColumnsWinOverTheTerminalAndWideWinsOverBoth) {
  ::setenv("COLUMNS", "100", 1);
  EXPECT_EQ(output_width(STDOUT_FILENO, false), 100u);
  EXPECT_EQ(output_width(STDOUT_FILENO, true), 0u) << "--wide: no limit";
  ::setenv("COLUMNS", "abc", 1);  // not a width: as if unset
  const std::size_t term = terminal_columns(STDOUT_FILENO);
  EXPECT_EQ(output_width(STDOUT_FILENO, false), term);
  ::setenv("COLUMNS", "5", 1);  // too narrow to be meant
  EXPECT_EQ(output_width(STDOUT_FILENO, false), term);
  ::unsetenv("COLUMNS");
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  EXPECT_EQ(output_width(p[1], false), 0u) << "a pipe is no terminal: nothing is fitted";
  ::close(p[0]);
  ::close(p[1]);
}
