#pragma once
// Shared by the exporter's and patrol's integration tests: a running `dcukit exporter` (port read
// from what it prints), an HTTP GET with a deadline, the telemetry fixtures, and finding an
// installed tool (promtool, prometheus) so that a test can skip with a message when it is absent.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "process.h"
#include "tempdir.h"
#include "util/http.h"

namespace itest {

/// tests/fixtures/telemetry/<rel>.
inline std::string telemetry_fixture(const std::string& rel) {
  return std::string(DCUKIT_SOURCE_DIR) + "/tests/fixtures/telemetry/" + rel;
}

/// The full path of `tool` on PATH, or "".
inline std::string find_tool(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const auto end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + tool;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

/// GET url with a deadline: the status (0 on a transport failure) and the body (or the error).
inline dcukit::util::HttpResponse http_get(const std::string& url,
                                           std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  dcukit::util::HttpRequest req;
  req.url = url;
  req.timeout = timeout;
  auto r = dcukit::util::http_request(req);
  if (!r) return {0, r.error().message};
  return *r;
}

/// An instant query to a Prometheus on 127.0.0.1:`port` (its HTTP API): the reply's
/// data.result array, or null with `error` set when the query failed or was refused.
inline nlohmann::json prometheus_query(int port, const std::string& expr, std::string* error = nullptr) {
  std::string q;
  for (char c : expr) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      q += c;
    else
      q += fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  const auto r =
      http_get("http://127.0.0.1:" + std::to_string(port) + "/api/v1/query?query=" + q, std::chrono::seconds(5));
  const auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (r.status != 200 || !j.is_object() || j.value("status", "") != "success" || !j["data"]["result"].is_array()) {
    if (error) *error = fmt::format("HTTP {}: {}", r.status, r.body.substr(0, 300));
    return nullptr;
  }
  return j["data"]["result"];
}

/// A running `dcukit exporter --listen 127.0.0.1:0 ARGS...`; stopped with SIGTERM, then killed.
class ExporterProcess {
public:
  ExporterProcess(const testutil::TempDir& dir, const std::vector<std::string>& args, const std::string& name) {
    std::vector<std::string> argv{DCUKIT_BINARY, "exporter", "--listen", "127.0.0.1:0"};
    argv.insert(argv.end(), args.begin(), args.end());
    m_base = dir.file(name);
    m_child = std::make_unique<Child>(argv, m_base);
    const std::string marker = "serving http://127.0.0.1:";
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < end && !m_child->finished()) {
      const std::string err = slurp(m_base + ".err");
      const auto p = err.find(marker);
      if (p != std::string::npos && err.find('\n', p) != std::string::npos) {
        m_port = std::stoi(err.substr(p + marker.size()));
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~ExporterProcess() { stop(); }
  int port() const { return m_port; }
  std::string url(const std::string& path = "/metrics") const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }
  /// What it wrote on stderr so far.
  std::string err() const { return slurp(m_base + ".err"); }
  /// SIGTERM, then waits (killing it past the deadline); how it ended.
  Exit stop(std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    if (!m_child) return {};
    m_child->signal(SIGTERM);
    Exit e = m_child->wait(deadline);
    m_child.reset();
    return e;
  }

private:
  std::string m_base;
  std::unique_ptr<Child> m_child;
  int m_port = 0;
};

}  // namespace itest
