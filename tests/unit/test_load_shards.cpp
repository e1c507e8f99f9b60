// How the load engine spreads streams over event-loop threads.
#include <gtest/gtest.h>

#include "load/shard.h"

namespace dcukit::load {
namespace {

LoadShape closed(int concurrency, std::size_t count = 0) {
  LoadShape s;
  s.kind = ShapeKind::closed;
  s.concurrency = concurrency;
  s.count = count;
  return s;
}

LoadShape open(double rate, int cap, std::size_t count) {
  LoadShape s;
  s.kind = ShapeKind::open;
  s.rate = rate;
  s.concurrency = cap;
  s.count = count;
  return s;
}

TEST(LoadShards, OneThreadForEvery256StreamsAtMostHalfTheCpus) {
  EXPECT_EQ(shard_count(closed(1), 0, 16), 1u);
  EXPECT_EQ(shard_count(closed(256), 0, 16), 1u);
  EXPECT_EQ(shard_count(closed(257), 0, 16), 2u);
  EXPECT_EQ(shard_count(closed(2048), 0, 16), 8u);
  EXPECT_EQ(shard_count(closed(2048), 0, 4), 2u);
  EXPECT_EQ(shard_count(closed(2048), 0, 1), 1u);  // one CPU: still one loop
  EXPECT_EQ(shard_count(closed(100000), 0, 256), 128u);
}

TEST(LoadShards, TheUserChoosesButNeverMoreThreadsThanStreams) {
  EXPECT_EQ(shard_count(closed(8), 4, 2), 4u);       // --threads wins over the CPU rule
  EXPECT_EQ(shard_count(closed(3), 8, 16), 3u);      // a shard without a stream would idle
  EXPECT_EQ(shard_count(closed(64, 2), 8, 16), 2u);  // nor more than requests
  EXPECT_EQ(shard_count(closed(0), 0, 16), 1u);
}

TEST(LoadShards, OpenLoopsCountTheirCapOrTheirRequests) {
  EXPECT_EQ(shard_count(open(100, 512, 0), 0, 16), 2u);
  EXPECT_EQ(shard_count(open(100, 0, 1000), 0, 16), 4u);  // a burst of 1000 at most
  EXPECT_EQ(shard_count(open(100, 0, 0), 0, 16), 8u);     // unbounded: half the CPUs
  EXPECT_EQ(shard_count(open(100, 0, 5), 0, 16), 1u);
}

TEST(LoadShards, CapsAddUpToTheTotal) {
  for (int total : {1, 7, 8, 2048, 2049}) {
    for (std::size_t n : {1u, 3u, 8u}) {
      if (static_cast<std::size_t>(total) < n) continue;
      int sum = 0, lo = total, hi = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const int c = shard_cap(total, n, i);
        sum += c;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      EXPECT_EQ(sum, total) << total << " over " << n;
      EXPECT_LE(hi - lo, 1) << total << " over " << n;
      EXPECT_GE(lo, 1);
    }
  }
  EXPECT_EQ(shard_cap(0, 4, 0), 0);  // no cap stays no cap
}

TEST(LoadShards, SharedCountersTrackThePeak) {
  std::atomic<bool> stop{false};
  RunShared s(Clock::now(), stop, nullptr);
  s.started();
  s.started();
  s.finished(true);
  s.started();
  s.started();
  s.finished(false);
  EXPECT_EQ(s.issued.load(), 4u);
  EXPECT_EQ(s.completed.load(), 1u);
  EXPECT_EQ(s.failed.load(), 1u);
  EXPECT_EQ(s.in_flight.load(), 2);
  EXPECT_EQ(s.peak_in_flight.load(), 3);
  EXPECT_FALSE(s.stopping());
  s.abort.store(true);
  EXPECT_TRUE(s.stopping());
  EXPECT_FALSE(s.stop_asked()) << "a failed loop is not the user's stop";
}

TEST(LoadShards, TheUsersStopTokenStopsTheRun) {
  std::atomic<bool> stop{false};
  auto& token = util::StopToken::process();
  token.reset();
  RunShared s(Clock::now(), stop, &token);
  EXPECT_FALSE(s.stopping());
  token.request_stop();
  EXPECT_TRUE(s.stopping());
  EXPECT_TRUE(s.stop_asked());
  token.reset();
}

}  // namespace
}  // namespace dcukit::load
