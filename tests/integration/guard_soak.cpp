// The guard soak: `dcukit guard` restarts a service that exits at once, N times (back-off
// shortened), while guard's own open descriptors, resident memory and threads are read from
// its /metrics (process_*, which guard reads from /proc/self). Writes a Markdown report and,
// with --check, fails when they do not stay flat.
//   dcukit_guard_soak --dcukit build/bin/dcukit --restarts 1000 --out docs/results/guard-soak.md
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/run_info.h"
#include "serving/prometheus.h"
#include "util/files.h"
#include "util/host.h"
#include "util/http.h"
#include "util/process.h"

using namespace dcukit;
using namespace std::chrono_literals;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;  // this harness and dcukit are built alike (scripts/sanitize.sh)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

struct Point {
  double restarts = 0, fds = 0, rss = 0, threads = 0, seconds = 0;
};

std::map<std::string, double> scrape(int port) {
  auto r = util::http_request({.url = fmt::format("http://127.0.0.1:{}/metrics", port), .timeout = 5s});
  std::map<std::string, double> out;
  if (r && r->status == 200)
    for (const auto& s : serving::parse_text(r->body))
      if (s.labels.empty()) out[s.name] = s.value;
  return out;
}

/// guard's port from its first event, waited for up to 30 s (a loaded, sanitized machine's start
/// stays far within; only a guard that never starts reaches it).
int listen_port(const std::string& events_path) {
  for (int i = 0; i < 3000; ++i) {
    std::ifstream in(events_path);
    std::string line;
    if (std::getline(in, line)) {
      const auto at = line.find("\"listen\":\"127.0.0.1:");
      if (at != std::string::npos) return std::stoi(line.substr(at + 20));
    }
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dcukit = "dcukit", out_path;
  int restarts = 1000;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dcukit" && i + 1 < argc)
      dcukit = argv[++i];
    else if (a == "--restarts" && i + 1 < argc)
      restarts = std::stoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else if (a == "--check")
      check = true;
    else {
      std::fprintf(stderr, "usage: dcukit_guard_soak --dcukit PATH [--restarts N] [--out FILE.md] [--check]\n");
      return 2;
    }
  }
  std::string invocation;
  for (int i = 0; i < argc; ++i) invocation += (i ? " " : "") + std::string(argv[i]);
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/dcukit_guard_soak_XXXXXX";
  if (!mkdtemp(dir_template.data())) return 1;
  const std::string dir = dir_template;
  const std::string events = dir + "/events.jsonl";
  const std::vector<std::string> guard_argv = {dcukit,
                                               "guard",
                                               "--listen",
                                               "127.0.0.1:0",
                                               "--events",
                                               events,
                                               "--log-file",
                                               dir + "/service.log",
                                               "--url",
                                               "http://127.0.0.1:9",
                                               "--backoff-initial",
                                               "1ms",
                                               "--backoff-max",
                                               "2ms",
                                               "--max-restarts",
                                               "1000000",
                                               "--window",
                                               "1s",
                                               "--drain",
                                               "1s",
                                               "--release-timeout",
                                               "1s",
                                               "--",
                                               "sh",
                                               "-c",
                                               "echo starting; exit 1"};
  auto guard = util::Process::spawn(
      {.argv = guard_argv, .stdout_path = dir + "/guard.out", .stderr_path = dir + "/guard.err", .new_session = false});
  if (!guard) {
    std::fprintf(stderr, "cannot start guard: %s\n", guard.error().message.c_str());
    return 1;
  }
  const int port = listen_port(events);
  if (port == 0) {
    std::fprintf(stderr, "guard did not start; see %s\n", dir.c_str());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Point> points;
  const int step = std::max(1, restarts / 20);
  double next = 0;
  for (;;) {
    auto m = scrape(port);
    const double r = m["dcukit_guard_restarts_total"];
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r >= next || r >= restarts) {
      points.push_back({r, m["process_open_fds"], m["process_resident_memory_bytes"], m["process_threads"], secs});
      next = (static_cast<int>(r) / step + 1) * step;
    }
    if (r >= restarts || secs > 1800 || !guard->running()) break;
    std::this_thread::sleep_for(20ms);
  }
  (void)guard->signal_group(SIGTERM);
  auto status = guard->wait_for(30s);
  const Point& warm = points.size() > 2 ? points[1] : points.front();
  const Point& last = points.back();
  const bool reached = last.restarts >= restarts;
  // A restart in progress holds the service's output pipe and a scrape its connection, so a
  // sample may show one to three descriptors more, in either half; a leak raises the floor with
  // the restarts. Flat: the second half's lowest count is no higher than the first half's (after
  // the warm-up).
  double first_min = 1e18, second_min = 1e18;
  for (std::size_t i = 1; i < points.size(); ++i) {
    double& half_min = i <= points.size() / 2 ? first_min : second_min;
    half_min = std::min(half_min, points[i].fds);
  }
  const bool flat_fds = points.size() < 4 || second_min <= first_min;
  const double rss_growth = last.rss - warm.rss;
  // AddressSanitizer's quarantine holds freed memory (256 MiB by default) on purpose, so under it
  // resident memory grows by design and is not judged; its leak check at guard's exit is the test.
  const bool flat_rss = kSanitized || rss_growth < 1.5 * 1024 * 1024;
  const char* rss_verdict = kSanitized ? "not judged: built with AddressSanitizer, whose quarantine holds freed memory"
                            : flat_rss ? "flat: under 1.5 MiB"
                                       : "NOT flat";
  std::string md = fmt::format(
      "# guard soak: {} restarts of a service that exits at once\n\n"
      "Measured {} on {} ({}, {} CPUs) by `tests/integration/guard_soak.cpp`:\n\n"
      "```\n{}\n```\n\n"
      "guard ran `sh -c 'echo starting; exit 1'` with `--backoff-initial 1ms --backoff-max 2ms --max-restarts "
      "1000000`, so it started, saw the exit, stopped completely (group, descendants, port), logged and "
      "scheduled a restart about {:.0f} times a second. Its own open descriptors, resident memory and threads "
      "come from its `/metrics` (`process_open_fds`, `process_resident_memory_bytes`, `process_threads`), which "
      "guard reads from `/proc/self`.\n\n"
      "| restarts | seconds | open fds | RSS (KiB) | threads |\n|---:|---:|---:|---:|---:|\n",
      restarts, util::utc_timestamp(), util::hostname(), util::os_name(), util::cpu_count(), invocation,
      last.seconds > 0 ? last.restarts / last.seconds : 0);
  for (const auto& p : points)
    md += fmt::format("| {:.0f} | {:.1f} | {:.0f} | {:.0f} | {:.0f} |\n", p.restarts, p.seconds, p.fds, p.rss / 1024,
                      p.threads);
  md += fmt::format(
      "\nFrom restart {:.0f} (after warm-up) to restart {:.0f}: open descriptors {:.0f} → {:.0f}, at least {:.0f} in "
      "the first half and {:.0f} in the second ({}: a sample taken during a restart also counts the service's "
      "output pipe and the scrape's connection), resident memory {:+.0f} KiB ({}). guard ended with {} after "
      "SIGTERM.\n",
      warm.restarts, last.restarts, warm.fds, last.fds, first_min, second_min, flat_fds ? "flat" : "NOT flat",
      rss_growth / 1024, rss_verdict,
      status ? status->describe() : "no exit (killed)");
  std::fputs(md.c_str(), stdout);
  if (!out_path.empty())
    if (auto st = util::write_file(out_path, md); !st) std::fprintf(stderr, "%s\n", st.message().c_str());
  if (check && !(reached && flat_fds && flat_rss && status && status->code == 0)) {
    std::fprintf(stderr, "soak failed: reached %d, fds flat %d, rss flat %d; files in %s\n", reached, flat_fds,
                 flat_rss, dir.c_str());
    return 1;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
