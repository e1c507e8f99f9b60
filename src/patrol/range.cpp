#include "patrol/range.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace dcukit::patrol {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Result<double> number(std::string_view part, std::string_view whole) {
  const std::string s(part);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v))
    return Error{fmt::format("'{}' is not a Nagios range: '{}' is not a number (the forms: 10, 10:, ~:10, 10:20, "
                             "@10:20)",
                             whole, part)};
  return v;
}

std::string range_num(double v) {
  return fmt::format("{:.4g}", v);
}

}  // namespace

bool Range::alerts(double x) const {
  const bool in = x >= start && x <= end;
  return inside ? in : !in;
}

std::string Range::why(double x, std::string_view unit) const {
  const std::string u(unit);
  if (inside) {
    if (start == -kInf && end == kInf) return "at any value";
    if (start == -kInf) return fmt::format("at or below {}{}", range_num(end), u);
    if (end == kInf) return fmt::format("at or above {}{}", range_num(start), u);
    return fmt::format("within {}..{}{}", range_num(start), range_num(end), u);
  }
  if (x < start) return fmt::format("below {}{}", range_num(start), u);
  return fmt::format("above {}{}", range_num(end), u);
}

Result<Range> parse_range(std::string_view text) {
  Range r;
  r.text = std::string(text);
  std::string_view s = text;
  if (s.empty()) return Error{"an empty Nagios range; the forms: 10, 10:, ~:10, 10:20, @10:20"};
  if (s.front() == '@') {
    r.inside = true;
    s.remove_prefix(1);
  }
  const auto colon = s.find(':');
  if (colon == std::string_view::npos) {
    auto end = number(s, text);
    if (!end) return end.error();
    r.start = 0;
    r.end = *end;
  } else {
    const std::string_view lo = s.substr(0, colon), hi = s.substr(colon + 1);
    if (lo == "~") {
      r.start = -kInf;
    } else {
      auto v = number(lo, text);
      if (!v) return v.error();
      r.start = *v;
    }
    if (!hi.empty()) {
      auto v = number(hi, text);
      if (!v) return v.error();
      r.end = *v;
    }
  }
  if (r.start > r.end)
    return Error{fmt::format("'{}' is not a Nagios range: its start is above its end (the forms: 10, 10:, ~:10, "
                             "10:20, @10:20)",
                             text)};
  return r;
}

Range above(double v) {
  Range r;
  r.start = 0;
  r.end = v;
  r.text = range_num(v);
  return r;
}

}  // namespace dcukit::patrol
