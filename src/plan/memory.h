#pragma once
// The per-GPU memory budget the way vLLM computes it at start-up: utilization × total, minus the
// weights, the activation peak of a profiling run at max-num-batched-tokens, memory outside
// PyTorch and CUDA/HIP graph memory; the rest becomes KV-cache blocks. docs/plan.md gives each
// formula and where it comes from.
#include <cstdint>
#include <string>

#include "plan/cards.h"
#include "plan/model_config.h"
#include "plan/settings.h"
#include "plan/weights.h"

namespace dcukit::plan {

/// What one GPU keeps for a sequence: per token, per windowed token, and per sequence.
struct KvFootprint {
  double per_token = 0;          ///< full-attention and MLA layers, bytes per token
  double per_window_token = 0;   ///< sliding-window layers, bytes per token up to the window
  std::int64_t window = 0;       ///< the sliding window, tokens
  double per_sequence = 0;       ///< linear-attention recurrent + conv state, bytes per sequence
  double state_per_layer = 0;    ///< one linear-attention layer's state on this rank, bytes (vLLM's mamba page)

  /// Bytes one sequence of `tokens` tokens holds (blocks rounded as vLLM allocates them).
  double sequence_bytes(std::int64_t tokens, int block_size) const;
};

/// The KV footprint on the busiest GPU for this TP and PP. GQA heads split by TP until TP
/// exceeds them, then each rank keeps one copy; an MLA latent is never split.
/// `mla_latent`: an MLA model caches its compressed latent (vLLM 0.7.1 on); false: every head's K
/// and V, V padded to the K width, as vLLM did before.
KvFootprint kv_footprint(const ModelConfig& model, const Settings& settings, int tp, int pp, bool mla_latent = true);

/// One GPU's budget for one option, in bytes. kv_budget may be negative: nothing fits.
struct Budget {
  double usable = 0;       ///< gpu_memory_utilization × total
  double weights = 0;
  double activation = 0;   ///< estimated peak of the profiling forward pass
  double non_torch = 0;    ///< runtime, NCCL/RCCL and library buffers outside PyTorch's allocator
  double graphs = 0;       ///< CUDA/HIP graph pools; 0 with enforce-eager
  double kv_budget = 0;    ///< what is left for the KV cache
  KvFootprint kv;
  std::int64_t blocks = 0;           ///< KV blocks of block_size tokens
  std::int64_t tokens = 0;           ///< tokens the cache holds
  double max_concurrency = 0;        ///< full-length (max-model-len) requests at once
  bool weights_fit = false;          ///< kv_budget > 0
  bool one_request_fits = false;     ///< one max-model-len request fits; vLLM refuses to start otherwise
  std::int64_t longest_fitting_len = 0;  ///< the longest request that fits (block multiple)

  /// Closes the sum: kv_budget is what the usable memory leaves after weights, activation,
  /// non-torch and graphs; `kv` is the cache's footprint. weights_fit says whether any is left.
  void settle(const KvFootprint& footprint);
  /// Counts whole requests of `max_model_len` tokens in kv_budget (where windowed layers and
  /// recurrent states do not grow with the request): max_concurrency, then tokens and blocks in
  /// whole blocks.
  void count_whole_requests(std::int64_t max_model_len, std::int64_t block_size);
};

/// Estimated activation peak (bytes) of vLLM's profiling run: max-num-batched-tokens through the
/// widest layer, plus the sampler's logits for max-num-seqs sequences.
double activation_bytes(const ModelConfig& model, const Settings& settings, int tp);
/// Estimated memory outside PyTorch (bytes): runtime and library workspaces, plus collective
/// buffers with more than one GPU; more on DCU (seed 004).
double non_torch_bytes(const Cards& cards, int gpus);
/// Estimated graph-pool memory (bytes); 0 when enforce_eager.
double graph_bytes(const Settings& settings);

/// The longest request, in whole blocks and at most `limit` tokens, whose KV fits in `kv_budget`
/// bytes: what vLLM calls the estimated maximum model length when one request does not fit.
std::int64_t longest_fitting_len(const KvFootprint& kv, double kv_budget, int block_size, std::int64_t limit);

/// The budget of one GPU of `cards` for `model` at TP × PP with `settings`.
Budget compute_budget(const ModelConfig& model, const Weights& weights, const Cards& cards, const Settings& settings,
                      int tp, int pp);

} // namespace dcukit::plan
