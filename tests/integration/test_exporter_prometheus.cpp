// A real Prometheus server (Debian's prometheus package) scraping `dcukit exporter` and
// `dcukit guard` on loopback: its HTTP API must report up == 1 for both, the device figure the
// captured output holds, and guard's state. Skipped, with a message, where prometheus is not
// installed.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fixture.h"
#include "ops_fixture.h"

namespace itest {
namespace {

using namespace std::chrono_literals;

/// The value of the first series an instant query returns, or "" while there is none.
std::string query(int port, const std::string& expr) {
  const auto result = prometheus_query(port, expr);
  if (!result.is_array() || result.empty()) return "";
  return result[0]["value"][1].get<std::string>();
}

/// Polls `expr` until it has a value or the deadline passes.
std::string poll(int port, const std::string& expr, std::chrono::seconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    const std::string v = query(port, expr);
    if (!v.empty()) return v;
    std::this_thread::sleep_for(250ms);
  }
  return "";
}

TEST(ExporterPrometheus, ARealPrometheusScrapesTheExporterAndGuard) {
  const std::string prometheus = find_tool("prometheus");
  if (prometheus.empty()) GTEST_SKIP() << "prometheus is not installed (Debian: apt-get install prometheus)";
  testutil::TempDir dir("exporter_prometheus");
  ExporterProcess exporter(dir, {"--from", telemetry_fixture("h200/csv.txt")}, "exporter");
  ASSERT_GT(exporter.port(), 0) << exporter.err();
  // guard around a service that never becomes ready (nothing listens on its URL): it stays in
  // `starting` for its whole start-up budget, serving /metrics all the while.
  // Three different ports: the service's stays unserved, and Prometheus must not be handed it.
  const auto ports = free_ports(3);
  const int guard_port = ports[0], service_port = ports[1], web = ports[2];
  ASSERT_GT(guard_port, 0);
  ASSERT_GT(service_port, 0);
  ASSERT_GT(web, 0);
  Child guard(
      {DCUKIT_BINARY, "guard", "--listen", "127.0.0.1:" + std::to_string(guard_port), "--url",
       "http://127.0.0.1:" + std::to_string(service_port), "--log-file", dir.file("service.log"), "--", "sleep", "600"},
      dir.file("guard"));
  ASSERT_TRUE(guard.started());
  const std::string config = dir.write("prometheus.yml", fmt::format(R"(global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: dcukit_exporter
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ["127.0.0.1:{}"]
  - job_name: dcukit_guard
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ["127.0.0.1:{}"]
)",
                                                                     exporter.port(), guard_port));
  Child server({prometheus, "--config.file=" + config, "--storage.tsdb.path=" + dir.file("data"),
                "--web.listen-address=127.0.0.1:" + std::to_string(web)},
               dir.file("prometheus"), {}, Child::Stderr::with_out);
  ASSERT_TRUE(server.started());
  const auto end = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < end &&
         http_get("http://127.0.0.1:" + std::to_string(web) + "/-/ready", 2s).status != 200) {
    ASSERT_FALSE(server.finished()) << server.out();
    std::this_thread::sleep_for(250ms);
  }
  EXPECT_EQ(poll(web, "up{job=\"dcukit_exporter\"} == 1", 60s), "1") << server.out();
  EXPECT_EQ(poll(web, "dcukit_gpu_temperature_celsius{gpu=\"0\",model=\"NVIDIA H200\"}", 30s), "53");
  EXPECT_EQ(poll(web, "dcukit_gpu_power_cap_watts{job=\"dcukit_exporter\"}", 30s), "700");
  EXPECT_EQ(poll(web, "up{job=\"dcukit_guard\"} == 1", 60s), "1") << server.out() << slurp(dir.file("guard") + ".err");
  EXPECT_EQ(poll(web, "dcukit_guard_state{job=\"dcukit_guard\",state=\"starting\"}", 30s), "1");
  EXPECT_EQ(poll(web, "dcukit_guard_restarts_total{job=\"dcukit_guard\"}", 30s), "0");
  server.signal(SIGTERM);
  const Exit e = server.wait(30s);
  EXPECT_FALSE(e.timed_out);
  guard.signal(SIGTERM);  // guard stops its service's group, then exits
  const Exit g = guard.wait(60s);
  EXPECT_FALSE(g.timed_out) << g.err;
}

}  // namespace
}  // namespace itest
