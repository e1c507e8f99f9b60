#include "load/prom.h"

#include <algorithm>

namespace dcukit::load {
namespace {

double first_of(const std::map<std::string, double>& m, std::initializer_list<const char*> names, bool* found) {
  for (const char* n : names) {
    const auto it = m.find(n);
    if (it != m.end()) {
      *found = true;
      return it->second;
    }
  }
  *found = false;
  return 0;
}

}  // namespace

double kv_cache_usage(const std::map<std::string, double>& sample) {
  bool found = false;
  const double v = first_of(sample, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, &found);
  return found ? v : -1;
}

ServerDelta server_delta(const std::map<std::string, double>& before, const std::map<std::string, double>& after) {
  ServerDelta d;
  struct Field {
    double ServerDelta::*member;
    std::initializer_list<const char*> names;
  };
  const Field fields[] = {
      {&ServerDelta::prompt_tokens, {"vllm:prompt_tokens_total"}},
      {&ServerDelta::generation_tokens, {"vllm:generation_tokens_total"}},
      {&ServerDelta::preemptions, {"vllm:num_preemptions_total", "vllm:num_preemption_total"}},
      {&ServerDelta::prefix_cache_hits, {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}},
      {&ServerDelta::prefix_cache_queries, {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}},
  };
  for (const Field& f : fields) {
    bool a = false, b = false;
    const double v0 = first_of(before, f.names, &a);
    const double v1 = first_of(after, f.names, &b);
    if (!b) {
      d.missing.emplace_back(*f.names.begin());
      continue;
    }
    d.*f.member = v1 - v0;
  }
  d.kv_cache_usage_peak = std::max(kv_cache_usage(before), kv_cache_usage(after));
  if (d.kv_cache_usage_peak < 0) d.missing.emplace_back("vllm:kv_cache_usage_perc");
  return d;
}

std::vector<std::string> watched_gauges() {
  return {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"};
}

ServerDelta server_delta(const serving::Scrapes& scrapes) {
  ServerDelta d = server_delta(scrapes.before, scrapes.after);
  d.kv_cache_usage_peak = std::max(d.kv_cache_usage_peak, kv_cache_usage(scrapes.peaks));
  return d;
}

}  // namespace dcukit::load
