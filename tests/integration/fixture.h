#pragma once
// A fake server per test suite, and a helper that runs `dcukit load` against it and reads the
// JSON it wrote. Everything stays on 127.0.0.1, every child has a deadline, and every file is in
// a fresh folder of the test's own (testutil::TempDir), removed when the test passed.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "held_port.h"
#include "process.h"
#include "tempdir.h"

namespace itest {

using testutil::free_port;
using testutil::free_ports;

/// A running fake_server; the port it printed. Its output goes to a folder of its own.
class FakeServer {
public:
  /// Starts `binary` (the fake server unless another is named) with flags.
  explicit FakeServer(const std::vector<std::string>& flags, const std::string& name,
                      const std::string& binary = DCUKIT_FAKE_SERVER)
      : m_dir("fake_" + name) {
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), flags.begin(), flags.end());
    m_child = std::make_unique<Child>(argv, m_dir.file("server"));
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < end) {
      const std::string out = m_child->out();
      const auto p = out.find("PORT ");
      if (p != std::string::npos && out.find('\n', p) != std::string::npos) {
        m_port = std::stoi(out.substr(p + 5));
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  int port() const { return m_port; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  /// Kills the server (SIGKILL), as a crash would.
  void kill() { m_child->signal(SIGKILL); }
  /// The fake's own counts from its /metrics (fake_requests_total, fake_streams_active,
  /// fake_health_checks_total): -1 when
  /// it did not answer.
  long long count(const std::string& name) const {
    const std::string text = get("/metrics");
    const auto p = text.find("\n" + name + " ");
    return p == std::string::npos ? -1 : std::stoll(text.substr(p + name.size() + 2));
  }
  /// Waits until count(name) reaches at least `n`: an event, not a time; false after `limit`.
  bool wait_count(const std::string& name, long long n, std::chrono::milliseconds limit = std::chrono::seconds(30)) const {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (count(name) >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

private:
  /// One HTTP GET on 127.0.0.1: the body (after a newline), or "" on failure.
  std::string get(const std::string& path) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return "";
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(m_port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string out;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      const std::string q = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
      if (::send(fd, q.data(), q.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(q.size())) {
        char buf[4096];
        // Until the body's Content-Length is in (the fake may keep the connection open), or it closes.
        for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) {
          out.append(buf, static_cast<std::size_t>(n));
          const auto head = out.find("\r\n\r\n");
          const auto cl = out.find("Content-Length: ");
          if (head != std::string::npos && cl != std::string::npos && cl < head &&
              out.size() - head - 4 >= std::stoull(out.substr(cl + 16)))
            break;
        }
      }
    }
    ::close(fd);
    const auto body = out.find("\r\n\r\n");
    return body == std::string::npos ? "" : "\n" + out.substr(body + 4);
  }

  testutil::TempDir m_dir;
  std::unique_ptr<Child> m_child;
  int m_port = 0;
};

/// A test suite sharing one fake server, started once with Derived::flags() under Derived::kName;
/// a suite that declares its own binary() starts that server instead.
template <class Derived>
class ServerSuite : public ::testing::Test {
public:
  static std::string binary() { return DCUKIT_FAKE_SERVER; }

protected:
  static void SetUpTestSuite() { s_server = new FakeServer(Derived::flags(), Derived::kName, Derived::binary()); }
  static void TearDownTestSuite() {
    delete s_server;
    s_server = nullptr;
  }
  static inline FakeServer* s_server = nullptr;
};

/// A finished dcukit run: exit, output and the JSON result (null when none was written).
struct Run {
  Exit exit;
  /// The --json file, and where it holds one level, that level's fields also at the top (the
  /// figures most tests read); `file` is the file as written.
  nlohmann::json json;
  nlohmann::json file;
  std::string json_path;  ///< where the JSON was asked for
};

/// `base` with the options given again in `overrides` taken from there instead (dcukit refuses
/// an option given twice). Every option of base but a trailing flag must take one value.
inline std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) {
    if (o.empty() || o[0] != '-') continue;
    for (std::size_t j = 0; j + 1 < base.size(); ++j) {
      if (base[j] == o) {
        base.erase(base.begin() + static_cast<long>(j), base.begin() + static_cast<long>(j) + 2);
        break;
      }
    }
  }
  base.insert(base.end(), overrides.begin(), overrides.end());
  return base;
}

/// How run_dcukit runs dcukit.
struct RunOptions {
  std::chrono::milliseconds deadline = std::chrono::seconds(60);
  std::vector<std::string> env;  ///< "NAME=value" added to the environment
  bool detailed = true;          ///< add --save-detailed (per-request arrays), so that failures print the errors
};

/// Runs dcukit with args in dir (the --json path, dir/<name>.json, is added to a load run).
inline Run run_dcukit(const testutil::TempDir& dir, std::vector<std::string> args, const std::string& name,
                      const RunOptions& o = {}) {
  std::vector<std::string> argv{DCUKIT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Run r;
  r.json_path = dir.file(name + ".json");
  if (argv.size() > 2 && argv[1] == "load" && argv[2] != "compare") {
    argv.insert(argv.end(), {"--json", r.json_path});
    if (o.detailed) argv.push_back("--save-detailed");
  }
  Child child(argv, dir.file(name), o.env);
  r.exit = child.wait(o.deadline);
  const std::string text = slurp(r.json_path);
  if (!text.empty()) r.file = nlohmann::json::parse(text, nullptr, false);
  r.json = r.file;
  if (r.json.is_object() && r.json.contains("runs") && r.json["runs"].is_array() && r.json["runs"].size() == 1)
    for (const auto& [k, v] : r.file["runs"][0].items()) r.json[k] = v;
  return r;
}

/// What a load run decides about time, whatever the machine's speed: no request is sent before
/// its scheduled time, the reported p99 send lag lies within the requests' own lags, and each
/// request's TTFT plus its gaps is its end-to-end latency. Speed itself is a benchmark's
/// (scripts/load-overhead.sh), never a bound here.
inline void expect_times_consistent(const nlohmann::json& run) {
  ASSERT_TRUE(run["requests"].is_array()) << "run with --save-detailed";
  double lo = 1e300, hi = -1e300;
  for (const auto& q : run["requests"]) {
    const double lag = q["sent_ms"].get<double>() - q["scheduled_ms"].get<double>();
    EXPECT_GE(lag, -1e-6) << "sent before its schedule: " << q.dump();
    lo = std::min(lo, lag);
    hi = std::max(hi, lag);
    if (!q["ok"].get<bool>() || !q["streamed"].get<bool>()) continue;
    EXPECT_LE(q["sent_ms"].get<double>(), q["first_token_ms"].get<double>()) << q.dump();
    EXPECT_LE(q["first_token_ms"].get<double>(), q["last_token_ms"].get<double>()) << q.dump();
  }
  if (run["requests"].empty() || run["p99_send_lag_ms"].is_null()) return;
  EXPECT_GE(run["p99_send_lag_ms"].get<double>(), lo - 1e-6);
  EXPECT_LE(run["p99_send_lag_ms"].get<double>(), hi + 1e-6);
}

/// A run that stopped before its first level: its --json holds run_info, no runs, and the
/// problem that stopped it (containing `says`).
inline void expect_stopped_with(const Run& r, const std::string& says) {
  ASSERT_TRUE(r.json.is_object()) << "a stopped run writes its --json: " << r.exit.err;
  EXPECT_TRUE(r.json["run_info"].is_object());
  EXPECT_TRUE(r.json["runs"].is_array() && r.json["runs"].empty()) << r.json.dump();
  ASSERT_TRUE(r.json["problem"].is_string()) << r.json.dump();
  EXPECT_NE(r.json["problem"].get<std::string>().find(says), std::string::npos) << r.json["problem"];
}

/// A --duration run issues no request at or after the duration (closed loops schedule each at
/// its issue), and it ends by itself.
inline void expect_issued_within(const nlohmann::json& run, double duration_s) {
  ASSERT_TRUE(run["requests"].is_array()) << "run with --save-detailed";
  for (const auto& q : run["requests"])
    EXPECT_LT(q["scheduled_ms"].get<double>(), duration_s * 1000.0) << "issued after the duration: " << q.dump();
  EXPECT_GE(run["duration"].get<double>(), 0.0);
}

}  // namespace itest
