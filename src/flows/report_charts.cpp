// The charts of `dcukit report`, one builder a kind of result: what each chart shows is chosen
// here from the result's own figures; chart.cpp draws them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "flows/report.h"

namespace dcukit::flows {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string where(const bench::DeviceReport& d) {
  std::string out = fmt::format("device {} ({})", d.info.index, d.info.name);
  if (!d.host.empty()) out += " on " + d.host;
  return out;
}

std::vector<const bench::Measurement*> ok_cases(const std::vector<bench::Measurement>& all, std::string_view benchmark) {
  std::vector<const bench::Measurement*> out;
  for (const auto& m : all)
    if (m.benchmark == benchmark && m.outcome == bench::Outcome::ok && m.rate > 0) out.push_back(&m);
  return out;
}

/// GEMM: each case as a percentage of its published peak (absolute TFLOPS where no peak is
/// known), with the expected band where the SKU has one.
std::optional<Chart> gemm_chart(const bench::DeviceReport& d) {
  const auto cases = ok_cases(d.results, "gemm");
  if (cases.empty()) return std::nullopt;
  const bool percent = std::all_of(cases.begin(), cases.end(), [](const auto* m) { return m->peak.has_value(); });
  Chart c;
  c.kind = ChartKind::bars;
  c.title = fmt::format("GEMM on {}{}", where(d), percent ? ", % of the published peak" : "");
  c.y_label = percent ? "% of peak" : "TFLOPS";
  Series s{"measured", {}, {}, {}};
  for (const auto* m : cases) {
    const double scale = percent ? 100.0 / *m->peak : 1e-12;
    c.categories.push_back(m->name);
    s.values.push_back(m->rate * scale);
    const auto& p = m->placed;
    s.flags.push_back(p.placement == core::Placement::low || p.placement == core::Placement::high
                          ? std::string(core::to_string(p.placement))
                          : "");
    if (p.placement != core::Placement::no_reference)
      c.bands.push_back({c.categories.size() - 1, p.floor * scale, p.expected * scale});
  }
  c.series.push_back(std::move(s));
  if (percent) c.lines.push_back({"peak", 100});
  return c;
}

/// Memory bandwidth against the array size, one line a kernel and type.
std::optional<Chart> memory_chart(const bench::DeviceReport& d) {
  const auto cases = ok_cases(d.results, "memory");
  if (cases.empty()) return std::nullopt;
  Chart c;
  c.kind = ChartKind::lines;
  c.title = fmt::format("Memory bandwidth on {}", where(d));
  c.x_label = "array size, MiB";
  c.y_label = "GB/s";
  c.log_x = true;
  std::map<std::string, Series> by;
  std::optional<double> peak;
  for (const auto* m : cases) {
    const auto bytes = m->number("array_bytes");
    if (!bytes) continue;
    const std::string name = fmt::format("{} {}", m->text("kernel"), m->text("type"));
    by[name].name = name;
    by[name].xy.emplace_back(*bytes / 1048576.0, m->rate / 1e9);
    if (m->peak) peak = *m->peak;
  }
  for (auto& [k, s] : by) {
    std::sort(s.xy.begin(), s.xy.end());
    c.series.push_back(std::move(s));
  }
  if (peak) c.lines.push_back({"published peak", *peak / 1e9});
  const auto* sku = core::find_expected_sku(d.pci_id, d.spec_key);
  if (sku)
    for (const auto& m : sku->metrics)
      if (m.benchmark == "memory") {
        c.lines.push_back({"expected", m.expected / 1e9});
        c.lines.push_back({"floor", m.floor / 1e9});
        break;
      }
  return c;
}

/// Host/device transfers, one bar a case (direction, memory, size, NUMA node).
std::optional<Chart> transfer_chart(const bench::DeviceReport& d) {
  const auto cases = ok_cases(d.results, "transfer");
  if (cases.empty()) return std::nullopt;
  Chart c;
  c.kind = ChartKind::bars;
  c.title = fmt::format("Host-device transfers on {}", where(d));
  c.y_label = "GB/s";
  Series s{"measured", {}, {}, {}};
  std::optional<double> link;
  for (const auto* m : cases) {
    std::string name = m->name;
    if (const auto node = m->integer("numa_node"); node && *node >= 0) name += fmt::format(" node {}", *node);
    c.categories.push_back(name);
    s.values.push_back(m->rate / 1e9);
    s.flags.push_back(m->placed.placement == core::Placement::low ? "low" : "");
    if (m->placed.placement != core::Placement::no_reference)
      c.bands.push_back({c.categories.size() - 1, m->placed.floor / 1e9, m->placed.expected / 1e9});
    if (m->peak && m->text("direction") != "H2D+D2H") link = *m->peak;
  }
  c.series.push_back(std::move(s));
  if (link) c.lines.push_back({"link, one direction", *link / 1e9});
  return c;
}

/// A peer matrix (p2p bandwidth or latency) as a heat map, one a method.
std::vector<Chart> peer_charts(const bench::Report& r) {
  std::map<std::string, std::vector<const bench::Measurement*>> by;
  for (const auto& m : r.group)
    if (m.outcome == bench::Outcome::ok && m.integer("src") && m.integer("dst"))
      by[m.benchmark + " " + m.text("method")].push_back(&m);
  std::vector<Chart> out;
  for (const auto& [name, cases] : by) {
    std::set<std::int64_t> ids;
    for (const auto* m : cases) {
      ids.insert(*m->integer("src"));
      ids.insert(*m->integer("dst"));
    }
    std::vector<std::int64_t> order(ids.begin(), ids.end());
    Chart c;
    c.kind = ChartKind::heatmap;
    const bool us = cases.front()->rate_unit == bench::RateUnit::microseconds;
    c.title = fmt::format("{}: {}, source (rows) to destination (columns)", name, us ? "microseconds" : "GB/s");
    c.x_label = "destination device";
    for (auto id : order) {
      c.rows.push_back(fmt::format("GPU {}", id));
      c.categories.push_back(fmt::format("GPU {}", id));
    }
    c.cells.assign(order.size(), std::vector<std::optional<double>>(order.size()));
    for (const auto* m : cases) {
      const auto ri = std::find(order.begin(), order.end(), *m->integer("src")) - order.begin();
      const auto ci = std::find(order.begin(), order.end(), *m->integer("dst")) - order.begin();
      c.cells[ri][ci] = us ? m->rate : m->rate / 1e9;
    }
    out.push_back(std::move(c));
  }
  return out;
}

/// Collectives: bus bandwidth against the size, as nccl-tests prints it, one line a collective.
std::optional<Chart> collectives_chart(const bench::Report& r) {
  Chart c;
  c.kind = ChartKind::lines;
  c.title = "Collectives: bus bandwidth against size (out of place)";
  c.x_label = "size, bytes";
  c.y_label = "busbw, GB/s";
  c.log_x = true;
  std::map<std::string, Series> by;
  for (const auto& m : r.group) {
    if (m.benchmark != "collectives" || m.outcome != bench::Outcome::ok || m.text("placement") == "in place") continue;
    const auto bytes = m.number("bytes"), busbw = m.number("busbw");
    if (!bytes || !busbw) continue;
    auto& s = by[m.text("collective")];
    s.name = m.text("collective");
    s.xy.emplace_back(*bytes, *busbw / 1e9);
  }
  for (auto& [k, s] : by) {
    std::sort(s.xy.begin(), s.xy.end());
    c.series.push_back(std::move(s));
  }
  if (!c.drawable()) return std::nullopt;
  return c;
}

std::vector<Chart> bench_charts(const bench::Report& r) {
  std::vector<Chart> out;
  for (const auto& d : r.devices)
    for (auto make : {gemm_chart, memory_chart, transfer_chart})
      if (auto c = make(d)) out.push_back(std::move(*c));
  for (auto& c : peer_charts(r)) out.push_back(std::move(c));
  if (auto c = collectives_chart(r)) out.push_back(std::move(*c));
  return out;
}

/// The x of a load level: its concurrency, else its rate.
double level_x(const load::LevelReport& l) {
  if (l.kind == load::ShapeKind::closed) return l.concurrency;
  return std::isfinite(l.rate) ? l.rate : kNaN;
}

std::vector<Chart> load_charts(const load::Report& r) {
  std::vector<Chart> out;
  if (r.levels.empty()) return out;
  const bool closed = r.levels.front().kind == load::ShapeKind::closed;
  const std::string x_label = closed ? "concurrency" : "request rate, /s";
  struct Metric {
    const char* name;
    load::MetricStats load::LatencySummaries::*stats;
    double slo;
  };
  const Metric metrics[] = {{"TTFT", &load::LatencySummaries::ttft, r.slo.ttft_ms},
                            {"TPOT", &load::LatencySummaries::tpot, r.slo.tpot_ms},
                            {"ITL", &load::LatencySummaries::itl, 0},
                            {"E2E latency", &load::LatencySummaries::e2el, r.slo.e2e_ms}};
  for (const auto& m : metrics) {
    Chart c;
    c.kind = ChartKind::lines;
    c.title = fmt::format("{} against {}: median and p99", m.name, x_label);
    c.x_label = x_label;
    c.y_label = "ms";
    Series p50{"median", {}, {}, {}}, p99{"p99", {}, {}, {}};
    for (const auto& l : r.levels) {
      const auto& s = (l.lat.*m.stats).summary;
      const double x = level_x(l);
      if (s.count == 0 || !std::isfinite(x)) continue;
      p50.xy.emplace_back(x, s.median);
      p99.xy.emplace_back(x, s.p99);
    }
    if (p50.xy.empty()) continue;
    c.series = {std::move(p50), std::move(p99)};
    if (m.slo > 0) c.lines.push_back({"SLO", m.slo});
    out.push_back(std::move(c));
  }
  Chart knee;
  knee.kind = ChartKind::lines;
  knee.title = "Output throughput against latency (the knee): each point a level";
  knee.x_label = "output tokens/s";
  knee.y_label = "ms";
  Series ttft{"TTFT p99", {}, {}, {}}, e2e{"E2E median", {}, {}, {}};
  for (const auto& l : r.levels) {
    if (l.completed == 0) continue;
    if (l.lat.ttft.summary.count) ttft.xy.emplace_back(l.output_throughput, l.lat.ttft.summary.p99);
    if (l.lat.e2el.summary.count) e2e.xy.emplace_back(l.output_throughput, l.lat.e2el.summary.median);
  }
  std::sort(ttft.xy.begin(), ttft.xy.end());
  std::sort(e2e.xy.begin(), e2e.xy.end());
  knee.series = {std::move(ttft), std::move(e2e)};
  if (knee.drawable()) out.push_back(std::move(knee));
  Chart good;
  good.kind = ChartKind::bars;
  good.title = "Requests a second: all completed, and within the SLOs (goodput)";
  good.y_label = "requests/s";
  Series all{"throughput", {}, {}, {}}, within{"goodput", {}, {}, {}};
  bool any_goodput = false;
  for (const auto& l : r.levels) {
    good.categories.push_back(l.label);
    all.values.push_back(l.request_throughput);
    within.values.push_back(l.request_goodput ? *l.request_goodput : kNaN);
    any_goodput = any_goodput || l.request_goodput.has_value();
  }
  good.series.push_back(std::move(all));
  if (any_goodput) good.series.push_back(std::move(within));
  if (good.drawable()) out.push_back(std::move(good));
  return out;
}

std::vector<Chart> stress_charts(const stress::Report& r) {
  std::vector<Chart> out = sample_charts(r.samples);
  for (const auto& d : r.devices)
    for (const auto& check : d.checks) {
      if (check.series.size() < 2) continue;
      Chart c;
      c.kind = ChartKind::lines;
      c.title = fmt::format("Device {} {}: the rate over the run", d.index, stress::to_string(check.kind));
      c.x_label = "seconds";
      const bool flops = check.unit == "FLOP/s";
      c.y_label = flops ? "TFLOPS" : "GB/s";
      const double scale = flops ? 1e-12 : 1e-9;
      Series s{std::string(stress::to_string(check.kind)), {}, {}, {}};
      for (const auto& p : check.series) s.xy.emplace_back(p.t_s, p.rate * scale);
      c.series.push_back(std::move(s));
      if (check.expected) c.lines.push_back({"expected", *check.expected * scale});
      if (check.floor) c.lines.push_back({"floor", *check.floor * scale});
      out.push_back(std::move(c));
    }
  return out;
}

}  // namespace

std::vector<Chart> charts_of(const ResultFile& file) {
  if (const auto* b = std::get_if<bench::Report>(&file.report)) return bench_charts(*b);
  if (const auto* l = std::get_if<load::Report>(&file.report)) return load_charts(*l);
  if (const auto* s = std::get_if<stress::Report>(&file.report)) return stress_charts(*s);
  return {};
}

}  // namespace dcukit::flows
