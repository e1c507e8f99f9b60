// A bench Report rendered three ways from one struct: JSON that starts with run_info and keeps
// numbers as numbers, and text and Markdown tables laid out from each benchmark's TableSpec.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "bench/benchmark.h"
#include "bench/render.h"
#include "bench/run.h"
#include "core/units.h"
#include "util/json_text.h"

using namespace dcukit;
using bench::Measurement;
using bench::Outcome;

namespace {

Measurement ok_case(std::string benchmark, std::string name, std::vector<bench::Param> params, double rate,
                    bench::RateUnit unit) {
  Measurement m;
  m.benchmark = std::move(benchmark);
  m.name = std::move(name);
  m.params = std::move(params);
  m.samples_ms = {1.0, 2.0, 3.0};
  m.time_ms = core::summarize(m.samples_ms);
  m.rate = rate;
  m.rate_unit = unit;
  m.peak = rate * 2;
  m.check = "checked";
  return m;
}

bench::Report sample_report() {
  setenv("DCUKIT_STREAM_VARIANT", "flat", 1);
  bench::Report r;
  r.run_info = core::collect_run_info("dcukit bench", "dcukit bench --sizes 2048");
  unsetenv("DCUKIT_STREAM_VARIANT");
  r.suite = "quick";
  r.backend = device::BackendKind::cpu;
  r.versions = {{"blas", "OpenBLAS 0.3"}};
  bench::DeviceReport d;
  d.info.name = "Test device";
  d.peak_note = "not in the peak data";
  d.results.push_back(ok_case("gemm", "fp16 N=2048", {{"precision", "fp16"}, {"n", 2048}, {"input_sets", 1}}, 500e12,
                              bench::RateUnit::flop_per_s));
  d.results.push_back(ok_case("memory", "triad fp64 1 GiB",
                              {{"kernel", "triad"}, {"type", "fp64"}, {"array_bytes", core::kGiB}}, 4.2e12,
                              bench::RateUnit::byte_per_s));
  d.results.push_back(
      ok_case("transfer", "H2D pinned 64 MiB",
              {{"direction", "H2D"}, {"memory", "pinned"}, {"bytes", 64 * core::kMiB}, {"numa_node", -1}}, 55e9,
              bench::RateUnit::byte_per_s));
  Measurement failed = bench::failed_case("memory", "copy fp32 8 TiB", "does not fit: 3 arrays need 24 TiB");
  d.results.push_back(failed);
  r.devices.push_back(d);
  return r;
}

}  // namespace

TEST(BenchRender, JsonStartsWithRunInfoAndKeepsNumbersAsNumbers) {
  const auto r = sample_report();
  const auto j = bench::to_json(r);
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.begin().key(), "run_info");
  EXPECT_EQ(j.dump(2).rfind("{\n  \"run_info\": {", 0), 0u);
  const auto& info = j["run_info"];
  EXPECT_EQ(info["tool"], "dcukit bench");
  EXPECT_EQ(info["command"], "dcukit bench --sizes 2048");
  EXPECT_EQ(info["environment"]["DCUKIT_STREAM_VARIANT"], "flat");
  EXPECT_FALSE(info["host"]["kernel"].get<std::string>().empty());
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_FALSE(j["interrupted"].get<bool>());

  const auto& results = j["devices"][0]["results"];
  ASSERT_EQ(results.size(), 4u);
  const auto& gemm = results[0]["params"];
  EXPECT_TRUE(gemm["n"].is_number_integer());
  EXPECT_EQ(gemm["n"], 2048);
  EXPECT_EQ(gemm["precision"], "fp16");
  EXPECT_EQ(results[0]["rate_unit"], "FLOP/s");
  EXPECT_TRUE(results[1]["params"]["array_bytes"].is_number_integer());
  EXPECT_EQ(results[1]["params"]["array_bytes"].get<std::uint64_t>(), core::kGiB);
  EXPECT_EQ(results[2]["params"]["numa_node"], -1);
  EXPECT_EQ(results[2]["rate_unit"], "B/s");
  EXPECT_EQ(results[3]["outcome"], "failed");
  EXPECT_DOUBLE_EQ(results[0]["percent_of_peak"].get<double>(), 50.0);
}

TEST(BenchRender, TablesComeFromEachBenchmarksSpec) {
  const auto r = sample_report();
  const auto tables = bench::result_tables(r.devices[0]);
  ASSERT_EQ(tables.size(), 3u);  // gemm, memory, transfer: latency has no results
  EXPECT_NE(tables[0].title.find("GEMM"), std::string::npos);
  ASSERT_EQ(tables[0].rows.size(), 1u);
  const auto& gemm = tables[0].rows[0];
  EXPECT_EQ(gemm[0], "fp16");
  EXPECT_EQ(gemm[1], "2048");
  EXPECT_EQ(gemm[5], "500.0");  // TFLOPS
  EXPECT_EQ(gemm[6], "50.0%");
  const auto& memory = tables[1];
  ASSERT_EQ(memory.rows.size(), 2u);
  EXPECT_EQ(memory.rows[0][2], "1 GiB");
  EXPECT_EQ(memory.rows[0][4], "4200.0");  // GB/s
  // A case that failed before it had parameters: its name, no numbers, the reason.
  EXPECT_EQ(memory.rows[1][0], "copy fp32 8 TiB");
  EXPECT_EQ(memory.rows[1][2], "-");
  EXPECT_NE(memory.rows[1].back().find("does not fit"), std::string::npos);
  const auto& transfer = tables[2].rows[0];
  EXPECT_EQ(transfer[2], "-");  // NUMA node -1: unknown
  EXPECT_EQ(transfer[3], "64 MiB");
  for (const auto& t : tables)
    for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.columns.size()) << t.title;
}

TEST(BenchRender, EveryBenchmarkDeclaresATableWithAStatusColumn) {
  for (const auto& b : bench::all_benchmarks()) {
    const auto spec = b->table();
    EXPECT_FALSE(spec.title.empty()) << b->key();
    ASSERT_FALSE(spec.columns.empty()) << b->key();
    EXPECT_EQ(spec.columns.back().header, "status") << b->key();
    // A bare failed case renders in every column without throwing.
    const auto m = bench::failed_case(b->key(), "x", "why");
    const auto t = bench::make_table(spec, {&m});
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_EQ(t.rows[0].back(), "failed: why");
  }
}

// A CPU's GEMM reads in GFLOPS, not as 0.1 TFLOPS; a GPU's in TFLOPS.
TEST(BenchRender, RatesScaleToTheirLargestFigure) {
  bench::Measurement cpu;
  cpu.name = "fp32 N=1024";
  cpu.outcome = bench::Outcome::ok;
  cpu.rate = 93.8e9;
  const auto spec = bench::TableSpec{"GEMM", {bench::scaled_rate_column("FLOPS")}, {}};
  auto t = bench::make_table(spec, {&cpu});
  ASSERT_EQ(t.columns.size(), 1u);
  EXPECT_EQ(t.columns[0].header, "GFLOPS");
  EXPECT_EQ(t.rows[0][0], "93.8");
  bench::Measurement gpu = cpu;
  gpu.rate = 731.2e12;
  t = bench::make_table(spec, {&cpu, &gpu});
  EXPECT_EQ(t.columns[0].header, "TFLOPS");
  EXPECT_EQ(t.rows[1][0], "731.2");
  EXPECT_EQ(t.rows[0][0], "0.1");  // in the table's unit
}

TEST(BenchRender, TextAndMarkdownCarryTheRunAndTheEnvironment) {
  const auto r = sample_report();
  const std::string text = bench::render_text(r);
  EXPECT_NE(text.find("backend cpu"), std::string::npos) << text;
  EXPECT_NE(text.find("TFLOPS"), std::string::npos) << text;
  EXPECT_NE(text.find("not in the peak data"), std::string::npos) << text;
  const std::string md = bench::render_markdown(r);
  EXPECT_NE(md.find("| command | `dcukit bench --sizes 2048`"), std::string::npos) << md;
  EXPECT_NE(md.find("`DCUKIT_STREAM_VARIANT=flat`"), std::string::npos) << md;
  EXPECT_NE(md.find("### GEMM"), std::string::npos) << md;
  EXPECT_NE(md.find("### Host/device transfers"), std::string::npos) << md;
}

TEST(BenchRender, FailuresNameTheCaseAndTheDevice) {
  auto r = sample_report();
  r.errors.push_back("device 3: gone");
  const auto f = r.failures();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], "memory copy fp32 8 TiB on device 0: does not fit: 3 arrays need 24 TiB");
  EXPECT_EQ(f[1], "device 3: gone");
}

TEST(BenchRender, AResultFileReadsBackAsTheReportItWasWrittenFrom) {
  const bench::Report r = sample_report();
  const auto back = bench::from_json(util::json_document(bench::to_json(r)));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->run_info.command, r.run_info.command);
  EXPECT_EQ(back->run_info.host.hostname, r.run_info.host.hostname);
  EXPECT_EQ(back->run_info.environment, r.run_info.environment);
  EXPECT_EQ(back->suite, r.suite);
  EXPECT_EQ(back->backend, r.backend);
  EXPECT_EQ(back->versions, r.versions);
  EXPECT_EQ(back->notes, r.notes);
  ASSERT_EQ(back->devices.size(), r.devices.size());
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const auto& a = r.devices[d];
    const auto& b = back->devices[d];
    EXPECT_EQ(b.info.name, a.info.name);
    EXPECT_EQ(b.info.total_memory, a.info.total_memory);
    EXPECT_EQ(b.spec_key, a.spec_key);
    ASSERT_EQ(b.results.size(), a.results.size());
    for (std::size_t i = 0; i < a.results.size(); ++i) {
      const auto& x = a.results[i];
      const auto& y = b.results[i];
      EXPECT_EQ(y.benchmark, x.benchmark);
      EXPECT_EQ(y.name, x.name);
      EXPECT_EQ(y.outcome, x.outcome);
      EXPECT_EQ(y.rate_unit, x.rate_unit);
      EXPECT_DOUBLE_EQ(y.rate, x.rate);
      EXPECT_EQ(y.samples_ms, x.samples_ms);
      EXPECT_EQ(y.peak, x.peak);
      EXPECT_EQ(y.params.size(), x.params.size());
      for (const auto& p : x.params) EXPECT_EQ(y.text(p.key), x.text(p.key)) << p.key;
    }
  }
  // Files that are not bench results are refused and say what to write instead.
  EXPECT_FALSE(bench::from_json("[]"));
  const auto doctor = bench::from_json(R"({"run_info": {"tool": "dcukit doctor"}, "findings": []})");
  ASSERT_FALSE(doctor);
  EXPECT_NE(doctor.error().message.find("dcukit bench --json FILE"), std::string::npos);
}

TEST(BenchRender, GroupMeasurementsAreRenderedAndReadBack) {
  bench::Report r = sample_report();
  bench::Measurement m;
  m.benchmark = "collectives";
  m.name = "all_reduce 1 MiB out of place";
  m.params = {{"collective", "all_reduce"}, {"bytes", 1 << 20}, {"count", 1 << 18}, {"placement", "out of place"},
              {"ranks", 4},            {"wrong", 0},        {"busbw", 3.0e9}};
  m.samples_ms = {0.5, 0.5};
  m.time_ms = core::summarize(m.samples_ms);
  m.rate_unit = bench::RateUnit::byte_per_s;
  m.rate = 2.0e9;
  r.group.push_back(m);
  const std::string text = bench::render_text(r);
  EXPECT_NE(text.find("Collectives (float, sum; root 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("average bus bandwidth: 3.000 GB/s over 1 cases"), std::string::npos) << text;
  EXPECT_NE(bench::render_markdown(r).find("## Across"), std::string::npos);
  const auto back = bench::from_json(util::json_document(bench::to_json(r)));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->group.size(), 1u);
  EXPECT_EQ(back->group[0].name, m.name);
  EXPECT_EQ(back->group[0].number("busbw"), 3.0e9);
  EXPECT_EQ(back->group[0].integer("wrong"), 0);
  r.group[0].outcome = bench::Outcome::failed;
  r.group[0].reason = "2 wrong element(s) over 4 ranks";
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failures().at(1), "collectives all_reduce 1 MiB out of place: 2 wrong element(s) over 4 ranks");
}

TEST(BenchRanks, EveryRanksDevicesAreKeptAndASlowRankIsNamed) {
  std::vector<bench::Report> ranks;
  for (int r = 0; r < 4; ++r) {
    bench::Report rep = sample_report();
    for (auto& d : rep.devices)
      for (auto& m : d.results)
        if (m.outcome == bench::Outcome::ok && r == 2) m.rate *= 0.5;  // rank 2 runs at half speed
    if (r == 3) rep.errors.push_back("device 0: gone");
    ranks.push_back(rep);
  }
  const std::size_t per_rank = ranks[0].devices.size();
  const bench::Report merged = bench::merge_ranks(ranks, {"a", "b", "c", "d"});
  ASSERT_EQ(merged.devices.size(), 4 * per_rank);
  EXPECT_EQ(merged.devices.back().rank, 3);
  EXPECT_EQ(merged.devices.back().host, "d");
  ASSERT_EQ(merged.errors.size(), 1u);
  EXPECT_EQ(merged.errors[0], "rank 3: device 0: gone");
  int slow = 0;
  for (const auto& n : merged.notes) {
    if (n.find("of the median rank's rate") == std::string::npos) continue;
    EXPECT_NE(n.find("rank 2 on c"), std::string::npos) << n;
    ++slow;
  }
  EXPECT_GT(slow, 0) << "the half-speed rank is named";
  const auto back = bench::from_json(util::json_document(bench::to_json(merged)));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->devices.back().rank, 3);
  EXPECT_EQ(back->devices.back().host, "d");
  EXPECT_NE(bench::render_text(merged).find("Rank 2 on c:"), std::string::npos);
}
