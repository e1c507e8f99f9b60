// `dcukit exporter --names dcgm|amd`: dcgm-exporter's and AMD device-metrics-exporter's series
// names, labels (in their order) and units, from the captured H200 and DCU outputs. The
// dashboards themselves run in tests/integration/test_exporter_dashboards.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "exporter/metrics.h"
#include "serving/prometheus.h"
#include "telemetry/capture.h"
#include "test_telemetry_helpers.h"

namespace dcukit::exporter {
namespace {

std::vector<serving::Sample> render(const std::string& capture, NameSet names) {
  auto snap = telemetry::read_capture_file(testutil::telemetry_fixture(capture));
  EXPECT_TRUE(snap) << snap.error().message;
  Scrape s;
  s.snapshot = *snap;
  s.source = "capture";
  return serving::parse_text(render_metrics(s, {names, {"gpu-node-01", "lab"}}));
}

const serving::Sample* find(const std::vector<serving::Sample>& samples, const std::string& name,
                            const std::string& label = "", const std::string& value = "") {
  for (const auto& s : samples)
    if (s.name == name && (label.empty() || s.label(label) == value)) return &s;
  return nullptr;
}

TEST(ExporterNames, NamesAreParsedAndShown) {
  EXPECT_EQ(parse_name_set("dcgm"), NameSet::dcgm);
  EXPECT_EQ(parse_name_set("amd"), NameSet::amd);
  EXPECT_EQ(parse_name_set("dcukit"), NameSet::dcukit);
  EXPECT_FALSE(parse_name_set("DCGM"));
  EXPECT_EQ(to_string(NameSet::amd), "amd");
}

TEST(ExporterNames, DcgmBusIdsHaveAnEightDigitDomainInUpperCase) {
  EXPECT_EQ(dcgm_bus_id("0000:1b:00.0"), "00000000:1B:00.0");
  EXPECT_EQ(dcgm_bus_id("1b:00.0"), "00000000:1B:00.0");
  EXPECT_EQ(dcgm_bus_id("00000000:07:00.0"), "00000000:07:00.0");
}

TEST(ExporterNames, TheH200UnderDcgmExportersNamesLabelsAndUnits) {
  const auto samples = render("h200/csv.txt", NameSet::dcgm);
  const auto* temp = find(samples, "DCGM_FI_DEV_GPU_TEMP", "gpu", "0");
  ASSERT_TRUE(temp);
  EXPECT_EQ(temp->value, 53);
  // dcgm-exporter's labels, in its order.
  std::vector<std::string> names;
  for (const auto& [k, v] : temp->labels) names.push_back(k);
  ASSERT_GE(names.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 6),
            (std::vector<std::string>{"gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"}));
  EXPECT_EQ(temp->label("Hostname"), "gpu-node-01");
  EXPECT_EQ(temp->label("device"), "nvidia0");
  EXPECT_EQ(temp->label("modelName"), "NVIDIA H200");
  EXPECT_EQ(temp->label("pci_bus_id").size(), 16u) << temp->label("pci_bus_id");  // 00000000:BB:DD.F
  // Units: MiB and MHz, as dcgm-exporter's.
  const auto* used = find(samples, "DCGM_FI_DEV_FB_USED", "gpu", "0");
  const auto* total = find(samples, "DCGM_FI_DEV_FB_TOTAL", "gpu", "0");
  const auto* free = find(samples, "DCGM_FI_DEV_FB_FREE", "gpu", "0");
  ASSERT_TRUE(used && total && free);
  EXPECT_GT(total->value, 100000);  // 141 GiB in MiB
  EXPECT_LT(total->value, 200000);
  EXPECT_NEAR(used->value + free->value, total->value, 1e-6);
  EXPECT_TRUE(find(samples, "DCGM_FI_DEV_POWER_USAGE"));
  EXPECT_EQ(find(samples, "DCGM_FI_DEV_POWER_MGMT_LIMIT")->value, 700);
  EXPECT_FALSE(find(samples, "dcukit_gpu_temperature_celsius"));
  EXPECT_TRUE(find(samples, "dcukit_exporter_devices")) << "the exporter's own families stay";
}

TEST(ExporterNames, ADcuUnderAmdsNamesAndLabels) {
  const auto samples = render("samples/hy-smi/json-k100ai-8card-partial-gpustack2032.txt", NameSet::amd);
  const auto* temp = find(samples, "gpu_edge_temperature", "gpu_id", "0");
  ASSERT_TRUE(temp);
  for (const char* l : {"gpu_id", "card_model", "gpu_partition_id", "gpu_compute_partition_type",
                        "gpu_memory_partition_type", "deployment_mode", "serial_number", "hostname", "pod",
                        "namespace", "container", "job_id", "job_user", "job_partition", "gpu_uuid", "cluster_name"}) {
    bool has = false;
    for (const auto& [k, v] : temp->labels) has = has || k == l;
    EXPECT_TRUE(has) << l;
  }
  EXPECT_EQ(temp->label("hostname"), "gpu-node-01");
  EXPECT_EQ(temp->label("cluster_name"), "lab");
  EXPECT_FALSE(temp->label("gpu_uuid").empty());
  const auto* used = find(samples, "gpu_used_vram", "gpu_id", "0");
  const auto* total = find(samples, "gpu_total_vram", "gpu_id", "0");
  const auto* free = find(samples, "gpu_free_vram", "gpu_id", "0");
  ASSERT_TRUE(used && total && free);
  EXPECT_NEAR(used->value + free->value, total->value, 1e-6);
  EXPECT_GT(total->value, 30000);  // a 64 GB card in MB
  EXPECT_TRUE(find(samples, "gpu_gfx_busy_instantaneous", "xcc_index", "0"));
  const auto* nodes = find(samples, "gpu_nodes_total");
  ASSERT_TRUE(nodes);
  EXPECT_EQ(nodes->value, 3);
}

}  // namespace
}  // namespace dcukit::exporter
