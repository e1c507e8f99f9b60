#include "plan/fields.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace dcukit::plan {

std::string show(const nlohmann::json& value) {
  std::string s = util::json_text(value);
  if (s.size() > 48) s = s.substr(0, 45) + "...";
  return s;
}

std::int64_t FieldReader::integer(const nlohmann::json& j, std::string_view key, std::int64_t fallback, std::int64_t lo,
                                  std::int64_t hi, std::string_view where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  const auto out_of_range = [&] {
    fail(fmt::format("{}{} is {}; dcukit plan takes a whole number from {} to {}", where, key, show(*it), lo, hi));
    return fallback;
  };
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    return v > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(v) < lo ? out_of_range()
                                                                                   : static_cast<std::int64_t>(v);
  }
  if (it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    return v < lo || v > hi ? out_of_range() : v;
  }
  if (it->is_number_float()) {
    const double v = it->get<double>();
    if (!std::isfinite(v) || v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
      return out_of_range();
    return static_cast<std::int64_t>(v);
  }
  fail(fmt::format("{}{} is {}, not a number", where, key, show(*it)));
  return fallback;
}

double FieldReader::number(const nlohmann::json& j, std::string_view key, double fallback, double lo, double hi,
                           std::string_view where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number()) {
    fail(fmt::format("{}{} is {}, not a number", where, key, show(*it)));
    return fallback;
  }
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    fail(fmt::format("{}{} is {}; dcukit plan takes {:g} to {:g}", where, key, show(*it), lo, hi));
    return fallback;
  }
  return v;
}

std::string FieldReader::text(const nlohmann::json& j, std::string_view key) const {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

bool FieldReader::boolean(const nlohmann::json& j, std::string_view key, bool fallback) const {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

void FieldReader::fail(const std::string& message) {
  if (m_error.empty()) m_error = fmt::format("{}: {}", m_origin, message);
}

Status FieldReader::status() const {
  if (m_error.empty()) return {};
  return Error{m_error};
}

}  // namespace dcukit::plan
