#include "bench/types.h"

#include <fmt/format.h>

#include "util/names.h"

namespace dcukit::bench {

constexpr util::Name<Outcome> kOutcomeNames[] = {
    {Outcome::ok, "ok"},
    {Outcome::skipped, "skipped"},
    {Outcome::failed, "failed"},
};

const char* to_string(Outcome o) {
  return util::name_of(kOutcomeNames, o, "?").data();
}

std::optional<Outcome> parse_outcome(std::string_view text) {
  return util::value_of(kOutcomeNames, text);
}

namespace {

constexpr util::Name<RateUnit> kRateUnitNames[] = {{RateUnit::none, ""},
                                                   {RateUnit::flop_per_s, "FLOP/s"},
                                                   {RateUnit::op_per_s, "OP/s"},
                                                   {RateUnit::byte_per_s, "B/s"},
                                                   {RateUnit::microseconds, "us"}};

}  // namespace

std::string_view to_string(RateUnit u) {
  return util::name_of(kRateUnitNames, u);
}

std::optional<RateUnit> parse_rate_unit(std::string_view text) {
  return util::value_of(kRateUnitNames, text);
}

std::optional<double> Measurement::percent_of_peak() const {
  if (!peak || *peak <= 0 || outcome != Outcome::ok) return std::nullopt;
  return rate / *peak * 100.0;
}

const ParamValue* Measurement::param(std::string_view key) const {
  for (const auto& p : params)
    if (p.key == key) return &p.value;
  return nullptr;
}

std::string Measurement::text(std::string_view key) const {
  const auto* v = param(key);
  return v && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : std::string();
}

std::optional<double> Measurement::number(std::string_view key) const {
  const auto* v = param(key);
  if (!v) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return std::nullopt;
}

std::optional<std::int64_t> Measurement::integer(std::string_view key) const {
  const auto* v = param(key);
  if (const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr) return *i;
  return std::nullopt;
}

bool Report::ok() const {
  if (!errors.empty() || interrupted) return false;
  for (const auto& d : devices)
    for (const auto& m : d.results)
      if (m.outcome == Outcome::failed) return false;
  for (const auto& m : group)
    if (m.outcome == Outcome::failed) return false;
  return true;
}

std::vector<std::string> Report::failures() const {
  std::vector<std::string> out;
  for (const auto& d : devices)
    for (const auto& m : d.results)
      if (m.outcome == Outcome::failed)
        out.push_back(fmt::format("{} {} on device {}: {}", m.benchmark, m.name, d.info.index, m.reason));
  for (const auto& m : group)
    if (m.outcome == Outcome::failed) out.push_back(fmt::format("{} {}: {}", m.benchmark, m.name, m.reason));
  out.insert(out.end(), errors.begin(), errors.end());
  return out;
}

}  // namespace dcukit::bench
