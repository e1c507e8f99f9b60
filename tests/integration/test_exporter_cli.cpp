// `dcukit exporter` as Prometheus sees it: the real binary on 127.0.0.1, scraped over HTTP, with
// figures from captured tool outputs (--from), a reading stuck on a FIFO, a host without devices,
// and its text checked by Prometheus' own promtool.
#include <sys/stat.h>

#include <cmath>
#include <fstream>

#include "fixture.h"
#include "held_port.h"
#include "ops_fixture.h"
#include "serving/prometheus.h"
#include "no_hang.h"

namespace itest {
namespace {

using namespace std::chrono_literals;

double value_of(const std::string& text, const std::string& name, const std::string& gpu = "") {
  for (const auto& s : dcukit::serving::parse_text(text))
    if (s.name == name && (gpu.empty() || s.label("gpu") == gpu)) return s.value;
  return std::nan("");
}

std::string label_of(const std::string& text, const std::string& name, const std::string& label) {
  for (const auto& s : dcukit::serving::parse_text(text))
    if (s.name == name) return s.label(label);
  return "<no " + name + ">";
}

TEST(ExporterCli, ServesACapturedH200OverHttp) {
  testutil::TempDir dir("exporter_h200");
  ExporterProcess exporter(dir, {"--from", telemetry_fixture("h200/csv.txt")}, "exporter");
  ASSERT_GT(exporter.port(), 0) << exporter.err();
  const auto first = http_get(exporter.url());
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_NE(first.body.find("# HELP dcukit_gpu_temperature_celsius"), std::string::npos);
  EXPECT_NE(first.body.find("# TYPE dcukit_gpu_temperature_celsius gauge"), std::string::npos);
  EXPECT_EQ(value_of(first.body, "dcukit_gpu_temperature_celsius", "0"), 53);
  EXPECT_EQ(value_of(first.body, "dcukit_gpu_power_cap_watts", "0"), 700);
  EXPECT_EQ(label_of(first.body, "dcukit_gpu_power_watts", "model"), "NVIDIA H200");
  EXPECT_EQ(value_of(first.body, "dcukit_exporter_scrapes_total"), 1);
  const auto second = http_get(exporter.url());
  EXPECT_EQ(value_of(second.body, "dcukit_exporter_scrapes_total"), 2);
  EXPECT_EQ(value_of(second.body, "dcukit_exporter_collect_errors_total"), 0);
  EXPECT_EQ(http_get(exporter.url("/healthz")).status, 200);
  EXPECT_EQ(http_get(exporter.url("/nothing")).status, 404);
  const Exit e = exporter.stop();
  EXPECT_FALSE(e.timed_out);
  EXPECT_EQ(e.code, 0) << e.err;
}

TEST(ExporterCli, ReadsTheFileAgainOnEachScrape) {
  testutil::TempDir dir("exporter_fresh");
  std::string csv = slurp(telemetry_fixture("h200/csv.txt"));
  const std::string path = dir.write("csv.txt", csv);
  ExporterProcess exporter(dir, {"--from", path}, "exporter");
  ASSERT_GT(exporter.port(), 0) << exporter.err();
  EXPECT_EQ(value_of(http_get(exporter.url()).body, "dcukit_gpu_temperature_celsius", "0"), 53);
  const auto p = csv.find("00000000:00:06.0, 53,");
  ASSERT_NE(p, std::string::npos);
  csv.replace(p, 21, "00000000:00:06.0, 61,");
  dir.write("csv.txt", csv);
  EXPECT_EQ(value_of(http_get(exporter.url()).body, "dcukit_gpu_temperature_celsius", "0"), 61);
}

// A FIFO as --from blocked every scrape until the deadline (and a thread for good); the reader
// now refuses it at once. A reading that is stuck for other reasons (a driver call) is held to
// the deadline: ExporterScraper.AStuckReadingCostsAnErrorNotAHungScrape.
TEST(ExporterCli, AFifoAsFromIsACollectErrorNotAHungScrape) {
  testutil::TempDir dir("exporter_stuck");
  const std::string fifo = dir.file("stuck.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);  // a blocking open would wait for a writer: never
  ExporterProcess exporter(dir, {"--from", fifo, "--deadline", "500ms"}, "exporter");
  ASSERT_GT(exporter.port(), 0) << exporter.err();
  for (int scrape = 1; scrape <= 2; ++scrape) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = http_get(exporter.url(), testutil::kNoHang);
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_LT(took, testutil::kNoHang);
    EXPECT_EQ(value_of(r.body, "dcukit_exporter_collect_errors_total"), scrape);
    EXPECT_EQ(value_of(r.body, "dcukit_exporter_collect_success"), 0);
    EXPECT_EQ(label_of(r.body, "dcukit_exporter_no_devices", "reason"), "read_failed") << r.body;
  }
  const Exit e = exporter.stop();
  EXPECT_FALSE(e.timed_out) << "the exporter did not stop while a reading was stuck";
  // The detail is in the log, once (it did not change between the scrapes).
  EXPECT_NE(e.err.find("is a FIFO, not a regular file"), std::string::npos) << e.err;
  EXPECT_EQ(e.err.find("is a FIFO"), e.err.rfind("is a FIFO")) << e.err;
}

TEST(ExporterCli, AHostWithoutDevicesStillServesAndSaysWhy) {
  testutil::TempDir dir("exporter_none");
  std::filesystem::create_directories(dir.file("root/sys/class/drm"));
  ExporterProcess exporter(dir, {"--source", "sysfs", "--root", dir.file("root")}, "exporter");
  ASSERT_GT(exporter.port(), 0) << exporter.err();
  const auto r = http_get(exporter.url());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(value_of(r.body, "dcukit_exporter_devices"), 0);
  EXPECT_EQ(value_of(r.body, "dcukit_exporter_no_devices"), 1);
  EXPECT_EQ(label_of(r.body, "dcukit_exporter_no_devices", "reason"), "no_source_found") << r.body;
  EXPECT_NE(exporter.stop().err.find("sysfs"), std::string::npos);  // the detail, in the log
}

TEST(ExporterCli, AnAddressOtherHostsReachMustBeAskedFor) {
  testutil::TempDir dir("exporter_any");
  Child child({DCUKIT_BINARY, "exporter", "--listen", "0.0.0.0:0", "--from", telemetry_fixture("h200/csv.txt")},
              dir.file("run"));
  const Exit e = child.wait(10s);
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.err.find("--listen-any"), std::string::npos) << e.err;
}

TEST(ExporterCli, APortInUseIsBadInput) {
  testutil::TempDir dir("exporter_busy");
  testutil::HeldPort held;
  ASSERT_GT(held.port(), 0);
  const std::string listen_at = "127.0.0.1:" + std::to_string(held.port());
  Child child({DCUKIT_BINARY, "exporter", "--listen", listen_at, "--from", telemetry_fixture("h200/csv.txt")},
              dir.file("run"));
  const Exit e = child.wait(10s);
  held.release();
  EXPECT_EQ(e.code, 2) << e.err;
  EXPECT_NE(e.err.find(listen_at), std::string::npos) << "names the address: " << e.err;
}

TEST(ExporterCli, PromtoolAcceptsTheMetrics) {
  const std::string promtool = find_tool("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian: apt-get install prometheus)";
  testutil::TempDir dir("exporter_promtool");
  const std::vector<std::string> captures = {"h200/csv.txt",
                                             "h200/q.txt",
                                             "samples/hy-smi/plain-hcu-8card-800w-training-load-a.txt",
                                             "samples/rocm-smi/plain-8xmi300x-ansi-italic-subheader-stuck-vram.txt",
                                             "samples/amd-smi/monitor-watch-8xmi300x-under-gst.txt",
                                             "samples/nvidia-smi/q-h100-80gb-load.txt",
                                             "samples/dcgm/diag-r1-v100-pass.txt"};
  for (std::size_t i = 0; i < captures.size(); ++i) {
    SCOPED_TRACE(captures[i]);
    ExporterProcess exporter(dir, {"--from", telemetry_fixture(captures[i])}, "exporter" + std::to_string(i));
    ASSERT_GT(exporter.port(), 0) << exporter.err();
    const auto r = http_get(exporter.url());
    ASSERT_EQ(r.status, 200) << r.body;
    const std::string metrics = dir.write("metrics" + std::to_string(i) + ".txt", r.body);
    Child check({"/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\"", promtool, metrics},
                dir.file("promtool" + std::to_string(i)), {}, Child::Stderr::with_out);
    const Exit e = check.wait(30s);
    EXPECT_EQ(e.code, 0) << e.out << "\n" << r.body;
  }
}

// Under dcgm-exporter's and AMD's names the text still parses as Prometheus reads it; promtool's
// naming advice (upper case, counters without _total) is theirs to follow, not a parse error.
TEST(ExporterCli, OtherExportersNamesParseAsPrometheusText) {
  const std::string promtool = find_tool("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian: apt-get install prometheus)";
  testutil::TempDir dir("exporter_names");
  int n = 0;
  for (const char* names : {"dcgm", "amd"})
    for (const char* capture : {"h200/csv.txt", "samples/hy-smi/json-k100ai-8card-partial-gpustack2032.txt",
                                "samples/rocm-smi/a-json-mi250-rocm5-wandb-fixture.txt"}) {
      SCOPED_TRACE(std::string(names) + " " + capture);
      const std::string id = std::to_string(n++);
      ExporterProcess exporter(dir, {"--names", names, "--from", telemetry_fixture(capture)}, "exporter" + id);
      ASSERT_GT(exporter.port(), 0) << exporter.err();
      const auto r = http_get(exporter.url());
      ASSERT_EQ(r.status, 200) << r.body;
      EXPECT_EQ(r.body.find("dcukit_gpu_"), std::string::npos) << "only the other exporter's device series";
      EXPECT_NE(r.body.find(std::string(names) == "dcgm" ? "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID="
                                                         : "gpu_edge_temperature{gpu_id=\"0\",card_model="),
                std::string::npos)
          << r.body;
      const std::string metrics = dir.write("metrics" + id + ".txt", r.body);
      Child check({"/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\"", promtool, metrics},
                  dir.file("promtool" + id), {}, Child::Stderr::with_out);
      const Exit e = check.wait(30s);
      EXPECT_EQ(e.out.find("error while linting"), std::string::npos) << e.out;
      EXPECT_EQ(e.out.find("parsing error"), std::string::npos) << e.out;
    }
}

}  // namespace
}  // namespace itest
