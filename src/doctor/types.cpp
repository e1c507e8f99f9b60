#include "doctor/types.h"

#include <utility>

namespace dcukit::doctor {
namespace {

template <class E>
using Table = std::pair<E, std::string_view>;

constexpr Table<Verdict> kStatusNames[] = {
    {Verdict::ok, "ok"}, {Verdict::warn, "warn"}, {Verdict::fail, "fail"}, {Verdict::skip, "skip"}};

constexpr Table<Category> kCategoryNames[] = {
    {Category::host, "host"},       {Category::driver, "driver"},   {Category::toolkit, "toolkit"},
    {Category::python, "python"},   {Category::devices, "devices"}, {Category::placement, "placement"},
    {Category::residue, "residue"}, {Category::smoke, "smoke"},
};

template <class E, std::size_t N>
std::string_view name_of(const Table<E> (&table)[N], E value) {
  for (const auto& [v, text] : table)
    if (v == value) return text;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> value_of(const Table<E> (&table)[N], std::string_view text) {
  for (const auto& [v, t] : table)
    if (t == text) return v;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Verdict s) {
  return name_of(kStatusNames, s);
}
std::optional<Verdict> parse_status(std::string_view s) {
  return value_of(kStatusNames, s);
}
std::string_view to_string(Category c) {
  return name_of(kCategoryNames, c);
}
std::optional<Category> parse_category(std::string_view s) {
  return value_of(kCategoryNames, s);
}

Summary Report::summary() const {
  Summary s;
  for (const auto& f : findings) {
    switch (f.status) {
      case Verdict::ok:
        ++s.ok;
        break;
      case Verdict::warn:
        ++s.warn;
        break;
      case Verdict::fail:
        ++s.fail;
        break;
      case Verdict::skip:
        ++s.skip;
        break;
    }
  }
  return s;
}

bool Report::has_problems() const {
  const auto s = summary();
  return s.warn > 0 || s.fail > 0;
}

}  // namespace dcukit::doctor
