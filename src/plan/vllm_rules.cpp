#include "plan/vllm_rules.h"

#include "util/names.h"

namespace dcukit::plan {
namespace {

constexpr util::Name<VllmEngine> kEngineNames[] = {{VllmEngine::v0, "V0"}, {VllmEngine::v1, "V1"}};
constexpr util::Name<ProfileFormula> kFormulaNames[] = {
    {ProfileFormula::free_delta, "free memory before and after profiling"},
    {ProfileFormula::torch_peak, "PyTorch peak + memory outside PyTorch"},
    {ProfileFormula::snapshot, "increase since the start-up snapshot"},
};
constexpr util::Name<SamplerKind> kSamplerNames[] = {{SamplerKind::native_sort, "PyTorch top-k/top-p (sort)"},
                                                     {SamplerKind::flashinfer, "FlashInfer top-k/top-p"}};
constexpr util::Name<ConcurrencyRule> kConcurrencyNames[] = {
    {ConcurrencyRule::tokens_over_len, "tokens / max-model-len"},
    {ConcurrencyRule::request_blocks, "blocks / blocks a request needs"},
};
constexpr util::Name<VisionRotary> kVisionRotaryNames[] = {
    {VisionRotary::split_fp32, "q, k, v made contiguous, q then k rotated through float32"},
    {VisionRotary::cat_fp32_copies, "q, k, v made contiguous, q and k concatenated and rotated through float32"},
    {VisionRotary::cat_fp32, "q and k concatenated and rotated through float32"},
    {VisionRotary::packed, "one packed copy of q and k rotated in the tower's dtype"},
};

using F = RuleField;
constexpr auto i64 = [](auto e) { return static_cast<std::int64_t>(e); };

// Each rule holds from `since` until a later rule of the same field. Sources: vLLM's code (file,
// PR or commit) or a start-up log in ../shared/vllm-logs (file name). "inferred" marks a version
// read from a merge date or a log rather than from release notes.
const std::vector<AccountingRule> kRules = {
    {"0.2.5", F::default_engine, i64(VllmEngine::v0), "vllm/engine/llm_engine.py: the only engine until V1", false},
    {"0.2.5", F::v0_formula, i64(ProfileFormula::free_delta),
     "PR #2031 (2023-12): worker.py determine_num_available_blocks, peak = init free - free after profile_run; "
     "blocks = (total x util - peak) // block bytes",
     false},
    {"0.2.5", F::v0_chunked_tokens, 512,
     "config.py SchedulerConfig: chunked prefill without --max-num-batched-tokens takes 512; without chunked "
     "prefill max(max_model_len, 2048)",
     false},
    {"0.2.5", F::sampler, i64(SamplerKind::native_sort),
     "model_runner.py profile_run: SamplingParams(top_p=0.99, top_k=vocab-1) through sampler.py "
     "_apply_top_k_top_p (torch.sort of every logit)",
     false},
    {"0.2.5", F::concurrency, i64(ConcurrencyRule::tokens_over_len),
     "gpu_executor.py: Maximum concurrency = num_gpu_blocks x block_size / max_model_len", false},
    {"0.5.3", F::v0_auto_chunk_above, 32768,
     "arg_utils.py: chunked prefill on by default for max_model_len > 32K, to avoid OOM in profiling; "
     "vllm-issue10517 (35k profiles far less than 29k) and lhl-w7900-llama31-8b-profile-only (ROCm, 131072: "
     "1.24 GiB activation) show it",
     true},
    {"0.6.4", F::v0_formula, i64(ProfileFormula::torch_peak),
     "PR #9352 (2024-10): torch.cuda.memory_stats() allocated peak (weights included) + non-torch (used - "
     "allocated after profiling, CUDA context included); log 'Memory profiling results: ...'",
     false},
    {"0.6.5", F::v0_formula, i64(ProfileFormula::snapshot),
     "PR #10511 (2024-12): memory_profiling(): weights + torch peak increase + non-torch increase since the "
     "init snapshot; log 'model weights take ...; non_torch_memory takes ...'",
     false},
    {"0.6.5", F::v0_chunked_tokens, 2048, "PR #10544 (2024-11-21): chunked prefill default 512 -> 2048", false},
    {"0.7.0", F::v1_formula, i64(ProfileFormula::torch_peak),
     "v1/worker/gpu_worker.py determine_available_memory (commit 0012cf69): allocated peak + (used - allocated)",
     false},
    {"0.7.1", F::v1_big_gpu_by_memory, 0,
     "PR #12369 (2025-01-23): H100/H200 (by name) get 8192 tokens for the API server, 16384 for LLM(); others "
     "2048 and 8192",
     false},
    {"0.7.1", F::mla_latent, 1,
     "PR #11669 (2025-01-31, in v0.7.1): DeepSeek's MLA caches one latent a layer (kv_lora_rank + "
     "qk_rope_head_dim); before it every head's K and V, V padded to the K width (331,776 B a token for "
     "DeepSeek-V2-Lite on 0.5.0)",
     false},
    {"0.7.3", F::rocm_device_weights, 1,
     "PR #12624 (2025-02, '[ROCm] Using a more precise memory profiling'): platforms/rocm.py "
     "get_current_memory_usage = mem_get_info total - free, so the weights vLLM prints and subtracts count "
     "whatever else the load left on the device; release inferred from the merge date",
     true},
    {"0.8.0", F::default_engine, i64(VllmEngine::v1), "v0.8.0: V1 engine on by default (VLLM_USE_V1=1)", false},
    {"0.9.0", F::v1_formula, i64(ProfileFormula::snapshot),
     "gpu_worker.py with memory_profiling(init_snapshot): 'Available KV cache memory' (vllm-pr20665 log, ~0.9.2)",
     true},
    {"0.9.0", F::v1_big_gpu_by_memory, 1,
     "PR #17885: >= 70 GiB and not A100 get the large defaults (arg_utils.py, NOTE(Kuntai)); A100 logs "
     "(dennislee22) show 2048",
     true},
    {"0.9.0", F::v1_big_gpu_seqs, 1024,
     "arg_utils.py default_max_num_seqs 1024 on those cards; vllm-openai:v0.11.0 on an H100 measured a "
     "1024 x vocab sampler peak (llm-d capacity planner notes)",
     true},
    {"0.10.0", F::hybrid_allocator, 1,
     "v1/core/kv_cache_utils.py _get_kv_cache_config_uniform_page_size: sliding and full layers in groups of "
     "equal size share one pool; tokens = blocks // groups x block (dennislee22 gpt-oss-120b log, 0.10.1.1)",
     false},
    {"0.10.0", F::concurrency, i64(ConcurrencyRule::request_blocks),
     "kv_cache_utils.py get_max_concurrency_for_kv_cache_config: blocks / blocks a max-model-len request needs "
     "(sliding window: cdiv(min(window-1+batched, len), block)+1) (gpt-oss-120b log: 284.25x)",
     false},
    {"0.7.2", F::vision_rotary, i64(VisionRotary::split_fp32),
     "PR #12604 ('[VLM] Qwen2.5-VL', 2025-01/02; Qwen2-VL's tower before it the same): q, k, v made contiguous, "
     "apply_rotary_pos_emb_vision on q, then on k, through t.float() and .type_as(t)",
     false},
    {"0.7.2", F::qwen_v0_dummy, 1,
     "PR #12604 ('[VLM] Qwen2.5-VL', 2025-01/02; it reuses Qwen2-VL's dummy builder): each V0 dummy sequence gets "
     "the per-prompt limit of images (and videos) at the processor's largest size (max_pixels), the prompt their "
     "placeholders; model_runner.py profile_run takes min(max_num_seqs, batched // max multimodal tokens) sequences",
     false},
    {"0.11.0", F::vision_rotary, i64(VisionRotary::cat_fp32_copies),
     "PR #24511 ('[Multi Modal][Performance] Fused Q,K's apply_rope into one', opened 2025-09-09, after v0.10.2): "
     "q, k, v made contiguous, torch.cat([q, k]) rotated in one call, still through float32",
     true},
    {"0.11.1", F::vision_rotary, i64(VisionRotary::cat_fp32),
     "PR #27106 ('[Models][QwenVL] Remove unnecessary .contiguous() calls', opened 2025-10-17): the "
     "concatenation and the float32 rotation stay, the contiguous copies go",
     true},
    {"0.12.0", F::vision_rotary, i64(VisionRotary::packed),
     "PRs #28769 ('Optimize Qwen2_5_VisionAttention q,k preparation') and #28798 ('Use cos and sin cache in "
     "QwenVL'), opened 2025-11-15/16: one packed copy of q and k, rotated in the tower's dtype (no float32)",
     true},
    {"0.19.0", F::nvswitch_late, 1,
     "start-up logs: an H100 SXM sweep on 0.19.0 (llm-d planner, heldout7) measured 2.07-2.10 GiB outside "
     "PyTorch at TP 2 and 2.13-2.21 at TP 4, where an H200 at TP 2 on 0.10.2 measured 1.38; the change lies "
     "between those releases",
     true},
    {"0.21.0", F::tokens_from_concurrency, 1,
     "kv_cache_utils.py: 'GPU KV cache size' = int(max concurrency x max_model_len), after vllm issue #40691 "
     "(0.19.0's hybrid figure); 0.20.0 logs (wslnote Qwen3.6) print the old blocks // groups x block, 0.27.1 "
     "logs (souspilot Qwen3.6) the new one; release inferred as the first after 0.20.0",
     true},
    {"0.21.0", F::graphs_profiled_cuda, 1,
     "PR #30515 (2026-01, opt-in VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS) on by default since v0.21.0 (vLLM's "
     "own start-up message)",
     false},
    {"0.21.0", F::sampler, i64(SamplerKind::flashinfer),
     "PR #40376 (2026-04-20): FlashInfer top-k/top-p sampler on by default again (after PR #26859 turned it "
     "off); release inferred from the merge date",
     true},
    {"0.27.0", F::graphs_profiled_rocm, 1,
     "PR #48526 (2026-07-15): CUDA graph memory profiling re-enabled on ROCm; release inferred from the merge "
     "date",
     true},
};

void apply(VllmRules& r, const AccountingRule& rule) {
  const auto v = rule.value;
  switch (rule.field) {
    case F::default_engine:
      r.engine = static_cast<VllmEngine>(v);
      break;
    case F::v0_formula:
      r.v0_formula = static_cast<ProfileFormula>(v);
      break;
    case F::v1_formula:
      r.v1_formula = static_cast<ProfileFormula>(v);
      break;
    case F::v0_chunked_tokens:
      r.v0_chunked_tokens = v;
      break;
    case F::v0_auto_chunk_above:
      r.v0_auto_chunk_above = v;
      break;
    case F::v1_big_gpu_by_memory:
      r.v1_big_gpu_by_memory = v != 0;
      break;
    case F::v1_big_gpu_seqs:
      r.v1_big_gpu_seqs = static_cast<int>(v);
      break;
    case F::sampler:
      r.sampler = static_cast<SamplerKind>(v);
      break;
    case F::graphs_profiled_cuda:
      r.graphs_profiled_cuda = v != 0;
      break;
    case F::graphs_profiled_rocm:
      r.graphs_profiled_rocm = v != 0;
      break;
    case F::hybrid_allocator:
      r.hybrid_allocator = v != 0;
      break;
    case F::concurrency:
      r.concurrency = static_cast<ConcurrencyRule>(v);
      break;
    case F::mla_latent:
      r.mla_latent = v != 0;
      break;
    case F::rocm_device_weights:
      r.rocm_device_weights = v != 0;
      break;
    case F::tokens_from_concurrency:
      r.tokens_from_concurrency = v != 0;
      break;
    case F::nvswitch_late:
      r.nvswitch_late = v != 0;
      break;
    case F::vision_rotary:
      r.vision_rotary = static_cast<VisionRotary>(v);
      break;
    case F::qwen_v0_dummy:
      r.qwen_v0_dummy = v != 0;
      break;
  }
  r.applied.push_back(&rule);
}

}  // namespace

std::string_view to_string(VllmEngine engine) {
  return util::name_of(kEngineNames, engine, "?");
}

std::optional<VllmEngine> parse_engine(std::string_view text) {
  return util::value_of(kEngineNames, text);
}

std::string_view to_string(ProfileFormula formula) {
  return util::name_of(kFormulaNames, formula, "?");
}

std::optional<ProfileFormula> parse_formula(std::string_view text) {
  return util::value_of(kFormulaNames, text);
}

std::string_view to_string(SamplerKind sampler) {
  return util::name_of(kSamplerNames, sampler, "?");
}

std::optional<SamplerKind> parse_sampler(std::string_view text) {
  return util::value_of(kSamplerNames, text);
}

std::string_view to_string(ConcurrencyRule rule) {
  return util::name_of(kConcurrencyNames, rule, "?");
}

const std::vector<AccountingRule>& accounting_rules() {
  return kRules;
}

VllmRules vllm_rules(const VllmVersion& version) {
  VllmRules r;
  r.version = version;
  for (const auto& rule : kRules) {
    auto since = parse_vllm_version(rule.since);
    if (since && (version >= *since || rule.since == kRules.front().since)) apply(r, rule);
  }
  return r;
}

int sampler_bytes_per_logit(SamplerKind sampler) {
  return sampler == SamplerKind::native_sort ? 38 : 14;
}

std::string_view to_string(VisionRotary rotary) {
  return util::name_of(kVisionRotaryNames, rotary, "?");
}

}  // namespace dcukit::plan
