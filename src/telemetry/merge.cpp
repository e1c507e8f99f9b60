#include "telemetry/merge.h"

#include <algorithm>

namespace dcukit::telemetry {
namespace {

// Copies each figure `from` has and `to` lacks, with its source.
void fill(DeviceState& to, const DeviceState& from) {
  visit_figures(to, [&](Field f, auto& mine) {
    if (mine) return;
    visit_figures(from, [&](Field g, const auto& theirs) {
      if constexpr (std::is_same_v<std::decay_t<decltype(mine)>, std::decay_t<decltype(theirs)>>) {
        if (f != g || !theirs) return;
        mine = theirs;
        if (auto it = from.sources.find(f); it != from.sources.end()) to.sources[f] = it->second;
      }
    });
  });
}

bool vendors_agree(const DeviceState& a, const DeviceState& b) {
  return !a.vendor || !b.vendor || a.vendor == b.vendor;
}

DeviceState* match(Snapshot& base, const Snapshot& next, std::size_t i, Pairing pairing) {
  const DeviceState& d = next.devices[i];
  if (d.bus_id) {
    for (auto& b : base.devices)
      if (b.bus_id == d.bus_id) return &b;
  }
  DeviceState* same = nullptr;
  if (pairing == Pairing::index) {
    for (auto& b : base.devices)
      if (b.index == d.index) same = &b;
  } else if (base.devices.size() == next.devices.size()) {
    same = &base.devices[i];
  }
  if (!same || (same->bus_id && d.bus_id)) return nullptr;  // both known and different
  return vendors_agree(*same, d) ? same : nullptr;
}

}  // namespace

void merge_into(Snapshot& base, const Snapshot& next, Pairing pairing) {
  std::vector<const DeviceState*> extra;
  for (std::size_t i = 0; i < next.devices.size(); ++i) {
    if (DeviceState* b = match(base, next, i, pairing))
      fill(*b, next.devices[i]);
    else
      extra.push_back(&next.devices[i]);
  }
  for (const DeviceState* d : extra) {
    DeviceState copy = *d;
    const bool taken =
        std::any_of(base.devices.begin(), base.devices.end(), [&](auto& b) { return b.index == copy.index; });
    if (taken) {
      int top = -1;
      for (const auto& b : base.devices) top = std::max(top, b.index);
      copy.index = top + 1;
    }
    base.devices.push_back(std::move(copy));
  }
  for (const auto& l : next.topology.links) {
    const bool known = std::any_of(base.topology.links.begin(), base.topology.links.end(),
                                   [&](const TopoLink& b) { return b.a == l.a && b.b == l.b; });
    if (!known) base.topology.links.push_back(l);
  }
  base.checks.insert(base.checks.end(), next.checks.begin(), next.checks.end());
  base.facts.insert(base.facts.end(), next.facts.begin(), next.facts.end());
  base.warnings.insert(base.warnings.end(), next.warnings.begin(), next.warnings.end());
}

}  // namespace dcukit::telemetry
