#include <gtest/gtest.h>

#include "guard/backoff.h"

using namespace dcukit::guard;
using namespace std::chrono_literals;

TEST(GuardBackoff, DoublesUpToTheCapWithEqualJitter) {
  double r = 0;  // the low end: half the nominal delay
  Backoff b([&] { return r; });
  EXPECT_EQ(b.next(1s, 10s), 500ms);
  EXPECT_EQ(b.next(1s, 10s), 1000ms);
  EXPECT_EQ(b.next(1s, 10s), 2000ms);
  EXPECT_EQ(b.next(1s, 10s), 4000ms);
  EXPECT_EQ(b.next(1s, 10s), 5000ms);  // nominal capped at 10 s
  r = 0.999999;
  EXPECT_GE(b.next(1s, 10s), 9999ms);
  EXPECT_LE(b.next(1s, 10s), 10s);
  b.reset();
  EXPECT_LE(b.next(1s, 10s), 1s);
  EXPECT_EQ(b.in_a_row(), 1);
}

TEST(GuardBackoff, TheDefaultRandomStaysWithinTheBand) {
  Backoff b;
  for (int i = 0; i < 100; ++i) {
    const auto d = b.next(100ms, 800ms);
    EXPECT_GE(d, 50ms);
    EXPECT_LE(d, 800ms);
  }
}

TEST(GuardBackoff, ACrashLoopIsMoreThanMaxRestartsWithinTheWindow) {
  CrashWindow w;
  const auto t0 = Clock::now();
  EXPECT_FALSE(w.record(t0, 60s, 3));
  EXPECT_FALSE(w.record(t0 + 1s, 60s, 3));
  EXPECT_FALSE(w.record(t0 + 2s, 60s, 3));
  EXPECT_TRUE(w.record(t0 + 3s, 60s, 3));
  // Restarts spread wider than the window are never a loop.
  CrashWindow spread;
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(spread.record(t0 + std::chrono::seconds(i * 31), 60s, 2)) << i;
  EXPECT_EQ(spread.count(t0 + 279s, 60s), 2);
  EXPECT_EQ(spread.count(t0 + 400s, 60s), 0);
  CrashWindow never;
  EXPECT_TRUE(never.record(t0, 60s, 0));  // --max-restarts 0: the first end is final
}
