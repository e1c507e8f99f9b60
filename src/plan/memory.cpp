#include "plan/memory.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace dcukit::plan {
namespace {

using core::kGiB;  // bytes; the arithmetic below is in double

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Layers of `kind` on the busiest pipeline stage.
std::int64_t stage_layers(const ModelConfig& m, LayerKind kind, int pp) { return ceil_div(m.count(kind), pp); }

bool pure_full_attention(const KvFootprint& kv) { return kv.per_window_token == 0 && kv.per_sequence == 0; }

} // namespace

double KvFootprint::sequence_bytes(std::int64_t tokens, int block_size) const {
  const double rounded = static_cast<double>(ceil_div(tokens, block_size) * block_size);
  const double windowed = std::min(rounded, static_cast<double>(window + block_size));
  return rounded * per_token + windowed * per_window_token + per_sequence;
}

KvFootprint kv_footprint(const ModelConfig& m, const Settings& s, int tp, int pp, bool mla_latent) {
  KvFootprint kv;
  const double kvb = kv_element_bytes(s.kv_cache_dtype);
  double per_layer = 0;
  if (m.mla && !mla_latent) {  // K of qk_nope + qk_rope, V padded to it, for this rank's heads
    const std::int64_t heads = m.num_heads >= tp ? ceil_div(m.num_heads, tp) : 1;
    per_layer = 2.0 * static_cast<double>(heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)) * kvb;
  } else if (m.mla) {
    per_layer = static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) * kvb;  // one latent, every rank keeps it
  } else {
    const std::int64_t heads = m.num_kv_heads >= tp ? ceil_div(m.num_kv_heads, tp) : 1;
    per_layer = 2.0 * static_cast<double>(heads * m.head_dim) * kvb;  // K and V
  }
  kv.per_token = per_layer * static_cast<double>(stage_layers(m, LayerKind::full_attention, pp));
  kv.per_window_token = per_layer * static_cast<double>(stage_layers(m, LayerKind::sliding_attention, pp));
  kv.window = m.sliding_window;
  if (m.hybrid()) {
    // The conv state in the model dtype, the recurrent state in mamba_ssm_dtype (or the model dtype).
    const double key = static_cast<double>(linear_key_heads(m, tp) * m.linear_key_head_dim) / tp;
    const double value = static_cast<double>(m.linear_num_value_heads * m.linear_value_head_dim) / tp;
    const double conv = (2 * key + value) * static_cast<double>(m.linear_conv_kernel - 1);
    const double recurrent = static_cast<double>(m.linear_num_value_heads) / tp *
                             static_cast<double>(m.linear_key_head_dim * m.linear_value_head_dim);
    kv.state_per_layer = conv * 2.0 + recurrent * static_cast<double>(m.linear_state_bytes);
    kv.per_sequence = kv.state_per_layer * static_cast<double>(stage_layers(m, LayerKind::linear_attention, pp));
  }
  return kv;
}

double activation_bytes(const ModelConfig& m, const Settings& s, int tp) {
  const double t = static_cast<double>(s.max_num_batched_tokens);
  const double a = 2.0;  // fp16/bf16 activations
  const double h = static_cast<double>(m.hidden_size);
  const bool any_dense = std::any_of(m.moe_layers.begin(), m.moe_layers.end(), [](bool b) { return !b; }) ||
                         m.moe_layers.empty();
  double inter = any_dense ? static_cast<double>(m.intermediate_size) / tp : 0;
  double moe_extra = 0;
  if (m.moe()) {
    const double routed = static_cast<double>(m.experts_per_token * m.moe_intermediate_size);
    inter = std::max(inter, (routed + static_cast<double>(m.shared_expert_intermediate_size)) / tp);
    moe_extra = t * static_cast<double>(m.experts_per_token) * h * a;  // fused-MoE output before the top-k sum
  }
  // gate+up output (2 I) and the activated product (I); two-matrix MLPs: fc1's output and its activation
  const double mlp = t * a * (m.gated_mlp ? 3 : 2) * inter;
  const double residual = t * a * 6 * h;       // hidden states, residual, norm outputs, attention in/out
  const double sampler = static_cast<double>(s.max_num_seqs) * static_cast<double>(m.vocab_size) * 4 * 3;  // fp32 logits, probs, sort
  return mlp + residual + moe_extra + sampler;
}

double non_torch_bytes(const Cards& cards, int gpus) {
  double bytes = 0.75 * kGiB;             // runtime and BLAS workspaces outside PyTorch's allocator
  if (gpus > 1) bytes += 1.25 * kGiB;     // NCCL/RCCL and custom all-reduce buffers
  if (cards.dcu()) bytes += 0.5 * kGiB;   // seed 004: the DCU runtime takes more than CUDA's
  return bytes;
}

double graph_bytes(const Settings& s) {
  if (s.enforce_eager) return 0;
  // vLLM captures one graph per batch size up to max-num-seqs (at most 512); pools grow with them.
  return 0.25 * kGiB + 0.25 * kGiB * std::min(s.max_num_seqs, 512) / 256.0;
}

void Budget::settle(const KvFootprint& footprint) {
  kv_budget = usable - weights - activation - non_torch - graphs;
  kv = footprint;
  weights_fit = kv_budget > 0;
}

void Budget::count_whole_requests(std::int64_t max_model_len, std::int64_t block_size) {
  max_concurrency = kv_budget / kv.sequence_bytes(max_model_len, static_cast<int>(block_size));
  tokens = static_cast<std::int64_t>(std::floor(max_concurrency * static_cast<double>(max_model_len) /
                                                static_cast<double>(block_size))) *
           block_size;
  blocks = tokens / block_size;
}

Budget compute_budget(const ModelConfig& m, const Weights& w, const Cards& cards, const Settings& s, int tp, int pp) {
  Budget b;
  b.usable = s.gpu_memory_utilization * static_cast<double>(cards.total_bytes);
  b.weights = static_cast<double>(w.per_gpu(m, tp, pp));
  b.activation = activation_bytes(m, s, tp);
  b.non_torch = non_torch_bytes(cards, tp * pp);
  b.graphs = graph_bytes(s);
  b.settle(kv_footprint(m, s, tp, pp));
  if (!b.weights_fit) return b;
  const std::int64_t bs = s.block_size;
  const double block_bytes = static_cast<double>(bs) * (b.kv.per_token + b.kv.per_window_token);
  if (pure_full_attention(b.kv)) {
    b.blocks = block_bytes > 0 ? static_cast<std::int64_t>(std::floor(b.kv_budget / block_bytes)) : 0;
    b.tokens = b.blocks * bs;
    b.max_concurrency = static_cast<double>(b.blocks) / static_cast<double>(ceil_div(s.max_model_len, bs));
  } else {
    b.count_whole_requests(s.max_model_len, bs);  // windowed layers and recurrent states do not grow
  }
  b.one_request_fits = b.max_concurrency >= 1.0;
  // The longest request that fits, in whole blocks, up to the model's own limit.
  b.longest_fitting_len =
      longest_fitting_len(b.kv, b.kv_budget, s.block_size, std::max(s.max_model_len, m.max_position_embeddings));
  return b;
}

std::int64_t longest_fitting_len(const KvFootprint& kv, double kv_budget, int block_size, std::int64_t limit) {
  const std::int64_t bs = block_size;
  std::int64_t lo = 0, hi = limit / bs;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    if (kv.sequence_bytes(mid * bs, block_size) <= kv_budget) lo = mid;
    else hi = mid - 1;
  }
  return lo * bs;
}

} // namespace dcukit::plan
