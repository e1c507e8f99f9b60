#pragma once
// The one way telemetry's enums map to and from their names: a constexpr table of pairs a enum.
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace dcukit::telemetry {

/// The enum value named `s` in `table`, or nullopt.
template <class E, std::size_t N>
std::optional<E> enum_from_name(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view s) {
  for (const auto& [e, name] : table)
    if (name == s) return e;
  return std::nullopt;
}

/// The name of `e` in `table` ("?" for a value the table lacks).
template <class E, std::size_t N>
std::string_view enum_name(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [v, name] : table)
    if (v == e) return name;
  return "?";
}

}  // namespace dcukit::telemetry
