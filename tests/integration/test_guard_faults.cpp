// guard against each misbehaviour the issue lists, with the real binary and a real service on
// loopback: the events, the states, the restart counts, nothing left behind, ready again.
#include <signal.h>

#include "guard_fixture.h"

using namespace gtest_guard;

namespace {

/// The attempts of the ready events, in order.
std::vector<int> ready_attempts(const GuardRun& g) {
  std::vector<int> out;
  for (const auto& e : g.events("ready")) out.push_back(e["attempt"]);
  return out;
}

/// Stops guard with SIGTERM and checks it ended cleanly with nothing left.
void stop_and_check(GuardRun& g) {
  g.signal(SIGTERM);
  auto exit = g.wait_exit();
  ASSERT_TRUE(exit) << "guard did not end after SIGTERM";
  EXPECT_EQ(exit->code, 0) << g.event_text();
  ASSERT_FALSE(g.events("exiting").empty());
  EXPECT_TRUE(g.no_process_left());
}

}  // namespace

TEST(GuardFaults, AHealthyServiceBecomesReadyAndSigtermStopsEverything) {
  testutil::TempDir dir("guard_healthy");
  GuardRun g(dir, {}, {});
  auto ready = g.wait_event("ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ((*ready)["model"], "fake-model");
  EXPECT_EQ((*ready)["attempt"], 1);
  EXPECT_EQ(g.get("/healthz").status, 200);
  EXPECT_EQ(g.metric("dcukit_guard_state{state=\"ready\"}"), 1);
  EXPECT_EQ(g.metric("dcukit_guard_restarts_total"), 0);
  stop_and_check(g);
  auto stopped = g.events("stopped");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["killed"], false);
  EXPECT_EQ(stopped[0]["complete"], true);
  EXPECT_EQ(stopped[0]["exit"]["signal"], "SIGTERM");
}

TEST(GuardFaults, ExitOneAfterStartIsRestartedAndReadyAgain) {
  testutil::TempDir dir("guard_exit1");
  GuardRun g(dir, {}, {"--exit-after", "0.3", "--exit-code", "1", "--times", "1"});
  auto exited = g.wait_event("exited");
  ASSERT_TRUE(exited);
  EXPECT_EQ((*exited)["exit"]["code"], 1);
  ASSERT_TRUE(g.wait_event("restart_scheduled"));
  ASSERT_TRUE(g.wait_ready(2));
  EXPECT_EQ(g.metric("dcukit_guard_restarts_total"), 1);
  EXPECT_EQ(g.metric("dcukit_guard_last_exit_code"), 1);
  stop_and_check(g);
}

TEST(GuardFaults, ASigkilledServiceIsRestarted) {
  testutil::TempDir dir("guard_sigkill");
  GuardRun g(dir, {}, {});
  auto ready = g.wait_event("ready");
  ASSERT_TRUE(ready);
  kill((*ready)["pid"].get<pid_t>(), SIGKILL);
  auto exited = g.wait_event("exited");
  ASSERT_TRUE(exited);
  EXPECT_EQ((*exited)["exit"]["signal"], "SIGKILL");
  ASSERT_TRUE(g.wait_event("ready", 2));
  EXPECT_EQ(g.metric("dcukit_guard_last_exit_code"), 128 + SIGKILL);
  EXPECT_EQ(g.metric("dcukit_guard_restarts_total"), 1);
  stop_and_check(g);
}

TEST(GuardFaults, AServiceThatStopsAnsweringHealthIsUnhealthyAndRestarted) {
  testutil::TempDir dir("guard_health");
  GuardRun g(dir, {}, {"--health-hang-after", "1", "--times", "1"});
  auto unhealthy = g.wait_event("unhealthy");
  ASSERT_TRUE(unhealthy);
  EXPECT_EQ((*unhealthy)["probe"], "health");
  EXPECT_GE(g.events("probe_failed").size(), 2u);
  auto stopped = g.wait_event("stopped");
  ASSERT_TRUE(stopped);
  EXPECT_EQ((*stopped)["complete"], true);
  ASSERT_TRUE(g.wait_event("ready", 2));
  EXPECT_EQ(ready_attempts(g), (std::vector<int>{1, 2}));
  EXPECT_GE(g.metric("dcukit_guard_probe_failures_total{probe=\"health\"}"), 2);
  stop_and_check(g);
}

TEST(GuardFaults, ASlowStartWithinTheBudgetIsNotKilled) {
  testutil::TempDir dir("guard_slow");
  // Liveness would give up after about a second; loading takes three.
  GuardRun g(dir, {}, {"--listen-delay", "3"});
  auto ready = g.wait_event("ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ((*ready)["attempt"], 1);
  EXPECT_GE((*ready)["seconds"].get<double>(), 3.0);
  EXPECT_TRUE(g.events("unhealthy").empty());
  EXPECT_EQ(g.metric("dcukit_guard_restarts_total"), 0);
  stop_and_check(g);
}

TEST(GuardFaults, AStartPastTheBudgetIsUnhealthyThenReady) {
  testutil::TempDir dir("guard_budget");
  GuardRun g(dir, {"--startup-timeout", "1500ms"}, {"--ready-delay", "4", "--times", "1"});
  auto unhealthy = g.wait_event("unhealthy");
  ASSERT_TRUE(unhealthy);
  EXPECT_NE((*unhealthy)["reason"].get<std::string>().find("--startup-timeout"), std::string::npos);
  EXPECT_EQ((*unhealthy)["probe"], "health");  // it answered TCP but /health said 503
  auto ready = g.wait_event("ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ((*ready)["attempt"], 2);
  stop_and_check(g);
}

TEST(GuardFaults, AServiceThatHangsEveryCompletionIsCaughtByTheCanary) {
  testutil::TempDir dir("guard_hang");
  GuardRun g(dir, {}, {"--completions-hang-after", "1.5", "--times", "1"});
  ASSERT_TRUE(g.wait_event("ready"));
  auto unhealthy = g.wait_event("unhealthy");
  ASSERT_TRUE(unhealthy);
  EXPECT_EQ((*unhealthy)["probe"], "canary");
  for (const auto& f : g.events("probe_failed")) EXPECT_EQ(f["probe"], "canary");  // /health kept answering
  ASSERT_TRUE(g.wait_event("ready", 2));
  EXPECT_GE(g.metric("dcukit_guard_probe_failures_total{probe=\"canary\"}"), 2);
  EXPECT_GE(g.metric("dcukit_guard_canary_latency_seconds_count"), 1);
  stop_and_check(g);
}

TEST(GuardFaults, AServiceIgnoringSigtermIsKilledAfterTheDrain) {
  testutil::TempDir dir("guard_ignore_term");
  GuardRun g(dir, {"--drain", "500ms"}, {"--ignore-sigterm"});
  ASSERT_TRUE(g.wait_event("ready"));
  stop_and_check(g);
  auto stopped = g.events("stopped");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["killed"], true);
  EXPECT_EQ(stopped[0]["exit"]["signal"], "SIGKILL");
  EXPECT_EQ(stopped[0]["complete"], true);
}
