// A reading's JSON (telemetry --json, one object or one JSON Lines line of --watch) read back
// into a Snapshot: what `report` and `compare` read across hosts and versions.
#include <fmt/format.h>

#include <type_traits>

#include "telemetry/render.h"
#include "util/json_text.h"

namespace dcukit::telemetry {
namespace {

using Doc = nlohmann::json;  // a name of its own: the unity build shares file scopes

using util::read_at;
using util::string_at;

template <class T>
struct is_optional_vector : std::false_type {};
template <class U>
struct is_optional_vector<std::optional<std::vector<U>>> : std::true_type {};

/// One figure of the contract into its optional (null or absent: not given).
template <class T>
Status figure_of(const Doc& j, const char* key, std::optional<T>& out) {
  if (!j.contains(key) || j[key].is_null()) return {};
  if constexpr (std::is_same_v<T, Vendor>) {
    const auto v = parse_vendor(string_at(j, key));
    if (!v) return Error{fmt::format("devices[].{}: '{}' is not a vendor", key, string_at(j, key))};
    out = *v;
  } else if constexpr (std::is_same_v<T, std::vector<ProcessUse>>) {
    std::vector<ProcessUse> list;
    for (const Doc& p : j[key]) {
      ProcessUse use;
      read_at(p, "pid", use.pid);
      read_at(p, "name", use.name);
      read_at(p, "memory_bytes", use.memory_bytes);
      list.push_back(std::move(use));
    }
    out = std::move(list);
  } else {
    read_at(j, key, out);
  }
  return {};
}

Result<DeviceState> device_of(const Doc& j) {
  DeviceState d;
  read_at(j, "index", d.index);
  Status st;
  visit_figures(d, [&](Field f, auto& v) {
    if (st) st = figure_of(j, std::string(to_string(f)).c_str(), v);
  });
  if (!st) return st.error();
  if (j.contains("figure_sources") && j["figure_sources"].is_object())
    for (const auto& [field, source] : j["figure_sources"].items()) {
      const auto f = parse_field(field);
      const auto s = parse_source_kind(source.is_string() ? source.get<std::string>() : std::string());
      if (!f || !s) return Error{fmt::format("devices[].figure_sources: '{}' is not a figure with a source", field)};
      d.sources[*f] = *s;
    }
  return d;
}

}  // namespace

Result<Snapshot> from_json(std::string_view text) {
  const Doc j = util::parse_json(text);
  if (!j.is_object() || !j.contains("devices") || !j["devices"].is_array() || !j.contains("source"))
    return Error{"not a dcukit telemetry reading: no JSON object with source and devices (write one with `dcukit "
                 "telemetry --json`)"};
  Snapshot s;
  read_at(j, "source", s.source);
  read_at(j, "timestamp", s.timestamp);
  read_at(j, "path", s.path);
  read_at(j, "format", s.format);
  for (const Doc& d : j["devices"]) {
    auto device = device_of(d);
    if (!device) return device.error();
    s.devices.push_back(std::move(*device));
  }
  if (j.contains("topology") && j["topology"].contains("links"))
    for (const Doc& l : j["topology"]["links"]) {
      TopoLink link;
      read_at(l, "a", link.a);
      read_at(l, "b", link.b);
      read_at(l, "type", link.type);
      read_at(l, "hops", link.hops);
      read_at(l, "weight", link.weight);
      read_at(l, "bandwidth_gbps", link.bandwidth_gbps);
      if (l.contains("attributes") && l["attributes"].is_object())
        for (const auto& [k, v] : l["attributes"].items())
          if (v.is_string()) link.attributes.emplace_back(k, v.get<std::string>());
      s.topology.links.push_back(std::move(link));
    }
  for (const Doc& c : j.value("checks", Doc::array())) {
    Check check;
    read_at(c, "category", check.category);
    read_at(c, "name", check.name);
    const auto status = parse_check_status(string_at(c, "status"));
    if (!status) return Error{fmt::format("checks[] '{}': status '{}' is not pass, warn, fail or skip", check.name,
                                          string_at(c, "status"))};
    check.status = *status;
    read_at(c, "result", check.result);
    read_at(c, "detail", check.detail);
    s.checks.push_back(std::move(check));
  }
  for (const Doc& f : j.value("facts", Doc::array())) s.facts.push_back({string_at(f, "key"), string_at(f, "value")});
  for (const Doc& r : j.value("sources", Doc::array())) {
    const auto state = parse_source_state(string_at(r, "state"));
    if (!state) return Error{fmt::format("sources[] '{}': state '{}' is not one telemetry writes", string_at(r, "name"),
                                         string_at(r, "state"))};
    s.sources.push_back({string_at(r, "name"), *state, string_at(r, "detail")});
  }
  read_at(j, "warnings", s.warnings);
  return s;
}

}  // namespace dcukit::telemetry
