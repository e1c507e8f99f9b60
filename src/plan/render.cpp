#include "plan/render.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace dcukit::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / kGiB); }

std::string kib(double bytes) { return fmt::format("{:.1f} KiB", bytes / 1024.0); }

std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string option_label(const Option& o) {
  return o.pp > 1 ? fmt::format("TP {} x PP {}", o.tp, o.pp) : fmt::format("TP {}", o.tp);
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

nlohmann::json budget_json(const Budget& b) {
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

} // namespace

std::string render_summary(const Plan& p) {
  const auto& m = p.model;
  std::string out = fmt::format("model   {} ({}, {} layers, {})\n", m.name, m.architecture, m.num_layers,
                                attention_words(m));
  out += fmt::format("weights {} ({}{}{})\n", gib(static_cast<double>(p.weights.total_bytes)),
                     to_string(p.weights.source), p.weights.detail.empty() ? "" : ": ", p.weights.detail);
  out += fmt::format("cards   {} x {}, {} each ({})\n", p.cards.count, p.cards.name,
                     gib(static_cast<double>(p.cards.total_bytes)), p.cards.total_source);
  if (p.cards.detected && p.cards.free_bytes > 0)
    out += fmt::format("        {} free on the fullest card\n", gib(static_cast<double>(p.cards.free_bytes)));
  for (const auto& w : p.warnings) out += fmt::format("warning {}\n", w);
  return out;
}

core::Table options_table(const Plan& p) {
  core::Table t;
  t.title = fmt::format("Options at --max-model-len {} (per GPU)", p.settings.max_model_len);
  t.columns = {{"", core::Align::left},  {"option", core::Align::left}, {"KV dtype", core::Align::left},
               {"weights"},              {"activation"},                {"non-torch"},
               {"graphs"},               {"KV budget"},                 {"KV/token"},
               {"blocks"},               {"tokens"},                    {"concurrency"},
               {"verdict", core::Align::left}};
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    const auto& o = p.options[i];
    const auto& b = o.budget;
    const bool budgeted = b.usable > 0;
    const bool state = b.kv.per_sequence > 0;
    t.add_row({static_cast<int>(i) == p.recommended ? "*" : "", option_label(o), o.kv_cache_dtype,
               budgeted ? gib(b.weights) : "-", budgeted ? gib(b.activation) : "-", budgeted ? gib(b.non_torch) : "-",
               budgeted ? gib(b.graphs) : "-", budgeted ? gib(b.kv_budget) : "-",
               budgeted ? kib(b.kv.per_token + b.kv.per_window_token) + (state ? " + state" : "") : "-",
               b.weights_fit ? with_commas(b.blocks) : "-", b.weights_fit ? with_commas(b.tokens) : "-",
               b.weights_fit ? fmt::format("{:.2f}x", b.max_concurrency) : "-",
               o.starts() ? "starts" : o.problem});
  }
  if (p.chosen()) t.notes.push_back(fmt::format("* recommended: {}", p.reason));
  for (const auto& o : p.options)
    if (o.budget.kv.per_sequence > 0) {
      t.notes.push_back(fmt::format("state: the linear-attention layers keep {} a sequence whatever its length; "
                                    "concurrency and tokens count whole {}-token requests",
                                    gib(o.budget.kv.per_sequence), p.settings.max_model_len));
      break;
    }
  t.notes.push_back("activation, non-torch and graphs are estimates (docs/plan.md); weights and KV/token are exact");
  return t;
}

core::Table flags_table(const Plan& p) {
  core::Table t;
  t.title = "Engine flags";
  t.columns = {{"flag", core::Align::left}, {"value", core::Align::left}, {"why", core::Align::left}};
  if (const auto* c = p.chosen()) {
    t.add_row({"--tensor-parallel-size", std::to_string(c->tp), p.reason});
    if (c->pp > 1) t.add_row({"--pipeline-parallel-size", std::to_string(c->pp), "TP alone does not fit"});
  }
  for (const auto& a : p.advice) t.add_row({a.flag, a.value, a.why});
  return t;
}

std::string render_text(const Plan& p, bool markdown) {
  auto table = [markdown](const core::Table& t) { return markdown ? core::render_markdown(t) : core::render_text(t); };
  std::string out = render_summary(p) + "\n" + table(options_table(p)) + "\n" + table(flags_table(p));
  if (!p.chosen()) out += fmt::format("\n{}.\nNearest that works: {}.\n", p.reason, p.nearest);
  return out;
}

std::string render_json(const Plan& p) {
  const auto& m = p.model;
  nlohmann::json j;
  j["model"] = {{"name", m.name},
                {"path", m.path},
                {"architecture", m.architecture},
                {"model_type", m.model_type},
                {"layers", m.num_layers},
                {"full_attention_layers", m.count(LayerKind::full_attention)},
                {"sliding_attention_layers", m.count(LayerKind::sliding_attention)},
                {"linear_attention_layers", m.count(LayerKind::linear_attention)},
                {"mla", m.mla},
                {"moe_experts", m.num_experts},
                {"max_position_embeddings", m.max_position_embeddings}};
  j["weights"] = {{"total_bytes", p.weights.total_bytes},
                  {"source", std::string(to_string(p.weights.source))},
                  {"detail", p.weights.detail}};
  j["cards"] = {{"name", p.cards.name},        {"key", p.cards.key},
                {"count", p.cards.count},      {"total_bytes", p.cards.total_bytes},
                {"total_source", p.cards.total_source}, {"free_bytes", p.cards.free_bytes},
                {"detected", p.cards.detected}, {"indices", p.cards.indices},
                {"numa_nodes", p.cards.numa_nodes}};
  const auto& s = p.settings;
  j["settings"] = {{"gpu_memory_utilization", s.gpu_memory_utilization},
                   {"max_model_len", s.max_model_len},
                   {"max_num_seqs", s.max_num_seqs},
                   {"max_num_batched_tokens", s.max_num_batched_tokens},
                   {"block_size", s.block_size},
                   {"enforce_eager", s.enforce_eager},
                   {"dtype", s.dtype},
                   {"kv_cache_dtype", p.chosen() ? p.chosen()->kv_cache_dtype : s.kv_cache_dtype},
                   {"min_concurrency", p.min_concurrency}};
  j["advice"] = nlohmann::json::array();
  for (const auto& a : p.advice) j["advice"].push_back({{"flag", a.flag}, {"value", a.value}, {"why", a.why}});
  j["options"] = nlohmann::json::array();
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    const auto& o = p.options[i];
    j["options"].push_back({{"tp", o.tp},
                            {"pp", o.pp},
                            {"kv_cache_dtype", o.kv_cache_dtype},
                            {"starts", o.starts()},
                            {"problem", o.problem},
                            {"recommended", static_cast<int>(i) == p.recommended},
                            {"budget", budget_json(o.budget)}});
  }
  j["recommended"] = p.recommended;
  j["reason"] = p.reason;
  if (!p.nearest.empty()) j["nearest"] = p.nearest;
  j["warnings"] = p.warnings;
  return j.dump(2) + "\n";
}

} // namespace dcukit::plan
