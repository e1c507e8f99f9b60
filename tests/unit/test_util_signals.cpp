#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "util/signals.h"

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
  EXPECT_TRUE(token.wait_for(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
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
