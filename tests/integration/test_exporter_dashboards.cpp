// dcgm-exporter's and AMD device-metrics-exporter's own Grafana dashboards, run unchanged against
// `dcukit exporter --names dcgm|amd` through a real Prometheus (Debian's prometheus package):
// every template variable's label_values() finds values, and every panel's queries find series,
// except the panels that chart a figure dcukit does not read (listed, with why). The dashboards
// are kept verbatim in tests/fixtures/exporter/ (SOURCE.md). Skipped where prometheus is absent.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "fixture.h"
#include "ops_fixture.h"

namespace itest {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string exporter_fixture(const std::string& name) {
  return std::string(DCUKIT_SOURCE_DIR) + "/tests/fixtures/exporter/" + name;
}

/// The number of series an instant query returns; -1 with `error` set when Prometheus refused it.
int series_count(int port, const std::string& expr, std::string& error) {
  const auto result = prometheus_query(port, expr, &error);
  return result.is_array() ? static_cast<int>(result.size()) : -1;
}

/// A dashboard query with Grafana's variables filled the way a user's first view fills them:
/// the metric prefix empty (AMD's default), intervals one minute, and every `label="$var"` a
/// match of any value of that label, so that the query asks that the label is there.
std::string fill(std::string q) {
  q = std::regex_replace(q, std::regex(R"(\$\{g_metrics_prefix\}|\$g_metrics_prefix)"), "");
  // {"name", matchers} is Prometheus 3's quoted-name selector; Debian's Prometheus (2.x) reads
  // the same selector written name{matchers}.
  q = std::regex_replace(q, std::regex(R"re(\{\s*"([A-Za-z_:][A-Za-z0-9_:]*)"\s*,\s*)re"), "$1{");
  q = std::regex_replace(q, std::regex(R"re(\{\s*"([A-Za-z_:][A-Za-z0-9_:]*)"\s*\})re"), "$1");
  q = std::regex_replace(q, std::regex(R"(\$__(rate_)?interval|\$__range)"), "1m");
  q = std::regex_replace(q, std::regex(R"((=~?|!~?)\s*"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")"), "=~\".+\"");
  return q;
}

/// label_values(METRIC, LABEL), label_values({SELECTOR}, LABEL) and label_values(LABEL) as the
/// PromQL that has a result when the variable has values: count by (LABEL) (SELECTOR{LABEL=~".+"}).
std::string label_values_query(const std::string& q) {
  static const std::regex two(R"(\s*label_values\(\s*(.+?)\s*,\s*([A-Za-z_]\w*)\s*\)\s*)");
  static const std::regex one(R"(\s*label_values\(\s*([A-Za-z_]\w*)\s*\)\s*)");
  std::smatch m;
  if (std::regex_match(q, m, two)) {
    std::string selector = m[1].str();
    const std::string label = m[2].str(), matcher = label + "=~\".+\"";
    const auto close = selector.rfind('}');
    if (close == std::string::npos)
      selector += "{" + matcher + "}";
    else
      selector.insert(close, (close > 0 && selector[close - 1] == '{' ? "" : ", ") + matcher);
    return "count by (" + label + ") (" + selector + ")";
  }
  if (std::regex_match(q, m, one)) return fmt::format("count by ({0}) ({{{0}=~\".+\"}})", m[1].str());
  return "";
}

struct Panel {
  std::string title;
  std::vector<std::string> exprs;
};

void collect_panels(const json& node, std::vector<Panel>& out) {
  if (!node.is_object() && !node.is_array()) return;
  if (node.is_array()) {
    for (const auto& x : node) collect_panels(x, out);
    return;
  }
  if (node.contains("targets") && node["targets"].is_array()) {
    Panel p{node.value("title", "(untitled)"), {}};
    for (const auto& t : node["targets"])
      if (t.is_object() && t.contains("expr") && t["expr"].is_string() && !t.value("hide", false))
        p.exprs.push_back(t["expr"].get<std::string>());
    if (!p.exprs.empty()) out.push_back(std::move(p));
  }
  if (node.contains("panels")) collect_panels(node["panels"], out);
}

/// A prometheus scraping one exporter every second.
class Scraped {
public:
  Scraped(const testutil::TempDir& dir, const std::string& prometheus, int target) {
    const std::string config = dir.write("prometheus.yml", fmt::format(R"(global:
  scrape_interval: 1s
scrape_configs:
  - job_name: dcukit_exporter
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ["127.0.0.1:{}"]
)",
                                                                       target));
    m_port = free_port();
    m_server = std::make_unique<Child>(
        std::vector<std::string>{prometheus, "--config.file=" + config, "--storage.tsdb.path=" + dir.file("data"),
                                 "--web.listen-address=127.0.0.1:" + std::to_string(m_port)},
        dir.file("prometheus"), std::vector<std::string>{}, Child::Stderr::with_out);
  }
  ~Scraped() {
    m_server->signal(SIGTERM);
    (void)m_server->wait(30s);
  }
  int port() const { return m_port; }
  /// Ready, with at least three scrapes of the target stored (delta() needs two in its range).
  bool wait_scraped() {
    const auto end = std::chrono::steady_clock::now() + 90s;
    std::string error;
    while (std::chrono::steady_clock::now() < end) {
      if (m_server->finished()) return false;
      if (series_count(m_port, "count_over_time(up{job=\"dcukit_exporter\"}[1m]) >= 3", error) > 0) return true;
      std::this_thread::sleep_for(250ms);
    }
    return false;
  }
  std::string out() const { return m_server->out(); }

private:
  int m_port = 0;
  std::unique_ptr<Child> m_server;
};

struct Case {
  const char* names;
  const char* capture;    ///< under tests/fixtures/telemetry/
  const char* dashboard;  ///< under tests/fixtures/exporter/
  /// Series of panels that chart what dcukit does not read, or the capture does not hold; a panel
  /// whose every query names one of them may stay empty.
  std::set<std::string> unmeasured;
  /// Labels whose variables may find no value (what no tool dcukit reads reports).
  std::set<std::string> absent_labels = {};
  std::vector<std::string> exporter_args = {};  ///< more of the exporter's options
};

void run_dashboard(const Case& c) {
  const std::string prometheus = find_tool("prometheus");
  if (prometheus.empty()) GTEST_SKIP() << "prometheus is not installed (Debian: apt-get install prometheus)";
  testutil::TempDir dir(std::string("dashboard_") + c.names);
  std::vector<std::string> args{"--names", c.names, "--from", telemetry_fixture(c.capture)};
  args.insert(args.end(), c.exporter_args.begin(), c.exporter_args.end());
  ExporterProcess exporter(dir, args, "exporter");
  ASSERT_GT(exporter.port(), 0) << exporter.err();
  Scraped prom(dir, prometheus, exporter.port());
  ASSERT_TRUE(prom.wait_scraped()) << prom.out();

  const std::string path = c.dashboard[0] == '/' ? c.dashboard : exporter_fixture(c.dashboard);
  const auto dashboard = json::parse(slurp(path), nullptr, false);
  ASSERT_TRUE(dashboard.is_object()) << c.dashboard;
  int variables = 0;
  for (const auto& v : dashboard["templating"]["list"]) {
    if (v.value("type", "") != "query") continue;
    const json& q = v["query"];
    const std::string text = q.is_string() ? q.get<std::string>() : q.value("query", "");
    std::string promql = label_values_query(text);
    ASSERT_FALSE(promql.empty()) << "a variable query this test does not read: " << text;
    promql = fill(promql);
    std::string error;
    const int n = series_count(prom.port(), promql, error);
    ASSERT_GE(n, 0) << v.value("name", "") << ": " << promql << ": " << error;
    const std::string label = promql.substr(10, promql.find(')') - 10);  // count by (LABEL)
    if (c.absent_labels.count(label))
      EXPECT_EQ(n, 0) << label << " is listed as absent but has values: drop it from the list";
    else
      EXPECT_GT(n, 0) << "variable " << v.value("name", "") << " has no values: " << text << " -> " << promql;
    ++variables;
  }
  EXPECT_GT(variables, 0);

  std::vector<Panel> panels;
  collect_panels(dashboard["panels"], panels);
  ASSERT_FALSE(panels.empty());
  int shown = 0, unmeasured = 0;
  for (const auto& p : panels) {
    int found = 0;
    bool only_unmeasured = true;
    std::string tried;
    for (const auto& e : p.exprs) {
      const std::string q = fill(e);
      std::string error;
      const int n = series_count(prom.port(), q, error);
      ASSERT_GE(n, 0) << p.title << ": " << q << ": " << error;
      found += n;
      bool names_unmeasured = false;
      for (const auto& s : c.unmeasured) names_unmeasured = names_unmeasured || e.find(s) != std::string::npos;
      only_unmeasured = only_unmeasured && names_unmeasured;
      tried += "\n  " + q + " -> " + std::to_string(n);
    }
    if (found > 0) {
      ++shown;
    } else {
      EXPECT_TRUE(only_unmeasured) << "panel '" << p.title << "' shows nothing:" << tried;
      ++unmeasured;
    }
  }
  // Every panel of a figure dcukit reads has data; how many that is goes to the test's record
  // (docs/operations.md gives the counts).
  EXPECT_GT(shown, 0);
  std::cout << c.dashboard << " on " << c.capture << ": " << shown << " panels with data, " << unmeasured
            << " charting what is not read\n";
  ::testing::Test::RecordProperty("panels_with_data", shown);
  ::testing::Test::RecordProperty("panels_unmeasured", unmeasured);
}

TEST(ExporterDashboards, DcukitsFleetDashboardShowsEveryPanelItCan) {
  // contrib/grafana/dcukit-fleet.json over an H200's nvidia-smi -q, its GPU 0 in Slurm job 4242
  // (the job-mapping folder); the capture holds no throttle reason.
  testutil::TempDir jobs("dashboard_jobs");
  jobs.write("0", "4242\n");
  const std::string dashboard = std::string(DCUKIT_SOURCE_DIR) + "/contrib/grafana/dcukit-fleet.json";
  run_dashboard({"dcukit", "h200/q.txt", dashboard.c_str(), {"dcukit_gpu_throttle"}, {},
                 {"--job-mapping-dir", jobs.path()}});
}

TEST(ExporterDashboards, DcgmExportersDashboardWorksUnchanged) {
  // Tensor-pipe activity is a DCGM profiling field; no tool dcukit reads reports it.
  run_dashboard({"dcgm", "h200/csv.txt", "dcgm-exporter-dashboard.json", {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"}});
}

// What hy-smi, rocm-smi and amd-smi do not report: PCIe error counters and bandwidth, the health
// flag, energy, HBM and memory temperatures, the VBIOS version.
const std::set<std::string> kAmdUnmeasured = {
    "pcie_recovery_count", "pcie_replay_count", "pcie_replay_rollover_count", "pcie_nack_received_count",
    "pcie_nack_sent_count", "pcie_bandwidth", "gpu_health", "gpu_energy_consumed", "gpu_memory_temperature",
    "gpu_hbm_temperature"};

std::set<std::string> with(std::set<std::string> s, std::initializer_list<std::string> more) {
  s.insert(more.begin(), more.end());
  return s;
}

TEST(ExporterDashboards, AmdsGpuDashboardWorksUnchangedOnADcu) {
  // hy-smi's JSON (8 K100-AI): no PCIe link and no ECC counts in it.
  run_dashboard({"amd", "samples/hy-smi/json-k100ai-8card-partial-gpustack2032.txt", "amd-dashboard-gpu.json",
                 with(kAmdUnmeasured, {"pcie_max_speed", "ecc"}), {"vbios_version", "driver_version"}});
}

TEST(ExporterDashboards, AmdsGpuDashboardWorksUnchangedOnAnMi250) {
  // rocm-smi's JSON (MI250): no memory use and no PCIe link in it.
  run_dashboard({"amd", "samples/rocm-smi/a-json-mi250-rocm5-wandb-fixture.txt", "amd-dashboard-gpu.json",
                 with(kAmdUnmeasured, {"pcie_max_speed", "vram", "ecc"}), {"vbios_version"}});
}

}  // namespace
}  // namespace itest
