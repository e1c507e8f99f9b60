#include "flows/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/stats.h"
#include "core/units.h"

namespace dcukit::flows {
namespace {

std::string host_of(const ResultFile& f) {
  const auto& h = f.run_info.host.hostname;
  return h.empty() ? "(unknown host)" : h;
}

std::string title_of(const ResultFile& f) {
  std::string what;
  if (const auto* b = std::get_if<bench::Report>(&f.report)) {
    std::set<std::string> names;
    for (const auto& d : b->devices) names.insert(d.info.name);
    what = fmt::format(": {} device(s) ({}), {} backend", b->devices.size(), fmt::join(names, ", "),
                       device::to_string(b->backend));
  } else if (const auto* s = std::get_if<stress::Report>(&f.report)) {
    what = fmt::format(" level {}: {}", s->level, stress::to_string(s->verdict()));
  } else if (const auto* l = std::get_if<load::Report>(&f.report)) {
    what = fmt::format(": {} at {}", l->model, l->url);
  }
  return fmt::format("{} on {}{}", to_string(f.kind), host_of(f), what);
}

std::string markdown_of(const ResultFile& f) {
  return std::visit(
      [](const auto& r) -> std::string {
        if constexpr (requires { render_markdown(r); }) return render_markdown(r);
        else return {};
      },
      f.report);
}

/// A table as {title, columns, rows, notes}.
nlohmann::ordered_json table_json(const core::Table& t) {
  nlohmann::ordered_json cols = nlohmann::ordered_json::array();
  for (const auto& c : t.columns) cols.push_back(c.header);
  return {{"title", t.title}, {"columns", cols}, {"rows", t.rows}, {"notes", t.notes}};
}

/// Every *.csv under `dir`, sorted by path.
std::vector<std::string> csv_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".csv") out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string rate_text(double v, bench::RateUnit unit) {
  switch (unit) {
    case bench::RateUnit::flop_per_s:
      return fmt::format("{:.1f} TFLOPS", v / 1e12);
    case bench::RateUnit::op_per_s:
      return fmt::format("{:.1f} TOPS", v / 1e12);
    case bench::RateUnit::byte_per_s:
      return fmt::format("{:.1f} GB/s", v / 1e9);
    default:
      return fmt::format("{:.3g}", v);
  }
}

std::vector<core::Table> placement_tables(const ResultFile& file) {
  std::vector<core::Table> out;
  if (const auto* b = std::get_if<bench::Report>(&file.report)) {
    core::Table t;
    t.title = "Against the expected figures of each card's SKU (data/expected.json)";
    t.columns = {{"device"},          {"case", core::Align::left},  {"measured"},
                 {"expected"},        {"floor"},                    {"ratio"},
                 {"placement", core::Align::left}, {"likely cause, or source", core::Align::left}};
    std::set<std::string> unplaced;
    for (const auto& d : b->devices)
      for (const auto& m : d.results) {
        const auto& p = m.placed;
        if (p.placement == core::Placement::no_reference) {
          if (m.outcome == bench::Outcome::ok && m.rate_unit != bench::RateUnit::microseconds) unplaced.insert(p.source);
          continue;
        }
        t.add_row({std::to_string(d.info.index), m.benchmark + " " + m.name, rate_text(m.rate, m.rate_unit),
                   rate_text(p.expected, m.rate_unit), rate_text(p.floor, m.rate_unit), fmt::format("{:.2f}x", p.ratio()),
                   core::placement_word(p.placement),
                   p.placement == core::Placement::low ? fmt::format("{}", fmt::join(p.causes, "; ")) : p.source});
      }
    for (const auto& why : unplaced) t.notes.push_back("Other cases: " + why);
    if (!t.rows.empty() || !t.notes.empty()) out.push_back(std::move(t));
  }
  if (const auto* s = std::get_if<stress::Report>(&file.report)) {
    core::Table t;
    t.title = "Sustained figures against the SKU's (data/stress.json)";
    t.columns = {{"device"}, {"check", core::Align::left}, {"measured"}, {"expected"}, {"floor"}, {"ratio"},
                 {"placement", core::Align::left}};
    for (const auto& d : s->devices)
      for (const auto& c : d.checks) {
        if (!c.rate || !c.expected || !c.floor || *c.expected <= 0) continue;
        const auto p = core::place_figure(*c.rate, *c.expected, *c.floor);
        const double scale = c.unit == "FLOP/s" ? 1e-12 : 1e-9;
        const char* unit = c.unit == "FLOP/s" ? "TFLOPS" : "GB/s";
        t.add_row({std::to_string(d.index), std::string(stress::to_string(c.kind)),
                   fmt::format("{:.1f} {}", *c.rate * scale, unit), fmt::format("{:.1f} {}", *c.expected * scale, unit),
                   fmt::format("{:.1f} {}", *c.floor * scale, unit), fmt::format("{:.2f}x", *c.rate / *c.expected),
                   core::placement_word(p)});
      }
    if (!t.rows.empty()) out.push_back(std::move(t));
  }
  return out;
}

Result<ReportDoc> build_report(const std::vector<std::string>& inputs, const core::RunInfo& run_info) {
  namespace fs = std::filesystem;
  if (inputs.empty()) return Error{"no result file or folder given: name the JSON files (or folders of them) to report"};
  ReportDoc doc;
  doc.run_info = run_info;
  std::vector<std::pair<std::string, std::vector<stress::Sample>>> series;
  const auto add_csv = [&](const std::string& path, bool in_folder) -> Status {
    auto samples = read_series_csv(path);
    if (!samples && in_folder) {
      doc.notes.push_back("left out " + samples.error().message);
      return {};
    }
    if (!samples) return samples.error();
    series.emplace_back(path, std::move(*samples));
    return {};
  };
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      auto all = read_results(in, &doc.notes);
      if (!all) return all.error();
      const auto csvs = csv_files(in);
      if (all->empty() && csvs.empty())
        return Error{fmt::format("{}: no dcukit result in this folder (no *.json file that a dcukit command wrote "
                                 "with --json)", in)};
      for (auto& f : *all) doc.files.push_back(std::move(f));
      for (const auto& c : csvs)
        if (auto st = add_csv(c, true); !st) return st.error();
    } else {
      if (!fs::exists(in, ec)) return Error{fmt::format("{}: no such file or folder", in)};
      if (fs::path(in).extension() == ".csv") {
        if (auto st = add_csv(in, false); !st) return st.error();
        continue;
      }
      auto f = read_result(in);
      if (!f) return f.error();
      doc.files.push_back(std::move(*f));
    }
  }
  if (doc.files.empty() && series.empty())
    return Error{fmt::format("nothing to report in {}: {}", fmt::join(inputs, ", "),
                             doc.notes.empty() ? "no result" : doc.notes.front())};
  for (const auto& f : doc.files) {
    ReportSection s;
    s.title = title_of(f);
    s.origin = f.path;
    s.kind = f.kind;
    s.run_info = f.run_info;
    s.markdown = markdown_of(f);
    s.placed = placement_tables(f);
    for (auto& c : charts_of(f))
      if (c.drawable()) s.charts.push_back(std::move(c));
    doc.sections.push_back(std::move(s));
  }
  for (auto& [path, samples] : series) {
    ReportSection s;
    std::set<int> devices;
    for (const auto& x : samples) devices.insert(x.device);
    s.title = fmt::format("time series of {} device(s): {}", devices.size(), fs::path(path).filename().string());
    s.origin = path;
    s.kind = ResultKind::telemetry;
    s.run_info.tool = "dcukit telemetry or stress --csv";
    for (auto& c : sample_charts(samples))
      if (c.drawable()) s.charts.push_back(std::move(c));
    s.markdown = fmt::format("{} reading(s) over {:.0f} s.\n", samples.size(), samples.back().t_s - samples.front().t_s);
    doc.sections.push_back(std::move(s));
    doc.series.emplace_back(path, samples.size());
  }
  doc.fleet = fleet_tables(doc.files, &doc.fleet_charts);
  return doc;
}

nlohmann::ordered_json to_json(const ReportDoc& doc) {
  nlohmann::ordered_json j = core::report_head(doc.run_info, 1);
  j["results"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < doc.files.size(); ++i) {
    const auto& f = doc.files[i];
    nlohmann::ordered_json placed = nlohmann::ordered_json::array();
    for (const auto& t : doc.sections[i].placed) placed.push_back(table_json(t));
    j["results"].push_back({{"path", f.path},
                            {"kind", std::string(to_string(f.kind))},
                            {"title", doc.sections[i].title},
                            {"charts", doc.sections[i].charts.size()},
                            {"placement", placed},
                            {"result", f.document}});
  }
  j["series"] = nlohmann::ordered_json::array();
  for (const auto& [path, readings] : doc.series) j["series"].push_back({{"path", path}, {"readings", readings}});
  j["fleet"] = nlohmann::ordered_json::array();
  for (const auto& t : doc.fleet) j["fleet"].push_back(table_json(t));
  return j;
}

}  // namespace dcukit::flows
