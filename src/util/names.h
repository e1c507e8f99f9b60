#pragma once
// One to/from-string table per enum: a constexpr array of {value, text}; the first entry of a
// value is its spelling, later entries are accepted aliases. These two lookups serve every
// table, so that no enum is mapped to text by hand. Header-only (the GPU backends use it).
#include <cstddef>
#include <optional>
#include <string_view>

namespace dcukit::util {

/// One spelling of an enum value.
template <class E>
struct Name {
  E value;
  std::string_view text;
};

/// The first spelling of `value` in `table`, or `fallback`.
template <class E, std::size_t N>
constexpr std::string_view name_of(const Name<E> (&table)[N], E value, std::string_view fallback = "?") {
  for (const auto& n : table)
    if (n.value == value) return n.text;
  return fallback;
}

/// The value spelled `text` in `table`, or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const Name<E> (&table)[N], std::string_view text) {
  for (const auto& n : table)
    if (n.text == text) return n.value;
  return std::nullopt;
}

}  // namespace dcukit::util
