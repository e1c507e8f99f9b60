// patrol's limits: the defaults per vendor, --limit's forms and errors, and each device figure
// judged (temperature, power against cap, memory, ECC, a PCIe link below its maximum).
#include <gtest/gtest.h>

#include "patrol/thresholds.h"
#include "test_telemetry_helpers.h"

namespace dcukit::patrol {
namespace {

using telemetry::Vendor;

const Finding* find(const Report& r, const std::string& subject, const std::string& check) {
  for (const auto& f : r.findings)
    if (f.subject == subject && f.check == check) return &f;
  return nullptr;
}

TEST(PatrolThresholds, DefaultsDifferByVendor) {
  EXPECT_EQ(Thresholds::default_limit(Metric::temperature, Vendor::nvidia).crit, 88);
  EXPECT_EQ(Thresholds::default_limit(Metric::temperature, Vendor::amd).crit, 100);
  EXPECT_EQ(Thresholds::default_limit(Metric::temperature, Vendor::hygon).crit, 95);
  EXPECT_EQ(Thresholds::default_limit(Metric::ecc_uncorrected, std::nullopt).crit, 1);
  EXPECT_FALSE(Thresholds::default_limit(Metric::busy, Vendor::hygon).warn);
}

TEST(PatrolThresholds, LimitForms) {
  Thresholds t;
  ASSERT_TRUE(t.set("temperature=70:80"));
  EXPECT_EQ(t.limit(Metric::temperature, Vendor::nvidia).warn, 70);
  EXPECT_EQ(t.limit(Metric::temperature, Vendor::hygon).crit, 80);
  ASSERT_TRUE(t.set("busy=90"));
  EXPECT_EQ(t.limit(Metric::busy, std::nullopt).warn, 90);
  EXPECT_FALSE(t.limit(Metric::busy, std::nullopt).crit);
  ASSERT_TRUE(t.set("power=:110"));
  EXPECT_FALSE(t.limit(Metric::power, std::nullopt).warn);
  EXPECT_EQ(t.limit(Metric::power, std::nullopt).crit, 110);
  ASSERT_TRUE(t.set("ecc-corrected=off"));
  EXPECT_FALSE(t.limit(Metric::ecc_corrected, std::nullopt).warn);
  ASSERT_TRUE(t.set("temperature=60:65"));  // given again: the last wins
  EXPECT_EQ(t.limit(Metric::temperature, Vendor::amd).warn, 60);
  ASSERT_TRUE(t.set("pcie=off"));
  EXPECT_FALSE(t.pcie());
}

TEST(PatrolThresholds, BadLimitsNameTheTextAndTheFix) {
  Thresholds t;
  auto st = t.set("temp=80:90");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("no limit is called 'temp'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("temperature"), std::string::npos);
  st = t.set("memory=ninety");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("'ninety' is not a number"), std::string::npos) << st.message();
  st = t.set("memory=99:90");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("above the critical"), std::string::npos);
  EXPECT_FALSE(t.set("memory"));
  EXPECT_FALSE(t.set("pcie=maybe"));
}

TEST(PatrolThresholds, JudgeAtOrAboveALevel) {
  const Limit l{80, 90};
  EXPECT_EQ(judge(79.9, l), State::ok);
  EXPECT_EQ(judge(80, l), State::warning);
  EXPECT_EQ(judge(90, l), State::critical);
  EXPECT_EQ(judge(1e9, Limit{}), State::ok);
}

TEST(PatrolThresholds, AHotDegradedDeviceWithUncorrectedEcc) {
  telemetry::DeviceState d;
  d.index = 3;
  d.vendor = Vendor::hygon;
  d.temperature_c = 97;
  d.power_w = 250;
  d.power_cap_w = 300;
  d.memory_used_bytes = 60ull << 30;
  d.memory_total_bytes = 64ull << 30;
  d.busy_percent = 100;
  d.pcie_gen = 3;
  d.pcie_gen_max = 4;
  d.pcie_width = 8;
  d.pcie_width_max = 16;
  d.ecc_uncorrected = 2;
  d.ecc_corrected = 5;
  Report r;
  check_device(d, Thresholds{}, r);
  EXPECT_EQ(r.state, State::critical);
  ASSERT_TRUE(find(r, "gpu3", "temperature"));
  EXPECT_EQ(find(r, "gpu3", "temperature")->state, State::critical);
  EXPECT_EQ(find(r, "gpu3", "temperature")->message, "97 C (critical at 95 C)");
  EXPECT_EQ(find(r, "gpu3", "power")->state, State::ok);
  EXPECT_EQ(find(r, "gpu3", "memory")->state, State::ok);  // 93.75% < 95
  EXPECT_EQ(find(r, "gpu3", "ecc-uncorrected")->state, State::critical);
  EXPECT_EQ(find(r, "gpu3", "ecc-corrected")->state, State::ok);
  const auto* pcie = find(r, "gpu3", "pcie");
  ASSERT_TRUE(pcie);
  EXPECT_EQ(pcie->state, State::warning);
  EXPECT_NE(pcie->message.find("width x8 of x16"), std::string::npos) << pcie->message;
  EXPECT_NE(pcie->message.find("gen 3 of 4 while 100% busy"), std::string::npos) << pcie->message;
  bool power_perf = false;
  for (const auto& p : r.perfdata)
    if (p.label == "gpu3_power_watts") {
      power_perf = true;
      EXPECT_EQ(p.value, 250);
      EXPECT_DOUBLE_EQ(*p.warn, 315);  // 105% of the 300 W cap
      EXPECT_EQ(*p.max, 300);
    }
  EXPECT_TRUE(power_perf);
}

TEST(PatrolThresholds, AnIdleDeviceMayTrainItsLinkDown) {
  telemetry::DeviceState d;
  d.busy_percent = 0;
  d.pcie_gen = 1;
  d.pcie_gen_max = 5;
  d.pcie_width = 16;
  d.pcie_width_max = 16;
  Report r;
  check_device(d, Thresholds{}, r);
  EXPECT_EQ(r.state, State::ok);
  Thresholds off;
  ASSERT_TRUE(off.set("pcie=off"));
  Report r2;
  d.pcie_width = 4;
  check_device(d, off, r2);
  EXPECT_FALSE(find(r2, "gpu0", "pcie"));
}

TEST(PatrolThresholds, TheH200CaptureIsWithinTheDefaults) {
  auto snap = telemetry::read_capture_file(testutil::telemetry_fixture("h200/csv.txt"));
  ASSERT_TRUE(snap) << snap.error().message;
  Report r;
  for (const auto& d : snap->devices) check_device(d, Thresholds{}, r);
  EXPECT_EQ(r.state, State::ok);
  ASSERT_TRUE(find(r, "gpu0", "temperature"));
  EXPECT_EQ(find(r, "gpu0", "temperature")->message, "53 C");
  Thresholds t;
  ASSERT_TRUE(t.set("temperature=50:60"));
  Report hot;
  for (const auto& d : snap->devices) check_device(d, t, hot);
  EXPECT_EQ(hot.state, State::warning);
}

}  // namespace
}  // namespace dcukit::patrol
