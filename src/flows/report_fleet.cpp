// The fleet table of `dcukit report`: one row a device of each node (a node is a host, or a
// host's rank where a host ran several: mpirun on one machine, or one rank a GPU), its figure of
// each case every device measured, LOW under 0.9 of the devices' median (a bad card among eight
// good ones is not hidden behind them), its stress verdict, and for a LOW row its likely cause
// from its own facts: what differs from most of the fleet (the card, its link as trained, its
// NUMA node, its clocks, the kernel, the CPU, a results-changing variable), and the causes the
// run itself found (bench's placement: link, NUMA, telemetry at the end of the run).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/stats.h"
#include "flows/report.h"

namespace dcukit::flows {
namespace {

struct FleetNode {
  std::string host;
  int rank = -1, device = 0;
  std::map<std::string, double> rates;                      ///< case -> best rate
  std::map<std::string, std::vector<std::string>> causes;   ///< case -> the run's own causes, when low
  std::map<std::string, std::string> facts;                 ///< fact -> value
  std::string verdict;                                      ///< stress's
};

void file_facts(const ResultFile& f, FleetNode& n) {
  const auto& h = f.run_info.host;
  if (!h.kernel.empty()) n.facts.emplace("kernel", h.kernel);
  if (!h.cpu.empty()) n.facts.emplace("CPU", h.cpu);
  for (const auto& [k, v] : f.run_info.environment) n.facts.emplace(k, v);
}

void device_facts(const bench::DeviceReport& d, FleetNode& n) {
  if (!d.info.name.empty()) n.facts.emplace("card", d.info.name);
  if (d.pcie_gen > 0 && d.pcie_width > 0) n.facts.emplace("link", fmt::format("PCIe Gen{} x{}", d.pcie_gen, d.pcie_width));
  if (d.numa_node >= 0) n.facts.emplace("NUMA node", std::to_string(d.numa_node));
  if (d.info.clock_mhz > 0) n.facts.emplace("clock", fmt::format("{} MHz", d.info.clock_mhz));
  if (d.info.memory_clock_mhz > 0) n.facts.emplace("memory clock", fmt::format("{} MHz", d.info.memory_clock_mhz));
}

bool is_environment(const std::string& fact) {
  return fact != "kernel" && fact != "CPU" && fact != "card" && fact != "link" && fact != "NUMA node" &&
         fact != "clock" && fact != "memory clock";
}

/// The facts of `n` that differ from what most devices have: "clock 1200 MHz where 3 of 4 devices have 1700 MHz".
std::vector<std::string> differences(const FleetNode& n, const std::vector<const FleetNode*>& all) {
  std::set<std::string> names;
  for (const auto* o : all)
    for (const auto& [k, _] : o->facts) names.insert(k);
  std::vector<std::string> out;
  for (const auto& name : names) {
    std::map<std::string, int> counts;
    int known = 0;
    for (const auto* o : all) {
      const auto it = o->facts.find(name);
      if (it != o->facts.end()) ++known, ++counts[it->second];
      else if (is_environment(name)) ++known, ++counts["unset"];  // a variable not set is a fact too
    }
    if (known < 2) continue;
    const auto mode = std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second < b.second; });
    const auto it = n.facts.find(name);
    const std::string mine = it != n.facts.end() ? it->second : (is_environment(name) ? "unset" : "");
    if (mine.empty() || mine == mode->first || mode->second * 2 <= known) continue;
    out.push_back(is_environment(name)
                      ? fmt::format("{}={} where {} of {} devices have {}", name, mine, mode->second, known,
                                    mode->first == "unset" ? "it unset" : name + "=" + mode->first)
                      : fmt::format("{} {} where {} of {} devices have {}", name, mine, mode->second, known, mode->first));
  }
  return out;
}

}  // namespace

std::vector<core::Table> fleet_tables(const std::vector<ResultFile>& files, std::vector<Chart>* charts) {
  std::map<std::tuple<std::string, int, int>, FleetNode> nodes;  // (host, rank, device)
  std::map<std::string, bench::RateUnit> units;
  const auto node = [&](const std::string& host, int rank, int device) -> FleetNode& {
    auto& n = nodes[{host, rank, device}];
    n.host = host;
    n.rank = rank;
    n.device = device;
    return n;
  };
  for (const auto& f : files) {
    const std::string file_host = f.run_info.host.hostname.empty() ? "(unknown host)" : f.run_info.host.hostname;
    const int file_rank = f.run_info.launch ? f.run_info.launch->rank : -1;
    if (const auto* b = std::get_if<bench::Report>(&f.report)) {
      for (const auto& d : b->devices) {
        auto& n = node(d.host.empty() ? file_host : d.host, d.rank >= 0 ? d.rank : file_rank, d.info.index);
        device_facts(d, n);
        file_facts(f, n);
        for (const auto& m : d.results) {
          if (m.outcome != bench::Outcome::ok || m.rate <= 0 || m.rate_unit == bench::RateUnit::microseconds) continue;
          const std::string key = m.benchmark + " " + m.name;
          units[key] = m.rate_unit;
          if (m.rate <= n.rates[key]) continue;
          n.rates[key] = m.rate;
          n.causes[key] = m.placed.placement == core::Placement::low ? m.placed.causes : std::vector<std::string>{};
        }
      }
    } else if (const auto* s = std::get_if<stress::Report>(&f.report)) {
      for (const auto& d : s->devices) {
        auto& n = node(file_host, file_rank, d.index);
        file_facts(f, n);
        n.verdict = fmt::format("level {}: {}{}", s->level, stress::to_string(d.verdict),
                                d.action == stress::Action::none ? "" : fmt::format(" ({})", stress::to_string(d.action)));
      }
    }
  }
  if (nodes.size() < 2) return {};
  // A host with several ranks is named by rank, a rank with several devices by device.
  std::map<std::string, std::set<int>> ranks;
  std::map<std::pair<std::string, int>, int> devices;
  for (const auto& [key, _] : nodes) {
    ranks[std::get<0>(key)].insert(std::get<1>(key));
    ++devices[{std::get<0>(key), std::get<1>(key)}];
  }
  std::vector<std::pair<std::string, const FleetNode*>> named;
  for (const auto& [key, n] : nodes) {
    const auto& [host, rank, device] = key;
    std::string name = host;
    if (ranks[host].size() > 1 && rank >= 0) name += fmt::format(" rank {}", rank);
    if (devices[{host, rank}] > 1) name += fmt::format(" gpu {}", device);
    named.emplace_back(name, &n);
  }
  std::vector<const FleetNode*> all;
  for (const auto& [_, n] : named) all.push_back(n);
  // The cases every node with bench results measured, at most 8.
  std::vector<std::string> cases;
  int with_rates = 0;
  for (const auto* n : all) with_rates += !n->rates.empty();
  for (const auto& [key, unit] : units) {
    const bool everywhere =
        std::all_of(all.begin(), all.end(), [&](const FleetNode* n) { return n->rates.empty() || n->rates.count(key); });
    if (everywhere && with_rates >= 2) cases.push_back(key);
  }
  if (cases.size() > 8) cases.resize(8);
  bool any_verdict = false;
  for (const auto* n : all) any_verdict = any_verdict || !n->verdict.empty();
  std::map<std::string, double> medians;
  for (const auto& c : cases) {
    std::vector<double> v;
    for (const auto* n : all)
      if (n->rates.count(c)) v.push_back(n->rates.at(c));
    medians[c] = core::percentile(v, 50);
  }
  core::Table t;
  t.title = fmt::format("Fleet: {} devices of {} nodes (LOW: under 0.9 of the devices' median)", all.size(),
                        devices.size());
  t.columns = {{"device", core::Align::left}};
  for (const auto& c : cases) t.columns.push_back({c});
  if (any_verdict) t.columns.push_back({"stress", core::Align::left});
  int outliers = 0;
  std::vector<std::vector<std::string>> rows;
  bool any_cause = false;
  for (const auto& [name, n] : named) {
    std::vector<std::string> row{name};
    std::vector<std::string> causes;
    bool low_row = false;
    for (const auto& c : cases) {
      const auto it = n->rates.find(c);
      if (it == n->rates.end()) {
        row.push_back("-");
        continue;
      }
      const bool low = it->second < 0.9 * medians[c];
      outliers += low;
      low_row = low_row || low;
      row.push_back(rate_text(it->second, units[c]) + (low ? " LOW" : ""));
      if (low)
        for (const auto& cause : n->causes.at(c))
          if (std::find(causes.begin(), causes.end(), cause) == causes.end()) causes.push_back(cause);
    }
    if (any_verdict) row.push_back(n->verdict.empty() ? "-" : n->verdict);
    if (low_row) {
      for (auto& d : differences(*n, all)) causes.push_back(std::move(d));
      if (causes.empty())
        causes.push_back("no recorded fact of this device differs from the fleet's: run dcukit doctor and dcukit "
                         "telemetry on its node (other processes, throttling, residue)");
      any_cause = true;
    }
    row.push_back(low_row ? fmt::format("{}", fmt::join(causes, "; ")) : "");
    rows.push_back(std::move(row));
  }
  if (any_cause) t.columns.push_back({"likely cause", core::Align::left});
  for (auto& row : rows) {
    if (!any_cause) row.pop_back();
    t.add_row(std::move(row));
  }
  t.notes.push_back(outliers ? fmt::format("{} figure(s) under 0.9 of the devices' median", outliers)
                             : "no device under 0.9 of the devices' median");
  if (charts)
    for (const auto& c : cases) {
      Chart chart;
      chart.kind = ChartKind::bars;
      chart.title = "Fleet: " + c;
      const auto unit = units[c];
      const double scale = unit == bench::RateUnit::byte_per_s ? 1e-9 : 1e-12;
      chart.y_label = unit == bench::RateUnit::byte_per_s ? "GB/s" : "T/s";
      Series s{"device", {}, {}, {}};
      for (const auto& [name, n] : named) {
        if (!n->rates.count(c)) continue;
        chart.categories.push_back(name);
        s.values.push_back(n->rates.at(c) * scale);
        s.flags.push_back(n->rates.at(c) < 0.9 * medians[c] ? "low" : "");
      }
      chart.series.push_back(std::move(s));
      chart.lines.push_back({"0.9 of the median", 0.9 * medians[c] * scale});
      charts->push_back(std::move(chart));
    }
  return {t};
}

}  // namespace dcukit::flows
