// The merge of several sources and the collector's order, deadlines and fallbacks, with fake
// sources standing for NVML, rocm_smi, sysfs and the vendor tools.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "telemetry/collector.h"
#include "telemetry/merge.h"
#include "test_telemetry_helpers.h"
#include "no_hang.h"

namespace dcukit::telemetry {
namespace {

using namespace std::chrono_literals;
using testutil::has_warning;

DeviceState device(int index, std::optional<std::string> bus, SourceKind src) {
  DeviceState d;
  d.index = index;
  d.bus_id = std::move(bus);
  stamp_sources(d, src);
  return d;
}

class FakeSource : public Source {
public:
  FakeSource(std::string name, SourceSample sample, std::chrono::milliseconds delay = 0ms)
      : m_name(std::move(name)), m_sample(std::move(sample)), m_delay(delay) {}
  std::string name() const override { return m_name; }
  SourceSample sample(const Snapshot& so_far) override {
    ++calls;
    seen_devices = so_far.devices.size();
    if (m_delay > 0ms) std::this_thread::sleep_for(m_delay);
    return m_sample;
  }
  std::atomic<int> calls{0};
  std::atomic<std::size_t> seen_devices{0};

private:
  std::string m_name;
  SourceSample m_sample;
  std::chrono::milliseconds m_delay;
};

SourceSample ok_with(std::vector<DeviceState> devices) {
  SourceSample s;
  s.snapshot.devices = std::move(devices);
  return s;
}

TEST(TelemetryMerge, FirstSourceWinsAndEachFigureKeepsItsSource) {
  Snapshot base;
  DeviceState a = device(0, "0000:41:00.0", SourceKind::nvml);
  a.temperature_c = 41;
  a.name = "NVIDIA H200";
  stamp_sources(a, SourceKind::nvml);
  base.devices.push_back(a);

  Snapshot next;
  DeviceState b;
  b.index = 3;  // sysfs numbers differently; the bus id says it is the same device
  b.bus_id = "0000:41:00.0";
  b.temperature_c = 99;  // NVML's figure stays
  b.numa_node = 1;
  stamp_sources(b, SourceKind::sysfs);
  next.devices.push_back(b);
  next.warnings.push_back("from sysfs");

  merge_into(base, next);
  ASSERT_EQ(base.devices.size(), 1u);
  const auto& d = base.devices[0];
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.temperature_c, 41.0);
  EXPECT_EQ(d.sources.at(Field::temperature_c), SourceKind::nvml);
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.sources.at(Field::numa_node), SourceKind::sysfs);
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_TRUE(has_warning(base, "from sysfs"));
}

TEST(TelemetryMerge, WithoutBusIdsTheSamePositionIsTheSameDevice) {
  Snapshot base, next;
  for (int i = 0; i < 2; ++i) {
    DeviceState d = device(i, "0000:0" + std::to_string(5 + i) + ":00.0", SourceKind::sysfs);
    d.vendor = Vendor::hygon;
    base.devices.push_back(d);
    DeviceState t;  // hy-smi's table: no bus ids
    t.index = i;
    t.power_cap_w = 400;
    t.vendor = Vendor::hygon;
    stamp_sources(t, SourceKind::hy_smi);
    next.devices.push_back(t);
  }
  merge_into(base, next);
  ASSERT_EQ(base.devices.size(), 2u);
  EXPECT_EQ(base.devices[1].power_cap_w, 400.0);
  EXPECT_EQ(base.devices[1].sources.at(Field::power_cap_w), SourceKind::hy_smi);
}

TEST(TelemetryMerge, UnmatchedDevicesAreAppendedWithAFreeIndex) {
  Snapshot base, next;
  base.devices.push_back(device(0, "0000:41:00.0", SourceKind::nvml));
  DeviceState amd = device(0, "0000:c1:00.0", SourceKind::sysfs);
  amd.vendor = Vendor::amd;
  next.devices.push_back(amd);
  next.devices.push_back(device(1, "0000:41:00.0", SourceKind::sysfs));
  merge_into(base, next);
  ASSERT_EQ(base.devices.size(), 2u);
  EXPECT_EQ(base.devices[1].bus_id, "0000:c1:00.0");
  EXPECT_EQ(base.devices[1].index, 1);
}

TEST(TelemetryCollect, SourcesInOrderFillWhatTheFirstLacks) {
  DeviceState n = device(0, "0000:41:00.0", SourceKind::nvml);
  n.temperature_c = 40;
  stamp_sources(n, SourceKind::nvml);
  DeviceState s = device(0, "0000:41:00.0", SourceKind::sysfs);
  s.temperature_c = 45;
  s.numa_node = 1;
  stamp_sources(s, SourceKind::sysfs);
  auto nvml = std::make_shared<FakeSource>("nvml", ok_with({n}));
  auto sysfs = std::make_shared<FakeSource>("sysfs", ok_with({s}));
  Collector c({nvml, sysfs}, 2000ms);
  const Snapshot snap = c.sample();
  ASSERT_EQ(snap.devices.size(), 1u);
  EXPECT_EQ(snap.devices[0].temperature_c, 40.0);
  EXPECT_EQ(snap.devices[0].numa_node, 1);
  EXPECT_EQ(snap.devices[0].sources.at(Field::numa_node), SourceKind::sysfs);
  EXPECT_EQ(sysfs->seen_devices.load(), 1u);  // a later source sees what the earlier found
  ASSERT_EQ(snap.sources.size(), 2u);
  EXPECT_EQ(snap.sources[0].name, "nvml");
  EXPECT_EQ(snap.sources[0].state, SourceState::ok);
  EXPECT_FALSE(snap.timestamp.empty());
}

TEST(TelemetryCollect, UnavailableSourceFallsThroughToTheNext) {
  SourceSample missing;
  missing.state = SourceState::unavailable;
  missing.detail = "libnvidia-ml.so.1 not loaded";
  DeviceState s = device(0, "0000:05:00.0", SourceKind::sysfs);
  s.busy_percent = 12;
  stamp_sources(s, SourceKind::sysfs);
  Collector c({std::make_shared<FakeSource>("nvml", missing), std::make_shared<FakeSource>("sysfs", ok_with({s}))},
              2000ms);
  const Snapshot snap = c.sample();
  ASSERT_EQ(snap.devices.size(), 1u);
  EXPECT_EQ(snap.devices[0].busy_percent, 12.0);
  EXPECT_EQ(snap.sources[0].state, SourceState::unavailable);
  EXPECT_EQ(snap.sources[0].detail, "libnvidia-ml.so.1 not loaded");
}

TEST(TelemetryCollect, HungSourceIsGivenUpAtTheDeadlineAndNotAskedAgain) {
  DeviceState s = device(0, "0000:05:00.0", SourceKind::sysfs);
  auto hung = std::make_shared<FakeSource>("rocm_smi_lib", ok_with({}), testutil::kStall);
  auto sysfs = std::make_shared<FakeSource>("sysfs", ok_with({s}));
  Collector c({hung, sysfs}, 200ms);
  const auto t0 = std::chrono::steady_clock::now();
  Snapshot snap = c.sample();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, testutil::kNoHang);
  EXPECT_EQ(snap.devices.size(), 1u);  // the next source still answered
  EXPECT_EQ(snap.sources[0].state, SourceState::failed);
  EXPECT_TRUE(has_warning(snap, "rocm_smi_lib did not answer within 0.2 s"));
  snap = c.sample();
  EXPECT_EQ(hung->calls.load(), 1);  // its first call may still be stuck: it is not called again
  EXPECT_EQ(snap.sources[0].state, SourceState::failed);
  EXPECT_EQ(sysfs->calls.load(), 2);
}

TEST(TelemetryCollect, NoGpuSaysWhatEachSourceReported) {
  SourceSample none;
  none.state = SourceState::unavailable;
  none.detail = "not here";
  Collector c({std::make_shared<FakeSource>("nvml", none), std::make_shared<FakeSource>("sysfs", ok_with({}))}, 1000ms);
  const Snapshot snap = c.sample();
  EXPECT_TRUE(snap.devices.empty());
  EXPECT_TRUE(has_warning(snap, "no GPU found; nvml: unavailable (not here)"));
}

TEST(TelemetryCollect, SourceChoiceNames) {
  EXPECT_EQ(parse_source_choice("rocm-smi-lib"), SourceChoice::rocm_smi_lib);
  EXPECT_EQ(parse_source_choice("auto"), SourceChoice::all);
  EXPECT_FALSE(parse_source_choice("rsmi"));
  CollectOptions o;
  o.choice = SourceChoice::sysfs;
  const auto sources = make_sources(o);
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0]->name(), "sysfs");
  EXPECT_EQ(make_sources(CollectOptions{}).size(), 4u);
}

}  // namespace
}  // namespace dcukit::telemetry
