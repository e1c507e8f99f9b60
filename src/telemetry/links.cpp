#include "telemetry/links.h"

#include <fmt/format.h>

#include <cctype>

#include "util/dynlib.h"

namespace dcukit::telemetry {

LinkReading live_links(const util::Root& root) {
  LinkReading out = kfd_links(root);
  if (!root.is_host()) return out;  // a fake host or a bundle has no NVML to ask
  util::DynLib lib;
  if (!lib.open("libnvidia-ml.so.1") && !lib.open("libnvidia-ml.so")) return out;  // no NVIDIA driver here
  nvml::Api api;
  if (auto st = nvml::load(lib, api); !st) {
    out.warnings.push_back("nvml: " + st.message());
    return out;
  }
  if (const auto rc = api.init(); rc != nvml::kSuccess) {
    out.warnings.push_back(fmt::format("nvml: nvmlInit_v2 failed ({}); NVIDIA links not read",
                                       api.error_string ? api.error_string(rc) : std::to_string(rc)));
    return out;
  }
  LinkReading n = nvml_links(api);
  api.shutdown();
  for (auto& l : n.topology.links) out.topology.links.push_back(std::move(l));
  out.sources.insert(out.sources.end(), n.sources.begin(), n.sources.end());
  out.warnings.insert(out.warnings.end(), n.warnings.begin(), n.warnings.end());
  return out;
}

const TopoLink* find_link(const Topology& t, const std::string& bus_a, const std::string& bus_b) {
  for (const auto& l : t.links)
    if ((l.a == bus_a && l.b == bus_b) || (l.a == bus_b && l.b == bus_a)) return &l;
  return nullptr;
}

std::string describe(const TopoLink& l) {
  std::string out = l.type.value_or("link of unknown type");
  if (l.hops) out += fmt::format(", {} hop{}", *l.hops, *l.hops == 1 ? "" : "s");
  if (l.weight) out += fmt::format(", weight {}", *l.weight);
  std::string source;
  for (const auto& [k, v] : l.attributes) {
    if (k == "via" || k == "peer access") out += fmt::format(", {} {}", k, v);
    if (k == "source") source = v;
  }
  return source.empty() ? out : fmt::format("{} ({})", out, source);
}

bool direct_link(const TopoLink& l) {
  if (!l.type) return false;
  const std::string& t = *l.type;
  return t == "XGMI" || (t.size() > 2 && t.starts_with("NV") && std::isdigit(static_cast<unsigned char>(t[2]))) ||
         t == "PIX" || t == "PXB" || t == "SAME";
}

}  // namespace dcukit::telemetry
