// `dcukit stress` on the CPU backend, the whole path without a GPU: levels, the checks, the
// telemetry watched over a fake sysfs whose clocks fall and temperature rises mid-run, ECC
// counters that grow, the test-only fault switch (a GEMM bit flipped, a memory cell that reads
// wrong), an unknown SKU and a stop. The tests wait for the run's own progress lines, never for
// a fixed time.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "flows/results.h"
#include "stress/levels.h"
#include "stress/render.h"
#include "stress/run.h"
#include "stress/thresholds.h"
#include "tempdir.h"
#include "test_telemetry_helpers.h"
#include "util/json_text.h"
#include "util/signals.h"

using namespace dcukit;
using namespace dcukit::stress;
namespace fs = std::filesystem;

namespace {

const CheckResult* find(const Report& r, CheckKind k) {
  if (r.devices.empty()) return nullptr;
  for (const auto& c : r.devices[0].checks)
    if (c.kind == k) return &c;
  return nullptr;
}

Request cpu_request(int level, int seconds) {
  Request q;
  q.level = level;
  q.duration = std::chrono::seconds(seconds);
  q.backend = device::BackendKind::cpu;
  q.devices = {0};
  q.sample_every = std::chrono::milliseconds(100);
  q.collect.root = util::Root("/nonexistent-telemetry-root");  // no telemetry unless a test gives one
  q.command = "dcukit stress --backend cpu";
  return q;
}

/// A copy of the DCU host's sysfs whose first GPU the CPU device stands for (by position).
struct FakeHost {
  testutil::TempDir dir{"stress_host"};
  std::string gpu;
  FakeHost() {
    fs::copy(testutil::telemetry_fixture("sysfs-dcu-host"), dir.path(), fs::copy_options::recursive);
    gpu = dir.file("sys/bus/pci/devices/0000:05:00.0");
    set("pp_dpm_sclk", "0: 300Mhz\n1: 800Mhz\n2: 1500Mhz *\n");  // at its top clock while loaded
  }
  /// Replaces a file of the GPU in one rename, so that telemetry never reads half of it.
  void set(const std::string& rel, const std::string& content) const {
    const std::string path = gpu + "/" + rel;
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path + ".new") << content;
    fs::rename(path + ".new", path);
  }
};

/// Runs `q`, calling `on_step` (once) when the progress line naming `step` appears.
Report run_with(Request q, const std::string& step, const std::function<void()>& on_step) {
  std::atomic<bool> fired{false};
  q.progress = [&](const std::string& line) {
    if (!fired && line.find(step) != std::string::npos) {
      fired = true;
      on_step();
    }
  };
  auto r = stress::run(q);
  EXPECT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(fired) << "no progress line named " << step;
  return r.ok() ? *r : Report{};
}

}  // namespace

TEST(StressLevels, EachLevelIsANamedSetScaledToTheDuration) {
  auto one = plan_level(1, std::nullopt, {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 2u);
  auto three = plan_level(3, std::chrono::seconds(60), {});
  ASSERT_TRUE(three.ok());
  std::chrono::milliseconds total{0};
  for (const auto& s : *three) total += s.time;
  EXPECT_NEAR(static_cast<double>(total.count()), 60000, 10) << "scaled to --duration";
  auto power = plan_level(2, std::nullopt, {CheckKind::power});
  ASSERT_TRUE(power.ok());
  ASSERT_EQ(power->size(), 2u) << "power is judged under the GEMM's load";
  EXPECT_EQ((*power)[0].kind, CheckKind::gemm);
  EXPECT_EQ((*power)[1].kind, CheckKind::power);
  EXPECT_FALSE(plan_level(5, std::nullopt, {}).ok());
  EXPECT_GT(level_duration(4), std::chrono::hours(3));
}

TEST(StressThresholds, EverySkuHasItsFiguresWithSourcesAndIsFoundByPciIdOrKey) {
  ASSERT_GE(all_skus().size(), 3u);
  for (const auto& s : all_skus()) {
    ASSERT_TRUE(s.gemm && s.hbm) << s.key;
    EXPECT_TRUE(s.gemm_precision) << s.key;
    EXPECT_GT(s.gemm->expected, s.gemm->floor) << s.key;
    EXPECT_GT(s.hbm->expected, s.hbm->floor) << s.key;
    EXPECT_FALSE(s.gemm->source.empty() || s.hbm->source.empty() || s.power_source.empty()) << s.key;
    EXPECT_TRUE(s.power_min_ratio && *s.power_min_ratio > 0 && *s.power_min_ratio < 1) << s.key;
  }
  ASSERT_TRUE(find_sku("10de:2330", ""));
  EXPECT_EQ(find_sku("10de:2330", "")->key, "h100-sxm");
  ASSERT_TRUE(find_sku("", "bw1000"));
  EXPECT_FALSE(find_sku("1d94:ffff", "no-such-card")) << "an unknown SKU has no reference, and no error";
}

TEST(StressRun, ACleanCpuRunPassesEveryCheckItCanAndSaysNoReference) {
  auto r = stress::run(cpu_request(3, 8));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->devices.size(), 1u);
  for (CheckKind k : {CheckKind::kernel, CheckKind::hbm, CheckKind::memtest, CheckKind::gemm}) {
    const auto* c = find(*r, k);
    ASSERT_TRUE(c) << to_string(k);
    EXPECT_EQ(c->verdict, Verdict::pass) << to_string(k) << ": " << c->summary;
    EXPECT_EQ(c->errors, 0) << to_string(k);
  }
  EXPECT_EQ(find(*r, CheckKind::pcie)->verdict, Verdict::skip);
  EXPECT_EQ(find(*r, CheckKind::power)->verdict, Verdict::skip);
  const auto* gemm = find(*r, CheckKind::gemm);
  EXPECT_GT(gemm->series.size(), 2u);
  EXPECT_TRUE(gemm->rate && *gemm->rate > 0);
  EXPECT_EQ(gemm->reference, "no reference") << "an unknown SKU runs every check, with no floor";
  EXPECT_EQ(r->verdict(), Verdict::pass);
  // The report comes back through flows as the same document.
  const std::string doc = util::json_document(to_json(*r));
  auto back = flows::parse_result(doc, "stress.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kind, flows::ResultKind::stress);
  EXPECT_EQ(util::json_document(to_json(std::get<Report>(back->report))), doc);
}

TEST(StressRun, AFlippedGemmBitAndAMemoryCellThatReadsWrongAreCaughtCountedAndNamed) {
  ::setenv("DCUKIT_CPU_FAULTS", "gemm=2,readback=5", 1);  // read when the device is opened
  auto r = stress::run(cpu_request(3, 8));
  ::unsetenv("DCUKIT_CPU_FAULTS");
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (CheckKind k : {CheckKind::gemm, CheckKind::memtest}) {
    const auto* c = find(*r, k);
    ASSERT_TRUE(c) << to_string(k);
    EXPECT_EQ(c->verdict, Verdict::fail) << to_string(k) << ": " << c->summary;
    EXPECT_EQ(c->action, Action::drain_and_replace) << to_string(k);
    EXPECT_GT(c->errors, 0) << to_string(k);
  }
  EXPECT_EQ(r->devices[0].verdict, Verdict::fail);
  EXPECT_EQ(r->devices[0].action, Action::drain_and_replace);
  EXPECT_NE(render_text(*r).find("drain and replace"), std::string::npos);
}

TEST(StressRun, ClocksThatFallWhileTheTemperatureRisesAreThrottlingWithItsReason) {
  FakeHost host;
  Request q = cpu_request(2, 6);
  q.only = {CheckKind::health, CheckKind::gemm};
  q.collect.root = util::Root(host.dir.path());
  q.collect.choice = telemetry::SourceChoice::sysfs;
  const Report r = run_with(q, "gemm fp32", [&] {
    host.set("hwmon/hwmon3/temp1_input", "92000\n");  // hot first: every low-clock reading is hot
    host.set("pp_dpm_sclk", "0: 300Mhz *\n1: 800Mhz\n2: 1500Mhz\n");
  });
  const auto* health = find(r, CheckKind::health);
  ASSERT_TRUE(health);
  EXPECT_EQ(health->verdict, Verdict::warn);
  const auto says = [&](const std::string& part) {
    return std::any_of(health->evidence.begin(), health->evidence.end(),
                       [&](const std::string& e) { return e.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(says("clocks fell from 1500 to 300 MHz")) << render_text(r);
  EXPECT_TRUE(says("thermal (92 C)")) << render_text(r);
  EXPECT_FALSE(r.samples.empty());
}

TEST(StressRun, EccErrorsThatAppearDuringTheRunFailTheDevice) {
  FakeHost host;
  host.set("ras/umc_err_count", "ue: 0\nce: 0\n");
  Request q = cpu_request(2, 6);
  q.only = {CheckKind::health, CheckKind::gemm};
  q.collect.root = util::Root(host.dir.path());
  q.collect.choice = telemetry::SourceChoice::sysfs;
  const Report r = run_with(q, "gemm fp32", [&] { host.set("ras/umc_err_count", "ue: 2\nce: 5\n"); });
  const auto* health = find(r, CheckKind::health);
  ASSERT_TRUE(health);
  EXPECT_EQ(health->verdict, Verdict::fail) << render_text(r);
  EXPECT_EQ(health->action, Action::drain_and_replace);
  EXPECT_NE(render_text(r).find("2 uncorrected ECC errors during the run"), std::string::npos) << render_text(r);
  EXPECT_NE(render_text(r).find("5 corrected ECC errors during the run"), std::string::npos);
}

TEST(StressRun, AnXidAboutTheDeviceAndARetirementThatWaitsForAResetAreJudgedAsDcgmWould) {
  FakeHost host;
  const std::string kmsg = host.dir.file("dev/kmsg");
  fs::create_directories(host.dir.file("dev"));
  std::ofstream(kmsg) << "[ 1.0] NVRM: Xid (PCI:0000:05:00): 79, from before the run: not this run's\n";
  host.set("ras/gpu_vram_bad_pages", "0x000001ab : 0x00001000 : R\n");
  Request q = cpu_request(2, 6);
  q.only = {CheckKind::health, CheckKind::gemm};
  q.collect.root = util::Root(host.dir.path());
  q.collect.choice = telemetry::SourceChoice::sysfs;
  const Report r = run_with(q, "gemm fp32", [&] {
    std::ofstream(kmsg, std::ios::app) << "[ 9.0] NVRM: Xid (PCI:0000:05:00): 48, DBE (double bit error) ECC error\n"
                                       << "[ 9.1] NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception on another GPU\n";
    host.set("ras/gpu_vram_bad_pages", "0x000001ab : 0x00001000 : R\n0x000003f0 : 0x00001000 : P\n");
  });
  const auto* health = find(r, CheckKind::health);
  ASSERT_TRUE(health);
  EXPECT_EQ(health->verdict, Verdict::fail) << render_text(r);
  EXPECT_EQ(health->action, Action::reset) << render_text(r);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("Xid 48 (double-bit ECC error)"), std::string::npos) << text;
  EXPECT_EQ(text.find("Xid 79"), std::string::npos) << "what was logged before the run is not this run's";
  EXPECT_NE(text.find("waits for a GPU reset"), std::string::npos) << text;
  EXPECT_NE(text.find("1 page of memory retired"), std::string::npos)
      << text << testing::PrintToString(health->evidence);
  ASSERT_EQ(r.kernel.size(), 2u);
  EXPECT_EQ(r.kernel[1].device, -1) << "a GPU not under stress";
  EXPECT_NE(text.find("about a device not under stress"), std::string::npos) << text;
}

TEST(StressRun, AStopEndsTheRunAndKeepsWhatRan) {
  auto& stop = util::StopToken::process();
  stop.reset();
  Request q = cpu_request(3, 600);  // ten minutes, stopped as soon as the HBM check begins
  q.stop = &stop;
  const Report r = run_with(q, "hbm triad", [&] { stop.request_stop(); });
  stop.reset();
  EXPECT_TRUE(r.interrupted);
  ASSERT_TRUE(find(r, CheckKind::kernel));
  EXPECT_EQ(find(r, CheckKind::kernel)->verdict, Verdict::pass);
  EXPECT_FALSE(find(r, CheckKind::memtest)) << "nothing after the stop starts";
}

TEST(StressRun, BadInputIsAnErrorBeforeAnythingRuns) {
  Request q = cpu_request(2, 5);
  q.devices = {7};
  auto r = stress::run(q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--device 7"), std::string::npos) << r.error().message;
  q = cpu_request(9, 5);
  EXPECT_FALSE(stress::run(q).ok());
}

TEST(StressRun, TheH100RunsInDocsResultsReadBackThroughFlows) {
  for (const char* name : {"stress-h100-level2.json", "stress-h100-level3.json"}) {
    auto r = flows::read_result(std::string(DCUKIT_SOURCE_DIR) + "/docs/results/" + name);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
    ASSERT_EQ(r->kind, flows::ResultKind::stress) << name;
    const auto& report = std::get<Report>(r->report);
    ASSERT_EQ(report.devices.size(), 1u) << name;
    EXPECT_EQ(report.devices[0].verdict, Verdict::pass) << name;
    EXPECT_GT(report.samples.size(), 100u) << name;
  }
}
