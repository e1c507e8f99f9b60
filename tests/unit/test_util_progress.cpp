// Progress as every command shows it: redrawn on a terminal, plain lines elsewhere (at a step's
// start, every few seconds, at its end), nothing with none; an ETA once enough is known.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "util/progress.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

namespace {

/// What a Progress wrote to a memory stream.
struct Captured {
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* file = open_memstream(&data, &size);
  ~Captured() {
    if (file) std::fclose(file);
    std::free(data);
  }
  std::string text() {
    std::fflush(file);
    return std::string(data, size);
  }
};

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(UtilProgress, ModesAreParsed) {
  EXPECT_EQ(parse_progress_mode("plain", 1), ProgressMode::plain);
  EXPECT_EQ(parse_progress_mode("tty", 1), ProgressMode::tty);
  EXPECT_EQ(parse_progress_mode("none", 1), ProgressMode::none);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  EXPECT_EQ(parse_progress_mode("auto", p[1]), ProgressMode::plain) << "a pipe (a CI log, tee) gets plain lines";
  ::close(p[0]);
  ::close(p[1]);
  EXPECT_FALSE(parse_progress_mode("bar", 1));
}

TEST(UtilProgress, PlainLinesAtTheStartEveryIntervalAndTheEnd) {
  Captured c;
  {
    Progress p(ProgressMode::plain, c.file, 1h);
    p.status("[1/2] c=1", "1 of 100 done");
    p.status("[1/2] c=1", "2 of 100 done");  // within the interval: not printed
    p.status("[1/2] c=1", "100 of 100 done", true);
    p.status("[2/2] c=2", "1 of 100 done");  // a new step: printed
    p.line("dcukit load: a notice");
  }
  const std::string s = c.text();
  EXPECT_EQ(s,
            "[1/2] c=1: 1 of 100 done\n"
            "[1/2] c=1: 100 of 100 done\n"
            "[2/2] c=2: 1 of 100 done\n"
            "dcukit load: a notice\n");
  EXPECT_EQ(s.find('\r'), std::string::npos) << "no carriage returns in a log";
}

TEST(UtilProgress, PlainLinesRepeatAfterTheInterval) {
  Captured c;
  Progress p(ProgressMode::plain, c.file, 0ms);
  for (int i = 0; i < 3; ++i) p.status("step", std::to_string(i));
  EXPECT_EQ(count(c.text(), "step: "), 3u);
}

TEST(UtilProgress, TtyRedrawsOneLineAndEndsItBeforeALine) {
  Captured c;
  {
    Progress p(ProgressMode::tty, c.file);
    p.status("step", "1");
    p.status("step", "2");
    p.line("kept");
  }
  const std::string s = c.text();
  EXPECT_EQ(count(s, "\r"), 2u) << s;
  EXPECT_NE(s.find("step: 2"), std::string::npos);
  EXPECT_NE(s.find("\nkept\n"), std::string::npos) << "the redrawn line is ended before a kept line: " << s;
}

TEST(UtilProgress, NoneWritesNothing) {
  Captured c;
  {
    Progress p(ProgressMode::none, c.file);
    p.status("step", "1", true);
    p.line("x");
    Ticker t(p, "probe", 1s);
  }
  EXPECT_EQ(c.text(), "");
}

TEST(UtilProgress, EtaOnceEnoughIsKnown) {
  EXPECT_EQ(eta_text(0.5, 30), "ETA 30 s");
  EXPECT_EQ(eta_text(0.25, 60), "ETA 3m00s");
  EXPECT_EQ(eta_text(0.001, 60), "") << "too little done to say";
  EXPECT_EQ(eta_text(0.5, 0.2), "") << "too soon to say";
  EXPECT_EQ(eta_text(1.0, 60), "") << "done";
  EXPECT_EQ(eta_text(-1, 60), "") << "no total";
}

TEST(UtilProgress, ATickerSaysNothingForAShortStepAndTheTimeOfALongOne) {
  Captured c;
  Progress p(ProgressMode::plain, c.file, 0ms);
  { Ticker quick(p, "quick step", 60s); }
  EXPECT_EQ(c.text(), "") << "a step done within 2 s says nothing";
  {
    Ticker slow(p, "Python probe", 30s);
    std::this_thread::sleep_for(2500ms);
  }
  const std::string s = c.text();
  EXPECT_NE(s.find("Python probe: 2 s (at most 30 s)"), std::string::npos) << s;
  EXPECT_NE(s.find("Python probe: done in"), std::string::npos) << s;
}
