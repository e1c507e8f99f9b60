#include "plan/check_log_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/units.h"

namespace dcukit::plan::logcheck {
namespace {

using core::kGiB;  // bytes; the arithmetic below is in double

/// The bytes of the blocks (or tokens) vLLM printed, one block short at most.
std::optional<double> blocks_bytes(const RunCheck& c) {
  const auto& f = c.run.figures;
  const auto& lay = c.plan.layout;
  const double per_token = c.plan.budget.kv.per_token + c.plan.budget.kv.per_window_token;  // all layers
  const double block = static_cast<double>(c.settings.block_size) * per_token;
  std::optional<double> blocks;
  if (f.gpu_blocks)
    blocks = static_cast<double>(*f.gpu_blocks);
  else if (f.kv_tokens && lay.pool_block_bytes > 0 && !c.context.rules.tokens_from_concurrency)
    blocks = static_cast<double>(*f.kv_tokens / lay.block_size * lay.groups);     // tokens = blocks // groups x block
  else if (f.kv_tokens && lay.groups <= 1 && c.plan.budget.kv.per_sequence == 0)  // tokens = blocks x block size
    blocks = static_cast<double>(*f.kv_tokens) / static_cast<double>(c.settings.block_size);
  if (!blocks || per_token <= 0) return std::nullopt;
  if (lay.pool_block_bytes > 0) return *blocks * lay.pool_block_bytes;  // a linear-attention hybrid's pages
  return *blocks * (lay.groups > 1 ? block / lay.groups : block);
}

}  // namespace

std::optional<double> printed_activation(const VllmLogFigures& f) {
  if (f.activation) return f.activation;
  if (f.peak_torch && f.weights) return *f.peak_torch - *f.weights;
  return std::nullopt;
}

std::optional<double> vllm_available(const RunCheck& c, bool& derived) {
  const auto& f = c.run.figures;
  const auto from_blocks = blocks_bytes(c);
  const bool ranks = f.available_kv && f.available_kv_max && *f.available_kv_max != *f.available_kv;
  derived = from_blocks && (!f.available_kv || (ranks && f.gpu_blocks && *from_blocks < 0.99 * *f.available_kv * kGiB));
  if (derived) return from_blocks;
  if (f.available_kv) return *f.available_kv * kGiB;
  return std::nullopt;
}

bool compare_lines(RunCheck& c, double avail) {
  bool all = true;
  const double rel = avail != 0 ? c.kv_tolerance / std::abs(avail) : kKvTolerance;
  for (auto& l : c.lines) {
    if (!l.vllm || !l.plan) continue;
    const double d = std::abs(*l.plan - *l.vllm), v = std::abs(*l.vllm);
    if (l.name == "available KV per GPU")
      l.within = c.kv_within;
    else if (l.name == "weights")
      l.within = d <= std::max(kKvTolerance * v, kKvToleranceGiB);
    else if (l.name == "KV blocks")
      l.within = d <= rel * v + 1;
    else if (l.name == "KV tokens")
      l.within =
          d <= rel * v + static_cast<double>(std::max<std::int64_t>(c.plan.layout.block_size, c.settings.block_size)) *
                             std::max(1, c.plan.layout.groups);
    else if (l.name == "max concurrency")
      l.within = d <= rel * v + 0.01;
    if (l.within && !*l.within) all = false;
  }
  return all;
}

void reproduce(RunCheck& c, const ModelConfig& m, double vllm_avail, bool derived) {
  const auto& f = c.run.figures;
  // printed to 0.01 GiB; a budget less four printed terms to 0.02 GiB
  const double half = derived ? 0 : (f.available_from_terms ? 0.02 : 0.005) * kGiB;
  const auto lo = vllm_kv_layout(m, c.settings, c.tp, c.pp, c.context, vllm_avail - half);
  // Derived from a hybrid's tokens (blocks // groups x block): up to groups - 1 blocks more.
  const double slack = derived ? 1 + std::max(0, c.plan.layout.groups - 1) * c.plan.layout.pool_block_bytes : 0;
  const auto hi = vllm_kv_layout(m, c.settings, c.tp, c.pp, c.context, vllm_avail + half + slack);
  std::vector<std::string> parts;
  bool ok = true;
  if (f.gpu_blocks) {
    const bool in = *f.gpu_blocks >= lo.blocks && *f.gpu_blocks <= hi.blocks;
    ok = ok && in;
    parts.push_back(fmt::format("blocks {} {} [{}, {}]", *f.gpu_blocks, in ? "in" : "outside", lo.blocks, hi.blocks));
  }
  if (f.kv_tokens) {
    const bool in = *f.kv_tokens >= lo.tokens && *f.kv_tokens <= hi.tokens;
    ok = ok && in;
    parts.push_back(fmt::format("tokens {} {} [{}, {}]", *f.kv_tokens, in ? "in" : "outside", lo.tokens, hi.tokens));
  }
  if (f.max_concurrency) {
    const bool in = *f.max_concurrency >= std::floor(lo.max_concurrency * 100) / 100 - 0.005 &&
                    *f.max_concurrency <= std::ceil(hi.max_concurrency * 100) / 100 + 0.005;
    ok = ok && in;
    parts.push_back(fmt::format("concurrency {:.2f}x {} [{:.2f}, {:.2f}]", *f.max_concurrency, in ? "in" : "outside",
                                lo.max_concurrency, hi.max_concurrency));
  }
  c.rules_reproduce = ok && !parts.empty();
  c.rules_detail = parts.empty() ? "vLLM printed no blocks, tokens or concurrency"
                                 : fmt::format("from vLLM's {:.2f} GiB: {}", vllm_avail / kGiB, fmt::join(parts, "; "));
}
void name_uncertain_terms(RunCheck& c) {
  const auto& b = c.plan.budget;
  struct Term {
    std::string name;
    double plan;
    std::optional<double> vllm;
    std::string why;
  };
  const auto& f = c.run.figures;
  const std::optional<double> activation = printed_activation(f);
  std::string act_why = fmt::format(
      "the larger of the forward pass over {} tokens ({:.2f} GiB) and the sampler over {} "
      "requests ({:.2f} GiB, {})",
      c.settings.max_num_batched_tokens, c.plan.forward / kGiB, c.plan.sampler_rows, c.plan.sampler / kGiB,
      to_string(c.context.sampler));
  if (const auto& e = c.plan.encoder)
    act_why = fmt::format(
        "the larger of the vision encoder's peak ({:.2f} GiB{}) and {} with what it keeps ({:.2f} GiB)", e->peak / kGiB,
        e->beside > 0 ? fmt::format(" and {:.2f} GiB beside it", e->beside / kGiB) : std::string(), act_why,
        e->through_text / kGiB);
  if (c.context.engine == VllmEngine::v1 && !c.context.sampler_known)
    act_why += "; the log does not say which sampler ran (FlashInfer's needs 14 bytes a logit, PyTorch's 38)";
  if (c.context.formula == ProfileFormula::free_delta)
    act_why += c.plan.forward_replayed
                   ? "; 0.6.3 and earlier also count what PyTorch's allocator keeps cached: the forward pass's "
                     "layers replayed through the allocator"
                   : "; 0.6.3 and earlier also count what PyTorch's allocator keeps cached, which plan models only "
                     "for dense models";
  if (!c.multimodal_profile.empty()) act_why += "; " + c.multimodal_profile;
  std::vector<Term> terms{
      {"activation", b.activation, activation, act_why},
      {"non-torch", b.non_torch, f.non_torch,
       fmt::format("plan's {} figure for {}{}; vLLM measures it (NCCL/RCCL, BLAS workspaces)",
                   to_string(c.context.platform),
                   c.tp * c.pp > 1 ? fmt::format("{} GPUs", c.tp * c.pp) : std::string("one GPU"),
                   c.tp * c.pp > 1 && c.context.nvswitch
                       ? " on an NVSwitch board with NVLink SHARP (the peak data sells this card on an 8-GPU HGX board)"
                       : "")},
      {"weights", b.weights, f.weights,
       c.plan.load_extra > 0 ? fmt::format("counted from config.json, + {:.2f} GiB for ROCm's device-level figure "
                                           "(0.01-0.22 measured)",
                                           c.plan.load_extra / kGiB)
                             : std::string("counted from config.json (or read from the log)")},
      {"graphs", b.graphs, f.graphs_estimate, "estimated CUDA-graph pools"},
  };
  const double residual = c.kv_difference / kGiB;  // plan - vLLM
  std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
    const double da = a.vllm ? std::abs(a.plan / kGiB - *a.vllm) : 0,
                 db = b.vllm ? std::abs(b.plan / kGiB - *b.vllm) : 0;
    return da > db;
  });
  for (const auto& t : terms) {
    if (t.vllm) {
      const double d = t.plan / kGiB - *t.vllm;
      if (std::abs(d) >= 0.05)
        c.uncertain.push_back(fmt::format("{}: plan {:.2f} GiB, vLLM {:.2f} GiB ({:+.2f}): {}", t.name, t.plan / kGiB,
                                          *t.vllm, d, t.why));
    } else if (t.name == "activation" || t.name == "non-torch" || (t.name == "graphs" && t.plan > 0)) {
      c.uncertain.push_back(
          fmt::format("{}: plan estimates {:.2f} GiB, vLLM did not print it: {}", t.name, t.plan / kGiB, t.why));
    }
  }
  if (c.uncertain.empty())
    c.uncertain.push_back(
        fmt::format("the terms vLLM printed agree; the {:+.2f} GiB left is outside them "
                    "(the card total, rounding of the printed GiB)",
                    residual));
}

}  // namespace dcukit::plan::logcheck
