// A plan result file read back into a Report (a plan, or a checked log): what `report` and
// `compare` read across hosts and versions. What to_json derives (an option's label, whether it
// starts, counts of layer kinds) is rebuilt from the fields it derives from.
#include <fmt/format.h>

#include "core/units.h"
#include "plan/render.h"
#include "util/json_text.h"

namespace dcukit::plan {
namespace {

using Doc = nlohmann::json;  // a name of its own: the unity build shares file scopes

using util::read_at;
using util::string_at;

const Doc& member(const Doc& j, const char* key) {
  static const Doc none;
  return j.is_object() && j.contains(key) ? j[key] : none;
}

/// An enum from its spelling; an error that names the field where it is not one to_string writes.
template <class E, class Parse>
Result<E> enum_at(const Doc& j, const char* key, Parse parse, const char* where) {
  const std::string text = string_at(j, key);
  if (auto v = parse(text)) return *v;
  return Error{fmt::format("{}.{}: '{}' is not a value plan writes", where, key, text)};
}

Result<CardCapability> capability_of(const Doc& j) {
  CardCapability c;
  const auto value = core::parse_support(string_at(j, "value"));
  const auto published = core::parse_support(string_at(j, "published"));
  const auto decider = parse_decider(string_at(j, "decided_by"));
  if (!value || !published || !decider) return Error{"cards.capabilities: a capability without value, published or decided_by"};
  c.published.value = *published;
  const std::string source = string_at(j, "source");
  if (j.contains("this_host") && j["this_host"].is_boolean()) c.host = j["this_host"].get<bool>();
  c.host_error = string_at(j, "this_host_error");
  switch (*decider) {
    case Decider::this_host:
      c.host_source = source;
      break;
    case Decider::published:
      c.published.source = source;
      break;
    case Decider::offline_advice:
      c.published.assume = *value;
      c.published.assume_source = source;
      break;
    case Decider::nobody:
      c.published.note = source;
      break;
  }
  return c;
}

Result<Cards> cards_of(const Doc& j) {
  Cards c;
  read_at(j, "name", c.name);
  read_at(j, "key", c.key);
  const auto vendor = enum_at<core::Vendor>(j, "vendor", core::parse_vendor, "cards");
  if (!vendor) return vendor.error();
  c.vendor = *vendor;
  read_at(j, "arch", c.arch);
  read_at(j, "count", c.count);
  read_at(j, "total_bytes", c.total_bytes);
  read_at(j, "total_source", c.total_source);
  read_at(j, "free_bytes", c.free_bytes);
  read_at(j, "detected", c.detected);
  read_at(j, "indices", c.indices);
  read_at(j, "numa_nodes", c.numa_nodes);
  const Doc& caps = member(j, "capabilities");
  for (auto [key, cap] : {std::pair{"bf16", &c.bf16}, {"fp8", &c.fp8}, {"fp8_kv_cache", &c.fp8_kv_cache}}) {
    auto read = capability_of(member(caps, key));
    if (!read) return read.error();
    *cap = *read;
  }
  return c;
}

ModelConfig model_of(const Doc& j) {
  ModelConfig m;
  read_at(j, "name", m.name);
  read_at(j, "path", m.path);
  read_at(j, "architecture", m.architecture);
  read_at(j, "model_type", m.model_type);
  read_at(j, "torch_dtype", m.torch_dtype);
  read_at(j, "layers", m.num_layers);
  read_at(j, "mla", m.mla);
  read_at(j, "moe_experts", m.num_experts);
  read_at(j, "max_position_embeddings", m.max_position_embeddings);
  read_at(j, "vision_params", m.vision_params);
  for (auto [key, kind] : {std::pair{"full_attention_layers", LayerKind::full_attention},
                           {"sliding_attention_layers", LayerKind::sliding_attention},
                           {"linear_attention_layers", LayerKind::linear_attention}}) {
    int n = 0;
    read_at(j, key, n);
    m.layers.insert(m.layers.end(), static_cast<std::size_t>(std::max(n, 0)), kind);
  }
  return m;
}

/// The settings both forms write; `why` where the document has it.
Status settings_of(const Doc& j, Settings& s) {
  read_at(j, "gpu_memory_utilization", s.gpu_memory_utilization);
  read_at(j, "max_model_len", s.max_model_len);
  read_at(j, "max_num_seqs", s.max_num_seqs);
  read_at(j, "max_num_batched_tokens", s.max_num_batched_tokens);
  read_at(j, "block_size", s.block_size);
  read_at(j, "enforce_eager", s.enforce_eager);
  if (const auto& limits = member(j, "limit_mm_per_prompt"); limits.is_object()) {
    auto read = parse_mm_limits(limits.dump());
    if (!read) return Error{"settings: " + read.error().message};
    s.limit_mm_per_prompt = *read;
  }
  const auto dtype = enum_at<Dtype>(j, "dtype", parse_dtype, "settings");
  const auto kv = enum_at<KvCacheDtype>(j, "kv_cache_dtype", parse_kv_cache_dtype, "settings");
  if (!dtype) return dtype.error();
  if (!kv) return kv.error();
  s.dtype = *dtype;
  s.kv_cache_dtype = *kv;
  return {};
}

Budget budget_of(const Doc& j) {
  Budget b;
  read_at(j, "usable_bytes", b.usable);
  read_at(j, "weights_bytes", b.weights);
  read_at(j, "activation_bytes", b.activation);
  read_at(j, "non_torch_bytes", b.non_torch);
  read_at(j, "graph_bytes", b.graphs);
  read_at(j, "kv_budget_bytes", b.kv_budget);
  read_at(j, "kv_bytes_per_token", b.kv.per_token);
  read_at(j, "kv_bytes_per_window_token", b.kv.per_window_token);
  read_at(j, "state_bytes_per_sequence", b.kv.per_sequence);
  read_at(j, "blocks", b.blocks);
  read_at(j, "tokens", b.tokens);
  read_at(j, "max_concurrency", b.max_concurrency);
  read_at(j, "one_request_fits", b.one_request_fits);
  read_at(j, "longest_fitting_len", b.longest_fitting_len);
  b.weights_fit = b.kv_budget > 0;
  return b;
}

Result<Plan> plan_of(const Doc& j) {
  Plan p;
  if (const Doc& a = member(j, "accounting"); a.is_object()) {
    auto version = parse_vllm_version(string_at(a, "as_written"));
    if (!version) return Error{"accounting.as_written: " + version.error().message};
    p.accounting = ChosenVllm{*version, string_at(a, "from")};
  }
  p.model = model_of(member(j, "model"));
  const Doc& w = member(j, "weights");
  read_at(w, "total_bytes", p.weights.total_bytes);
  read_at(w, "detail", p.weights.detail);
  auto source = enum_at<WeightSource>(w, "source", parse_weight_source, "weights");
  if (!source) return source.error();
  p.weights.source = *source;
  auto cards = cards_of(member(j, "cards"));
  if (!cards) return cards.error();
  p.cards = std::move(*cards);
  const Doc& s = member(j, "settings");
  if (Status st = settings_of(s, p.settings); !st) return st.error();
  read_at(s, "min_concurrency", p.min_concurrency);
  auto goal = enum_at<Goal>(s, "goal", parse_goal, "settings");
  if (!goal) return goal.error();
  p.goal = *goal;
  const Doc& why = member(j, "why");
  auto& y = p.settings.why;
  for (auto [key, field] : {std::pair{"gpu_memory_utilization", &y.gpu_memory_utilization},
                            {"max_model_len", &y.max_model_len},
                            {"max_num_seqs", &y.max_num_seqs},
                            {"max_num_batched_tokens", &y.max_num_batched_tokens},
                            {"block_size", &y.block_size},
                            {"enforce_eager", &y.enforce_eager},
                            {"dtype", &y.dtype},
                            {"kv_cache_dtype", &y.kv_cache_dtype}})
    read_at(why, key, *field);
  if (const Doc& d = member(j, "dtype_option"); d.is_object()) {
    auto dtype = enum_at<Dtype>(d, "dtype", parse_dtype, "dtype_option");
    if (!dtype) return dtype.error();
    p.dtype_option = DtypeOption{*dtype, string_at(d, "caveat")};
  }
  for (const Doc& o : member(j, "options")) {
    Option option;
    read_at(o, "tp", option.tp);
    read_at(o, "pp", option.pp);
    auto kv = enum_at<KvCacheDtype>(o, "kv_cache_dtype", parse_kv_cache_dtype, "options[]");
    if (!kv) return kv.error();
    option.kv_cache_dtype = *kv;
    read_at(o, "unverified", option.unverified);
    read_at(o, "problem", option.problem);
    option.budget = budget_of(member(o, "budget"));
    p.options.push_back(std::move(option));
  }
  read_at(j, "recommended", p.recommended);
  if (p.recommended >= static_cast<int>(p.options.size()))
    return Error{fmt::format("recommended: {} is not one of the {} options", p.recommended, p.options.size())};
  read_at(j, "reason", p.reason);
  read_at(j, "nearest", p.nearest);
  read_at(j, "warnings", p.warnings);
  read_at(j, "caveats", p.caveats);
  return p;
}

Result<RunCheck> run_check_of(const Doc& j) {
  RunCheck r;
  read_at(j, "index", r.index);
  read_at(j, "first_line", r.run.first_line);
  read_at(j, "last_line", r.run.last_line);
  read_at(j, "accounting", r.version);
  auto engine = enum_at<VllmEngine>(j, "engine", parse_engine, "runs[]");
  auto formula = enum_at<ProfileFormula>(j, "formula", parse_formula, "runs[]");
  auto sampler = enum_at<SamplerKind>(j, "sampler", parse_sampler, "runs[]");
  auto platform = enum_at<VllmPlatform>(j, "platform", parse_platform, "runs[]");
  if (!engine) return engine.error();
  if (!formula) return formula.error();
  if (!sampler) return sampler.error();
  if (!platform) return platform.error();
  r.context.engine = *engine;
  r.context.formula = *formula;
  r.context.sampler = *sampler;
  r.context.platform = *platform;
  read_at(j, "tp", r.tp);
  read_at(j, "pp", r.pp);
  if (Status st = settings_of(member(j, "settings"), r.settings); !st) return st.error();
  for (const Doc& l : member(j, "lines")) {
    CheckLine line;
    read_at(l, "name", line.name);
    line.gib = string_at(l, "unit") == "GiB";
    read_at(l, "note", line.note);
    read_at(l, "vllm", line.vllm);
    read_at(l, "plan", line.plan);
    read_at(l, "within", line.within);
    r.lines.push_back(std::move(line));
  }
  read_at(j, "checked", r.checked);
  read_at(j, "within", r.within);
  read_at(j, "kv_within", r.kv_within);
  read_at(j, "not_checked", r.not_checked);
  read_at(j, "kv_difference_gib", r.kv_difference);
  read_at(j, "kv_tolerance_gib", r.kv_tolerance);
  r.kv_difference *= core::kGiB;
  r.kv_tolerance *= core::kGiB;
  read_at(j, "rules_reproduce", r.rules_reproduce);
  read_at(j, "rules_detail", r.rules_detail);
  read_at(j, "uncertain", r.uncertain);
  read_at(j, "notes", r.notes);
  return r;
}

}  // namespace

Result<Report> from_json(std::string_view text) {
  const Doc j = util::parse_json(text);
  if (!j.is_object() || !j.contains("run_info"))
    return Error{"not a dcukit plan report: no JSON object with run_info (write one with `dcukit plan --json`)"};
  Report report;
  report.run_info = core::run_info_from_json(j["run_info"]);
  if (j.contains("runs")) {  // a checked log
    LogCheck check;
    read_at(j, "log", check.log);
    read_at(j, "model", check.model);
    for (const Doc& r : member(j, "runs")) {
      auto run = run_check_of(r);
      if (!run) return run.error();
      check.runs.push_back(std::move(*run));
    }
    report.check = std::move(check);
    return report;
  }
  if (!j.contains("options") || !j.contains("cards"))
    return Error{"not a dcukit plan report: neither options and cards (a plan) nor runs (a checked log)"};
  auto plan = plan_of(j);
  if (!plan) return plan.error();
  report.plan = std::move(*plan);
  return report;
}

}  // namespace dcukit::plan
