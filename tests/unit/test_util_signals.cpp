#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "util/signals.h"
#include "no_hang.h"

using dcukit::util::StopToken;
using namespace std::chrono_literals;

TEST(UtilSignals, TermAndIntBothRequestAStop) {
  for (int sig : {SIGTERM, SIGINT}) {
    auto& token = StopToken::process();
    token.reset();
    EXPECT_FALSE(token.stop_requested());
    EXPECT_FALSE(token.wait_for(10ms));
    raise(sig);
    EXPECT_TRUE(token.stop_requested());
    EXPECT_EQ(token.stop_signal(), sig);
    token.reset();
  }
}

TEST(UtilSignals, AWaitWakesEarlyOnAStop) {
  auto& token = StopToken::process();
  token.reset();
  std::thread t([&] {
    std::this_thread::sleep_for(50ms);
    token.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(token.wait_for(testutil::kStall));
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  EXPECT_EQ(token.stop_signal(), -1);
  t.join();
  token.reset();
}

TEST(UtilSignals, HangupsAreCountedNotStops) {
  auto& token = StopToken::process();
  token.reset();
  const unsigned before = token.hangups();
  raise(SIGHUP);
  EXPECT_EQ(token.hangups(), before + 1);
  EXPECT_FALSE(token.stop_requested());
}

TEST(UtilSignals, TheSameStopSentTwiceAtOnceIsOneStop) {
  // coreutils' timeout sends SIGTERM to the child and then to its process group: both arrive
  // within microseconds and must not end the process before it has written its results.
  auto& token = StopToken::process();
  token.reset();
  raise(SIGTERM);
  raise(SIGTERM);
  raise(SIGINT);
  EXPECT_TRUE(token.stop_requested());
  EXPECT_EQ(token.stop_signal(), SIGTERM);
  token.reset();
}

TEST(UtilSignalsDeathTest, ASecondSignalLaterEndsTheProcessAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto& token = StopToken::process();
        token.reset();
        raise(SIGINT);
        std::this_thread::sleep_for(StopToken::kRepeatWindow + 100ms);
        raise(SIGINT);
        std::this_thread::sleep_for(2s);
        std::exit(0);  // not reached: the second SIGINT took its default action
      },
      ::testing::KilledBySignal(SIGINT), "");
}
