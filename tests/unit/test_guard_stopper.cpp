#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "held_port.h"
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "guard/stopper.h"
#include "util/procfs.h"

using namespace dcukit;
using namespace dcukit::guard;
using namespace std::chrono_literals;

namespace {

/// The `sleep` processes at and under pid (a shell may exec its last command), not zombies.
std::size_t sleepers_under(pid_t pid) {
  const auto self = util::read_proc_info(pid);
  std::size_t n = self && self->comm == "sleep" && self->state != 'Z' ? 1 : 0;
  for (const auto& d : util::descendants_of(pid))
    if (d.comm == "sleep" && d.state != 'Z') ++n;
  return n;
}

/// `sh -c script`, once it has started the `sleepers` sleep processes the script starts (a
/// script that starts none is returned as soon as it is spawned).
util::Process spawn_sh(const std::string& script, std::size_t sleepers = 0) {
  auto p = util::Process::spawn({.argv = {"sh", "-c", script}});
  EXPECT_TRUE(p) << p.error().message;
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (sleepers_under(p->pid()) < sleepers && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  EXPECT_GE(sleepers_under(p->pid()), sleepers) << script << ": its children did not start within 10 s";
  return std::move(*p);
}

bool alive(pid_t pid) {
  auto info = util::read_proc_info(pid);
  return info && info->state != 'Z';
}

}  // namespace

TEST(GuardStopper, APoliteGroupEndsOnSigtermWithoutSigkill) {
  auto p = spawn_sh("sleep 30 & sleep 30; wait", 2);
  const pid_t pgid = p.pid();
  ASSERT_GE(util::process_group_members(pgid).size(), 2u);
  auto out = stop_service(p, {.drain = 5s, .release_timeout = 0ms});
  EXPECT_FALSE(out.killed);
  EXPECT_EQ(out.status.signal, SIGTERM);
  EXPECT_TRUE(out.group_left.empty());
  EXPECT_TRUE(util::process_group_members(pgid).empty());
  EXPECT_TRUE(out.complete());
}

TEST(GuardStopper, AGroupIgnoringSigtermIsKilledAfterTheDrain) {
  auto p = spawn_sh("trap '' TERM; sleep 30 & sleep 30", 2);
  const pid_t pgid = p.pid();
  const auto start = std::chrono::steady_clock::now();
  auto out = stop_service(p, {.drain = 300ms, .release_timeout = 0ms});
  EXPECT_TRUE(out.killed);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_EQ(out.status.signal, SIGKILL);
  EXPECT_TRUE(util::process_group_members(pgid).empty());
  EXPECT_TRUE(out.complete());
}

TEST(GuardStopper, AnEscapedDescendantIsFoundEndedAndReported) {
  ASSERT_TRUE(util::become_child_subreaper());
  // setsid(1) puts the inner sleep in a session (and group) of its own: the group kill misses it.
  auto p = spawn_sh("setsid sleep 30 & sleep 30", 2);
  auto family = util::descendants_of(getpid());
  pid_t escapee = 0;
  for (const auto& d : family)
    if (d.pgid != p.pid() && d.comm == "sleep") escapee = d.pid;
  ASSERT_GT(escapee, 0);
  auto out = stop_service(p, {.drain = 2s, .release_timeout = 0ms});
  ASSERT_EQ(out.escaped.size(), 1u);
  EXPECT_EQ(out.escaped[0].pid, escapee);
  EXPECT_EQ(out.escaped[0].found_by, "descendant");
  EXPECT_TRUE(out.escaped[0].ours);
  EXPECT_TRUE(out.escaped[0].ended);
  EXPECT_FALSE(alive(escapee));
  EXPECT_TRUE(out.complete());
}

TEST(GuardStopper, AHeldPortIsWaitedForThenReportedWithItsHolder) {
  testutil::HeldPort held;
  ASSERT_GT(held.port(), 0);
  auto p = spawn_sh("exit 0");
  auto out = stop_service(p, {.drain = 1s, .release_timeout = 200ms, .port = held.port()});
  EXPECT_FALSE(out.port_free);
  EXPECT_EQ(out.port_holders, std::vector<pid_t>{getpid()});
  ASSERT_EQ(out.escaped.size(), 1u);
  EXPECT_EQ(out.escaped[0].found_by, "port");
  EXPECT_FALSE(out.escaped[0].ours);
  EXPECT_FALSE(out.complete());
  held.release();
}

TEST(GuardStopper, DeviceMemoryIsWaitedForUntilItFallsBackToTheBaseline) {
  auto p = spawn_sh("exit 0");
  int reads = 0;
  const std::uint64_t GiB = 1ull << 30;
  StopPlan plan{.drain = 1s,
                .release_timeout = 5s,
                .device = 0,
                .read_memory = [&](int) -> Result<DeviceMemory> {
                  ++reads;
                  return DeviceMemory{reads < 4 ? 40 * GiB : GiB + GiB / 4, 64 * GiB};
                },
                .device_baseline = GiB,
                .slack_bytes = GiB / 2};
  auto out = stop_service(p, plan);
  ASSERT_TRUE(out.device);
  EXPECT_TRUE(out.device->released);
  EXPECT_EQ(reads, 4);
  EXPECT_EQ(out.device->used_bytes, GiB + GiB / 4);
  EXPECT_TRUE(out.complete());

  auto q = spawn_sh("exit 0");
  plan.release_timeout = 200ms;
  plan.read_memory = [&](int) -> Result<DeviceMemory> { return DeviceMemory{40 * GiB, 64 * GiB}; };
  auto stuck = stop_service(q, plan);
  ASSERT_TRUE(stuck.device);
  EXPECT_FALSE(stuck.device->released);
  EXPECT_GE(stuck.device->waited_seconds, 0.2);
  EXPECT_FALSE(stuck.complete());
}
