#pragma once
// One GPU's budget the way a given vLLM version computes and prints it at start-up: weights, the
// activation peak of its profiling run, memory outside PyTorch, CUDA-graph memory where that
// version profiles it, the available KV cache, blocks, tokens and maximum concurrency.
// The rules come from vllm_rules.h; docs/plan.md explains each term with its source.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/cards.h"
#include "plan/encoder_profile.h"
#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/vllm_rules.h"
#include "plan/weights.h"

namespace dcukit::plan {

/// Where vLLM runs: decides the memory outside PyTorch (BLAS workspaces, NCCL/RCCL, context).
enum class VllmPlatform {
  cuda,       ///< NVIDIA
  rocm_cdna,  ///< AMD Instinct (MI2xx, MI300): hipBLASLt by default
  rocm_rdna,  ///< AMD Radeon (RDNA3, "NAVI")
  dcu,        ///< Hygon DCU through DTK (HIP)
};

std::string_view to_string(VllmPlatform platform);
/// The value to_string spells `text`, or nullopt.
std::optional<VllmPlatform> parse_platform(std::string_view text);

/// The platform of `cards`; `rocm_hint` (a log naming ROCm) and `navi_hint` refine unknown AMD cards.
VllmPlatform platform_of(const Cards& cards, bool rocm_hint = false, bool navi_hint = false);

/// Everything the accounting needs beyond the model, cards and settings.
struct VllmContext {
  VllmRules rules;
  VllmEngine engine = VllmEngine::v1;
  ProfileFormula formula = ProfileFormula::snapshot;
  SamplerKind sampler = SamplerKind::native_sort;
  bool sampler_known = false;  ///< the log said which sampler; otherwise the version's default
  VllmPlatform platform = VllmPlatform::cuda;
  bool custom_all_reduce = true;  ///< vLLM's custom all-reduce at TP > 1 (off across nodes, without P2P, on ROCm 0.6)
  std::optional<double> weights_per_gpu;  ///< bytes, replacing plan's count (e.g. read from the log)
  /// Cards sold on an NVSwitch board with NVLink SHARP (the peak data's board.nvls: H100 SXM and
  /// H200 SXM on 8-GPU HGX), where NCCL's buffers at TP > 1 measure far more than on PCIe cards.
  bool nvswitch = false;
  /// V1's multimodal profile, where a log printed its encoder-cache line: the budget and the items.
  std::optional<std::int64_t> encoder_tokens, encoder_items;
};

/// The sampler a profiling run of that engine uses on that platform where the log does not say:
/// V0 and every platform but CUDA sort with PyTorch (FlashInfer is CUDA's only); V1 on CUDA the
/// version's default.
SamplerKind default_sampler(const VllmRules& rules, VllmEngine engine, VllmPlatform platform);

/// The context of `rules` on `cards` with that version's default engine, formula and sampler.
VllmContext default_context(const VllmRules& rules, const Cards& cards);

/// The KV cache vLLM lays out in `available` bytes: the figures it prints after profiling.
struct KvLayout {
  std::int64_t blocks = 0;     ///< num_gpu_blocks
  std::int64_t tokens = 0;     ///< "GPU KV cache size: N tokens"
  double max_concurrency = 0;  ///< "Maximum concurrency for L tokens per request"
  int groups = 1;              ///< KV-cache groups sharing the pool (hybrid allocator)
  std::int64_t layers_per_group = 0;
  std::int64_t block_size = 0;  ///< tokens a block: the asked one, or one raised to hold a linear layer's state
  double pool_block_bytes = 0;  ///< bytes a block takes in the pool (a page for each layer of a group); linear hybrids
};

/// Whether V1 lays this model out in one pool of full-attention and linear-attention pages.
bool linear_hybrid_pool(const ModelConfig& model, const VllmContext& ctx);

/// Blocks, tokens and concurrency of `available` bytes for this model and settings.
KvLayout vllm_kv_layout(const ModelConfig& model, const Settings& settings, int tp, int pp, const VllmContext& ctx,
                        double available);

/// One GPU's start-up figures for an option, and how the activation peak was reached.
struct VllmBudget {
  Budget budget;                  ///< usable, weights, activation, non_torch, graphs, kv_budget, blocks, tokens...
  double forward = 0;             ///< peak of the profiling forward pass (bytes)
  bool forward_replayed = false;  ///< forward came from eager_forward (layers replayed through the allocator)
  double sampler = 0;             ///< peak of the sampler over max-num-seqs dummy requests (bytes)
  std::int64_t sampler_rows = 0;  ///< requests the sampler ran with
  double load_extra = 0;          ///< in budget.weights: what ROCm's device-level weight figure adds (bytes)
  std::optional<EncoderProfile> encoder;  ///< the vision encoder's run in the profile, where plan models it
  KvLayout layout;
  std::vector<std::string> notes;  ///< what was assumed, in words
};

/// The budget of one GPU at TP × PP. Weights are plan's count unless ctx.weights_per_gpu is set.
VllmBudget vllm_budget(const ModelConfig& model, const Weights& weights, const Cards& cards, const Settings& settings,
                       int tp, int pp, const VllmContext& ctx);

/// A version's defaults for the flags a user (or a log) left out.
struct VllmDefaults {
  int max_num_seqs = 256;
  std::int64_t max_num_batched_tokens = 2048;
  bool chunked_prefill = true;
  std::string why;       ///< of max_num_batched_tokens: "vLLM 0.10.1 (V1) vllm serve on this card: 2048 tokens ..."
  std::string why_seqs;  ///< of max_num_seqs
};

/// Defaults of ctx's version for `cards` at `max_model_len`; `llm_class` for offline LLM() runs,
/// `chunked` when chunked prefill was asked for (V0 only; V1 always chunks).
VllmDefaults vllm_defaults(const VllmContext& ctx, const Cards& cards, std::int64_t max_model_len, bool llm_class,
                           std::optional<bool> chunked);

}  // namespace dcukit::plan
