// guard's crash-loop state, reloads, log rotation, its endpoints checked by promtool, systemd's
// notify socket, and the refusal of bad input.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstring>
#include <filesystem>

#include "guard_fixture.h"

using namespace gtest_guard;

TEST(GuardCli, ACrashLoopEndsInFailedWithTheLastExitAndTheLogTail) {
  testutil::TempDir dir("guard_crashloop");
  GuardRun g(dir, {"--max-restarts", "2", "--window", "1m"},
             {"--exit-after", "0", "--exit-code", "3", "--stderr-message", "fatal: cannot load the model"});
  auto failed = g.wait_event("failed");
  ASSERT_TRUE(failed);
  EXPECT_EQ((*failed)["last_exit"]["code"], 3);
  EXPECT_NE((*failed)["log_tail"].get<std::string>().find("fatal: cannot load the model"), std::string::npos);
  EXPECT_EQ(g.events("started").size(), 3u);  // the first start and two restarts
  // guard stays up and says so on its endpoints.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(g.events("started").size(), 3u);
  auto healthz = g.get("/healthz");
  EXPECT_EQ(healthz.status, 503);
  auto j = json::parse(healthz.body);
  EXPECT_EQ(j["state"], "failed");
  EXPECT_EQ(j["last_exit"]["code"], 3);
  EXPECT_NE(j["log_tail"].get<std::string>().find("fatal"), std::string::npos);
  EXPECT_NE(j["reason"].get<std::string>().find("crash loop"), std::string::npos);
  EXPECT_EQ(g.metric("dcukit_guard_state{state=\"failed\"}"), 1);
  EXPECT_EQ(g.metric("dcukit_guard_restarts_total"), 2);
  EXPECT_EQ(g.metric("dcukit_guard_last_exit_code"), 3);
  g.signal(SIGTERM);
  auto exit = g.wait_exit();
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->code, 0);
  EXPECT_TRUE(g.no_process_left());
}

TEST(GuardCli, SighupReloadsTheOptionsFileWithoutRestartingAHealthyService) {
  testutil::TempDir dir("guard_reload");
  const std::string conf = dir.write("guard.conf", "canary-prompt=Hi\nmax-restarts=4\n");
  GuardRun g(dir, {"--config", conf, "-v"}, {});  // -v: an event for every probe that passed
  auto ready = g.wait_event("ready");
  ASSERT_TRUE(ready);
  // failures and url are also on guard's command line (fast_flags, --url), which wins over the file.
  dir.write("guard.conf", "canary-prompt=Hello there\nmax-restarts=7\nfailures=5\nurl=http://127.0.0.1:1\n");
  g.signal(SIGHUP);
  auto reloaded = g.wait_event("reloaded");
  ASSERT_TRUE(reloaded);
  EXPECT_EQ((*reloaded)["applied"], json({"canary-prompt", "max-restarts"}));
  EXPECT_EQ((*reloaded)["at_next_start"], json::array());
  // A canary and several health probes pass under the new options (events, not a wait).
  const std::size_t passed = g.events("probe_passed").size();
  ASSERT_TRUE(g.wait_event("probe_passed", passed + 4)) << g.event_text();
  EXPECT_EQ(g.events("started").size(), 1u);
  EXPECT_TRUE(g.events("stopping").empty());
  EXPECT_EQ(g.get("/healthz").status, 200);
  // A file that does not parse keeps the old options.
  dir.write("guard.conf", "failures=zero\n");
  g.signal(SIGHUP);
  auto bad = g.wait_event("reload_failed");
  ASSERT_TRUE(bad);
  EXPECT_NE((*bad)["error"].get<std::string>().find("failures"), std::string::npos);
  EXPECT_EQ(g.get("/healthz").status, 200);
  // A FIFO put where the file was never blocks the main loop: the reload fails and says why,
  // and SIGTERM is still honoured at once.
  std::filesystem::remove(conf);
  ASSERT_EQ(mkfifo(conf.c_str(), 0600), 0);
  g.signal(SIGHUP);
  auto fifo = g.wait_event("reload_failed", 2);
  ASSERT_TRUE(fifo);
  EXPECT_NE((*fifo)["error"].get<std::string>().find("FIFO"), std::string::npos) << (*fifo)["error"];
  EXPECT_EQ(g.get("/healthz").status, 200);
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  EXPECT_TRUE(g.no_process_left());
}

TEST(GuardCli, APasswordInTheUrlNeverReachesEventsHealthzOrTheLog) {
  testutil::TempDir dir("guard_secret");
  GuardRun g(dir, {}, {}, {}, 0, "ops:Gu4rd-PW@");
  ASSERT_TRUE(g.wait_event("ready"));
  const std::string healthz = g.get("/healthz").body;
  const std::string metrics = g.get("/metrics").body;
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  const std::string all = g.event_text() + healthz + metrics + dir.read("guard.err") + dir.read("guard.out");
  EXPECT_EQ(all.find("Gu4rd-PW"), std::string::npos) << all.substr(0, 4000);
  EXPECT_NE(g.event_text().find("ops:***@"), std::string::npos) << g.event_text();
  // What guard writes may still hold what a service printed: its own and nobody else's.
  for (const char* file : {"events.jsonl", "service.log"}) {
    struct stat st {};
    ASSERT_EQ(::stat(dir.file(file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0077, 0u) << file << " is readable by others";
  }
}

TEST(GuardCli, SighupInFailedStartsAgain) {
  testutil::TempDir dir("guard_reload_failed");
  const std::string conf = dir.write("guard.conf", "max-restarts=0\n");
  GuardRun g(dir, {"--config", conf}, {"--exit-after", "0", "--times", "1"});
  ASSERT_TRUE(g.wait_event("failed"));
  g.signal(SIGHUP);
  ASSERT_TRUE(g.wait_event("reloaded"));
  auto ready = g.wait_event("ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ((*ready)["attempt"], 2);
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
}

TEST(GuardCli, TheServicesOutputIsRotatedBySize) {
  testutil::TempDir dir("guard_logs");
  GuardRun g(dir, {"--log-max-size", "16KiB", "--log-keep", "2"}, {"--print-lines", "2000"});
  ASSERT_TRUE(g.wait_event("ready"));
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(dir.file("service.log.1")));
  EXPECT_TRUE(fs::exists(dir.file("service.log.2")));
  EXPECT_FALSE(fs::exists(dir.file("service.log.3")));
  EXPECT_LE(fs::file_size(dir.file("service.log")), 16u * 1024);
  EXPECT_NE(dir.read("service.log").find("guard_service listening"), std::string::npos);
}

TEST(GuardCli, PromtoolAcceptsTheMetrics) {
  auto promtool = dcukit::util::find_program("promtool");
  if (!promtool) GTEST_SKIP() << "promtool is not installed (Debian: apt install prometheus); skipping";
  testutil::TempDir dir("guard_promtool");
  GuardRun g(dir, {}, {});
  ASSERT_TRUE(g.wait_event("ready"));
  const std::string metrics = dir.write("metrics.txt", g.get("/metrics").body);
  auto r = dcukit::util::run_capture({"sh", "-c", *promtool + " check metrics < " + metrics}, 30s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0) << r->out << r->err;
  EXPECT_EQ(r->out + r->err, "") << "promtool's remarks";
}

TEST(GuardCli, ReadinessIsSentToSystemdsNotifySocket) {
  testutil::TempDir dir("guard_notify");
  const std::string sock = dir.file("notify.sock");
  const int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, sock.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  GuardRun g(dir, {}, {}, {"NOTIFY_SOCKET=" + sock});
  ASSERT_TRUE(g.wait_event("ready"));
  std::string all;
  char buf[512];
  for (ssize_t n; (n = recv(s, buf, sizeof buf, MSG_DONTWAIT)) > 0;) all += std::string(buf, n) + "|";
  EXPECT_NE(all.find("READY=1"), std::string::npos) << all;
  EXPECT_NE(all.find("STATUS=service ready"), std::string::npos) << all;
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  for (ssize_t n; (n = recv(s, buf, sizeof buf, MSG_DONTWAIT)) > 0;) all += std::string(buf, n) + "|";
  EXPECT_NE(all.find("STOPPING=1"), std::string::npos) << all;
  close(s);
}

TEST(GuardCli, BadInputIsRefusedWithExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"guard", "--listen", "0.0.0.0:9401", "--", "true"},
      {"guard", "--probe-timeout", "soon", "--", "true"},
      {"guard", "--url", "ftp://x", "--", "true"},
      {"guard"},
  };
  for (const auto& args : cases) {
    std::vector<std::string> argv{DCUKIT_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = dcukit::util::run_capture(argv, 10s);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status.code, 2) << args[1] << ": " << r->err;
    EXPECT_NE(r->err.find("dcukit guard"), std::string::npos) << r->err;
  }
}

TEST(GuardCli, VerboseAddsAnEventForEveryPassedProbe) {
  testutil::TempDir dir("guard_verbose");
  GuardRun g(dir, {"-v"}, {});
  ASSERT_TRUE(g.wait_event("ready"));
  const std::size_t at_ready = g.events("probe_passed").size();
  ASSERT_TRUE(g.wait_event("probe_passed", at_ready + 2)) << "liveness probes after readiness: " << g.event_text();
  g.signal(SIGTERM);
  ASSERT_TRUE(g.wait_exit());
  const auto passed = g.events("probe_passed");
  ASSERT_GE(passed.size(), 3u) << "each readiness step passed, then the liveness probes: " << g.event_text();
  EXPECT_EQ(passed.front()["probe"], "tcp") << "readiness starts at the port";
  EXPECT_TRUE(passed.front().contains("seconds"));
  // Without -v the stream holds only what changes.
  testutil::TempDir plain_dir("guard_not_verbose");
  GuardRun plain(plain_dir, {}, {});
  ASSERT_TRUE(plain.wait_event("ready"));
  plain.signal(SIGTERM);
  ASSERT_TRUE(plain.wait_exit());
  EXPECT_TRUE(plain.events("probe_passed").empty()) << plain.event_text();
}
