#include "patrol/types.h"

#include "util/names.h"

namespace dcukit::patrol {
namespace {

constexpr util::Name<State> kStateNames[] = {
    {State::ok, "OK"}, {State::warning, "WARNING"}, {State::critical, "CRITICAL"}, {State::unknown, "UNKNOWN"}};

/// Higher is worse.
int rank(State s) {
  switch (s) {
    case State::ok:
      return 0;
    case State::unknown:
      return 1;
    case State::warning:
      return 2;
    case State::critical:
      return 3;
  }
  return 0;
}

}  // namespace

std::string_view to_string(State s) {
  return util::name_of(kStateNames, s);
}

std::optional<State> parse_state(std::string_view text) {
  return util::value_of(kStateNames, text);
}

State worse(State a, State b) {
  return rank(a) >= rank(b) ? a : b;
}

void add(Report& r, Finding f) {
  r.state = worse(r.state, f.state);
  r.findings.push_back(std::move(f));
}

}  // namespace dcukit::patrol
