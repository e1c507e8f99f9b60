#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "load/sse.h"

using dcukit::load::SseEvent;
using dcukit::load::SseReader;

namespace {

struct Collect {
  std::vector<std::string> data, types;
  SseReader reader{[this](const SseEvent& e) {
    data.emplace_back(e.data);
    types.emplace_back(e.type);
  }};
};

// Feeds text split at every possible pair of points and checks the events never change.
void expect_any_split(const std::string& text, const std::vector<std::string>& want) {
  for (std::size_t a = 0; a <= text.size(); ++a) {
    for (std::size_t b = a; b <= text.size(); b += 7) {
      Collect c;
      ASSERT_TRUE(c.reader.feed(text.substr(0, a)).ok());
      ASSERT_TRUE(c.reader.feed(text.substr(a, b - a)).ok());
      ASSERT_TRUE(c.reader.feed(text.substr(b)).ok());
      ASSERT_EQ(c.data, want) << "split at " << a << "," << b;
    }
  }
}

}  // namespace

TEST(LoadSse, EventsSplitAnywhereAndSeveralPerRead) {
  expect_any_split("data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n", {"{\"a\":1}", "{\"b\":2}", "[DONE]"});
}

TEST(LoadSse, CrlfAndBareCrAndLf) {
  expect_any_split("data: one\r\n\r\ndata: two\r\rdata: three\n\n", {"one", "two", "three"});
}

TEST(LoadSse, CommentsAndNoSpaceAndMultiLineData) {
  Collect c;
  ASSERT_TRUE(c.reader.feed(": ping\ndata:x\ndata: y\nevent: note\nid: 3\n\n: another\n\n").ok());
  ASSERT_EQ(c.data, std::vector<std::string>{"x\ny"});
  EXPECT_EQ(c.types[0], "note");
  EXPECT_EQ(c.reader.comments(), 2u);
}

TEST(LoadSse, Utf8SplitInsideACodePoint) {
  const std::string text = "data: \xE4\xB8\xAD\xF0\x9F\x99\x82\n\n";
  expect_any_split(text, {"\xE4\xB8\xAD\xF0\x9F\x99\x82"});
}

TEST(LoadSse, LinesOverOneMiBInSmallReads) {
  const std::string big(3u << 19, 'x');
  const std::string text = "data: " + big + "\n\ndata: end\n\n";
  Collect c;
  for (std::size_t i = 0; i < text.size(); i += 4096) ASSERT_TRUE(c.reader.feed(text.substr(i, 4096)).ok());
  ASSERT_EQ(c.data.size(), 2u);
  EXPECT_EQ(c.data[0].size(), big.size());
}

TEST(LoadSse, LineOverTheLimitFails) {
  std::vector<std::string> got;
  SseReader r([&](const SseEvent& e) { got.emplace_back(e.data); }, 1024);
  EXPECT_FALSE(r.feed("data: " + std::string(2000, 'x')).ok());
  EXPECT_TRUE(r.failed());
  EXPECT_FALSE(r.feed("\n\n").ok());
  EXPECT_TRUE(got.empty());
}

TEST(LoadSse, FinishDispatchesAnUnterminatedEvent) {
  Collect c;
  ASSERT_TRUE(c.reader.feed("data: [DONE]").ok());
  EXPECT_TRUE(c.data.empty());
  EXPECT_TRUE(c.reader.finish());
  ASSERT_EQ(c.data, std::vector<std::string>{"[DONE]"});
}

TEST(LoadSse, EmptyDataLinesAndBlankLinesAlone) {
  Collect c;
  ASSERT_TRUE(c.reader.feed("\n\n\ndata\n\n").ok());
  ASSERT_EQ(c.data, std::vector<std::string>{""});
}
