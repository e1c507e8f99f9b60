#include "serving/prometheus.h"
#include "util/names.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace dcukit::serving {
namespace {

bool parse_value(std::string_view s, double* out) {
  if (s == "NaN") return *out = std::numeric_limits<double>::quiet_NaN(), true;
  if (s == "+Inf" || s == "Inf") return *out = std::numeric_limits<double>::infinity(), true;
  if (s == "-Inf") return *out = -std::numeric_limits<double>::infinity(), true;
  const std::string v(s);
  char* end = nullptr;
  *out = std::strtod(v.c_str(), &end);
  return end != v.c_str() && *end == '\0';
}

/// Reads {a="x",b="y"} starting at text[pos] == '{'; pos ends after '}'. False when malformed.
bool parse_labels(std::string_view text, std::size_t& pos, Labels& labels) {
  ++pos;
  for (;;) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == ',')) ++pos;
    if (pos >= text.size()) return false;
    if (text[pos] == '}') return ++pos, true;
    const auto eq = text.find('=', pos);
    if (eq == std::string_view::npos || eq + 1 >= text.size() || text[eq + 1] != '"') return false;
    std::string key(text.substr(pos, eq - pos));
    while (!key.empty() && key.back() == ' ') key.pop_back();
    std::string value;
    pos = eq + 2;
    for (;; ++pos) {
      if (pos >= text.size()) return false;
      const char c = text[pos];
      if (c == '"') break;
      if (c == '\\' && pos + 1 < text.size()) {
        const char n = text[++pos];
        value += n == 'n' ? '\n' : n;
      } else {
        value += c;
      }
    }
    ++pos;
    labels.emplace_back(std::move(key), std::move(value));
  }
}

std::string escape_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string label_text(const Labels& labels) {
  if (labels.empty()) return "";
  std::string s = "{";
  for (std::size_t i = 0; i < labels.size(); ++i)
    s += fmt::format("{}{}=\"{}\"", i ? "," : "", labels[i].first, escape_label(labels[i].second));
  return s + "}";
}

}  // namespace

std::string Sample::label(std::string_view key) const {
  for (const auto& [k, v] : labels)
    if (k == key) return v;
  return {};
}

std::vector<Sample> parse_text(std::string_view text) {
  std::vector<Sample> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    const auto name_end = line.find_first_of("{ \t");
    if (name_end == std::string_view::npos || name_end == 0) continue;
    Sample s;
    s.name = std::string(line.substr(0, name_end));
    std::size_t pos = name_end;
    if (line[pos] == '{' && !parse_labels(line, pos, s.labels)) continue;
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    const auto value_end = line.find_first_of(" \t", pos);
    if (!parse_value(line.substr(pos, value_end == std::string_view::npos ? std::string_view::npos : value_end - pos),
                     &s.value))
      continue;
    out.push_back(std::move(s));
  }
  return out;
}

std::map<std::string, double> sum_by_name(const std::vector<Sample>& samples) {
  std::map<std::string, double> out;
  for (const auto& s : samples) out[s.name] += s.value;
  return out;
}

constexpr util::Name<MetricType> kMetricTypeNames[] = {
    {MetricType::counter, "counter"},
    {MetricType::gauge, "gauge"},
    {MetricType::histogram, "histogram"},
    {MetricType::summary, "summary"},
    {MetricType::untyped, "untyped"},
};

std::string_view to_string(MetricType t) {
  return util::name_of(kMetricTypeNames, t, "untyped");
}

void TextWriter::family(const std::string& name, MetricType type, const std::string& help) {
  std::string h;
  for (char c : help) h += c == '\n' ? std::string("\\n") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  m_out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, h, name, to_string(type));
}

void TextWriter::sample(const std::string& name, const Labels& labels, double value) {
  m_out += fmt::format("{}{} {}\n", name, label_text(labels), format_value(value));
}

void TextWriter::histogram(const std::string& name, const Labels& labels, const std::vector<double>& bounds,
                           const std::vector<std::uint64_t>& cumulative_counts, double sum, std::uint64_t count) {
  for (std::size_t i = 0; i < bounds.size() && i < cumulative_counts.size(); ++i) {
    Labels l = labels;
    l.emplace_back("le", format_value(bounds[i]));
    sample(name + "_bucket", l, static_cast<double>(cumulative_counts[i]));
  }
  Labels inf = labels;
  inf.emplace_back("le", "+Inf");
  sample(name + "_bucket", inf, static_cast<double>(count));
  sample(name + "_sum", labels, sum);
  sample(name + "_count", labels, static_cast<double>(count));
}

}  // namespace dcukit::serving
