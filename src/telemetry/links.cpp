#include "telemetry/links.h"

#include <fmt/format.h>

#include <cctype>

#include "telemetry/nvml_source.h"

namespace dcukit::telemetry {

LinkReading live_links(const util::Root& root) {
  LinkReading out = kfd_links(root);
  if (!root.is_host()) return out;  // a fake host or a bundle has no NVML to ask
  NvmlSource nvml;                  // loads libnvidia-ml where the driver is installed
  const LinkReading& n = nvml.links();
  out.topology.links.insert(out.topology.links.end(), n.topology.links.begin(), n.topology.links.end());
  out.sources.insert(out.sources.end(), n.sources.begin(), n.sources.end());
  out.warnings.insert(out.warnings.end(), n.warnings.begin(), n.warnings.end());
  return out;
}

const TopoLink* find_link(const Topology& t, const std::string& bus_a, const std::string& bus_b) {
  for (const auto& l : t.links)
    if ((l.a == bus_a && l.b == bus_b) || (l.a == bus_b && l.b == bus_a)) return &l;
  return nullptr;
}

std::string attribute(const TopoLink& l, std::string_view key) {
  for (const auto& [k, v] : l.attributes)
    if (k == key) return v;
  return "";
}

std::string link_notes(const TopoLink& l, std::string_view sep) {
  std::string out;
  for (const auto& [k, v] : l.attributes)
    if (k == "via" || k == "peer access") out += fmt::format("{}{} {}", out.empty() ? "" : sep, k, v);
  return out;
}

std::string describe(const TopoLink& l) {
  std::string out = l.type.value_or("link of unknown type");
  if (l.hops) out += fmt::format(", {} hop{}", *l.hops, *l.hops == 1 ? "" : "s");
  if (l.weight) out += fmt::format(", weight {}", *l.weight);
  if (const auto notes = link_notes(l, ", "); !notes.empty()) out += ", " + notes;
  const auto source = attribute(l, "source");
  return source.empty() ? out : fmt::format("{} ({})", out, source);
}

bool direct_link(const TopoLink& l) {
  if (!l.type) return false;
  const std::string& t = *l.type;
  return t == "XGMI" || (t.size() > 2 && t.starts_with("NV") && std::isdigit(static_cast<unsigned char>(t[2]))) ||
         t == "PIX" || t == "PXB" || t == "SAME";
}

}  // namespace dcukit::telemetry
