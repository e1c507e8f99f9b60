#pragma once
// What a level did to the server, from its /metrics scrapes (serving/watcher.h): the change in
// its counters and the peak of its KV-cache gauge, under vLLM's names.
#include <map>
#include <string>
#include <vector>

#include "load/result.h"
#include "serving/watcher.h"

namespace dcukit::load {

/// The counters' change between two scrapes, under vLLM's names (v1 first, v0 fallbacks).
ServerDelta server_delta(const std::map<std::string, double>& before, const std::map<std::string, double>& after);

/// The KV-cache usage fraction in one scrape, or -1 when absent.
double kv_cache_usage(const std::map<std::string, double>& sample);

/// The gauges a watch tracks the peak of.
std::vector<std::string> watched_gauges();

/// The change over one watch, with the gauges' peaks.
ServerDelta server_delta(const serving::Scrapes& scrapes);

}  // namespace dcukit::load
