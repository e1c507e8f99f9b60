#pragma once
// Prometheus' text exposition format (version 0.0.4), both ways: reading a server's /metrics
// (vLLM, SGLang, llama.cpp, TGI) and writing dcukit's own (guard, exporter). Shared by every
// command that speaks to a serving stack or to Prometheus.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dcukit::serving {

/// A label set in the order it was written.
using Labels = std::vector<std::pair<std::string, std::string>>;

/// One sample line: name{labels} value.
struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
  /// The value of label `key`, or "".
  std::string label(std::string_view key) const;
};

/// Every sample of a scrape. Comments, blank lines and malformed lines are skipped; label values
/// are unescaped; NaN, +Inf and -Inf are read as such.
std::vector<Sample> parse_text(std::string_view text);

/// Each metric name's value summed over its label sets (per-model or per-engine series add up).
std::map<std::string, double> sum_by_name(const std::vector<Sample>& samples);

enum class MetricType { counter, gauge, histogram, summary, untyped };

/// "counter", "gauge", ...
std::string_view to_string(MetricType t);

/// Writes the text format: each family's # HELP and # TYPE once, then its samples. Names and
/// label values are escaped as the format requires.
class TextWriter {
public:
  /// Starts a family. Samples added next belong to it (histogram samples use name_bucket etc.).
  void family(const std::string& name, MetricType type, const std::string& help);
  /// One sample line.
  void sample(const std::string& name, const Labels& labels, double value);
  /// A histogram's _bucket lines (cumulative counts at each upper bound, then +Inf), _sum and _count.
  void histogram(const std::string& name, const Labels& labels, const std::vector<double>& bounds,
                 const std::vector<std::uint64_t>& cumulative_counts, double sum, std::uint64_t count);
  /// The text so far.
  const std::string& str() const { return m_out; }

private:
  std::string m_out;
};

/// The content type Prometheus expects for this format.
inline constexpr const char* kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace dcukit::serving
