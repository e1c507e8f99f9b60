#include "guard/types.h"

#include <fmt/format.h>

#include "util/names.h"

namespace dcukit::guard {
namespace {

constexpr util::Name<State> kStateNames[] = {{State::starting, "starting"},   {State::ready, "ready"},
                                             {State::unhealthy, "unhealthy"}, {State::stopping, "stopping"},
                                             {State::backoff, "backoff"},     {State::failed, "failed"}};
constexpr util::Name<Probe> kProbeNames[] = {
    {Probe::tcp, "tcp"}, {Probe::health, "health"}, {Probe::models, "models"}, {Probe::canary, "canary"}};
constexpr util::Name<EventKind> kEventNames[] = {
    {EventKind::guard_started, "guard_started"},
    {EventKind::leftovers_killed, "leftovers_killed"},
    {EventKind::started, "started"},
    {EventKind::ready, "ready"},
    {EventKind::probe_failed, "probe_failed"},
    {EventKind::probe_passed, "probe_passed"},
    {EventKind::unhealthy, "unhealthy"},
    {EventKind::exited, "exited"},
    {EventKind::stopping, "stopping"},
    {EventKind::stopped, "stopped"},
    {EventKind::escaped, "escaped"},
    {EventKind::port_busy, "port_busy"},
    {EventKind::restart_scheduled, "restart_scheduled"},
    {EventKind::failed, "failed"},
    {EventKind::reloaded, "reloaded"},
    {EventKind::reload_failed, "reload_failed"},
    {EventKind::exiting, "exiting"},
};

}  // namespace

std::string service_marker(const std::vector<std::string>& command, const std::string& url) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&h](std::string_view s) {
    for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  mix(url);
  for (const auto& a : command) mix(a);
  return fmt::format("DCUKIT_GUARD_SERVICE={:016x}", h);
}

std::string_view to_string(State s) {
  return util::name_of(kStateNames, s);
}
std::string_view to_string(Probe p) {
  return util::name_of(kProbeNames, p);
}
std::string_view to_string(EventKind k) {
  return util::name_of(kEventNames, k);
}

std::optional<State> parse_state(std::string_view s) {
  return util::value_of(kStateNames, s);
}

}  // namespace dcukit::guard
