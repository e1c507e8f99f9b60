#pragma once
// How vLLM sizes its KV cache, version by version, as data: each rule holds from a version on and
// names the vLLM source (file, PR, commit) or the start-up log it was read from. vllm_budget.h
// turns the rules of one version into the figures that version prints at start-up.
#include <cstdint>
#include <string_view>
#include <vector>

#include "plan/vllm_version.h"

namespace dcukit::plan {

/// vLLM's engine: V0 (LLMEngine, worker.py) or V1 (EngineCore, gpu_worker.py).
enum class VllmEngine { v0, v1 };
/// How the memory outside the KV cache is measured after the profiling run.
enum class ProfileFormula {
  free_delta,  ///< free memory at start-up minus free memory after profiling: everything, allocator cache too
  torch_peak,  ///< PyTorch's allocated peak (weights included) + memory outside PyTorch, CUDA context included
  snapshot,    ///< weights + PyTorch peak increase + non-torch increase since the start-up snapshot
};
/// The top-k/top-p sampler the profiling run exercises with max-num-seqs dummy requests.
enum class SamplerKind { native_sort, flashinfer };
/// How the vision attention of Qwen2-VL and Qwen2.5-VL rotates q and k: the copies it makes set the
/// encoder's peak in the profile run (encoder_profile.h).
enum class VisionRotary {
  split_fp32,       ///< q, k, v made contiguous; q, then k, rotated through float32 in and out
  cat_fp32_copies,  ///< q, k, v made contiguous, q and k concatenated and rotated together through float32
  cat_fp32,         ///< q and k concatenated (no contiguous copies) and rotated together through float32
  packed,           ///< one packed copy of q and k, rotated in the tower's dtype
};
/// How "Maximum concurrency for L tokens per request" is computed.
enum class ConcurrencyRule {
  tokens_over_len,  ///< cache tokens / L (V0, V1 before the hybrid allocator)
  request_blocks,   ///< blocks / blocks one request needs in every KV-cache group (V1 0.10+)
};

std::string_view to_string(VllmEngine engine);
/// The value to_string spells `text`, or nullopt.
std::optional<VllmEngine> parse_engine(std::string_view text);
std::string_view to_string(ProfileFormula formula);
/// The value to_string spells `text`, or nullopt.
std::optional<ProfileFormula> parse_formula(std::string_view text);
std::string_view to_string(SamplerKind sampler);
/// The value to_string spells `text`, or nullopt.
std::optional<SamplerKind> parse_sampler(std::string_view text);
std::string_view to_string(ConcurrencyRule rule);
std::string_view to_string(VisionRotary rotary);

/// What a rule sets.
enum class RuleField {
  default_engine,
  v0_formula,
  v1_formula,
  v0_chunked_tokens,     ///< V0's max-num-batched-tokens with chunked prefill and no flag
  v0_auto_chunk_above,   ///< V0 turns chunked prefill on above this max-model-len (0: never)
  v1_big_gpu_by_memory,  ///< 1: large defaults on >= 70 GiB cards other than A100; 0: by name (H100/H200)
  v1_big_gpu_seqs,       ///< max-num-seqs default on those cards
  sampler,               ///< SamplerKind the profiling run uses when the log does not say
  graphs_profiled_cuda,  ///< CUDA graph memory estimated inside the budget (1) or captured after it (0)
  graphs_profiled_rocm,
  hybrid_allocator,     ///< sliding-window and full layers share one pool in KV-cache groups
  concurrency,          ///< ConcurrencyRule of V1
  mla_latent,           ///< MLA models cache one compressed latent a layer (1) or full K and V of every head (0)
  rocm_device_weights,  ///< on ROCm "Model loading took" (the budget's weights) is device-level (1) or PyTorch's (0)
  tokens_from_concurrency,  ///< V1 prints tokens as int(concurrency x max-model-len) (1) or blocks / groups x block (0)
  nvswitch_late,            ///< NVSwitch boards at TP > 1 measure 0.19.0's NCCL figures (1) or 0.10's (0)
  vision_rotary,            ///< VisionRotary of Qwen2-VL and Qwen2.5-VL towers
  qwen_v0_dummy,            ///< V0 profiles Qwen2-VL towers with the processor's largest dummy images and videos (1)
};

/// One rule: from `since` on, `field` is `value`. `source` is where it was read.
struct AccountingRule {
  std::string_view since;
  RuleField field;
  std::int64_t value;
  std::string_view source;
  bool inferred;  ///< the version is inferred from a merge date or a log, not read from a release
};

/// Every rule, oldest first; the docs table is written from this.
const std::vector<AccountingRule>& accounting_rules();

/// The accounting of one vLLM version: the rules folded up to it.
struct VllmRules {
  VllmVersion version;
  VllmEngine engine = VllmEngine::v0;
  ProfileFormula v0_formula = ProfileFormula::free_delta, v1_formula = ProfileFormula::snapshot;
  std::int64_t v0_chunked_tokens = 512;
  std::int64_t v0_auto_chunk_above = 0;
  bool v1_big_gpu_by_memory = false;
  int v1_big_gpu_seqs = 256;
  SamplerKind sampler = SamplerKind::native_sort;
  bool graphs_profiled_cuda = false, graphs_profiled_rocm = false;
  bool hybrid_allocator = false;
  ConcurrencyRule concurrency = ConcurrencyRule::tokens_over_len;
  bool mla_latent = false;
  bool rocm_device_weights = false;
  bool tokens_from_concurrency = false;
  bool nvswitch_late = false;
  VisionRotary vision_rotary = VisionRotary::split_fp32;
  bool qwen_v0_dummy = false;
  std::vector<const AccountingRule*> applied;  ///< the rules that decided the fields above

  /// The formula of `engine`.
  ProfileFormula formula(VllmEngine e) const { return e == VllmEngine::v0 ? v0_formula : v1_formula; }
};

/// The rules of `version`. Versions older than the first rule get the first rules.
VllmRules vllm_rules(const VllmVersion& version);

/// Bytes a logit of the profiling run's sampler holds at its peak, per request row and vocabulary
/// entry. native_sort: the bf16 logits (2), their fp32 copy (4), torch.sort's values (4) and int64
/// indices (8), the int64 iota it sorts with (8) and the radix sort's double buffer (4 + 8): 38
/// (vllm/model_executor/layers/sampler.py _apply_top_k_top_p; vllm/v1/sample/ops/topk_topp_sampler.py
/// apply_top_k_top_p). flashinfer: bf16 logits, fp32 copy, masked logits and probabilities: 14
/// (flashinfer top_k_top_p_sampling_from_logits).
int sampler_bytes_per_logit(SamplerKind sampler);

}  // namespace dcukit::plan
