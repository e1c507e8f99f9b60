#pragma once
// What a level did to the server, from its /metrics scrapes (serving/watcher.h), read in the
// server's own dialect: vLLM (vllm:*), SGLang (sglang:*), llama.cpp (llamacpp:*) or TGI (tgi_*).
// A figure the dialect does not have stays absent: it is never reported as 0.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "load/types.h"
#include "serving/watcher.h"

namespace dcukit::load {

/// Whose metric names a scrape uses.
enum class MetricsDialect { vllm, sglang, llamacpp, tgi, unknown };

/// "vllm", "sglang", "llamacpp", "tgi", "unknown".
std::string_view to_string(MetricsDialect d);

/// The dialect of a scrape, by the prefixes of its names (unknown when none matches).
MetricsDialect detect_dialect(const std::map<std::string, double>& sample);

/// The gauges whose peak a watch tracks (every dialect's KV-cache use).
std::vector<std::string> watched_gauges();

/// The change over one watch: counters after minus before, gauges at their peak, in the
/// dialect found in the scrapes. A failed last scrape (the server died) is kept in `error`.
ServerDelta server_delta(const serving::Scrapes& scrapes);

}  // namespace dcukit::load
