// `dcukit report` and the expected figures: placement against data/expected.json (normal, low
// with its likely cause, high, no reference), the charts each kind of result gets, a fleet's
// outlier, the HTML's self-containment and escaping, and every dcukit result the repository
// holds (tests/fixtures, docs/results) rendering.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdio>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/placement.h"
#include "bench/render.h"
#include "core/expected.h"
#include "core/stats.h"
#include "flows/report.h"
#include "load/render.h"
#include "stress/render.h"
#include "tempdir.h"
#include "util/json_text.h"

using namespace dcukit;

namespace {

constexpr const char* kH200 = "10de:2335";

bench::Measurement rate_case(const std::string& benchmark, const std::string& name, std::vector<bench::Param> params,
                             double rate, bench::RateUnit unit) {
  bench::Measurement m;
  m.benchmark = benchmark;
  m.name = name;
  m.params = std::move(params);
  m.samples_ms = {1.0, 1.0, 1.0};
  m.time_ms = core::summarize(m.samples_ms);
  m.rate_unit = unit;
  m.rate = rate;
  return m;
}

bench::Measurement gemm(const std::string& p, int n, double rate) {
  return rate_case("gemm", p + " N=" + std::to_string(n), {{"precision", p}, {"n", n}}, rate,
                   bench::RateUnit::flop_per_s);
}

bench::Measurement h2d_pinned(double rate, int node) {
  return rate_case("transfer", "H2D pinned 256 MiB",
                   {{"direction", "H2D"}, {"memory", "pinned"}, {"bytes", 268435456}, {"numa_node", node},
                    {"device_numa_node", 0}},
                   rate, bench::RateUnit::byte_per_s);
}

bench::Report h200_report(const std::string& host, std::vector<bench::Measurement> results, int pcie_gen = 5) {
  bench::Report r;
  r.run_info.tool = "dcukit bench";
  r.run_info.version = "0.1.0";
  r.run_info.host.hostname = host;
  r.backend = device::BackendKind::cuda;
  bench::DeviceReport d;
  d.info.name = "NVIDIA H200";
  d.pci_id = kH200;
  d.spec_key = "h200-sxm";
  d.pcie_gen = pcie_gen;
  d.pcie_width = 16;
  d.numa_node = 0;
  d.results = std::move(results);
  r.devices.push_back(std::move(d));
  bench::place_all(r);
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(Expected, FiguresArePlacedNormalLowOrHighAgainstTheSku) {
  const std::map<std::string, std::string> bf16{{"precision", "bf16"}, {"n", "8192"}};
  auto p = core::place(kH200, "", "gemm", bf16, 770e12);
  EXPECT_EQ(p.placement, core::Placement::normal);
  EXPECT_EQ(p.sku, "h200-sxm");
  EXPECT_NE(p.source.find("docs/results/h200.json"), std::string::npos) << p.source;
  EXPECT_NEAR(p.ratio(), 770e12 / p.expected, 1e-12);
  EXPECT_EQ(core::place(kH200, "", "gemm", bf16, 500e12).placement, core::Placement::low);
  EXPECT_EQ(core::place(kH200, "", "gemm", bf16, 990e12).placement, core::Placement::high);
  // By the peak data's key where the PCI id is not known (a BW1000 has none published).
  EXPECT_EQ(core::place("", "bw1000", "gemm", {{"precision", "fp16"}, {"n", "8192"}}, 430e12).placement,
            core::Placement::normal);
}

TEST(Expected, AnUnknownCardOrCaseHasNoReferenceAndSaysWhy) {
  const auto unknown = core::place("1234:5678", "", "gemm", {{"precision", "bf16"}, {"n", "8192"}}, 1e12);
  EXPECT_EQ(unknown.placement, core::Placement::no_reference);
  EXPECT_NE(unknown.source.find("no reference for this card"), std::string::npos);
  // A size under the metric's smallest is not compared: a small GEMM is not a slow card.
  const auto small = core::place(kH200, "", "gemm", {{"precision", "bf16"}, {"n", "2048"}}, 100e12);
  EXPECT_EQ(small.placement, core::Placement::no_reference);
  EXPECT_NE(small.source.find("no reference for this case on h200-sxm"), std::string::npos);
}

TEST(Expected, EveryFigureOfTheDataHasAFloorUnderItAndASource) {
  ASSERT_FALSE(core::all_expected().empty());
  for (const auto& sku : core::all_expected())
    for (const auto& m : sku.metrics) {
      EXPECT_GT(m.expected, 0) << sku.key << " " << m.benchmark;
      EXPECT_GT(m.floor, 0) << sku.key << " " << m.benchmark;
      EXPECT_LT(m.floor, m.expected) << sku.key << " " << m.benchmark;
      EXPECT_FALSE(m.source.empty()) << sku.key << " " << m.benchmark;
    }
}

TEST(Expected, ALowTransferNamesTheLinkAndTheNumaNode) {
  core::RunFacts f;
  f.pcie_gen = 3;
  f.pcie_width = 16;
  f.pcie_gen_max = 5;
  f.pcie_width_max = 16;
  f.device_numa = 0;
  f.memory_numa = 1;
  const auto causes = core::likely_causes("transfer", f);
  ASSERT_EQ(causes.size(), 2U);
  EXPECT_NE(causes[0].find("gen 3 x16, below the card's gen 5 x16"), std::string::npos) << causes[0];
  EXPECT_NE(causes[1].find("numactl --cpunodebind=0 --membind=0"), std::string::npos) << causes[1];
  const auto none = core::likely_causes("gemm", core::RunFacts{});
  ASSERT_EQ(none.size(), 1U);
  EXPECT_NE(none[0].find("nothing this run recorded explains it"), std::string::npos);
}

TEST(Expected, BenchPlacesItsCasesAndPrintsWhyALowOneIsLow) {
  const auto r = h200_report("a", {gemm("bf16", 8192, 775e12), h2d_pinned(24e9, 1)}, 4);
  const auto& results = r.devices[0].results;
  EXPECT_EQ(results[0].placed.placement, core::Placement::normal);
  ASSERT_EQ(results[1].placed.placement, core::Placement::low);
  const std::string text = bench::render_text(r);
  EXPECT_NE(text.find("vs expected"), std::string::npos) << text;
  EXPECT_NE(text.find("LOW 0.43x"), std::string::npos) << text;
  EXPECT_NE(text.find("gen 4 x16, below the card's gen 5 x16"), std::string::npos) << text;
  // Written and read back: the placement is in the JSON and recomputed on reading.
  const auto j = bench::to_json(r);
  EXPECT_EQ(j["devices"][0]["results"][1]["expected"]["placement"], "low");
  auto back = bench::from_json(util::json_document(j));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->devices[0].results[1].placed.placement, core::Placement::low);
}

TEST(Expected, StressPrintsTheSamePlacementOfItsSustainedFigures) {
  stress::Report r;
  r.run_info.tool = "dcukit stress";
  stress::DeviceResult d;
  d.name = "NVIDIA H200";
  stress::CheckResult c;
  c.kind = stress::CheckKind::gemm;
  c.unit = "FLOP/s";
  c.rate = 500e12;
  c.expected = 700e12;
  c.floor = 630e12;
  c.verdict = stress::Verdict::fail;
  d.checks.push_back(c);
  r.devices.push_back(d);
  const std::string text = stress::render_text(r);
  EXPECT_NE(text.find("LOW 0.71x"), std::string::npos) << text;
  EXPECT_EQ(stress::to_json(r)["devices"][0]["checks"][0]["placement"], "low");
}

TEST(Report, ChartsFollowTheData) {
  flows::ResultFile f;
  f.kind = flows::ResultKind::bench;
  f.report = h200_report("a", {gemm("bf16", 8192, 775e12), gemm("fp16", 8192, 500e12), h2d_pinned(55e9, 0)});
  const auto charts = flows::charts_of(f);
  ASSERT_EQ(charts.size(), 2U);  // GEMM and transfers; no memory case, no memory chart
  EXPECT_EQ(charts[0].kind, flows::ChartKind::bars);
  ASSERT_EQ(charts[0].series.size(), 1U);
  EXPECT_EQ(charts[0].series[0].flags[1], "low");  // fp16 at 500 of 754 TFLOPS
  EXPECT_EQ(charts[0].bands.size(), 2U);
  const std::string svg = flows::render_svg(charts[0]);
  EXPECT_EQ(count(svg, "<rect"), 2U);             // two bars
  EXPECT_EQ(count(svg, "class=\"exp\""), 2U);  // each with its expected figure over it
  EXPECT_NE(svg.find("class=\"low\""), std::string::npos);
}

// A bar chart's turned category names fit its canvas: the first of many long names reaches left
// of the plot's margin and down past its bottom, and the canvas grows by as much; short ones
// leave it as it is.
TEST(Report, LongCategoryNamesGrowTheCanvasRatherThanBeCut) {
  flows::Chart c;
  c.title = "transfers";
  c.series.push_back({"GB/s", {}, {}, {}});
  for (int i = 0; i < 18; ++i) {
    c.categories.push_back(fmt::format("H2D+D2H pageable {} MiB", 64 << (i % 3)));
    c.series[0].values.push_back(10.0 + i);
  }
  const std::string wide = flows::render_svg(c);
  const auto at = wide.find("viewBox=\"-");
  ASSERT_NE(at, std::string::npos) << wide.substr(0, 200);
  double x0 = 0, w = 0, h = 0;
  ASSERT_EQ(std::sscanf(wide.c_str() + at, "viewBox=\"%lf 0 %lf %lf\"", &x0, &w, &h), 3);
  // "H2D+D2H pageable 64 MiB": 23 characters of 10 px turned 35 degrees end under the first bar.
  EXPECT_LE(x0, -15);  // 23 x 5.6 px x cos 35 = 106 px left of a bar centred 91 px in
  EXPECT_DOUBLE_EQ(w, 860 - x0);
  EXPECT_GT(h, 360);
  for (auto& name : c.categories) name = "fp16";
  EXPECT_NE(flows::render_svg(c).find("viewBox=\"0 0 860 360\""), std::string::npos);
}

TEST(Report, LoadLevelsGiveLatencyAgainstConcurrencyWithTheSloLine) {
  load::Report r;
  r.slo.ttft_ms = 500;
  for (int c : {1, 8}) {
    load::LevelReport l;
    l.label = "concurrency " + std::to_string(c);
    l.concurrency = c;
    l.completed = 10;
    l.request_throughput = c;
    l.output_throughput = 100.0 * c;
    l.lat.ttft.summary = core::summarize(std::vector<double>{100.0 * c, 120.0 * c});
    l.lat.e2el.summary = core::summarize(std::vector<double>{1000.0 * c});
    r.levels.push_back(l);
  }
  flows::ResultFile f;
  f.kind = flows::ResultKind::load;
  f.report = r;
  const auto charts = flows::charts_of(f);
  ASSERT_GE(charts.size(), 3U);
  EXPECT_NE(charts[0].title.find("TTFT against concurrency"), std::string::npos);
  ASSERT_EQ(charts[0].lines.size(), 1U);
  EXPECT_EQ(charts[0].lines[0].y, 500);
  EXPECT_EQ(charts[0].series[0].xy.size(), 2U);
}

TEST(Report, AFleetFolderMarksTheSlowHostAndListsWhatItLeftOut) {
  testutil::TempDir dir("report");
  const auto write = [&](const std::string& host, double bf16) {
    auto r = h200_report(host, {gemm("bf16", 8192, bf16), h2d_pinned(55e9, 0)});
    dir.write("fleet/" + host + ".json", util::json_document(bench::to_json(r)));
  };
  write("node-a", 775e12);
  write("node-b", 770e12);
  write("node-c", 600e12);
  dir.write("fleet/other.json", "{\"not\": \"ours\"}");
  auto doc = flows::build_report({dir.file("fleet")}, core::RunInfo{});
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->files.size(), 3U);
  ASSERT_EQ(doc->notes.size(), 1U);
  EXPECT_NE(doc->notes[0].find("other.json: no run_info"), std::string::npos) << doc->notes[0];
  ASSERT_EQ(doc->fleet.size(), 1U);
  const auto& t = doc->fleet[0];
  ASSERT_EQ(t.rows.size(), 3U);
  EXPECT_EQ(t.rows[2][0], "node-c");
  EXPECT_NE(t.rows[2][1].find("LOW"), std::string::npos) << t.rows[2][1];
  EXPECT_EQ(t.rows[0][1].find("LOW"), std::string::npos);
  // Nothing of node-c differs from the others: the cause says where to look.
  EXPECT_NE(t.rows[2].back().find("dcukit doctor"), std::string::npos) << t.rows[2].back();
  const std::string html = flows::render_html(*doc);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_GE(count(html, "<svg"), 3U);
  const std::string md = flows::render_markdown(*doc);
  EXPECT_NE(md.find("## Fleet"), std::string::npos);
  EXPECT_NE(md.find("LOW"), std::string::npos);
  const auto j = flows::to_json(*doc);
  EXPECT_EQ(j["results"].size(), 3U);
  EXPECT_EQ(j["results"][2]["result"]["run_info"]["host"]["hostname"], "node-c");
}

TEST(Report, ABadCardAmongAHostsGoodOnesIsItsOwnRowWithItsCause) {
  // node-d's second card trained its link at Gen4 where every other card has Gen5: the host's
  // best card is normal, the bad one is its own LOW row, named by its index, the link its cause.
  testutil::TempDir dir("report");
  for (const char* host : {"node-a", "node-b"}) {
    auto r = h200_report(host, {gemm("bf16", 8192, 775e12), h2d_pinned(55e9, 0)});
    dir.write(std::string("fleet/") + host + ".json", util::json_document(bench::to_json(r)));
  }
  auto r = h200_report("node-d", {gemm("bf16", 8192, 772e12), h2d_pinned(55e9, 0)});
  auto second = h200_report("node-d", {gemm("bf16", 8192, 771e12), h2d_pinned(27e9, 0)}, 4).devices[0];
  second.info.index = 1;
  r.devices.push_back(second);
  dir.write("fleet/node-d.json", util::json_document(bench::to_json(r)));
  auto doc = flows::build_report({dir.file("fleet")}, core::RunInfo{});
  ASSERT_TRUE(doc) << doc.error().message;
  ASSERT_EQ(doc->fleet.size(), 1U);
  const auto& t = doc->fleet[0];
  ASSERT_EQ(t.rows.size(), 4U);
  EXPECT_EQ(t.rows[2][0], "node-d gpu 0");
  EXPECT_EQ(t.rows[3][0], "node-d gpu 1");
  int low = 0;
  for (const auto& row : t.rows)
    for (const auto& cell : row) low += cell.find("LOW") != std::string::npos;
  EXPECT_EQ(low, 1);
  const std::string text = fmt::format("{}", fmt::join(t.rows[3], " | "));
  EXPECT_NE(text.find("LOW"), std::string::npos) << text;
  EXPECT_NE(text.find("link PCIe Gen4 x16 where 3 of 4 devices have PCIe Gen5 x16"), std::string::npos) << text;
}

TEST(Report, BadInputsAreRefusedByName) {
  testutil::TempDir dir("report");
  EXPECT_FALSE(flows::build_report({}, core::RunInfo{}));
  const auto missing = flows::build_report({dir.file("nope.json")}, core::RunInfo{});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.json: no such file"), std::string::npos);
  dir.write("empty/x.json", "[1, 2]");
  const auto empty = flows::build_report({dir.file("empty")}, core::RunInfo{});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no dcukit result in this folder"), std::string::npos);
  const auto named = flows::build_report({dir.file("empty/x.json")}, core::RunInfo{});
  ASSERT_FALSE(named);  // a file named on the command line is never left out
}

TEST(Report, MarkdownBecomesEscapedHtml) {
  const std::string html = flows::markdown_to_html("## A <b>\n\n| a | b |\n|---|---|\n| `x` | <script> \\| y |\n\n- one\n");
  EXPECT_NE(html.find("<h4>A &lt;b&gt;</h4>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td><code>x</code></td><td>&lt;script&gt; | y</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<li>one</li>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<script>"), std::string::npos);
}

TEST(Report, EveryDcukitResultInTheRepositoryRenders) {
  namespace fs = std::filesystem;
  int rendered = 0;
  for (const char* folder : {"tests/fixtures", "docs/results"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(DCUKIT_SOURCE_DIR) / folder)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") continue;
      auto f = flows::read_result(e.path().string());
      if (!f) {
        EXPECT_FALSE(f.error().message.empty());  // not ours: refused with a reason
        continue;
      }
      auto doc = flows::build_report({e.path().string()}, core::RunInfo{});
      ASSERT_TRUE(doc) << e.path() << ": " << doc.error().message;
      const std::string html = flows::render_html(*doc);
      EXPECT_NE(html.find("</html>"), std::string::npos) << e.path();
      for (const auto& s : doc->sections)
        for (const auto& c : s.charts) EXPECT_TRUE(c.drawable()) << e.path() << ": " << c.title;
      EXPECT_FALSE(flows::render_markdown(*doc).empty());
      ++rendered;
    }
  EXPECT_GE(rendered, 4) << "the repository's dcukit results (bench, stress, doctor) were not found";
}

TEST(Report, TelemetryAndStressCsvAreSeriesWithThrottleEventsMarked) {
  testutil::TempDir dir("series");
  stress::Report r;
  for (int i = 0; i < 6; ++i) {
    stress::Sample s;
    s.t_s = i;
    s.device = 0;
    s.sclk_mhz = i < 3 ? 1980 : 1400;
    s.sclk_max_mhz = 1980;
    s.power_w = 690;
    s.power_cap_w = 700;
    if (i >= 3) s.throttle_reasons = "power cap";
    r.samples.push_back(s);
  }
  const std::string stress_csv = dir.write("s/stress.csv", stress::render_csv(r));
  auto samples = flows::read_series_csv(stress_csv);
  ASSERT_TRUE(samples) << samples.error().message;
  ASSERT_EQ(samples->size(), 6U);
  EXPECT_EQ(*(*samples)[4].sclk_mhz, 1400);
  EXPECT_EQ(*(*samples)[4].throttle_reasons, "power cap");
  const auto charts = flows::sample_charts(*samples);
  ASSERT_EQ(charts.size(), 2U);  // clock and power; no temperature was read
  EXPECT_EQ(charts[0].marks, std::vector<double>{3.0});
  EXPECT_EQ(charts[0].lines[0].y, 1980);
  // telemetry --watch --csv: ISO timestamps become seconds from the first reading.
  const std::string telemetry_csv = dir.write(
      "s/telemetry.csv",
      "timestamp,index,name,temperature_c,power_w\n2026-12-05T23:59:59.500Z,0,\"GPU, 0\",60,300\n"
      "2026-12-06T00:00:01.500Z,0,\"GPU, 0\",64,310\n");
  auto t = flows::read_series_csv(telemetry_csv);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->size(), 2U);
  EXPECT_DOUBLE_EQ((*t)[1].t_s, 2.0);
  EXPECT_EQ(*(*t)[1].temperature_c, 64);
  // A folder of both gives two series sections; a CSV of something else is left out, named.
  dir.write("s/other.csv", "a,b\n1,2\n");
  auto doc = flows::build_report({dir.file("s")}, core::RunInfo{});
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->series.size(), 2U);
  ASSERT_EQ(doc->notes.size(), 1U);
  EXPECT_NE(doc->notes[0].find("other.csv: not a dcukit telemetry or stress CSV"), std::string::npos);
  auto named = flows::build_report({dir.file("s/other.csv")}, core::RunInfo{});
  EXPECT_FALSE(named);
}

TEST(Expected, AVendorsPassLineIsAFloorAndAHealthyCardAboveItIsNotHigh) {
  // RVS's MI300X fp16 GST target (639 TFLOPS) is a pass line: 800 is a healthy card, not "high".
  const std::map<std::string, std::string> fp16{{"precision", "fp16"}, {"n", "8192"}};
  const auto healthy = core::place("1002:74a1", "", "gemm", fp16, 800e12);
  EXPECT_EQ(healthy.placement, core::Placement::normal);
  EXPECT_NE(healthy.source.find("ROCm Validation Suite"), std::string::npos) << healthy.source;
  EXPECT_EQ(core::place("1002:74a1", "", "gemm", fp16, 600e12).placement, core::Placement::low);
  EXPECT_EQ(core::place("1002:74a1", "", "gemm", fp16, 1500e12).placement, core::Placement::high);
  // DCGM's A100 memory minimum is the floor.
  const auto a100 = core::place("10de:20b2", "", "memory", {{"kernel", "triad"}, {"array_bytes", "1073741824"}}, 1.1e12);
  EXPECT_EQ(a100.placement, core::Placement::low);
  EXPECT_NE(a100.source.find("DCGM"), std::string::npos);
}

TEST(Expected, ALowGemmNamesTheClocksTheThrottleAndTheOtherProcessesTheReadingShows) {
  auto r = h200_report("a", {gemm("bf16", 8192, 400e12)});
  r.devices[0].info.pci_bus_id = "0000:19:00.0";
  bench::place_all(r);
  ASSERT_EQ(r.devices[0].results[0].placed.placement, core::Placement::low);
  telemetry::Snapshot reading;
  telemetry::DeviceState s;
  s.bus_id = "0000:19:00.0";
  s.sclk_mhz = 1110;
  s.sclk_max_mhz = 1980;
  s.throttle_reasons = "power cap";
  s.processes = std::vector<telemetry::ProcessUse>{{4242, std::string("python3"), std::nullopt}};
  reading.devices.push_back(s);
  bench::explain_low(r, reading);
  const auto& causes = r.devices[0].results[0].placed.causes;
  ASSERT_EQ(causes.size(), 3U);
  // Read back, the run's causes stay (the card's state then is not the reader's to see).
  auto back = bench::from_json(util::json_document(bench::to_json(r)));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->devices[0].results[0].placed.causes, causes);
  EXPECT_NE(causes[0].find("clocks at 1110 of 1980 MHz"), std::string::npos) << causes[0];
  EXPECT_EQ(causes[1], "throttled: power cap");
  EXPECT_NE(causes[2].find("1 other process(es) on the card"), std::string::npos) << causes[2];
}
