// The exporter's text from real captured outputs: every family named as the issue asks, with
// # HELP and # TYPE, values equal to the reading's, and a reason when there are no devices.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "exporter/metrics.h"
#include "serving/prometheus.h"
#include "test_telemetry_helpers.h"

namespace dcukit::exporter {
namespace {

/// The value of `name` for gpu `gpu` (label), or NaN.
double value(const std::vector<serving::Sample>& samples, const std::string& name, const std::string& gpu,
             const std::string& type = "") {
  for (const auto& s : samples)
    if (s.name == name && s.label("gpu") == gpu && (type.empty() || s.label("type") == type)) return s.value;
  return std::nan("");
}

Scrape scrape_of(const telemetry::Snapshot& snap) {
  Scrape s;
  s.snapshot = snap;
  s.scrapes_total = 3;
  s.collect_errors_total = 1;
  s.source = "test";
  return s;
}

TEST(ExporterMetrics, H200CsvFiguresBecomeTheIssuesMetrics) {
  auto snap = telemetry::read_capture_file(testutil::telemetry_fixture("h200/csv.txt"));
  ASSERT_TRUE(snap) << snap.error().message;
  ASSERT_EQ(snap->devices.size(), 1u);
  const std::string text = render_metrics(scrape_of(*snap));
  const auto samples = serving::parse_text(text);
  EXPECT_EQ(value(samples, "dcukit_gpu_temperature_celsius", "0"), 53);
  EXPECT_DOUBLE_EQ(value(samples, "dcukit_gpu_power_watts", "0"), 413.05);
  EXPECT_EQ(value(samples, "dcukit_gpu_power_cap_watts", "0"), 700);
  EXPECT_DOUBLE_EQ(value(samples, "dcukit_gpu_busy_ratio", "0"), 1.0);
  EXPECT_EQ(value(samples, "dcukit_gpu_memory_total_bytes", "0"), 143771.0 * 1024 * 1024);
  EXPECT_EQ(value(samples, "dcukit_gpu_memory_used_bytes", "0"), 7629.0 * 1024 * 1024);
  EXPECT_EQ(value(samples, "dcukit_gpu_sclk_hz", "0"), 1980e6);
  EXPECT_EQ(value(samples, "dcukit_gpu_pcie_link_gen", "0"), 5);
  EXPECT_EQ(value(samples, "dcukit_gpu_pcie_link_width", "0"), 16);
  EXPECT_EQ(value(samples, "dcukit_gpu_ecc_errors_total", "0", "corrected"), 0);
  // Labels: gpu, bus_id, model, vendor.
  for (const auto& s : samples) {
    if (s.name != "dcukit_gpu_temperature_celsius") continue;
    EXPECT_EQ(s.label("bus_id"), "0000:00:06.0");
    EXPECT_EQ(s.label("model"), "NVIDIA H200");
    EXPECT_EQ(s.label("vendor"), "nvidia");
  }
  EXPECT_NE(text.find("# HELP dcukit_gpu_temperature_celsius "), std::string::npos);
  EXPECT_NE(text.find("# TYPE dcukit_gpu_ecc_errors_total counter"), std::string::npos);
  EXPECT_NE(text.find("# TYPE dcukit_gpu_power_watts gauge"), std::string::npos);
  EXPECT_EQ(serving::sum_by_name(samples)["dcukit_exporter_collect_errors_total"], 1);
  EXPECT_EQ(serving::sum_by_name(samples)["dcukit_exporter_devices"], 1);
  EXPECT_EQ(text.find("dcukit_exporter_no_devices"), std::string::npos);
}

TEST(ExporterMetrics, EveryDeviceOfAHySmiTableAppearsWithItsFigures) {
  const auto snap = testutil::read_sample("hy-smi/plain-hcu-8card-800w-training-load-a.txt");
  ASSERT_FALSE(snap.devices.empty());
  const auto samples = serving::parse_text(render_metrics(scrape_of(snap)));
  for (const auto& d : snap.devices) {
    const std::string gpu = std::to_string(d.index);
    if (d.temperature_c) {
      EXPECT_EQ(value(samples, "dcukit_gpu_temperature_celsius", gpu), *d.temperature_c);
    }
    if (d.power_w) {
      EXPECT_EQ(value(samples, "dcukit_gpu_power_watts", gpu), *d.power_w);
    }
    if (d.busy_percent) {
      EXPECT_DOUBLE_EQ(value(samples, "dcukit_gpu_busy_ratio", gpu), *d.busy_percent / 100);
    }
    EXPECT_EQ(value(samples, "dcukit_gpu_info", gpu), 1);
  }
  for (const auto& s : samples)
    if (s.name == "dcukit_gpu_info") {
      EXPECT_EQ(s.label("vendor"), "hygon");
    }
}

TEST(ExporterMetrics, NoDevicesStillAnswersAndSaysWhy) {
  telemetry::Snapshot empty;
  empty.sources.push_back({"nvml", telemetry::SourceState::unavailable, "libnvidia-ml.so.1: not found"});
  const std::string text = render_metrics(scrape_of(empty));
  const auto samples = serving::parse_text(text);
  bool found = false;
  for (const auto& s : samples)
    if (s.name == "dcukit_exporter_no_devices") {
      found = true;
      EXPECT_EQ(s.label("reason"), "no_source_found");  // a bounded value, never free text
    }
  // The detail goes to the log instead.
  EXPECT_NE(diagnostics(scrape_of(empty)).find("libnvidia-ml.so.1: not found"), std::string::npos);
  for (const auto& s : samples)
    if (s.name == "dcukit_exporter_source_up") {
      EXPECT_EQ(s.label("state"), "unavailable");
      EXPECT_EQ(text.find("not found\""), std::string::npos) << "a detail in a label: " << text;
    }
  EXPECT_TRUE(found) << text;
  EXPECT_EQ(text.find("dcukit_gpu_temperature_celsius"), std::string::npos);
  EXPECT_EQ(serving::sum_by_name(samples)["dcukit_exporter_devices"], 0);
}

TEST(ExporterMetrics, AMissedDeadlineIsAnErrorWithTheReason) {
  Scrape s;
  s.error = "the device reading did not finish within 2s";
  s.deadline_missed = true;
  s.collect_errors_total = 4;
  const auto samples = serving::parse_text(render_metrics(s));
  const auto sums = serving::sum_by_name(samples);
  EXPECT_EQ(sums.at("dcukit_exporter_collect_errors_total"), 4);
  EXPECT_EQ(sums.at("dcukit_exporter_collect_success"), 0);
  for (const auto& x : samples)
    if (x.name == "dcukit_exporter_no_devices") {
      EXPECT_EQ(x.label("reason"), "deadline_missed");
    }
  EXPECT_EQ(diagnostics(s), s.error);
  EXPECT_TRUE(sums.count("process_open_fds"));
}

// Every label value the exporter writes is from a bounded set or identifies a device: whatever
// the errors say, the series stay the same (no unbounded cardinality).
TEST(ExporterMetrics, LabelValuesAreBounded) {
  std::set<std::string> reasons;
  Scrape failed;
  failed.error = "read /tmp/x: permission denied (errno 13) at 12:00:01";
  reasons.insert(std::string(no_device_reason(failed)));
  failed.error = "read /tmp/y: no such file at 12:00:02";
  reasons.insert(std::string(no_device_reason(failed)));
  EXPECT_EQ(reasons, std::set<std::string>{"read_failed"});
  Scrape none;
  none.snapshot = telemetry::Snapshot{};
  EXPECT_EQ(no_device_reason(none), "empty_reading");
  const std::string text = render_metrics(failed);
  EXPECT_EQ(text.find("permission denied"), std::string::npos) << text;
  EXPECT_EQ(text.find("/tmp/"), std::string::npos) << text;
}

}  // namespace
}  // namespace dcukit::exporter
