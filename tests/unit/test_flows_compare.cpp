// `dcukit compare` on synthetic bench reports: a known regression, noise only, a different card.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "flows/compare.h"
#include "core/stats.h"

using namespace dcukit;

namespace {

/// A measurement whose samples are `ms` (each run moving `work` bytes).
bench::Measurement memory_case(const std::string& name, std::vector<double> ms, double work = 1e9) {
  bench::Measurement m;
  m.benchmark = "memory";
  m.name = name;
  m.samples_ms = std::move(ms);
  m.time_ms = core::summarize(m.samples_ms);
  m.work = work;
  m.rate_unit = bench::RateUnit::byte_per_s;
  m.rate = work / (m.time_ms.median / 1e3);
  return m;
}

bench::Report report(const std::string& card, std::vector<bench::Measurement> results) {
  bench::Report r;
  r.backend = device::BackendKind::cuda;
  bench::DeviceReport d;
  d.info.name = card;
  d.results = std::move(results);
  r.devices.push_back(std::move(d));
  return r;
}

const flows::CompareRow& row(const flows::Comparison& c, const std::string& name) {
  for (const auto& r : c.rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

}  // namespace

TEST(Compare, ARegressionBeyondTheNoiseIsWorseAndNoiseAloneIsTheSame) {
  const auto base = report("NVIDIA H200", {memory_case("triad", {10.0, 10.1, 10.0, 9.9}),
                                           memory_case("copy", {10.0, 10.1, 10.0, 9.9}),
                                           memory_case("scale", {10.0, 10.1, 10.0, 9.9})});
  // triad 10% slower, copy 1% slower (inside 3%), scale 10% faster.
  const auto now = report("NVIDIA H200", {memory_case("triad", {11.0, 11.1, 11.0, 10.9}),
                                          memory_case("copy", {10.1, 10.2, 10.1, 10.0}),
                                          memory_case("scale", {9.0, 9.1, 9.0, 8.9})});
  const auto c = flows::compare_reports(base, now, {});
  EXPECT_TRUE(c.refusals.empty());
  EXPECT_EQ(row(c, "triad").verdict, flows::Verdict::worse);
  EXPECT_NEAR(row(c, "triad").change, 10.0 / 11.0 - 1.0, 1e-9);
  EXPECT_EQ(row(c, "copy").verdict, flows::Verdict::same);
  EXPECT_EQ(row(c, "scale").verdict, flows::Verdict::better);
  EXPECT_EQ(c.count(flows::Verdict::worse), 1);
  const auto j = flows::to_json(c);
  EXPECT_EQ(j["worse"], 1);
  EXPECT_TRUE(j["comparable"].get<bool>());
}

TEST(Compare, ARunsOwnSpreadRaisesTheThreshold) {
  // The base's samples spread over 20% of their median: a 10% change is within its noise.
  const auto base = report("NVIDIA H200", {memory_case("triad", {9.0, 10.0, 11.0})});
  const auto now = report("NVIDIA H200", {memory_case("triad", {11.0, 11.0, 11.0})});
  const auto c = flows::compare_reports(base, now, {});
  EXPECT_EQ(row(c, "triad").verdict, flows::Verdict::same);
  EXPECT_NEAR(row(c, "triad").noise, 0.2, 1e-9);
  // Lower is better for latency.
  auto lat = [](double us) {
    bench::Measurement m;
    m.benchmark = "latency";
    m.name = "launch";
    m.samples_ms = {us / 1e3, us / 1e3};
    m.time_ms = core::summarize(m.samples_ms);
    m.rate_unit = bench::RateUnit::microseconds;
    m.rate = us;
    return m;
  };
  const auto l = flows::compare_reports(report("X", {lat(5.0)}), report("X", {lat(4.0)}), {});
  EXPECT_EQ(row(l, "launch").verdict, flows::Verdict::better);
}

TEST(Compare, RunsOfADifferentCardAreRefusedUnlessForced) {
  const auto base = report("NVIDIA H200", {memory_case("triad", {10.0, 10.0})});
  const auto now = report("NVIDIA H100 80GB HBM3", {memory_case("triad", {12.0, 12.0})});
  const auto c = flows::compare_reports(base, now, {});
  ASSERT_FALSE(c.refusals.empty());
  EXPECT_NE(c.refusals[0].find("card differs"), std::string::npos) << c.refusals[0];
  EXPECT_TRUE(c.rows.empty()) << "nothing compared";
  flows::CompareOptions forced;
  forced.force = true;
  const auto f = flows::compare_reports(base, now, forced);
  EXPECT_TRUE(f.refusals.empty());
  EXPECT_EQ(row(f, "triad").verdict, flows::Verdict::worse);
  EXPECT_FALSE(f.differences.empty()) << "still said";
}

TEST(Compare, CasesInOneRunOnlyOrFailedAreListedNotJudged) {
  auto failed = memory_case("copy", {10.0});
  failed.outcome = bench::Outcome::failed;
  failed.reason = "wrong data";
  const auto base = report("X", {memory_case("triad", {10.0}), memory_case("copy", {10.0})});
  const auto now = report("X", {failed, memory_case("add", {10.0})});
  const auto c = flows::compare_reports(base, now, {});
  EXPECT_EQ(row(c, "triad").verdict, flows::Verdict::only_base);
  EXPECT_EQ(row(c, "add").verdict, flows::Verdict::only_new);
  EXPECT_EQ(row(c, "copy").verdict, flows::Verdict::failed);
  EXPECT_NE(row(c, "copy").why.find("wrong data"), std::string::npos);
}

namespace {

/// A stress device whose one check sustained `rates` (FLOP/s) with `verdict`.
stress::Report stress_run(std::vector<double> rates, stress::Verdict verdict = stress::Verdict::pass, int level = 3) {
  stress::Report r;
  r.level = level;
  r.backend = device::BackendKind::cuda;
  stress::DeviceResult d;
  d.name = "NVIDIA H200";
  stress::CheckResult c;
  c.kind = stress::CheckKind::gemm;
  c.unit = "FLOP/s";
  c.verdict = verdict;
  for (std::size_t i = 0; i < rates.size(); ++i) c.series.push_back({double(i), rates[i]});
  std::vector<double> sorted = rates;
  c.rate = core::percentile(sorted, 50);
  stress::CheckResult power;
  power.kind = stress::CheckKind::power;
  power.unit = "W";
  power.rate = 700;
  d.checks = {c, power};
  r.devices.push_back(d);
  return r;
}

}  // namespace

TEST(Compare, StressRunsAreJudgedCheckByCheckAgainstTheirOwnSpread) {
  const auto base = stress_run({700e12, 701e12, 699e12, 700e12, 702e12});
  // 8% slower sustained: worse; 2% slower: the same; power is a verdict, not a compared rate.
  const auto c = flows::compare_reports(base, stress_run({644e12, 645e12, 643e12, 644e12, 646e12}), {});
  ASSERT_TRUE(c.refusals.empty());
  EXPECT_EQ(row(c, "gemm").verdict, flows::Verdict::worse);
  EXPECT_NEAR(row(c, "gemm").change, 644.0 / 700.0 - 1.0, 1e-9);
  EXPECT_THROW(row(c, "power"), std::runtime_error);
  EXPECT_EQ(row(flows::compare_reports(base, stress_run({686e12, 687e12, 685e12, 686e12, 688e12}), {}), "gemm").verdict,
            flows::Verdict::same);
  // A run that throttled half-way (700 then 600) moved its own sustained figure by 15%: 8% down
  // against it is the same.
  const auto throttled = stress_run({700e12, 701e12, 699e12, 700e12, 600e12, 601e12, 599e12, 600e12});
  const auto n = flows::compare_reports(base, throttled, {});
  EXPECT_GT(row(n, "gemm").noise, 0.14);
  EXPECT_EQ(row(n, "gemm").verdict, flows::Verdict::same);
  // Stretches that swing around a power cap (560-720) but hold their median: 8% down is worse.
  const auto swinging = stress_run({560e12, 720e12, 640e12, 700e12, 600e12, 700e12, 640e12, 720e12, 560e12, 640e12});
  const auto slower = stress_run({590e12, 589e12, 588e12, 590e12, 589e12});
  const auto s = flows::compare_reports(swinging, slower, {});
  EXPECT_LT(row(s, "gemm").noise, 0.05);
  EXPECT_EQ(row(s, "gemm").verdict, flows::Verdict::worse);
}

TEST(Compare, AStressCheckWhoseVerdictGotWorseIsARegressionAndAnotherLevelIsRefused) {
  const auto base = stress_run({700e12, 700e12, 700e12});
  const auto c = flows::compare_reports(base, stress_run({700e12, 700e12, 700e12}, stress::Verdict::fail), {});
  EXPECT_EQ(row(c, "gemm verdict").verdict, flows::Verdict::worse);
  EXPECT_NE(row(c, "gemm verdict").why.find("pass -> fail"), std::string::npos);
  EXPECT_EQ(row(c, "gemm").verdict, flows::Verdict::same);
  const auto other = flows::compare_reports(base, stress_run({700e12, 700e12, 700e12}, stress::Verdict::pass, 2), {});
  ASSERT_EQ(other.refusals.size(), 1u);
  EXPECT_NE(other.refusals[0].find("level"), std::string::npos);
  EXPECT_TRUE(other.rows.empty());
}
