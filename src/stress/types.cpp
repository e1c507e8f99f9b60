#include "stress/types.h"

#include "util/names.h"

namespace dcukit::stress {
namespace {

constexpr util::Name<CheckKind> kChecks[] = {
    {CheckKind::health, "health"}, {CheckKind::kernel, "kernel"},   {CheckKind::gemm, "gemm"},
    {CheckKind::hbm, "hbm"},       {CheckKind::memtest, "memtest"}, {CheckKind::pcie, "pcie"},
    {CheckKind::power, "power"},
};
constexpr util::Name<Verdict> kVerdicts[] = {
    {Verdict::pass, "pass"}, {Verdict::warn, "warn"}, {Verdict::fail, "fail"}, {Verdict::skip, "skip"}};
constexpr util::Name<Action> kActions[] = {{Action::none, "none"},
                                           {Action::monitor, "monitor"},
                                           {Action::investigate, "investigate"},
                                           {Action::reset, "reset"},
                                           {Action::drain_and_replace, "drain and replace"}};

int rank(Verdict v) {
  switch (v) {
    case Verdict::skip:
      return 0;
    case Verdict::pass:
      return 1;
    case Verdict::warn:
      return 2;
    case Verdict::fail:
      return 3;
  }
  return 0;
}

}  // namespace

std::string_view to_string(CheckKind k) {
  return util::name_of(kChecks, k);
}
std::optional<CheckKind> parse_check(std::string_view s) {
  return util::value_of(kChecks, s);
}
std::string_view to_string(Verdict v) {
  return util::name_of(kVerdicts, v);
}
std::optional<Verdict> parse_verdict(std::string_view s) {
  return util::value_of(kVerdicts, s);
}
std::string_view to_string(Action a) {
  return util::name_of(kActions, a);
}
std::optional<Action> parse_action(std::string_view s) {
  return util::value_of(kActions, s);
}

Verdict worse(Verdict a, Verdict b) {
  return rank(a) >= rank(b) ? a : b;
}

Action stronger(Action a, Action b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

Verdict Report::verdict() const {
  Verdict v = devices.empty() ? Verdict::pass : Verdict::skip;
  for (const auto& d : devices) v = worse(v, d.verdict);
  return v;
}

}  // namespace dcukit::stress
