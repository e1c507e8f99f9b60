#include "plan/check_log_render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "util/json_text.h"

namespace dcukit::plan {
namespace {

using Json = nlohmann::ordered_json;
using core::kGiB;  // bytes; the arithmetic below is in double

std::string value(const std::optional<double>& v, bool gib) {
  if (!v) return "-";
  if (gib) return fmt::format("{:.2f} GiB", *v);
  if (*v == std::floor(*v) && *v >= 100) return fmt::format("{:.0f}", *v);
  return fmt::format("{:.2f}", *v);
}

std::string difference(const CheckLine& l) {
  if (!l.vllm || !l.plan) return "";
  const double d = *l.plan - *l.vllm;
  if (l.gib) return fmt::format("{:+.2f} GiB", d);
  if (*l.vllm != 0 && std::abs(*l.vllm) >= 1) return fmt::format("{:+.1f}%", 100.0 * d / *l.vllm);
  return fmt::format("{:+.2f}", d);
}

std::string verdict(const RunCheck& r) {
  if (!r.checked) return "not checked: " + (r.not_checked.empty() ? "vLLM printed no KV-cache figure" : r.not_checked);
  std::string out =
      fmt::format("available KV per GPU {} ({:+.2f} GiB; tolerance {:.2f} GiB = the larger of 5% and 0.35 GiB)",
                  r.kv_within ? "within tolerance" : "OUTSIDE tolerance", r.kv_difference / kGiB, r.kv_tolerance / kGiB);
  std::vector<std::string> off;
  for (const auto& l : r.lines)
    if (l.within && !*l.within && l.name != "available KV per GPU") off.push_back(l.name);
  if (!off.empty()) out += fmt::format("; OUTSIDE tolerance too: {}", fmt::join(off, ", "));
  return out;
}

}  // namespace

core::Table check_table(const LogCheck& check, const RunCheck& r) {
  core::Table t;
  t.title = fmt::format("{} run {} (lines {}-{}): {} at TP {}{}", check.log, r.index, r.run.first_line, r.run.last_line,
                        check.model, r.tp, r.pp > 1 ? fmt::format(" x PP {}", r.pp) : "");
  t.columns = {{"line", core::Align::left}, {"vLLM"}, {"plan"}, {"difference"}, {"note", core::Align::left}};
  for (const auto& l : r.lines) t.add_row({l.name, value(l.vllm, l.gib), value(l.plan, l.gib), difference(l), l.note});
  const auto& s = r.settings;
  t.notes.push_back(fmt::format("accounting: {}; {} engine, {}; sampler {}{}; {}", r.version,
                                to_string(r.context.engine), to_string(r.context.formula), to_string(r.context.sampler),
                                r.context.sampler_known ? " (from the log)" : "", to_string(r.context.platform)));
  t.notes.push_back(
      fmt::format("settings: utilization {:.2f}, max-model-len {}, max-num-seqs {}, max-num-batched-tokens "
                  "{}, block {}, kv {}, dtype {}, {}",
                  s.gpu_memory_utilization, s.max_model_len, s.max_num_seqs, s.max_num_batched_tokens, s.block_size,
                  to_string(s.kv_cache_dtype), to_string(s.dtype), s.enforce_eager ? "eager" : "graphs"));
  for (const auto& n : r.notes) t.notes.push_back(n);
  if (r.checked && r.rules_detail.rfind("from", 0) == 0)
    t.notes.push_back(fmt::format("block/token/concurrency rules {}: {}",
                                  r.rules_reproduce ? "reproduce vLLM" : "do NOT reproduce vLLM", r.rules_detail));
  t.notes.push_back(verdict(r));
  for (const auto& u : r.uncertain) t.notes.push_back("uncertain: " + u);
  return t;
}

std::string render_check_text(const LogCheck& check, bool markdown) {
  std::string out;
  for (const auto& r : check.runs) {
    const auto t = check_table(check, r);
    out += (markdown ? core::render_markdown(t) : core::render_text(t)) + "\n";
  }
  if (check.checked() == 0) {
    out += fmt::format("nothing compared: no run of {} gives a KV-cache figure plan can hold its own against", check.log);
    for (const auto& r : check.runs)
      out += fmt::format("\n  run {} (lines {}-{}): {}", r.index, r.run.first_line, r.run.last_line, r.not_checked);
    return out + "\nthis is not a pass (exit 1)\n";
  }
  out += fmt::format(
      "{} of {} runs with a KV-cache result within tolerance\n",
      std::count_if(check.runs.begin(), check.runs.end(), [](const RunCheck& r) { return r.checked && r.within; }),
      check.checked());
  return out;
}

nlohmann::ordered_json to_json(const core::RunInfo& run_info, const LogCheck& check) {
  Json j = core::report_head(run_info, 1);
  j["log"] = check.log;
  j["model"] = check.model;
  j["all_within"] = check.all_within();
  j["runs"] = Json::array();
  for (const auto& r : check.runs) {
    Json lines = Json::array();
    for (const auto& l : r.lines) {
      Json line{{"name", l.name}, {"unit", l.gib ? "GiB" : "count"}, {"note", l.note}};
      line["vllm"] = l.vllm ? Json(*l.vllm) : Json(nullptr);
      line["plan"] = l.plan ? Json(*l.plan) : Json(nullptr);
      line["within"] = l.within ? Json(*l.within) : Json(nullptr);
      lines.push_back(line);
    }
    const auto& s = r.settings;
    j["runs"].push_back({{"index", r.index},
                         {"first_line", r.run.first_line},
                         {"last_line", r.run.last_line},
                         {"accounting", r.version},
                         {"engine", std::string(to_string(r.context.engine))},
                         {"formula", std::string(to_string(r.context.formula))},
                         {"sampler", std::string(to_string(r.context.sampler))},
                         {"platform", std::string(to_string(r.context.platform))},
                         {"tp", r.tp},
                         {"pp", r.pp},
                         {"settings",
                          {{"gpu_memory_utilization", s.gpu_memory_utilization},
                           {"max_model_len", s.max_model_len},
                           {"max_num_seqs", s.max_num_seqs},
                           {"max_num_batched_tokens", s.max_num_batched_tokens},
                           {"block_size", s.block_size},
                           {"kv_cache_dtype", std::string(to_string(s.kv_cache_dtype))},
                           {"dtype", std::string(to_string(s.dtype))},
                           {"enforce_eager", s.enforce_eager}}},
                         {"lines", lines},
                         {"checked", r.checked},
                         {"within", r.within},
                         {"kv_within", r.kv_within},
                         {"not_checked", r.not_checked},
                         {"kv_difference_gib", r.kv_difference / kGiB},
                         {"kv_tolerance_gib", r.kv_tolerance / kGiB},
                         {"rules_reproduce", r.rules_reproduce},
                         {"rules_detail", r.rules_detail},
                         {"uncertain", r.uncertain},
                         {"notes", r.notes}});
    if (!s.limit_mm_per_prompt.empty())
      j["runs"].back()["settings"]["limit_mm_per_prompt"] = to_json(s.limit_mm_per_prompt);
  }
  return j;
}

nlohmann::ordered_json to_json(const MmLimits& limits) {
  return nlohmann::ordered_json::parse(mm_limits_flag(limits));
}

}  // namespace dcukit::plan
