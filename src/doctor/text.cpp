#include "doctor/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace dcukit::doctor {

std::vector<std::string> lines(std::string_view s) {
  auto out = split(s, '\n', Empties::keep);
  if (!out.empty() && out.back().empty()) out.pop_back();
  for (auto& l : out)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  return out;
}


std::optional<std::vector<int>> parse_cpu_list(std::string_view s, std::size_t limit) {
  std::vector<int> out;
  s = trim(s);
  if (s.empty()) return out;
  for (const auto& part : split(s, ',', Empties::skip)) {
    const auto dash = part.find('-');
    const auto lo = parse_int(std::string_view(part).substr(0, dash));
    const auto hi = dash == std::string::npos ? lo : parse_int(std::string_view(part).substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > 1 << 20) return std::nullopt;
    if (out.size() + static_cast<std::size_t>(*hi - *lo + 1) > limit) return std::nullopt;
    for (long long v = *lo; v <= *hi; ++v) out.push_back(static_cast<int>(v));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_cpu_list(const std::vector<int>& items) {
  std::vector<int> v = items;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(v[i]) : fmt::format("{}-{}", v[i], v[j]);
    i = j + 1;
  }
  return out;
}

std::map<std::string, std::string> key_values(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto& line : lines(text)) {
    const auto colon = line.find(':');  // "Device Minor: 0"; without a colon, "simd_count 480"
    const auto cut = colon != std::string::npos ? colon : line.find_first_of(" \t");
    if (cut == std::string::npos || cut == 0) continue;
    out.emplace(std::string(trim(std::string_view(line).substr(0, cut))),
                std::string(trim(std::string_view(line).substr(cut + 1))));
  }
  return out;
}

}  // namespace dcukit::doctor
