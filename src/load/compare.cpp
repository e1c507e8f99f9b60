#include "load/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "util/files.h"
#include "util/json_text.h"

namespace dcukit::load {
namespace {

using nlohmann::json;

/// A result file: its header (run_info, settings) and its levels.
struct RunFile {
  std::string path;
  json header;
  std::vector<json> levels;
};

Result<RunFile> load_runs(const std::string& path) {
  auto text = util::read_file(path, util::kReportInput);
  if (!text) return text.error();
  json j = util::parse_json(*text);
  if (j.is_discarded() || !j.is_object())
    return Error{path + " is not a JSON object (a dcukit load --json or vllm bench serve result file)"};
  RunFile f{path, j, {}};
  if (j.contains("runs") && j["runs"].is_array())
    f.levels = j["runs"].get<std::vector<json>>();
  else
    f.levels = {j};
  for (const auto& l : f.levels) {
    if (!l.is_object() || !l.contains("completed") || !l["completed"].is_number())
      return Error{path +
                   " holds no load results (a level without a \"completed\" count); pass files written by "
                   "dcukit load --json or vllm bench serve --save-result"};
  }
  if (f.levels.empty()) return Error{path + " has no levels (\"runs\" is empty)"};
  return f;
}

std::string cell(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "-";
  const json& v = j[key];
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:.2f}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return util::json_text(v);
}

/// The load a level ran at, as a key and a label: "closed c=4", "rate 2 cap 8".
std::string level_key(const json& l) {
  const std::string shape = l.contains("load_shape") && l["load_shape"].is_string()
                                ? l["load_shape"].get<std::string>()
                                : (l.contains("request_rate") && cell(l, "request_rate") != "inf" ? "open" : "");
  const std::string cap = cell(l, "max_concurrency");
  if (shape == "closed") return "concurrency " + cap;
  const std::string rate = cell(l, "request_rate");
  return "rate " + rate + (cap == "-" ? "" : ", at most " + cap + " in flight");
}

/// The settings compared between runs: where they differ, the figures may not be comparable.
const char* const kSettings[] = {
    "model_id",    "backend", "endpoint",   "dataset", "input_len", "output_len",   "prompts",
    "num_prompts", "stream",  "burstiness", "url",     "seed",      "tokenizer_id", "prompt_tokens_counted_by"};

core::Table differences(const RunFile& a, const RunFile& b) {
  core::Table t;
  t.title = "What differs between A (" + a.path + ") and B (" + b.path + ")";
  t.columns = {{"setting", core::Align::left}, {"A", core::Align::left}, {"B", core::Align::left}};
  const json& x = a.levels.front();
  const json& y = b.levels.front();
  std::vector<std::string> keys(std::begin(kSettings), std::end(kSettings));
  // --metadata keys, and any other string field the two files do not share in value.
  for (const auto& item : x.items())
    if (item.value().is_string() && std::find(keys.begin(), keys.end(), item.key()) == keys.end() &&
        item.key() != "date" && item.key() != "label" && item.key() != "level" && item.key() != "first_error" &&
        item.key() != "request_rate" && item.key() != "load_shape" && item.key() != "problem")
      keys.push_back(item.key());
  for (const auto& k : keys) {
    const std::string va = cell(x, k), vb = cell(y, k);
    if (va != vb) t.add_row({k, va, vb});
  }
  const auto host = [](const RunFile& f, const char* key) {
    const json& ri = f.header.contains("run_info") ? f.header["run_info"] : json();
    if (!ri.is_object()) return std::string("-");
    if (std::string(key) == "dcukit_version") return cell(ri, key);
    return ri.contains("host") ? cell(ri["host"], key) : std::string("-");
  };
  for (const char* k : {"dcukit_version", "hostname", "cpu"})
    if (host(a, k) != host(b, k)) t.add_row({k, host(a, k), host(b, k)});
  if (t.rows.empty())
    t.notes.push_back("The two runs used the same model, endpoint, dataset, lengths and host.");
  else
    t.notes.push_back("The figures below compare runs that differ in these settings.");
  return t;
}

std::vector<std::string> metric_keys() {
  std::vector<std::string> keys = {"completed",
                                   "failed",
                                   "duration",
                                   "request_throughput",
                                   "request_goodput",
                                   "output_throughput",
                                   "total_token_throughput",
                                   "max_output_tokens_per_s"};
  for (const char* m : {"ttft", "tpot", "itl", "e2el"})
    for (const char* s : {"mean", "median", "p99"}) keys.push_back(fmt::format("{}_{}_ms", s, m));
  for (const char* k : {"median_ttft_sched_ms", "p99_send_lag_ms", "server_preemptions", "server_kv_cache_usage_peak"})
    keys.emplace_back(k);
  return keys;
}

core::Table level_table(const std::string& label, const json& x, const json& y) {
  core::Table t;
  t.title = label;
  t.columns = {{"metric", core::Align::left}, {"A"}, {"B"}, {"change"}, {"change %"}};
  for (const auto& k : metric_keys()) {
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
  return t;
}

/// The settings that change what a load run measures: runs that differ in one are not compared
/// (without --force).
const char* const kLoadSettings[] = {"model_id", "backend", "endpoint", "dataset", "input_len", "output_len",
                                     "prompts",  "stream",  "burstiness", "num_prompts"};

/// Pairs the levels of A and B by their load: (A's level, B's level).
std::vector<std::pair<const json*, const json*>> pair_levels(const RunFile& a, const RunFile& b) {
  std::vector<std::pair<const json*, const json*>> out;
  std::vector<bool> used(b.levels.size(), false);
  for (const auto& x : a.levels) {
    const std::string key = level_key(x);
    for (std::size_t j = 0; j < b.levels.size(); ++j)
      if (!used[j] && level_key(b.levels[j]) == key) {
        used[j] = true;
        out.emplace_back(&x, &b.levels[j]);
        break;
      }
  }
  return out;
}

}  // namespace

int Judgement::count(int verdict) const {
  return static_cast<int>(std::count_if(metrics.begin(), metrics.end(), [&](const auto& m) { return m.verdict == verdict; }));
}

Result<Judgement> judge_files(const std::string& a_path, const std::string& b_path, double threshold) {
  auto a = load_runs(a_path);
  if (!a) return a.error();
  auto b = load_runs(b_path);
  if (!b) return b.error();
  Judgement out;
  for (const char* k : kLoadSettings) {
    const std::string va = cell(a->levels.front(), k), vb = cell(b->levels.front(), k);
    if (va != vb) out.refusals.push_back(fmt::format("{}: {} -> {}", k, va, vb));
  }
  const auto pairs = pair_levels(*a, *b);
  if (pairs.empty()) return Error{fmt::format("{} and {} share no load level; compare runs of the same concurrency or rate",
                                              a_path, b_path)};
  struct Headline {
    const char* key;
    bool lower_is_better;
  };
  const Headline headlines[] = {{"median_ttft_ms", true}, {"p99_ttft_ms", true},          {"median_tpot_ms", true},
                                {"p99_tpot_ms", true},    {"median_itl_ms", true},        {"p99_itl_ms", true},
                                {"median_e2el_ms", true}, {"p99_e2el_ms", true},          {"request_throughput", false},
                                {"output_throughput", false}, {"request_goodput", false}};
  for (const auto& [x, y] : pairs)
    for (const auto& h : headlines) {
      if (!x->contains(h.key) || !y->contains(h.key) || !(*x)[h.key].is_number() || !(*y)[h.key].is_number()) continue;
      JudgedMetric m;
      m.level = level_key(*x);
      m.metric = h.key;
      m.a = (*x)[h.key].get<double>();
      m.b = (*y)[h.key].get<double>();
      if (m.a <= 0 || m.b <= 0) continue;  // nothing measured: not a change
      m.change = h.lower_is_better ? m.a / m.b - 1 : m.b / m.a - 1;
      m.verdict = m.change < -threshold ? -1 : (m.change > threshold ? 1 : 0);
      out.metrics.push_back(m);
    }
  return out;
}

Result<std::vector<core::Table>> compare_files(const std::string& a_path, const std::string& b_path) {
  auto a = load_runs(a_path);
  if (!a) return a.error();
  auto b = load_runs(b_path);
  if (!b) return b.error();
  std::vector<core::Table> tables{differences(*a, *b)};
  std::vector<std::string> only_a, only_b;
  std::vector<bool> used(b->levels.size(), false);
  for (const auto& x : a->levels) {
    const std::string key = level_key(x);
    std::size_t j = 0;
    while (j < b->levels.size() && (used[j] || level_key(b->levels[j]) != key)) ++j;
    if (j == b->levels.size()) {
      only_a.push_back(key);
      continue;
    }
    used[j] = true;
    tables.push_back(level_table(key, x, b->levels[j]));
  }
  for (std::size_t j = 0; j < b->levels.size(); ++j)
    if (!used[j]) only_b.push_back(level_key(b->levels[j]));
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
  };
  if (tables.size() == 1)
    return Error{fmt::format("{} ({}) and {} ({}) share no load level; compare runs of the same concurrency or rate",
                             a_path, join(only_a), b_path, join(only_b))};
  if (!only_a.empty()) tables.front().notes.push_back("Only in A, not compared: " + join(only_a));
  if (!only_b.empty()) tables.front().notes.push_back("Only in B, not compared: " + join(only_b));
  return tables;
}

}  // namespace dcukit::load
