// JSON and CSV of a Snapshot.
#include <fmt/format.h>

#include <type_traits>

#include "core/table.h"
#include "telemetry/render.h"

namespace dcukit::telemetry {
namespace {

using ojson = nlohmann::ordered_json;

template <class T>
ojson figure_json(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_same_v<T, Vendor>) {
    return std::string(to_string(*v));
  } else if constexpr (std::is_same_v<T, std::vector<ProcessUse>>) {
    ojson list = ojson::array();
    for (const auto& p : *v) {
      ojson o;
      o["pid"] = p.pid;
      o["name"] = p.name ? ojson(*p.name) : ojson(nullptr);
      o["memory_bytes"] = p.memory_bytes ? ojson(*p.memory_bytes) : ojson(nullptr);
      list.push_back(std::move(o));
    }
    return list;
  } else {
    return *v;
  }
}

template <class T>
std::string figure_csv(const std::optional<T>& v) {
  if (!v) return "";
  if constexpr (std::is_same_v<T, Vendor>)
    return std::string(to_string(*v));
  else if constexpr (std::is_same_v<T, std::string>)
    return *v;
  else if constexpr (std::is_same_v<T, double>)
    return fmt::format("{}", *v);
  else
    return std::to_string(*v);
}

}  // namespace

ojson to_json(const DeviceState& d) {
  ojson o;
  o["index"] = d.index;
  visit_figures(d, [&](Field f, const auto& v) { o[std::string(to_string(f))] = figure_json(v); });
  ojson src = ojson::object();
  for (const auto& [f, s] : d.sources) src[std::string(to_string(f))] = std::string(to_string(s));
  o["figure_sources"] = std::move(src);
  return o;
}

ojson to_json(const Snapshot& s) {
  ojson o;
  o["source"] = s.source;
  o["timestamp"] = s.timestamp;
  if (s.source == "file") {
    o["path"] = s.path;
    o["format"] = s.format;
  }
  o["devices"] = ojson::array();
  for (const auto& d : s.devices) o["devices"].push_back(to_json(d));
  ojson links = ojson::array();
  for (const auto& l : s.topology.links) {
    ojson j;
    j["a"] = l.a;
    j["b"] = l.b;
    j["type"] = figure_json(l.type);
    j["hops"] = figure_json(l.hops);
    j["weight"] = figure_json(l.weight);
    j["bandwidth_gbps"] = figure_json(l.bandwidth_gbps);
    ojson attrs = ojson::object();
    for (const auto& [k, v] : l.attributes) attrs[k] = v;
    j["attributes"] = std::move(attrs);
    links.push_back(std::move(j));
  }
  o["topology"] = {{"links", std::move(links)}};
  o["checks"] = ojson::array();
  for (const auto& c : s.checks)
    o["checks"].push_back({{"category", c.category},
                           {"name", c.name},
                           {"status", std::string(to_string(c.status))},
                           {"result", c.result},
                           {"detail", c.detail}});
  o["facts"] = ojson::array();
  for (const auto& f : s.facts) o["facts"].push_back({{"key", f.key}, {"value", f.value}});
  o["sources"] = ojson::array();
  for (const auto& r : s.sources)
    o["sources"].push_back({{"name", r.name}, {"state", std::string(to_string(r.state))}, {"detail", r.detail}});
  o["warnings"] = s.warnings;
  return o;
}

std::string render_csv(const Snapshot& s, bool header) {
  core::Table t;
  t.columns.push_back({"timestamp"});
  t.columns.push_back({"index"});
  const DeviceState columns;
  visit_figures(columns, [&](Field f, const auto&) {
    if (f != Field::processes) t.columns.push_back({std::string(to_string(f))});
  });
  for (const auto& d : s.devices) {
    std::vector<std::string> row{s.timestamp, std::to_string(d.index)};
    visit_figures(d, [&](Field f, const auto& v) {
      if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::optional<std::vector<ProcessUse>>>) {
        if (f != Field::processes) row.push_back(figure_csv(v));
      }
    });
    t.add_row(std::move(row));
  }
  std::string out = core::render_csv(t);
  if (!header) out.erase(0, out.find('\n') + 1);
  return out;
}

}  // namespace dcukit::telemetry
