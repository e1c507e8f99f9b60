#include "load/server_metrics.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <utility>

namespace dcukit::load {
namespace {

using Sample = std::map<std::string, double>;

/// Where one figure of ServerDelta comes from in each dialect (an empty list: not exposed).
struct Figure {
  std::optional<double> ServerDelta::*member;
  const char* name;                             ///< the figure's name in `missing`
  bool gauge;                                   ///< a peak of a gauge, not the change in a counter
  std::initializer_list<const char*> names[4];  ///< vllm, sglang, llamacpp, tgi (first found wins)
};

const Figure kFigures[] = {
    {&ServerDelta::prompt_tokens,
     "prompt_tokens",
     false,
     {{"vllm:prompt_tokens_total"},
      {"sglang:prompt_tokens_total"},
      {"llamacpp:prompt_tokens_total"},
      {"tgi_request_input_length_sum"}}},
    {&ServerDelta::generation_tokens,
     "generation_tokens",
     false,
     {{"vllm:generation_tokens_total"},
      {"sglang:generation_tokens_total"},
      {"llamacpp:tokens_predicted_total"},
      {"tgi_request_generated_tokens_sum"}}},
    {&ServerDelta::preemptions,
     "preemptions",
     false,
     {{"vllm:num_preemptions_total", "vllm:num_preemption_total"}, {"sglang:num_retracted_requests_total"}, {}, {}}},
    {&ServerDelta::prefix_cache_hits,
     "prefix_cache_hits",
     false,
     {{"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}, {"sglang:cached_tokens_total"}, {}, {}}},
    {&ServerDelta::prefix_cache_queries,
     "prefix_cache_queries",
     false,
     {{"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"},
      {"sglang:prompt_tokens_total"},
      {},
      {}}},
    {&ServerDelta::kv_cache_usage_peak,
     "kv_cache_usage_peak",
     true,
     {{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"},
      {"sglang:token_usage"},
      {"llamacpp:kv_cache_usage_ratio"},
      {}}},
};

constexpr std::pair<MetricsDialect, std::string_view> kNames[] = {{MetricsDialect::vllm, "vllm"},
                                                                  {MetricsDialect::sglang, "sglang"},
                                                                  {MetricsDialect::llamacpp, "llamacpp"},
                                                                  {MetricsDialect::tgi, "tgi"},
                                                                  {MetricsDialect::unknown, "unknown"}};

constexpr std::pair<MetricsDialect, const char*> kPrefixes[] = {{MetricsDialect::vllm, "vllm:"},
                                                                {MetricsDialect::sglang, "sglang:"},
                                                                {MetricsDialect::llamacpp, "llamacpp:"},
                                                                {MetricsDialect::tgi, "tgi_"}};

std::optional<double> first_of(const Sample& m, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const auto it = m.find(n); it != m.end()) return it->second;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(MetricsDialect d) {
  for (const auto& [dialect, name] : kNames)
    if (dialect == d) return name;
  return "unknown";
}

MetricsDialect detect_dialect(const Sample& sample) {
  for (const auto& [dialect, prefix] : kPrefixes) {
    const auto it = sample.lower_bound(prefix);
    if (it != sample.end() && it->first.rfind(prefix, 0) == 0) return dialect;
  }
  return MetricsDialect::unknown;
}

std::vector<std::string> watched_gauges() {
  std::vector<std::string> out;
  for (const Figure& f : kFigures) {
    if (!f.gauge) continue;
    for (const auto& names : f.names)
      for (const char* n : names) out.emplace_back(n);
  }
  return out;
}

ServerDelta server_delta(const serving::Scrapes& scrapes) {
  ServerDelta d;
  d.scrapes = scrapes.scrapes;
  d.error = scrapes.last_error;
  MetricsDialect dialect = detect_dialect(scrapes.after);
  if (dialect == MetricsDialect::unknown) dialect = detect_dialect(scrapes.before);
  if (dialect != MetricsDialect::unknown) d.dialect = std::string(to_string(dialect));
  for (const Figure& f : kFigures) {
    std::optional<double> v;
    if (dialect != MetricsDialect::unknown) {
      const auto& names = f.names[static_cast<int>(dialect)];
      if (f.gauge) {
        for (const Sample* s : {&scrapes.before, &scrapes.after, &scrapes.peaks})
          if (auto x = first_of(*s, names)) v = std::max(v.value_or(*x), *x);
      } else if (auto after = first_of(scrapes.after, names)) {
        v = *after - first_of(scrapes.before, names).value_or(0.0);
      }
    }
    if (v)
      d.*f.member = v;
    else
      d.missing.emplace_back(f.name);
  }
  return d;
}

}  // namespace dcukit::load
