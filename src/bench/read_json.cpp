// A bench result file read back into a Report: what `report` and `compare` read across hosts
// and versions (the files are the interface, not the process that wrote them).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bench/render.h"

#include "bench/placement.h"
#include "util/json_text.h"

namespace dcukit::bench {
namespace {

using Doc = nlohmann::json;  // a name of its own: the unity build shares file scopes

using util::number_at;
using util::optional_number_at;
using util::string_at;

core::Summary summary_of(const Doc& j) {
  core::Summary s;
  if (!j.is_object()) return s;
  s.count = static_cast<std::size_t>(number_at(j, "count"));
  s.mean = number_at(j, "mean");
  s.median = number_at(j, "median");
  s.stddev = number_at(j, "stddev");
  s.min = number_at(j, "min");
  s.max = number_at(j, "max");
  s.p90 = number_at(j, "p90");
  s.p95 = number_at(j, "p95");
  s.p99 = number_at(j, "p99");
  return s;
}

Result<Measurement> measurement_of(const Doc& j) {
  if (!j.is_object()) return Error{"a result is not an object"};
  Measurement m;
  m.benchmark = string_at(j, "benchmark");
  m.name = string_at(j, "name");
  const auto outcome = parse_outcome(string_at(j, "outcome"));
  const auto unit = parse_rate_unit(string_at(j, "rate_unit"));
  if (m.benchmark.empty() || !outcome || !unit)
    return Error{fmt::format("result '{}' has no benchmark, outcome or rate_unit that bench writes", m.name)};
  m.outcome = *outcome;
  m.rate_unit = *unit;
  if (j.contains("params") && j["params"].is_object())
    for (const auto& [k, v] : j["params"].items()) {
      if (v.is_number_integer()) m.params.push_back({k, v.get<std::int64_t>()});
      else if (v.is_number()) m.params.push_back({k, v.get<double>()});
      else if (v.is_string()) m.params.push_back({k, v.get<std::string>()});
    }
  m.reason = string_at(j, "reason");
  m.work = number_at(j, "work");
  m.rate = number_at(j, "rate");
  m.time_ms = summary_of(j.contains("time_ms") ? j["time_ms"] : Doc());
  if (j.contains("samples_ms") && j["samples_ms"].is_array())
    for (const auto& v : j["samples_ms"])
      if (v.is_number()) m.samples_ms.push_back(v.get<double>());
  m.check = string_at(j, "check");
  m.peak_key = string_at(j, "peak_key");
  m.peak = optional_number_at(j, "peak");
  m.peak_note = string_at(j, "peak_note");
  if (j.contains("expected") && j["expected"].is_object() && j["expected"].contains("causes") &&
      j["expected"]["causes"].is_array())
    for (const auto& c : j["expected"]["causes"])
      if (c.is_string()) m.placed.causes.push_back(c.get<std::string>());
  return m;
}

Result<DeviceReport> device_of(const Doc& j) {
  if (!j.is_object()) return Error{"a device is not an object"};
  DeviceReport d;
  auto& i = d.info;
  i.index = static_cast<int>(number_at(j, "index"));
  i.name = string_at(j, "name");
  i.arch = string_at(j, "arch");
  i.pci_bus_id = string_at(j, "pci_bus_id");
  i.total_memory = static_cast<std::uint64_t>(number_at(j, "total_memory"));
  i.compute_units = static_cast<int>(number_at(j, "compute_units"));
  i.warp_size = static_cast<int>(number_at(j, "warp_size"));
  i.clock_mhz = static_cast<int>(number_at(j, "clock_mhz"));
  i.memory_clock_mhz = static_cast<int>(number_at(j, "memory_clock_mhz"));
  i.memory_bus_width_bits = static_cast<int>(number_at(j, "memory_bus_width_bits"));
  i.l2_cache_bytes = static_cast<std::uint64_t>(number_at(j, "l2_cache_bytes"));
  d.pci_id = string_at(j, "pci_id");
  d.free_memory = static_cast<std::uint64_t>(number_at(j, "free_memory"));
  d.numa_node = j.contains("numa_node") && j["numa_node"].is_number() ? j["numa_node"].get<int>() : -1;
  d.pcie_gen = static_cast<int>(number_at(j, "pcie_gen"));
  d.pcie_width = static_cast<int>(number_at(j, "pcie_width"));
  d.rank = j.contains("rank") && j["rank"].is_number_integer() ? j["rank"].get<int>() : -1;
  d.host = string_at(j, "host");
  if (j.contains("peak_data") && j["peak_data"].is_object()) {
    const auto& p = j["peak_data"];
    d.spec_key = string_at(p, "key");
    d.spec_name = string_at(p, "name");
    d.spec_source = string_at(p, "source");
    d.peak_note = string_at(p, "note");
  }
  if (j.contains("results") && j["results"].is_array())
    for (const auto& r : j["results"]) {
      auto m = measurement_of(r);
      if (!m) return m.error();
      d.results.push_back(std::move(*m));
    }
  return d;
}

}  // namespace

Result<Report> from_json(std::string_view text) {
  const Doc j = util::parse_json(text);
  if (j.is_discarded() || !j.is_object()) return Error{"not JSON: a bench result file is one JSON object"};
  if (!j.contains("run_info") || !j.contains("devices") || !j["devices"].is_array() ||
      string_at(j["run_info"], "tool") != "dcukit bench")
    return Error{"not a bench result (no run_info of \"dcukit bench\" and devices list); write one with "
                 "dcukit bench --json FILE"};
  Report r;
  r.run_info = core::run_info_from_json(j["run_info"]);
  r.suite = string_at(j, "suite");
  const auto backend = device::parse_backend_kind(string_at(j, "backend"));
  if (!backend) return Error{fmt::format("backend '{}': not cpu, cuda or hip", string_at(j, "backend"))};
  r.backend = *backend;
  r.interrupted = j.contains("interrupted") && j["interrupted"].is_boolean() && j["interrupted"].get<bool>();
  if (j.contains("versions") && j["versions"].is_object())
    for (const auto& [k, v] : j["versions"].items())
      if (v.is_string()) r.versions.emplace_back(k, v.get<std::string>());
  for (const char* key : {"notes", "errors"})
    if (j.contains(key) && j[key].is_array())
      for (const auto& v : j[key])
        if (v.is_string()) (std::string_view(key) == "notes" ? r.notes : r.errors).push_back(v.get<std::string>());
  for (const auto& dj : j["devices"]) {
    auto d = device_of(dj);
    if (!d) return d.error();
    r.devices.push_back(std::move(*d));
  }
  if (j.contains("group") && j["group"].is_array())  // absent in files written before group benchmarks
    for (const auto& mj : j["group"]) {
      auto m = measurement_of(mj);
      if (!m) return m.error();
      r.group.push_back(std::move(*m));
    }
  // Placed against today's data/expected.json, so that an old file is placed too; a case still
  // low keeps the causes its run wrote (the card's state then, which a reader cannot see).
  std::vector<std::vector<std::string>> written;
  for (const auto& d : r.devices)
    for (const auto& m : d.results) written.push_back(m.placed.causes);
  place_all(r);
  std::size_t i = 0;
  for (auto& d : r.devices)
    for (auto& m : d.results) {
      if (m.placed.placement == core::Placement::low && !written[i].empty()) m.placed.causes = written[i];
      ++i;
    }
  return r;
}

}  // namespace dcukit::bench
