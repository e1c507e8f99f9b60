#include "load/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dcukit::load {
namespace {

using nlohmann::json;

Result<std::vector<json>> load_runs(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"cannot open " + path};
  std::stringstream ss;
  ss << in.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{path + " is not a JSON object (a dcukit load --json file)"};
  if (j.contains("runs") && j["runs"].is_array()) return j["runs"].get<std::vector<json>>();
  return std::vector<json>{j};
}

std::string cell(const json& j, const std::string& key) {
  if (!j.contains(key) || j[key].is_null()) return "-";
  const json& v = j[key];
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:.2f}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

Result<std::vector<core::Table>> compare_files(const std::string& a_path, const std::string& b_path) {
  auto a = load_runs(a_path);
  if (!a) return a.error();
  auto b = load_runs(b_path);
  if (!b) return b.error();
  if (a->size() != b->size()) {
    return Error{fmt::format("{} has {} levels and {} has {}; compare runs with the same sweep", a_path, a->size(),
                             b_path, b->size())};
  }
  std::vector<std::string> keys = {"completed",
                                   "failed",
                                   "duration",
                                   "request_throughput",
                                   "request_goodput",
                                   "output_throughput",
                                   "total_token_throughput",
                                   "max_output_tokens_per_s"};
  for (const char* m : {"ttft", "tpot", "itl", "e2el"}) {
    for (const char* s : {"mean", "median", "p99"}) keys.push_back(fmt::format("{}_{}_ms", s, m));
  }
  for (const char* k : {"median_ttft_sched_ms", "p99_send_lag_ms", "server_preemptions", "server_kv_cache_usage_peak"})
    keys.push_back(k);
  std::vector<core::Table> tables;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const json& x = (*a)[i];
    const json& y = (*b)[i];
    core::Table t;
    t.title = fmt::format("{} vs {}{}", a_path, b_path, x.contains("label") ? " (" + cell(x, "label") + ")" : "");
    t.columns = {{"metric", core::Align::left}, {"A"}, {"B"}, {"change"}, {"change %"}};
    for (const auto& k : keys) {
      if (!x.contains(k) && !y.contains(k)) continue;
      std::string change = "-", pct = "-";
      if (x.contains(k) && y.contains(k) && x[k].is_number() && y[k].is_number()) {
        const double va = x[k].get<double>(), vb = y[k].get<double>();
        change = fmt::format("{:+.2f}", vb - va);
        if (va != 0) pct = fmt::format("{:+.1f}%", (vb - va) / std::fabs(va) * 100.0);
      }
      t.add_row({k, cell(x, k), cell(y, k), change, pct});
    }
    t.notes.push_back("Latencies (ms): lower is better; throughputs and goodput: higher is better.");
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace dcukit::load
