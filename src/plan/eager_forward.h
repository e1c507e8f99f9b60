#pragma once
// vLLM's V0 profiling run through a dense decoder (Llama, Qwen2, Mistral, Phi-3 ...), as eager
// PyTorch allocates it, layer by layer, replayed through the caching allocator. What stays alive
// follows vLLM's code: the model's loop holds the previous layer's output while the layer runs
// (`hidden_states, residual = layer(positions, hidden_states, ...)`); the add+RMSNorm is fused and
// in place; LlamaMLP rebinds x, so gate_up is freed before down_proj writes its output. Checked
// against the PyTorch peaks vLLM 0.6.4 printed (vllm-issue10517: 2.07 and 2.99 GiB at 20,000 and
// 29,000 tokens) and against PyTorch's own allocator on an H200 (scripts/device/alloc_probe.py,
// docs/results/h200-alloc-probe.json).
#include <cstdint>
#include <optional>

#include "plan/model_config.h"

namespace dcukit::plan {

/// The forward pass's activation memory in bytes, weights not included.
struct EagerForward {
  double allocated_peak = 0;  ///< PyTorch's allocated peak (what 0.6.4 and later count)
  double reserved = 0;        ///< the allocator's segments after the pass (what 0.6.3 and earlier count)
};

/// The forward pass over `tokens` tokens at tensor parallel `tp`, activations of `act_bytes`; nullopt
/// for models whose layers are not a dense attention and gated MLP (MoE, MLA, linear attention, OPT).
std::optional<EagerForward> eager_forward(const ModelConfig& m, int tp, std::int64_t tokens, double act_bytes);

}  // namespace dcukit::plan
