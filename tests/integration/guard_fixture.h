#pragma once
// Runs the real `dcukit guard` with guard_service (a misbehaving server) as its service, all on
// loopback and inside one TempDir: events in events.jsonl, the service's log in service.log.
// The test process becomes a child subreaper, so that anything guard leaves behind comes back
// to it: the destructor ends and reaps every such process, and no_process_left() checks there
// is none.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "held_port.h"
#include "tempdir.h"
#include "util/http.h"
#include "util/process.h"
#include "util/procfs.h"

namespace gtest_guard {

using namespace std::chrono_literals;
using nlohmann::json;

using testutil::free_port;

/// Timings short enough for tests: liveness gives up after about a second.
inline std::vector<std::string> fast_flags() {
  return {"--probe-interval",  "200ms", "--probe-timeout", "500ms", "--canary-interval", "1s",
          "--canary-timeout",  "1s",    "--failures",      "2",     "--backoff-initial", "100ms",
          "--backoff-max",     "400ms", "--drain",         "3s",    "--release-timeout", "3s",
          "--startup-timeout", "20s"};
}

class GuardRun {
public:
  int service_port = 0;
  int guard_port = 0;

  /// Starts guard with `guard_flags` (after fast_flags()) guarding guard_service with `service_flags`.
  /// `port`: the service's port (0: a free one); `userinfo`: "user:password@" put in --url.
  GuardRun(const testutil::TempDir& dir, std::vector<std::string> guard_flags, std::vector<std::string> service_flags,
           std::vector<std::string> env = {}, int port = 0, const std::string& userinfo = "")
      : service_port(port ? port : free_port()), m_dir(dir) {
    (void)dcukit::util::become_child_subreaper();
    std::vector<std::string> argv{DCUKIT_BINARY, "guard",
                                  "--listen",    "127.0.0.1:0",
                                  "--events",    dir.file("events.jsonl"),
                                  "--log-file",  dir.file("service.log"),
                                  "--url",       "http://" + userinfo + "127.0.0.1:" + std::to_string(service_port)};
    for (const auto& f : fast_flags()) argv.push_back(f);
    argv.insert(argv.end(), guard_flags.begin(), guard_flags.end());
    argv.insert(argv.end(), {"--", DCUKIT_GUARD_SERVICE, "--port", std::to_string(service_port), "--count-file",
                             dir.file("starts.txt")});
    argv.insert(argv.end(), service_flags.begin(), service_flags.end());
    auto p = dcukit::util::Process::spawn({.argv = argv,
                                           .env_add = env,
                                           .stdout_path = dir.file("guard.out"),
                                           .stderr_path = dir.file("guard.err"),
                                           .new_session = false});
    EXPECT_TRUE(p) << p.error().message;
    if (p) m_guard.emplace(std::move(*p));
    if (auto started = wait_event("guard_started", 1, 10s)) {
      const std::string listen = (*started)["listen"];
      guard_port = std::stoi(listen.substr(listen.rfind(':') + 1));
    }
  }

  ~GuardRun() {
    if (m_guard && m_guard->running()) {
      (void)m_guard->signal_group(SIGTERM);  // (no group of its own: the signal goes to guard alone)
      if (!m_guard->wait_for(15s)) (void)m_guard->stop(0ms);
    }
    kill_leftovers();
  }

  /// Every event written so far.
  std::vector<json> events() const {
    std::vector<json> out;
    std::ifstream in(m_dir.file("events.jsonl"));
    std::string line;
    while (std::getline(in, line)) {
      auto j = json::parse(line, nullptr, false);
      if (!j.is_discarded()) out.push_back(std::move(j));
    }
    return out;
  }

  /// The events named `name`.
  std::vector<json> events(const std::string& name) const {
    std::vector<json> out;
    for (auto& e : events())
      if (e["event"] == name) out.push_back(e);
    return out;
  }

  /// Waits until the `n`th event named `name` has been written; that event, or nullopt.
  std::optional<json> wait_event(const std::string& name, std::size_t n = 1, std::chrono::milliseconds timeout = 30s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto found = events(name);
      if (found.size() >= n) return found[n - 1];
      if (std::chrono::steady_clock::now() >= until || (m_guard && !m_guard->running())) {
        ADD_FAILURE() << "no event #" << n << " '" << name << "' within the time; events:\n"
                      << event_text() << "\nguard stderr: " << m_dir.read("guard.err");
        return std::nullopt;
      }
      std::this_thread::sleep_for(20ms);
    }
  }

  /// Waits until a `ready` event of start `attempt` has been written; that event, or nullopt.
  std::optional<json> wait_ready(int attempt, std::chrono::milliseconds timeout = 30s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      for (auto& e : events("ready"))
        if (e["attempt"] == attempt) return e;
      if (std::chrono::steady_clock::now() >= until || (m_guard && !m_guard->running())) {
        ADD_FAILURE() << "no ready event of attempt " << attempt << " within the time; events:\n" << event_text();
        return std::nullopt;
      }
      std::this_thread::sleep_for(20ms);
    }
  }

  std::string event_text() const { return m_dir.read("events.jsonl"); }

  /// A GET of guard's own endpoint.
  dcukit::util::HttpResponse get(const std::string& path) const {
    auto r =
        dcukit::util::http_request({.url = "http://127.0.0.1:" + std::to_string(guard_port) + path, .timeout = 5s});
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : dcukit::util::HttpResponse{};
  }

  /// The value of one sample of guard's /metrics ("name" or "name{labels}" as written).
  double metric(const std::string& series) const {
    std::istringstream in(get("/metrics").body);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
    ADD_FAILURE() << "no series " << series;
    return -1;
  }

  void signal(int sig) { kill(m_guard->pid(), sig); }

  /// Waits for guard to end; its exit status.
  std::optional<dcukit::util::ExitStatus> wait_exit(std::chrono::milliseconds timeout = 30s) {
    return m_guard->wait_for(timeout);
  }

  /// True when no process of any service start (its group, escapees) is left.
  ::testing::AssertionResult no_process_left() const {
    for (const auto& e : events("started")) {
      const pid_t pid = e["pid"];
      if (!dcukit::util::process_group_members(pid).empty())
        return ::testing::AssertionFailure() << "the group of service pid " << pid << " is still there";
    }
    for (const auto& e : events("escaped")) {
      auto info = dcukit::util::read_proc_info(e["pid"].get<pid_t>());
      if (info && info->state != 'Z') return ::testing::AssertionFailure() << "escaped pid " << e["pid"] << " lives";
    }
    auto left = dcukit::util::descendants_of(getpid());
    std::erase_if(left, [&](const dcukit::util::ProcInfo& p) { return m_guard && p.pid == m_guard->pid(); });
    if (!left.empty())
      return ::testing::AssertionFailure()
             << left.size() << " descendant(s) left, first: " << left[0].pid << " " << left[0].cmdline;
    return ::testing::AssertionSuccess();
  }

private:
  void kill_leftovers() {
    for (int round = 0; round < 20; ++round) {
      auto left = dcukit::util::descendants_of(getpid());
      dcukit::util::reap_children_except(0);
      if (left.empty()) return;
      for (const auto& p : left) kill(p.pid, SIGKILL);
      std::this_thread::sleep_for(20ms);
    }
  }

  const testutil::TempDir& m_dir;
  std::optional<dcukit::util::Process> m_guard;
};

}  // namespace gtest_guard
