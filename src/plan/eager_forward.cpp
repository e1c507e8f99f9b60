#include "plan/eager_forward.h"

#include <algorithm>

#include "plan/torch_allocator.h"

namespace dcukit::plan {

std::optional<EagerForward> eager_forward(const ModelConfig& m, int tp, std::int64_t tokens, double act_bytes) {
  if (m.moe() || m.mla || m.hybrid() || m.attn_output_gate || !m.gated_mlp || m.intermediate_size <= 0 ||
      m.hidden_size <= 0 || m.num_heads <= 0 || m.head_dim <= 0 || tp <= 0 || tokens <= 0)
    return std::nullopt;
  const auto bytes = [&](std::int64_t width) {
    return static_cast<std::uint64_t>(static_cast<double>(tokens) * static_cast<double>(width) * act_bytes);
  };
  const std::int64_t q = std::max<std::int64_t>(1, m.num_heads / tp) * m.head_dim;
  const std::int64_t kv = std::max<std::int64_t>(1, m.num_kv_heads / tp) * m.head_dim;
  const std::int64_t inter = std::max<std::int64_t>(1, m.intermediate_size / tp);
  const std::uint64_t hidden = bytes(m.hidden_size), qkv = bytes(q + 2 * kv), attn = bytes(q);
  const std::uint64_t gate_up = bytes(2 * inter), act = bytes(inter);

  CachingAllocator a;
  CachingAllocator::Handle held = a.malloc(hidden);  // the embedding's output: layer 0's residual
  // Two layers reach the steady state (a third adds nothing: the same blocks are reused).
  const std::int64_t layers = std::min<std::int64_t>(std::max<std::int64_t>(m.num_layers, 1), 3);
  for (std::int64_t l = 0; l < layers; ++l) {
    // Layer 0: residual = hidden_states, hidden_states = input_layernorm(...) into a new tensor.
    // Later layers: fused add+RMSNorm in place on the held output and the residual.
    const auto normed = l == 0 ? a.malloc(hidden) : CachingAllocator::Handle{0};
    const auto qkv_out = a.malloc(qkv);
    const auto attn_out = a.malloc(attn);
    const auto o_proj = a.malloc(hidden);
    a.free(qkv_out);
    a.free(attn_out);
    if (l == 0) a.free(normed);
    const auto up = a.malloc(gate_up);
    const auto activated = a.malloc(act);
    a.free(up);
    const auto down = a.malloc(hidden);
    a.free(activated);
    a.free(o_proj);
    if (l > 0) a.free(held);  // the loop rebinds hidden_states to this layer's output
    held = down;
  }
  return EagerForward{static_cast<double>(a.peak()), static_cast<double>(a.reserved())};
}

}  // namespace dcukit::plan
