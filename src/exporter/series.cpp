#include "exporter/series.h"

#include <set>

namespace dcukit::exporter {

void write_series(serving::TextWriter& w, const std::vector<Series>& series,
                  const std::vector<telemetry::DeviceState>& devices,
                  const std::function<serving::Labels(const telemetry::DeviceState&)>& labels) {
  std::set<std::string> started;
  for (const auto& s : series) {
    for (const auto& d : devices) {
      const auto v = s.value(d);
      if (!v) continue;
      if (started.insert(s.name).second) w.family(s.name, s.type, s.help);
      serving::Labels l = labels(d);
      l.insert(l.end(), s.extra.begin(), s.extra.end());
      w.sample(s.name, l, *v);
    }
  }
}

}  // namespace dcukit::exporter
