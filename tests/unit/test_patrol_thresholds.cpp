// patrol's limits: the defaults per vendor, --limit's forms and errors, and each device figure
// judged (temperature, power against cap, memory, ECC, a PCIe link below its maximum).
#include <gtest/gtest.h>

#include "patrol/thresholds.h"
#include "patrol/types.h"
#include "test_telemetry_helpers.h"

namespace dcukit::patrol {
namespace {

using telemetry::Vendor;

const Finding* find(const Report& r, const std::string& subject, const std::string& check) {
  for (const auto& f : r.findings)
    if (f.subject == subject && f.check == check) return &f;
  return nullptr;
}

// The highest value a limit's range lets pass, for a range that alerts above its end.
double end_of(const std::optional<Range>& r) {
  return r ? r->end : -1;
}

TEST(PatrolThresholds, DefaultsDifferByVendor) {
  EXPECT_EQ(end_of(Thresholds::default_limit(Metric::temperature, Vendor::nvidia).crit), 88);
  EXPECT_EQ(end_of(Thresholds::default_limit(Metric::temperature, Vendor::amd).crit), 100);
  EXPECT_EQ(end_of(Thresholds::default_limit(Metric::temperature, Vendor::hygon).crit), 95);
  // One uncorrected error is critical: the range "0" alerts above 0.
  const Limit ecc = Thresholds::default_limit(Metric::ecc_uncorrected, std::nullopt);
  EXPECT_EQ(judge(0, ecc), State::ok);
  EXPECT_EQ(judge(1, ecc), State::critical);
  EXPECT_FALSE(Thresholds::default_limit(Metric::busy, Vendor::hygon).warn);
}

// The plugin guidelines' table (nagios-plugins.org/doc/guidelines.html#THRESHOLDFORMAT), row by
// row, with values on each side of each end point.
TEST(PatrolRange, TheGuidelinesTable) {
  struct Row {
    const char* range;
    std::vector<std::pair<double, bool>> values;  // value, alerts
  };
  const Row rows[] = {
      {"10", {{-1, true}, {0, false}, {5, false}, {10, false}, {10.5, true}, {11, true}}},
      {"10:", {{-5, true}, {9.9, true}, {10, false}, {1e9, false}}},
      {"~:10", {{-1e9, false}, {10, false}, {10.1, true}}},
      {"10:20", {{9, true}, {10, false}, {15, false}, {20, false}, {21, true}}},
      {"@10:20", {{9, false}, {10, true}, {15, true}, {20, true}, {21, false}}},
      {"@~:10", {{-3, true}, {10, true}, {11, false}}},
      {"0", {{0, false}, {1, true}, {-0.5, true}}},
  };
  for (const auto& row : rows) {
    auto r = parse_range(row.range);
    ASSERT_TRUE(r) << row.range << ": " << r.error().message;
    EXPECT_EQ(r->text, row.range);
    for (const auto& [v, alerts] : row.values) EXPECT_EQ(r->alerts(v), alerts) << row.range << " at " << v;
  }
}

TEST(PatrolRange, WhatIsNotARange) {
  for (const char* bad : {"", "@", "ten", "10:5", "~", "1:2:3", "10::", "nan", "inf", ":10"}) {
    auto r = parse_range(bad);
    EXPECT_FALSE(r) << "'" << bad << "' was read as a range";
    if (!r) {
      EXPECT_NE(r.error().message.find("10:20"), std::string::npos) << r.error().message;  // names the forms
    }
  }
}

TEST(PatrolRange, WhyAValueAlerts) {
  EXPECT_EQ(parse_range("95")->why(97, " C"), "above 95 C");
  EXPECT_EQ(parse_range("95")->why(-2, " C"), "below 0 C");
  EXPECT_EQ(parse_range("10:")->why(3), "below 10");
  EXPECT_EQ(parse_range("@10:20")->why(15), "within 10..20");
}

TEST(PatrolThresholds, LimitForms) {
  Thresholds t;
  ASSERT_TRUE(t.set("temperature=70,80"));
  EXPECT_EQ(end_of(t.limit(Metric::temperature, Vendor::nvidia).warn), 70);
  EXPECT_EQ(end_of(t.limit(Metric::temperature, Vendor::hygon).crit), 80);
  EXPECT_EQ(judge(70, t.limit(Metric::temperature, Vendor::hygon)), State::ok);  // the end point passes
  EXPECT_EQ(judge(70.5, t.limit(Metric::temperature, Vendor::hygon)), State::warning);
  EXPECT_EQ(judge(81, t.limit(Metric::temperature, Vendor::hygon)), State::critical);
  ASSERT_TRUE(t.set("busy=90"));
  EXPECT_EQ(end_of(t.limit(Metric::busy, std::nullopt).warn), 90);
  EXPECT_FALSE(t.limit(Metric::busy, std::nullopt).crit);
  ASSERT_TRUE(t.set("power=,110"));
  EXPECT_FALSE(t.limit(Metric::power, std::nullopt).warn);
  EXPECT_EQ(end_of(t.limit(Metric::power, std::nullopt).crit), 110);
  // A single range with a colon is a Nagios range, the warning: 10:20 alerts outside 10..20.
  ASSERT_TRUE(t.set("memory=10:20"));
  EXPECT_EQ(judge(15, t.limit(Metric::memory, std::nullopt)), State::ok);
  EXPECT_EQ(judge(25, t.limit(Metric::memory, std::nullopt)), State::warning);
  EXPECT_FALSE(t.limit(Metric::memory, std::nullopt).crit);
  ASSERT_TRUE(t.set("memory=@0:5,~:99"));  // almost empty is a warning; above 99 critical
  EXPECT_EQ(judge(3, t.limit(Metric::memory, std::nullopt)), State::warning);
  EXPECT_EQ(judge(50, t.limit(Metric::memory, std::nullopt)), State::ok);
  EXPECT_EQ(judge(99.5, t.limit(Metric::memory, std::nullopt)), State::critical);
  ASSERT_TRUE(t.set("ecc-corrected=off"));
  EXPECT_FALSE(t.limit(Metric::ecc_corrected, std::nullopt).warn);
  ASSERT_TRUE(t.set("temperature=60,65"));  // given again: the last wins
  EXPECT_EQ(end_of(t.limit(Metric::temperature, Vendor::amd).warn), 60);
  ASSERT_TRUE(t.set("pcie=off"));
  EXPECT_FALSE(t.pcie());
}

TEST(PatrolThresholds, BadLimitsNameTheTextAndTheFix) {
  Thresholds t;
  auto st = t.set("temp=80,90");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("no limit is called 'temp'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("temperature"), std::string::npos);
  st = t.set("memory=ninety");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("'ninety' is not a number"), std::string::npos) << st.message();
  st = t.set("memory=99:90");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("start is above its end"), std::string::npos) << st.message();
  st = t.set("memory=1,2,3");
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("KEY=WARN,CRIT"), std::string::npos) << st.message();
  EXPECT_FALSE(t.set("memory=,"));
  EXPECT_FALSE(t.set("memory"));
  EXPECT_FALSE(t.set("pcie=maybe"));
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
  EXPECT_EQ(find(r, "gpu3", "temperature")->message, "97 C (critical: above 95 C)");
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
      EXPECT_EQ(p.warn, "315");  // 105% of the 300 W cap, in watts
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
  ASSERT_TRUE(t.set("temperature=50,60"));  // warn above 50 C: 53 C warns
  Report hot;
  for (const auto& d : snap->devices) check_device(d, t, hot);
  EXPECT_EQ(hot.state, State::warning);
  ASSERT_TRUE(t.set("temperature=50:60"));  // the Nagios range 50:60 alerts outside 50..60: 53 C does not
  Report inside;
  for (const auto& d : snap->devices) check_device(d, t, inside);
  EXPECT_EQ(inside.state, State::ok);
}

}  // namespace
}  // namespace dcukit::patrol
