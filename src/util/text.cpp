#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace dcukit::util {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.starts_with(prefix);
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool icontains(std::string_view s, std::string_view part) {
  return contains(lower(s), lower(part));
}

std::vector<std::string> split(std::string_view s, char sep, Empties empties) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    if (end > start || empties == Empties::keep) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::optional<long long> parse_int(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  long long v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

namespace {

/// The length of the valid UTF-8 sequence at s[i], or 0 (overlong, surrogate, truncated, stray).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
  else return 0;
  if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xbf) return 0;
  return n;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f)) {
      out += s[i++];
      continue;
    }
    if (c < 0x80) {  // C0 controls and DEL
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      ++i;
    } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) <= 0x9f) {  // C1: U+0080..U+009F
      const auto u = static_cast<unsigned char>(s[i + 1]);
      out += {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 15]};
      i += 2;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace dcukit::util
