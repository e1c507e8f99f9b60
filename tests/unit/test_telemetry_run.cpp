// telemetry::run, the engine under `dcukit telemetry`: one reading, a counted watch, a file.
#include <gtest/gtest.h>

#include "telemetry/run.h"
#include "test_telemetry_helpers.h"

using namespace dcukit;

TEST(TelemetryRun, ACountedWatchHandsEachReadingOverAsItIsTaken) {
  telemetry::Request r;
  r.collect.choice = telemetry::SourceChoice::sysfs;
  r.collect.root = dcukit::util::Root(testutil::telemetry_fixture("sysfs-dcu-host"));
  r.every = std::chrono::milliseconds(10);
  r.count = 3;
  std::vector<bool> firsts;
  r.on_reading = [&](const telemetry::Snapshot& s, bool first) {
    EXPECT_EQ(s.devices.size(), 3u);
    firsts.push_back(first);
    return true;
  };
  const auto report = telemetry::run(r);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->readings, 3);
  EXPECT_TRUE(report->any_device);
  EXPECT_TRUE(report->written);
  EXPECT_EQ(firsts, (std::vector<bool>{true, false, false}));
}

TEST(TelemetryRun, AFileIsReadOnceAndAWriteThatFailsIsSaid) {
  telemetry::Request r;
  r.from = std::string(DCUKIT_FIXTURES) + "/telemetry/h200/csv.txt";
  r.on_reading = [](const telemetry::Snapshot&, bool) { return false; };
  const auto report = telemetry::run(r);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->readings, 1);
  EXPECT_FALSE(report->written);
  r.count = 2;
  const auto refused = telemetry::run(r);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("reads a file once"), std::string::npos);
  r.count = 0;
  r.from = "/no/such/capture.txt";
  EXPECT_FALSE(telemetry::run(r));
}
