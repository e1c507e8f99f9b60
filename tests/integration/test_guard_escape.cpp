// guard against a service whose port is taken and one that leaves a grandchild holding it.
#include <signal.h>

#include <filesystem>

#include "guard_fixture.h"

using namespace gtest_guard;

TEST(GuardEscape, APortTakenByAnotherProcessIsReportedAndWaitedOut) {
  testutil::TempDir dir("guard_port");
  const int port = free_port();
  // Hold the port the service wants, as a stale server would.
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(s, 4), 0);
  GuardRun g(dir, {"--max-restarts", "50"}, {}, {}, port);
  auto busy = g.wait_event("port_busy");
  ASSERT_TRUE(busy);
  EXPECT_EQ((*busy)["port"], port);
  ASSERT_FALSE((*busy)["holders"].empty());
  EXPECT_EQ((*busy)["holders"][0]["pid"], getpid());
  EXPECT_TRUE(g.events("started").empty());  // never started against a port someone else answers on
  EXPECT_EQ(g.get("/healthz").status, 503);
  close(s);
  auto ready = g.wait_event("ready", 1, 30s);
  ASSERT_TRUE(ready);
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  EXPECT_TRUE(g.no_process_left());
}

TEST(GuardEscape, AGrandchildKeepingThePortIsFoundEndedAndTheServiceRestarted) {
  testutil::TempDir dir("guard_grandchild");
  GuardRun g(dir, {}, {"--fork-grandchild", "--exit-after", "1", "--times", "1"});
  ASSERT_TRUE(g.wait_event("exited"));
  auto escaped = g.wait_event("escaped");
  ASSERT_TRUE(escaped);
  EXPECT_EQ((*escaped)["found_by"], "descendant");
  EXPECT_EQ((*escaped)["ours"], true);
  EXPECT_EQ((*escaped)["ended"], true);
  const pid_t grandchild = (*escaped)["pid"];
  EXPECT_TRUE(dir.read("service.log").find("grandchild pid " + std::to_string(grandchild)) != std::string::npos)
      << dir.read("service.log");
  auto stopped = g.wait_event("stopped");
  ASSERT_TRUE(stopped);
  EXPECT_EQ((*stopped)["port_free"], true);
  EXPECT_EQ((*stopped)["complete"], true);
  ASSERT_TRUE(g.wait_ready(2));
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  EXPECT_TRUE(g.no_process_left());
  auto info = dcukit::util::read_proc_info(grandchild);
  EXPECT_TRUE(!info || info->state == 'Z');
}

namespace {

/// Whether `pid` has ended (gone, or a zombie) within `timeout`.
bool ends_within(pid_t pid, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto info = dcukit::util::read_proc_info(pid);
    if (!info || info->state == 'Z') return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace

TEST(GuardEscape, ASigkilledGuardTakesItsServiceAndTheNextGuardEndsWhatEscaped) {
  testutil::TempDir dir("guard_sigkill");
  const int port = free_port();
  GuardRun first(dir, {}, {"--fork-grandchild", "--times", "1"}, {}, port);
  ASSERT_TRUE(first.wait_ready(1));
  const pid_t service = first.events("started").at(0)["pid"];
  const std::string log = dir.read("service.log");
  const auto at = log.find("grandchild pid ");
  ASSERT_NE(at, std::string::npos) << log;
  const pid_t grandchild = std::stoi(log.substr(at + 15));
  first.signal(SIGKILL);  // no clean-up of its own can run
  ASSERT_TRUE(first.wait_exit());
  EXPECT_TRUE(ends_within(service, 10s)) << "the service (pid " << service << ") outlived guard's SIGKILL";
  ASSERT_FALSE(ends_within(grandchild, 0ms)) << "the setsid grandchild was expected to survive guard";
  // A guard started again with the same command and URL (systemd's restart) finds it by its mark.
  std::filesystem::rename(dir.file("events.jsonl"), dir.file("events.first.jsonl"));
  GuardRun second(dir, {}, {"--fork-grandchild", "--times", "1"}, {}, port);  // the same command
  auto killed = second.wait_event("leftovers_killed");
  ASSERT_TRUE(killed);
  EXPECT_EQ((*killed)["pids"], json::array({grandchild}));
  EXPECT_TRUE(ends_within(grandchild, 10s));
  ASSERT_TRUE(second.wait_ready(1));  // the port it held is free again
  second.signal(SIGTERM);
  ASSERT_TRUE(second.wait_exit());
  EXPECT_TRUE(second.no_process_left());
}
