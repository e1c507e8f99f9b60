#include "plan/render.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "plan/check_log_render.h"
#include "plan/flags.h"
#include "util/json_text.h"

namespace dcukit::plan {
namespace {

using Json = nlohmann::ordered_json;

using core::kGiB;  // bytes; the arithmetic below is in double

std::string gib(double bytes) {
  return fmt::format("{:.2f} GiB", bytes / kGiB);
}

std::string kib(double bytes) {
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string attention_words(const ModelConfig& m) {
  std::string s = m.mla ? fmt::format("MLA (latent {} + rope {})", m.kv_lora_rank, m.qk_rope_head_dim)
                        : fmt::format("GQA {}/{} heads of {}", m.num_heads, m.num_kv_heads, m.head_dim);
  if (m.hybrid())
    s += fmt::format(", {} full + {} linear-attention layers", m.count(LayerKind::full_attention),
                     m.count(LayerKind::linear_attention));
  if (m.count(LayerKind::sliding_attention) > 0)
    s += fmt::format(", {} sliding-window ({}) layers", m.count(LayerKind::sliding_attention), m.sliding_window);
  if (m.moe()) s += fmt::format(", MoE {} experts (top {})", m.num_experts, m.experts_per_token);
  return s;
}

Json budget_json(const Budget& b) {
  return {{"usable_bytes", std::llround(b.usable)},
          {"weights_bytes", std::llround(b.weights)},
          {"activation_bytes", std::llround(b.activation)},
          {"non_torch_bytes", std::llround(b.non_torch)},
          {"graph_bytes", std::llround(b.graphs)},
          {"kv_budget_bytes", std::llround(b.kv_budget)},
          {"kv_bytes_per_token", std::llround(b.kv.per_token)},
          {"kv_bytes_per_window_token", std::llround(b.kv.per_window_token)},
          {"state_bytes_per_sequence", std::llround(b.kv.per_sequence)},
          {"blocks", b.blocks},
          {"tokens", b.tokens},
          {"max_concurrency", b.max_concurrency},
          {"one_request_fits", b.one_request_fits},
          {"longest_fitting_len", b.longest_fitting_len}};
}

Json capability_json(const CardCapability& c) {
  Json j = {{"value", std::string(core::to_string(c.effective()))},
            {"decided_by", std::string(to_string(c.decider()))},
            {"source", c.source()},
            {"published", std::string(core::to_string(c.published.value))}};
  if (c.host) j["this_host"] = *c.host;
  if (!c.host_error.empty()) j["this_host_error"] = c.host_error;
  return j;
}

/// "bf16 unknown, assumed yes (offline advice)": a capability in the summary.
std::string capability_words(const char* what, const CardCapability& c) {
  const auto d = c.decider();
  switch (d) {
    case Decider::nobody:
      return fmt::format("{} unknown", what);
    case Decider::offline_advice:
      return fmt::format("{} unknown, assumed {} (offline advice)", what, core::to_string(c.effective()));
    case Decider::this_host:
    case Decider::published:
      break;
  }
  return fmt::format("{} {} ({})", what, core::to_string(c.effective()), to_string(d));
}

}  // namespace

std::string render_summary(const Plan& p) {
  const auto& m = p.model;
  std::string out =
      fmt::format("model   {} ({}, {} layers, {})\n", m.name, m.architecture, m.num_layers, attention_words(m));
  out += fmt::format("weights {} ({}{}{})\n", gib(static_cast<double>(p.weights.total_bytes)),
                     to_string(p.weights.source), p.weights.detail.empty() ? "" : ": ", p.weights.detail);
  out += fmt::format("cards   {} × {}, {} each ({})\n", p.cards.count, p.cards.name,
                     gib(static_cast<double>(p.cards.total_bytes)), p.cards.total_source);
  out +=
      fmt::format("        {}{}; {}; {}; {}\n", p.cards.arch.empty() ? "ISA unknown" : p.cards.arch,
                  p.cards.detected ? " (from the runtime)" : "", capability_words("bf16", p.cards.bf16),
                  capability_words("FP8 compute", p.cards.fp8), capability_words("fp8 KV cache", p.cards.fp8_kv_cache));
  if (p.cards.detected && p.cards.free_bytes > 0)
    out += fmt::format("        {} free on the fullest card\n", gib(static_cast<double>(p.cards.free_bytes)));
  if (p.accounting)
    out += fmt::format("vllm    {}'s accounting and defaults ({})\n", p.accounting->version.upstream(),
                       p.accounting->from);
  for (const auto& w : p.warnings) out += fmt::format("warning {}\n", w);
  return out;
}

core::Table options_table(const Plan& p) {
  core::Table t;
  t.title = fmt::format("Options at --max-model-len {} (per GPU)", p.settings.max_model_len);
  t.columns = {{"", core::Align::left},
               {"option", core::Align::left},
               {"KV dtype", core::Align::left},
               {"weights", core::Align::right, true},
               {"activation", core::Align::right, true},
               {"non-torch", core::Align::right, true},
               {"graphs", core::Align::right, true},
               {"KV budget"},
               {"KV/token", core::Align::right, true},
               {"blocks", core::Align::right, true},
               {"tokens"},
               {"concurrency"},
               {"verdict", core::Align::left}};
  bool unverified = false;
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    const auto& o = p.options[i];
    const auto& b = o.budget;
    const bool budgeted = b.usable > 0;
    const bool state = b.kv.per_sequence > 0;
    unverified = unverified || o.unverified;
    t.add_row({static_cast<int>(i) == p.recommended ? "*" : "", label(o),
               std::string(to_string(o.kv_cache_dtype)) + (o.unverified ? " (?)" : ""), budgeted ? gib(b.weights) : "-",
               budgeted ? gib(b.activation) : "-", budgeted ? gib(b.non_torch) : "-", budgeted ? gib(b.graphs) : "-",
               budgeted ? gib(b.kv_budget) : "-",
               budgeted ? kib(b.kv.per_token + b.kv.per_window_token) + (state ? " + state" : "") : "-",
               b.weights_fit ? with_commas(b.blocks) : "-", b.weights_fit ? with_commas(b.tokens) : "-",
               b.weights_fit ? fmt::format("{:.2f}x", b.max_concurrency) : "-", o.starts() ? "starts" : o.problem});
  }
  if (p.chosen()) t.notes.push_back(fmt::format("* recommended: {}", p.reason));
  if (unverified)
    t.notes.push_back(
        fmt::format("(?) vLLM's fp8 KV cache is unverified on {}; such rows are recommended only when "
                    "--kv-cache-dtype asks for them",
                    p.cards.name));
  for (const auto& c : p.caveats) t.notes.push_back(c);
  for (const auto& o : p.options)
    if (o.budget.kv.per_sequence > 0) {
      t.notes.push_back(
          fmt::format("state: the linear-attention layers keep {} a sequence whatever its length; "
                      "concurrency and tokens count whole {}-token requests",
                      gib(o.budget.kv.per_sequence), p.settings.max_model_len));
      break;
    }
  const bool multimodal = p.model.vision_params > 0;
  if (multimodal)
    t.notes.push_back(fmt::format(
        "a multimodal model: the weights hold its vision tower{}, and {}",
        p.weights.source == WeightSource::computed ? " counted from vision_config (an estimate)" : "",
        p.model.vision.profiled != ModelConfig::VisionShape::Profiled::none
            ? "the activation counts the vision encoder's run in vLLM's start-up profile over the images or "
              "video vLLM profiles (an estimate of a block's peak; --mm-processor-kwargs and "
              "--limit-mm-per-prompt change them)"
            : "the activation leaves out the vision encoder's run in vLLM's start-up profile, so the KV budget "
              "can come out smaller (vLLM bounds that run by --limit-mm-per-prompt and the processor's largest "
              "image or video)"));
  t.notes.push_back(fmt::format("activation, non-torch and graphs are estimates (docs/plan.md); {} exact",
                                multimodal ? "KV/token is" : "weights and KV/token are"));
  return t;
}

core::Table flags_table(const Plan& p) {
  core::Table t;
  t.title = "Engine flags";
  t.columns = {{"flag", core::Align::left}, {"value", core::Align::left}, {"why", core::Align::left}};
  for (const auto& f : engine_flags(p))
    t.add_row({std::string(f.name), f.value.empty() ? (f.on ? "on" : "off") : f.value, f.why});
  if (p.dtype_option)
    t.notes.push_back(
        fmt::format("also an option: --dtype {}: {}", to_string(p.dtype_option->dtype), p.dtype_option->caveat));
  return t;
}

std::string render_plan(const Plan& p, bool markdown) {
  auto table = [markdown](const core::Table& t) { return markdown ? core::render_markdown(t) : core::render_text(t); };
  std::string out = render_summary(p) + "\n" + table(options_table(p)) + "\n" + table(flags_table(p));
  if (!p.chosen()) out += fmt::format("\n{}.\nNearest that works: {}.\n", p.reason, p.nearest);
  return out;
}

std::string render_text(const Report& report) {
  return report.check ? render_check_text(*report.check) : render_plan(report.plan);
}

std::string render_markdown(const Report& report) {
  return report.check ? render_check_text(*report.check, true) : render_plan(report.plan, true);
}

nlohmann::ordered_json to_json(const Report& report) {
  if (report.check) return to_json(report.run_info, *report.check);
  const auto& p = report.plan;
  const auto& m = p.model;
  Json j = core::report_head(report.run_info, 1);
  if (p.accounting)
    j["accounting"] = {{"vllm_version", p.accounting->version.upstream()},
                       {"as_written", p.accounting->version.text},
                       {"dcu_build", p.accounting->version.dcu},
                       {"from", p.accounting->from}};
  j["model"] = {{"name", m.name},
                {"path", m.path},
                {"architecture", m.architecture},
                {"model_type", m.model_type},
                {"torch_dtype", m.torch_dtype},
                {"layers", m.num_layers},
                {"full_attention_layers", m.count(LayerKind::full_attention)},
                {"sliding_attention_layers", m.count(LayerKind::sliding_attention)},
                {"linear_attention_layers", m.count(LayerKind::linear_attention)},
                {"mla", m.mla},
                {"moe_experts", m.num_experts},
                {"max_position_embeddings", m.max_position_embeddings},
                {"vision_params", m.vision_params}};
  j["weights"] = {{"total_bytes", p.weights.total_bytes},
                  {"source", std::string(to_string(p.weights.source))},
                  {"detail", p.weights.detail}};
  const auto& c = p.cards;
  j["cards"] = {{"name", c.name},
                {"key", c.key},
                {"vendor", std::string(to_string(c.vendor))},
                {"arch", c.arch},
                {"count", c.count},
                {"total_bytes", c.total_bytes},
                {"total_source", c.total_source},
                {"free_bytes", c.free_bytes},
                {"detected", c.detected},
                {"indices", c.indices},
                {"numa_nodes", c.numa_nodes},
                {"capabilities",
                 {{"bf16", capability_json(c.bf16)},
                  {"fp8", capability_json(c.fp8)},
                  {"fp8_kv_cache", capability_json(c.fp8_kv_cache)}}}};
  const auto& s = p.settings;
  j["settings"] = {{"gpu_memory_utilization", s.gpu_memory_utilization},
                   {"max_model_len", s.max_model_len},
                   {"max_num_seqs", s.max_num_seqs},
                   {"max_num_batched_tokens", s.max_num_batched_tokens},
                   {"block_size", s.block_size},
                   {"enforce_eager", s.enforce_eager},
                   {"dtype", std::string(to_string(s.dtype))},
                   {"kv_cache_dtype", std::string(to_string(s.kv_cache_dtype))},
                   {"min_concurrency", p.min_concurrency},
                   {"goal", std::string(to_string(p.goal))}};
  if (!s.limit_mm_per_prompt.empty()) j["settings"]["limit_mm_per_prompt"] = to_json(s.limit_mm_per_prompt);
  j["why"] = {{"gpu_memory_utilization", s.why.gpu_memory_utilization},
              {"max_model_len", s.why.max_model_len},
              {"max_num_seqs", s.why.max_num_seqs},
              {"max_num_batched_tokens", s.why.max_num_batched_tokens},
              {"block_size", s.why.block_size},
              {"enforce_eager", s.why.enforce_eager},
              {"dtype", s.why.dtype},
              {"kv_cache_dtype", s.why.kv_cache_dtype}};
  if (p.dtype_option)
    j["dtype_option"] = {{"dtype", std::string(to_string(p.dtype_option->dtype))}, {"caveat", p.dtype_option->caveat}};
  j["options"] = Json::array();
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    const auto& o = p.options[i];
    j["options"].push_back({{"label", label(o)},
                            {"tp", o.tp},
                            {"pp", o.pp},
                            {"kv_cache_dtype", std::string(to_string(o.kv_cache_dtype))},
                            {"unverified", o.unverified},
                            {"starts", o.starts()},
                            {"problem", o.problem},
                            {"recommended", static_cast<int>(i) == p.recommended},
                            {"budget", budget_json(o.budget)}});
  }
  j["recommended"] = p.recommended;
  j["reason"] = p.reason;
  if (!p.nearest.empty()) j["nearest"] = p.nearest;
  j["warnings"] = p.warnings;
  j["caveats"] = p.caveats;
  return j;
}

}  // namespace dcukit::plan
