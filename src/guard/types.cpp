#include "guard/types.h"

namespace dcukit::guard {
namespace {

template <class E>
struct Name {
  E value;
  std::string_view text;
};

constexpr Name<State> kStateNames[] = {{State::starting, "starting"},   {State::ready, "ready"},
                                       {State::unhealthy, "unhealthy"}, {State::stopping, "stopping"},
                                       {State::backoff, "backoff"},     {State::failed, "failed"}};
constexpr Name<Probe> kProbeNames[] = {
    {Probe::tcp, "tcp"}, {Probe::health, "health"}, {Probe::models, "models"}, {Probe::canary, "canary"}};
constexpr Name<EventKind> kEventNames[] = {
    {EventKind::guard_started, "guard_started"},
    {EventKind::started, "started"},
    {EventKind::ready, "ready"},
    {EventKind::probe_failed, "probe_failed"},
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

template <class E, std::size_t N>
std::string_view name_of(const Name<E> (&table)[N], E value) {
  for (const auto& n : table)
    if (n.value == value) return n.text;
  return "unknown";
}

}  // namespace

std::string_view to_string(State s) {
  return name_of(kStateNames, s);
}
std::string_view to_string(Probe p) {
  return name_of(kProbeNames, p);
}
std::string_view to_string(EventKind k) {
  return name_of(kEventNames, k);
}

std::optional<State> parse_state(std::string_view s) {
  for (const auto& n : kStateNames)
    if (n.text == s) return n.value;
  return std::nullopt;
}

}  // namespace dcukit::guard
