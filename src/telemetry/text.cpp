#include "telemetry/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace dcukit::telemetry {
namespace {

constexpr std::string_view kVerbatimMarker = "# ---- verbatim output below this line ----";

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

// Removes "ESC [ params final" and "^[[3m" / "^[3m" (an escape pasted as caret text).
std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const bool esc = s[i] == '\x1b';
    const bool caret = s[i] == '^' && i + 1 < s.size() && s[i + 1] == '[';
    if (!esc && !caret) {
      out += s[i++];
      continue;
    }
    std::size_t j = i + (esc ? 1 : 2);
    if (j < s.size() && s[j] == '[') ++j;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == ';' || s[j] == '?')) ++j;
    if (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) {
      i = j + 1;
    } else if (esc) {
      i = std::min(s.size(), i + 2);  // ESC and the one character after it
    } else {
      out += s[i++];  // a caret that starts no escape
    }
  }
  return out;
}

std::string header_value(std::string_view line, std::string_view key) {
  const std::string_view body = trim(line.substr(1));
  if (!starts_with(lower(body), key)) return {};
  return std::string(trim(body.substr(key.size())));
}

}  // namespace

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_blank(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string first_word(std::string_view s) {
  const auto words = split_ws(s);
  return words.empty() ? std::string() : words.front();
}

std::string last_word(std::string_view s) {
  const auto words = split_ws(s);
  return words.empty() ? std::string() : words.back();
}

std::vector<std::string> split_columns(std::string_view s) {
  if (contains(s, "\t")) {
    std::vector<std::string> out;
    for (auto& f : split(s, '\t')) out.emplace_back(trim(f));
    return out;
  }
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  std::string cur;
  while (i < s.size()) {
    if (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      while (i < s.size() && s[i] == ' ') ++i;
      continue;
    }
    cur += s[i++];
  }
  if (!trim(cur).empty()) out.emplace_back(trim(cur));
  return out;
}

namespace {

/// Removes a reply's quote marks ("> ", ">> ") where most non-blank lines carry one, and expands the
/// tabs that indent a line (a paste through an editor); `cleaned` says what was taken off.
void unquote(std::vector<std::string>& lines, std::size_t first, std::vector<std::string>& cleaned) {
  for (const char mark : {'>', '%'}) {  // a mail or forum reply's '>', a MATLAB or TeX comment's '%'
    std::size_t text = 0, quoted = 0;
    for (std::size_t i = first; i < lines.size(); ++i) {
      const auto t = trim(lines[i]);
      if (t.empty() || (t.size() == 1 && t[0] == mark)) continue;
      ++text;
      quoted += t[0] == mark;
    }
    if (text == 0 || quoted * 10 < text * 6) continue;
    for (std::size_t i = first; i < lines.size(); ++i) {
      std::string& l = lines[i];
      std::size_t at = l.find_first_not_of(' ');
      if (at == std::string::npos || l[at] != mark) continue;
      while (at < l.size() && l[at] == mark) {
        ++at;
        if (at < l.size() && l[at] == ' ') ++at;
      }
      l.erase(0, at);
    }
    cleaned.push_back(fmt::format("a quote mark ('{} ') before {} of {} lines was removed", mark, quoted, text));
    break;
  }
  std::size_t tabbed = 0;
  for (std::size_t i = first; i < lines.size(); ++i) {
    std::string& l = lines[i];
    std::size_t n = 0;
    std::string lead;
    for (; n < l.size() && (l[n] == ' ' || l[n] == '\t'); ++n) lead += l[n] == '\t' ? std::string(8 - lead.size() % 8, ' ') : " ";
    if (lead.size() != n) {
      l = lead + l.substr(n);
      ++tabbed;
    }
  }
  if (tabbed > 0) cleaned.push_back(fmt::format("tabs indenting {} lines were read as spaces", tabbed));
}

}  // namespace

Capture prepare_capture(std::string_view raw, std::string name) {
  Capture cap;
  cap.name = std::move(name);
  std::vector<std::string> lines = split(strip_ansi(raw), '\n');
  std::size_t first = 0;
  for (std::size_t i = 0; i < lines.size() && i < 40; ++i) {
    if (starts_with(lines[i], kVerbatimMarker)) {
      for (std::size_t h = 0; h < i; ++h) {
        if (!starts_with(lines[h], "#")) continue;
        if (auto c = header_value(lines[h], "command:"); !c.empty()) {
          cap.command = c;
          const std::string lc = lower(c);
          cap.declared_not_output = starts_with(lc, "n/a") || starts_with(lc, "none");
        }
      }
      first = i + 1;
      break;
    }
  }
  unquote(lines, first, cap.cleaned);
  std::size_t indent = std::string::npos;
  for (std::size_t i = first; i < lines.size(); ++i) {
    std::string& l = lines[i];
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\n')) l.pop_back();
    if (trim(l).empty()) continue;
    std::size_t n = 0;
    while (n < l.size() && l[n] == ' ') ++n;
    indent = std::min(indent, n);
  }
  // Blank lines stay (sections are separated by them); indentation is counted on text only.
  for (std::size_t i = first; i < lines.size(); ++i) {
    std::string l = lines[i];
    if (indent != std::string::npos && l.size() >= indent && l.find_first_not_of(' ') >= indent) l.erase(0, indent);
    cap.lines.push_back(std::move(l));
  }
  while (!cap.lines.empty() && trim(cap.lines.back()).empty()) cap.lines.pop_back();
  if (cap.command.empty()) {
    for (const auto& l : cap.lines) {
      if (starts_with(l, "$ ")) {
        cap.command = std::string(trim(l.substr(2)));
        break;
      }
    }
  }
  return cap;
}

std::string join_lines(const std::vector<std::string>& lines, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) {
    out += lines[i];
    out += '\n';
  }
  return out;
}

bool is_missing(std::string_view s) {
  s = trim(s);
  if (s.empty()) return true;
  static constexpr std::array<std::string_view, 12> kMissing{"n/a",           "[n/a]",   "na",  "none",
                                                             "unsupported",   "unknown", "-",   "[not supported]",
                                                             "not supported", "inf",     "nan", "null"};
  const std::string l = lower(s);
  for (auto m : kMissing)
    if (l == m) return true;
  return contains(l, "deprecated") || starts_with(l, "[unknown error") || starts_with(l, "[gpu is lost");
}

std::optional<Quantity> parse_quantity(std::string_view s) {
  s = trim(s);
  if (is_missing(s)) return std::nullopt;
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = trim(s.substr(1, s.size() - 2));
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = trim(s.substr(1, s.size() - 2));
  const std::string text(s);
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) return std::nullopt;
  // "0x..." is an id, not a quantity; strtod would read it as hex.
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return std::nullopt;
  Quantity q;
  q.value = v;
  q.unit = std::string(trim(std::string_view(end)));
  return q;
}

std::optional<std::int64_t> whole_number(double v, double lo, double hi) {
  if (!std::isfinite(v) || v < lo || v > hi) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(v));
}

std::optional<double> parse_double(std::string_view s) {
  auto q = parse_quantity(s);
  return q ? std::optional<double>(q->value) : std::nullopt;
}

std::optional<std::int64_t> parse_whole(std::string_view s) {
  auto q = parse_quantity(s);
  // A tool printing 1e300 or nan has given no whole number (llround would give garbage).
  if (!q || !std::isfinite(q->value) || std::fabs(q->value) > 9e18) return std::nullopt;
  return std::llround(q->value);
}

std::optional<std::uint64_t> to_bytes(double value, std::string_view unit) {
  const std::string u = lower(trim(unit));
  double mult = 0;
  if (u.empty() || u == "b" || u == "bytes")
    mult = 1;
  else if (u == "kb" || u == "kib" || u == "k")
    mult = 1024.0;
  else if (u == "mb" || u == "mib" || u == "m")
    mult = 1024.0 * 1024;
  else if (u == "gb" || u == "gib" || u == "g")
    mult = 1024.0 * 1024 * 1024;
  else if (u == "tb" || u == "tib" || u == "t")
    mult = 1024.0 * 1024 * 1024 * 1024;
  const double bytes = value * mult;
  if (mult == 0 || !(bytes >= 0) || bytes > 9e18) return std::nullopt;  // NaN and overflow too
  return static_cast<std::uint64_t>(std::llround(bytes));
}

std::optional<std::uint64_t> parse_bytes(std::string_view s, std::string_view default_unit) {
  auto q = parse_quantity(s);
  if (!q) return std::nullopt;
  return to_bytes(q->value, q->unit.empty() ? default_unit : std::string_view(q->unit));
}

std::optional<std::int64_t> pcie_gen_from_gts(double gts) {
  static constexpr std::array<std::pair<double, int>, 6> kRates{{{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}}};
  for (auto [rate, gen] : kRates)
    if (std::fabs(gts - rate) < 0.3) return gen;
  return std::nullopt;
}

std::optional<std::string> text_value(std::string_view s) {
  s = trim(s);
  if (is_missing(s)) return std::nullopt;
  return std::string(s);
}

std::optional<Vendor> vendor_from_text(std::string_view s) {
  const std::string l = lower(s);
  static constexpr std::array<std::string_view, 8> kHygon{"haiguang", "c-3000", "hygon", "dcu",
                                                          "hcu",      "k100",   "z100",  "bw1000"};
  for (auto k : kHygon)
    if (contains(l, k)) return Vendor::hygon;
  static constexpr std::array<std::string_view, 6> kNvidia{"nvidia", "tesla", "geforce", "quadro", "rtx", "10de"};
  for (auto k : kNvidia)
    if (contains(l, k)) return Vendor::nvidia;
  static constexpr std::array<std::string_view, 6> kAmd{
      "advanced micro devices", "amd/ati", "radeon", "instinct", "navi", "[amd"};
  for (auto k : kAmd)
    if (contains(l, k)) return Vendor::amd;
  if (starts_with(l, "amd") || contains(l, " amd")) return Vendor::amd;
  return std::nullopt;
}

std::optional<std::string> pci_id(std::string_view s, bool decimal) {
  s = trim(s);
  if (is_missing(s)) return std::nullopt;
  unsigned long v = 0;
  const std::string t(s);
  char* end = nullptr;
  if (starts_with(lower(t), "0x"))
    v = std::strtoul(t.c_str() + 2, &end, 16);
  else
    v = std::strtoul(t.c_str(), &end, decimal ? 10 : 16);
  if (end == nullptr || *end != '\0' || t.empty()) return std::nullopt;
  return fmt::format("0x{:04x}", v & 0xffff);
}

std::optional<std::string> decode_rocm_smi_gfx_version(std::string_view s) {
  s = trim(s);
  if (!starts_with(lower(s), "gfx")) return std::nullopt;
  const std::string digits(s.substr(3));
  if (digits.size() < 4 || !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::string(s);
  const int stepping = std::stoi(digits.substr(digits.size() - 2));
  const std::string minor = digits.substr(digits.size() - 3, 1);
  const std::string major = digits.substr(0, digits.size() - 3);
  return fmt::format("gfx{}{}{:x}", major, minor, stepping);
}

std::string bus_id_from_bdfid(std::uint64_t bdfid) {
  const auto domain = (bdfid >> 32) & 0xffff;
  return fmt::format("{:04x}:{:02x}:{:02x}.{}", domain, (bdfid >> 8) & 0xff, (bdfid >> 3) & 0x1f, bdfid & 0x7);
}

}  // namespace dcukit::telemetry
