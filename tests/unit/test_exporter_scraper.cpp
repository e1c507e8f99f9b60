// The scrape deadline: a reading stuck in the driver costs one collect error per scrape, never a
// hung scrape, and never a second worker while the first is stuck.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "exporter/exporter.h"
#include "exporter/scraper.h"
#include "guard/types.h"
#include "no_hang.h"

namespace dcukit::exporter {
namespace {

using namespace std::chrono_literals;

/// A gate the fake reading waits at until the test opens it.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> calls{0};
  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    cv.notify_all();
  }
};

ReadFn gated_reader(std::shared_ptr<Gate> gate) {
  return [gate]() -> Result<telemetry::Snapshot> {
    ++gate->calls;
    std::unique_lock<std::mutex> lock(gate->mutex);
    gate->cv.wait(lock, [&] { return gate->open; });
    telemetry::Snapshot s;
    s.devices.emplace_back();
    return s;
  };
}

TEST(ExporterScraper, AStuckReadingCostsAnErrorNotAHungScrape) {
  auto gate = std::make_shared<Gate>();
  Scraper scraper(gated_reader(gate), 200ms, "test");
  const auto t0 = std::chrono::steady_clock::now();
  const Scrape first = scraper.scrape();
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(took, testutil::kNoHang);
  EXPECT_GE(took, 190ms);
  EXPECT_FALSE(first.snapshot);
  EXPECT_NE(first.error.find("did not finish within 200ms"), std::string::npos) << first.error;
  EXPECT_EQ(first.collect_errors_total, 1u);
  const Scrape second = scraper.scrape();
  EXPECT_EQ(second.collect_errors_total, 2u);
  EXPECT_EQ(gate->calls.load(), 1) << "a second reading was started while the first was stuck";
  gate->release();
  const Scrape third = scraper.scrape();
  ASSERT_TRUE(third.snapshot) << third.error;
  EXPECT_EQ(third.collect_errors_total, 2u);
  EXPECT_EQ(third.scrapes_total, 3u);
}

TEST(ExporterScraper, EachScrapeReadsAgain) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  Scraper scraper(
      [calls]() -> Result<telemetry::Snapshot> {
        ++*calls;
        return telemetry::Snapshot{};
      },
      1s, "test");
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(scraper.scrape().snapshot);
  EXPECT_EQ(calls->load(), 3);
}

TEST(ExporterScraper, AFailedReadingCarriesItsMessage) {
  Scraper scraper([]() -> Result<telemetry::Snapshot> { return Error{"x.txt: empty"}; }, 1s, "x.txt");
  const Scrape s = scraper.scrape();
  EXPECT_EQ(s.error, "x.txt: empty");
  EXPECT_EQ(s.collect_errors_total, 1u);
}

}  // namespace
}  // namespace dcukit::exporter

// The exporter's default port is its own: 9400 is dcgm-exporter's and 9401 guard's, and an
// operator runs them side by side (contrib/ and the docs say 9402 too).
TEST(ExporterOptions, TheDefaultPortIsNotDcgmExportersNorGuards) {
  const std::string listen = dcukit::exporter::Request{}.listen;
  EXPECT_EQ(listen, "127.0.0.1:9402");
  EXPECT_NE(dcukit::guard::Options{}.listen, listen);
}
