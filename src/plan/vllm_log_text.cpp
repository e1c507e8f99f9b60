#include "plan/vllm_log_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace dcukit::plan::logtext {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// The token starting at `pos`: a quoted string, or everything up to , ) } or whitespace.
std::string token_at(std::string_view s, std::size_t pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
  if (pos >= s.size()) return {};
  if (s[pos] == '\'' || s[pos] == '"') {
    const char q = s[pos];
    const auto end = s.find(q, pos + 1);
    return std::string(s.substr(pos + 1, end == std::string_view::npos ? std::string_view::npos : end - pos - 1));
  }
  std::size_t end = pos;
  while (end < s.size() && s[end] != ',' && s[end] != ')' && s[end] != '}' && s[end] != ' ' && s[end] != '\t') ++end;
  return std::string(s.substr(pos, end - pos));
}

/// `key` at `at` is a whole name: not the tail of a longer identifier.
bool starts_name(std::string_view s, std::size_t at) {
  return at == 0 || !is_ident(s[at - 1]);
}

/// The value after a command-line flag at `end` (just past its name).
std::string option_value(std::string_view line, std::size_t end) {
  if (end < line.size() && line[end] == '=') return token_at(line, end + 1);
  std::string value = token_at(line, end);
  if (value.empty() || value.rfind("-", 0) == 0) return "True";  // a switch
  return value;
}

std::optional<std::string> option(std::string_view line, const std::string& flag) {
  for (auto at = line.find(flag); at != std::string_view::npos; at = line.find(flag, at + 1)) {
    const auto end = at + flag.size();
    if (at > 0 && line[at - 1] != ' ' && line[at - 1] != '\t') continue;
    if (end < line.size() && line[end] != '=' && line[end] != ' ' && line[end] != '\t') continue;
    return option_value(line, end);
  }
  // argparse takes a unique prefix of a long option ("--max-num-batched-token 16384"): a typed name
  // that the flag begins with and that keeps at least 70% of it.
  const std::size_t shortest = (flag.size() * 7 + 9) / 10;
  for (auto at = line.find("--"); at != std::string_view::npos; at = line.find("--", at + 2)) {
    if (at > 0 && line[at - 1] != ' ' && line[at - 1] != '\t') continue;
    auto end = at + 2;
    while (end < line.size() && (is_ident(line[end]) || line[end] == '-')) ++end;
    const auto typed = line.substr(at, end - at);
    if (typed.size() >= shortest && typed.size() < flag.size() && flag.rfind(typed, 0) == 0 &&
        (end == line.size() || line[end] == '=' || line[end] == ' ' || line[end] == '\t'))
      return option_value(line, end);
  }
  return std::nullopt;
}

constexpr std::string_view kVerbatimMarker = "# ---- verbatim log lines below ----";

/// A line that begins a log record, a shell command or a note, rather than continuing a line a
/// terminal wrapped.
bool starts_record(std::string_view line) {
  static constexpr std::array<std::string_view, 22> kStarts{
      "(",       "INFO",        "WARNING",    "ERROR",   "DEBUG", "Namespace(", "$",       "❯",         "#",
      "-",       "*",           "`",          "Loading", "GPU",   "Memory",     "Maximum", "Available", "model weights",
      "PyTorch", "the current", "ValueError", "vllm "};
  while (line.size() > 2 && line[0] == '\x1b' && line[1] == '[') {  // a colour code before a worker's prefix
    const auto end = line.find('m');
    if (end == std::string_view::npos) break;
    line.remove_prefix(end + 1);
  }
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return true;
  if (first > 0) return false;  // wrapped continuations of dennislee22's logs keep their indent
  return std::any_of(kStarts.begin(), kStarts.end(), [&](std::string_view s) { return line.rfind(s, 0) == 0; });
}

}  // namespace

std::optional<double> number_at(std::string_view s, std::size_t pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '(' || s[pos] == '=' || s[pos] == ':')) ++pos;
  std::string digits;
  if (pos + 1 < s.size() && s[pos] == '-' && is_digit(s[pos + 1])) {  // "reserved for KV Cache is -1.23GiB"
    digits += '-';
    ++pos;
  }
  bool any = false, dot = false;
  for (; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (is_digit(c)) {
      digits += c;
      any = true;
    } else if (c == ',' && any && !dot && pos + 1 < s.size() && is_digit(s[pos + 1])) {
      continue;  // thousands separator: "412,944"
    } else if (c == '.' && any && !dot && pos + 1 < s.size() && is_digit(s[pos + 1])) {
      digits += c;
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  return std::strtod(digits.c_str(), nullptr);
}

std::optional<double> number_after(std::string_view line, std::string_view marker) {
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return number_at(line, at + marker.size());
}

std::optional<double> number_before(std::string_view line, std::string_view marker) {
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  auto from = at;
  while (from > 0 && (std::isdigit(static_cast<unsigned char>(line[from - 1])) || line[from - 1] == '.')) --from;
  if (from == at) return std::nullopt;
  return number_at(line.substr(0, at), from);
}

std::optional<std::string> setting(std::string_view line, std::string_view key) {
  const std::string k(key);
  for (const std::string& quoted : {"'" + k + "': ", "\"" + k + "\": "}) {
    if (auto at = line.find(quoted); at != std::string_view::npos) return token_at(line, at + quoted.size());
  }
  for (auto at = line.find(k + "="); at != std::string_view::npos; at = line.find(k + "=", at + 1)) {
    if (starts_name(line, at) && (at < 2 || line.substr(at - 2, 2) != "--")) return token_at(line, at + k.size() + 1);
  }
  std::string dashed = k;
  for (auto& c : dashed)
    if (c == '_') c = '-';
  if (auto v = option(line, "--" + dashed)) return v;
  if (dashed != k)
    if (auto v = option(line, "--" + k)) return v;
  return std::nullopt;
}

std::optional<bool> to_bool(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  if (*text == "True" || *text == "true" || *text == "1") return true;
  if (*text == "False" || *text == "false" || *text == "0") return false;
  return std::nullopt;
}

std::optional<double> to_number(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  return number_at(*text, 0);
}

std::string_view drop_collector_stamp(std::string_view line) {
  const auto digit = [&](std::size_t i) { return i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); };
  // YYYY-MM-DD, then 'T' or ' ', then the time of day
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!digit(i)) return line;
  if (line[4] != '-' || line[7] != '-' || line.size() < 13 || (line[10] != 'T' && line[10] != ' ') || !digit(11))
    return line;
  std::size_t at = 11;
  while (at < line.size() && (digit(at) || line[at] == ':' || line[at] == '.' || line[at] == ',')) ++at;
  if (at < line.size() && line[at] == 'Z') ++at;
  while (at < line.size() && line[at] == ' ') ++at;
  if (at < line.size() && line[at] == '|') {
    ++at;
    while (at < line.size() && line[at] == ' ') ++at;
  }
  return line.substr(at);
}

std::vector<std::pair<int, std::string>> log_lines(std::string_view text) {
  std::vector<std::pair<int, std::string>> out;
  const auto marker = text.find(kVerbatimMarker);
  int number = 0;
  if (marker != std::string_view::npos)
    number = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(marker), '\n')) + 1;
  std::string_view rest = marker == std::string_view::npos ? text : text.substr(marker + kVerbatimMarker.size());
  if (marker != std::string_view::npos) rest = rest.substr(std::min(rest.size(), rest.find('\n') + 1));
  std::size_t prev_len = 0;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    std::string line(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line.erase(0, line.size() - drop_collector_stamp(line).size());  // a collector's time stamp
    if (!out.empty() && prev_len >= 100 && !line.empty() && !starts_record(line)) {
      out.back().second += line;
      prev_len = line.size();
      continue;
    }
    prev_len = line.size();
    // "...backend.  INFO 05-01 16:09:29 model_runner.py..." (several records on one pasted line)
    for (auto at = line.find("  INFO "); at != std::string::npos; at = line.find("  INFO ")) {
      out.emplace_back(number, line.substr(0, at));
      line = line.substr(at + 2);
    }
    out.emplace_back(number, line);
  }
  return out;
}

}  // namespace dcukit::plan::logtext
