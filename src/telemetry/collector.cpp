#include "telemetry/collector.h"

#include <fmt/format.h>

#include <array>

#include "telemetry/cli_source.h"
#include "telemetry/deadline.h"
#include "telemetry/merge.h"
#include "telemetry/nvml_source.h"
#include "telemetry/rsmi_source.h"
#include "telemetry/sysfs_source.h"
#include "util/names.h"

namespace dcukit::telemetry {
namespace {

constexpr util::Name<SourceChoice> kChoices[] = {
    {SourceChoice::all, "auto"},    {SourceChoice::nvml, "nvml"}, {SourceChoice::rocm_smi_lib, "rocm-smi-lib"},
    {SourceChoice::sysfs, "sysfs"}, {SourceChoice::cli, "cli"},
};

}  // namespace

std::string_view to_string(SourceChoice c) {
  return util::name_of(kChoices, c);
}
std::optional<SourceChoice> parse_source_choice(std::string_view s) {
  return util::value_of(kChoices, s);
}

std::vector<std::shared_ptr<Source>> make_sources(const CollectOptions& o) {
  const auto want = [&](SourceChoice c) { return o.choice == SourceChoice::all || o.choice == c; };
  std::vector<std::shared_ptr<Source>> out;
  if (want(SourceChoice::nvml)) out.push_back(std::make_shared<NvmlSource>());
  if (want(SourceChoice::rocm_smi_lib)) out.push_back(std::make_shared<RsmiSource>(o.root));
  if (want(SourceChoice::sysfs)) out.push_back(std::make_shared<SysfsSource>(o.root));
  // Up to two tool runs fit in the source's deadline.
  if (want(SourceChoice::cli)) out.push_back(std::make_shared<CliSource>(o.timeout * 45 / 100));
  return out;
}

Collector::Collector(const CollectOptions& options) : Collector(make_sources(options), options.timeout) {}

Collector::Collector(std::vector<std::shared_ptr<Source>> sources, std::chrono::milliseconds timeout)
    : m_timeout(timeout) {
  for (auto& s : sources) m_slots.push_back(Slot{std::move(s), std::nullopt});
}

Snapshot Collector::sample() {
  Snapshot merged;
  merged.timestamp = timestamp_now();
  for (auto& slot : m_slots) {
    SourceReport report{slot.source->name(), SourceState::failed, ""};
    if (slot.hung) {
      report.detail = *slot.hung;
      merged.sources.push_back(report);
      continue;
    }
    auto source = slot.source;
    auto result =
        run_with_deadline<SourceSample>([source, so_far = merged] { return source->sample(so_far); }, m_timeout);
    if (!result) {
      slot.hung = fmt::format("did not answer within {:.1f} s; not asked again (is the driver hung?)",
                              m_timeout.count() / 1000.0);
      report.detail = *slot.hung;
      merged.warnings.push_back(fmt::format("{} {}", report.name, *slot.hung));
      merged.sources.push_back(report);
      continue;
    }
    report.state = result->state;
    report.detail = result->detail;
    merged.sources.push_back(report);
    if (result->state == SourceState::ok || !result->snapshot.devices.empty() || !result->snapshot.warnings.empty())
      merge_into(merged, result->snapshot);
  }
  for (auto& d : merged.devices) derive_figures(d);
  if (merged.devices.empty()) {
    std::string why;
    for (const auto& r : merged.sources) why += fmt::format("; {}: {} ({})", r.name, to_string(r.state), r.detail);
    merged.warnings.push_back("no GPU found" + why);
  }
  return merged;
}

Snapshot collect(const CollectOptions& options) {
  return Collector(options).sample();
}

}  // namespace dcukit::telemetry
