// A bench result file read back into a Report: what `report` and `compare` read across hosts
// and versions (the files are the interface, not the process that wrote them).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bench/render.h"
#include "util/json_text.h"

namespace dcukit::bench {
namespace {

using Doc = nlohmann::json;  // a name of its own: the unity build shares file scopes

std::string text_of(const Doc& o, const char* k) {
  return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
}

double number_of(const Doc& o, const char* k) {
  return o.contains(k) && o[k].is_number() ? o[k].get<double>() : 0.0;
}

std::optional<double> optional_number(const Doc& o, const char* k) {
  return o.contains(k) && o[k].is_number() ? std::optional<double>(o[k].get<double>()) : std::nullopt;
}

core::Summary summary_of(const Doc& j) {
  core::Summary s;
  if (!j.is_object()) return s;
  s.count = static_cast<std::size_t>(number_of(j, "count"));
  s.mean = number_of(j, "mean");
  s.median = number_of(j, "median");
  s.stddev = number_of(j, "stddev");
  s.min = number_of(j, "min");
  s.max = number_of(j, "max");
  s.p90 = number_of(j, "p90");
  s.p95 = number_of(j, "p95");
  s.p99 = number_of(j, "p99");
  return s;
}

Result<Measurement> measurement_of(const Doc& j) {
  if (!j.is_object()) return Error{"a result is not an object"};
  Measurement m;
  m.benchmark = text_of(j, "benchmark");
  m.name = text_of(j, "name");
  const auto outcome = parse_outcome(text_of(j, "outcome"));
  const auto unit = parse_rate_unit(text_of(j, "rate_unit"));
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
  m.reason = text_of(j, "reason");
  m.work = number_of(j, "work");
  m.rate = number_of(j, "rate");
  m.time_ms = summary_of(j.contains("time_ms") ? j["time_ms"] : Doc());
  if (j.contains("samples_ms") && j["samples_ms"].is_array())
    for (const auto& v : j["samples_ms"])
      if (v.is_number()) m.samples_ms.push_back(v.get<double>());
  m.check = text_of(j, "check");
  m.peak_key = text_of(j, "peak_key");
  m.peak = optional_number(j, "peak");
  m.peak_note = text_of(j, "peak_note");
  return m;
}

Result<DeviceReport> device_of(const Doc& j) {
  if (!j.is_object()) return Error{"a device is not an object"};
  DeviceReport d;
  auto& i = d.info;
  i.index = static_cast<int>(number_of(j, "index"));
  i.name = text_of(j, "name");
  i.arch = text_of(j, "arch");
  i.pci_bus_id = text_of(j, "pci_bus_id");
  i.total_memory = static_cast<std::uint64_t>(number_of(j, "total_memory"));
  i.compute_units = static_cast<int>(number_of(j, "compute_units"));
  i.warp_size = static_cast<int>(number_of(j, "warp_size"));
  i.clock_mhz = static_cast<int>(number_of(j, "clock_mhz"));
  i.memory_clock_mhz = static_cast<int>(number_of(j, "memory_clock_mhz"));
  i.memory_bus_width_bits = static_cast<int>(number_of(j, "memory_bus_width_bits"));
  i.l2_cache_bytes = static_cast<std::uint64_t>(number_of(j, "l2_cache_bytes"));
  d.pci_id = text_of(j, "pci_id");
  d.free_memory = static_cast<std::uint64_t>(number_of(j, "free_memory"));
  d.numa_node = j.contains("numa_node") && j["numa_node"].is_number() ? j["numa_node"].get<int>() : -1;
  d.pcie_gen = static_cast<int>(number_of(j, "pcie_gen"));
  d.pcie_width = static_cast<int>(number_of(j, "pcie_width"));
  if (j.contains("peak_data") && j["peak_data"].is_object()) {
    const auto& p = j["peak_data"];
    d.spec_key = text_of(p, "key");
    d.spec_name = text_of(p, "name");
    d.spec_source = text_of(p, "source");
    d.peak_note = text_of(p, "note");
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
      text_of(j["run_info"], "tool") != "dcukit bench")
    return Error{"not a bench result (no run_info of \"dcukit bench\" and devices list); write one with "
                 "dcukit bench --json FILE"};
  Report r;
  r.run_info = core::run_info_from_json(j["run_info"]);
  r.suite = text_of(j, "suite");
  const auto backend = device::parse_backend_kind(text_of(j, "backend"));
  if (!backend) return Error{fmt::format("backend '{}': not cpu, cuda or hip", text_of(j, "backend"))};
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
  return r;
}

}  // namespace dcukit::bench
