#include "bench/result.h"

namespace dcukit::bench {

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::ok: return "ok";
    case Outcome::skipped: return "skipped";
    case Outcome::failed: return "failed";
  }
  return "?";
}

std::optional<double> Measurement::percent_of_peak() const {
  if (!peak || *peak <= 0 || outcome != Outcome::ok) return std::nullopt;
  return rate / *peak * 100.0;
}

std::string Measurement::param(const std::string& key) const {
  for (const auto& [k, v] : params)
    if (k == key) return v;
  return {};
}

bool Report::ok() const {
  if (!errors.empty()) return false;
  for (const auto& d : devices)
    for (const auto& m : d.results)
      if (m.outcome == Outcome::failed) return false;
  return true;
}

} // namespace dcukit::bench
