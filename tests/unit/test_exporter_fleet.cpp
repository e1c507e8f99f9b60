// The exporter's fleet series: the Slurm job on each device (dcgm-exporter's job-mapping folder)
// as hpc_job (job_id under AMD's names), the health a device's figures give, and the throttle
// reasons, each as Prometheus reads the text back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "exporter/metrics.h"
#include "serving/prometheus.h"
#include "tempdir.h"

namespace dcukit::exporter {
namespace {

telemetry::Snapshot two_cards() {
  telemetry::Snapshot snap;
  for (int i = 0; i < 2; ++i) {
    telemetry::DeviceState d;
    d.index = i;
    d.name = "NVIDIA H200";
    d.temperature_c = i == 0 ? 40 : 97;
    d.throttle_reasons = i == 0 ? "" : "power cap, thermal (software)";
    snap.devices.push_back(d);
  }
  return snap;
}

const serving::Sample* find(const std::vector<serving::Sample>& all, const std::string& name, const std::string& gpu,
                            const std::string& gpu_label = "gpu") {
  for (const auto& s : all)
    if (s.name == name && s.label(gpu_label) == gpu) return &s;
  return nullptr;
}

TEST(ExporterFleet, TheJobMappingFolderIsReadAsDcgmExporterWritesIt) {
  testutil::TempDir dir("exporter_jobs");
  std::ofstream(dir.file("0")) << "4242\n";
  std::ofstream(dir.file("1")) << "4243\n4250\n\n";
  std::ofstream(dir.file("notes.txt")) << "9999\n";
  std::ofstream(dir.file("2")) << "  \n";
  std::filesystem::create_directories(dir.file("3"));
  const auto jobs = read_job_mapping(dir.path());
  EXPECT_EQ(jobs, (std::map<int, std::string>{{0, "4242"}, {1, "4243,4250"}}));
  EXPECT_TRUE(read_job_mapping(dir.file("absent")).empty());
  EXPECT_TRUE(read_job_mapping("").empty());
}

TEST(ExporterFleet, EveryDeviceSeriesCarriesItsJobUnderEachNameSet) {
  Scrape s;
  s.snapshot = two_cards();
  RenderOptions o;
  o.identity.hostname = "node07";
  o.identity.jobs = {{1, "4243,4250"}};
  auto samples = serving::parse_text(render_metrics(s, o));
  ASSERT_NE(find(samples, "dcukit_gpu_temperature_celsius", "1"), nullptr);
  EXPECT_EQ(find(samples, "dcukit_gpu_temperature_celsius", "1")->label("hpc_job"), "4243,4250");
  EXPECT_EQ(find(samples, "dcukit_gpu_temperature_celsius", "0")->label("hpc_job"), "") << "no job: no label";
  o.names = NameSet::dcgm;
  samples = serving::parse_text(render_metrics(s, o));
  ASSERT_NE(find(samples, "DCGM_FI_DEV_GPU_TEMP", "1"), nullptr);
  EXPECT_EQ(find(samples, "DCGM_FI_DEV_GPU_TEMP", "1")->label("hpc_job"), "4243,4250");
  o.names = NameSet::amd;
  samples = serving::parse_text(render_metrics(s, o));
  ASSERT_NE(find(samples, "gpu_edge_temperature", "1", "gpu_id"), nullptr);
  EXPECT_EQ(find(samples, "gpu_edge_temperature", "1", "gpu_id")->label("job_id"), "4243,4250");
}

TEST(ExporterFleet, HealthAndThrottleReasonsAreSeriesOfTheirOwn) {
  Scrape s;
  s.snapshot = two_cards();
  RenderOptions o;
  o.health = [](const telemetry::DeviceState& d) { return d.temperature_c && *d.temperature_c > 90 ? 2 : 0; };
  const std::string text = render_metrics(s, o);
  const auto samples = serving::parse_text(text);
  ASSERT_NE(find(samples, "dcukit_gpu_health", "0"), nullptr) << text;
  EXPECT_EQ(find(samples, "dcukit_gpu_health", "0")->value, 0);
  EXPECT_EQ(find(samples, "dcukit_gpu_health", "1")->value, 2);
  EXPECT_EQ(find(samples, "dcukit_gpu_throttled", "0")->value, 0);
  EXPECT_EQ(find(samples, "dcukit_gpu_throttled", "1")->value, 1);
  std::set<std::string> reasons;
  for (const auto& x : samples)
    if (x.name == "dcukit_gpu_throttle_reason") reasons.insert(x.label("gpu") + ":" + x.label("reason"));
  EXPECT_EQ(reasons, (std::set<std::string>{"1:power_cap", "1:thermal_software"}));
  EXPECT_EQ(render_metrics(s, RenderOptions{}).find("dcukit_gpu_health"), std::string::npos)
      << "no judgment given: no health series";
}

}  // namespace
}  // namespace dcukit::exporter
