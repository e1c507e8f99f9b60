// Work watched from the caller's thread: joined when it ends, left behind with the watcher's
// reason when it does not, and what it owns outlives the call.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "util/watched.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

TEST(UtilWatched, WorkThatEndsIsJoinedWithNoReason) {
  int value = 0;
  EXPECT_EQ(run_watched([&value] { value = 42; }, [] { return std::string(); }, 5ms), "");
  EXPECT_EQ(value, 42) << "joined: its writes are visible";
}

TEST(UtilWatched, WorkThatHangsIsLeftBehindWithTheWatchersReason) {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const auto start = std::chrono::steady_clock::now();
  const std::string why = run_watched(
      [finished] {
        std::this_thread::sleep_for(600ms);  // a device call stuck in the driver
        finished->store(true);
      },
      give_up_after(50ms, "hung past its deadline"), 5ms);
  EXPECT_EQ(why, "hung past its deadline");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms) << "the caller did not wait for the work";
  EXPECT_FALSE(finished->load());
  // The work owns what it touches: it finishes later on its own.
  for (int i = 0; i < 200 && !finished->load(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(finished->load());
}

TEST(UtilWatched, AWatcherIsAskedUntilItGivesUp) {
  int asked = 0;
  auto release = std::make_shared<std::atomic<bool>>(false);
  const std::string why = run_watched(
      [release] {
        while (!release->load()) std::this_thread::sleep_for(1ms);
      },
      [&asked, release] {
        if (++asked < 3) return std::string();
        release->store(true);  // lets the work end after the call returns
        return std::string("stop requested");
      },
      1ms);
  EXPECT_EQ(why, "stop requested");
  EXPECT_EQ(asked, 3);
  std::this_thread::sleep_for(20ms);
}
