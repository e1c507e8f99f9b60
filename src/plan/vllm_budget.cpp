#include "plan/vllm_budget.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/units.h"
#include "plan/eager_forward.h"
#include "util/names.h"
#include "util/text.h"

namespace dcukit::plan {
namespace {

using core::kGiB;  // bytes; the arithmetic below is in double

constexpr util::Name<VllmPlatform> kPlatformNames[] = {
    {VllmPlatform::cuda, "CUDA"},
    {VllmPlatform::rocm_cdna, "ROCm (Instinct)"},
    {VllmPlatform::rocm_rdna, "ROCm (Radeon)"},
    {VllmPlatform::dcu, "DCU (DTK)"},
};

// Memory outside PyTorch, GiB. vLLM measures it; these are the measurements it printed, each
// named by the log it came from (../shared/vllm-logs unless a URL is given). docs/plan.md lists them.
constexpr double kCudaBase = 0.10;         // snapshot accounting at TP 1: T4 0.01 (0.7.2), RTX 3090 0.10 (0.6.6),
                                           // A100 0.26 (phi-4, ~0.6.5), H100 0.13 (vllm-openai:v0.11.0, DEBUG log)
constexpr double kCudaNccl = 0.10;         // TP 2 on one A100 node without P2P, 0.10.1.1 (dennislee22 7B same-node log)
constexpr double kCustomAllReduce = 0.35;  // H100 TP 2 with custom all-reduce, 0.11.0: 0.54 - 0.10 - 0.10
// V1 on an NVSwitch Hopper board with P2P, instead of the NCCL and custom all-reduce terms above:
// H200 TP 2 printed 1.38 in all (0.10.2, legalai); two H100 TP 8 runs of one machine sit 1.85 GiB
// above plan's 0.55 while their sampler term is the one the H200 run printed (0.10.0, daisuketakai):
// 2.40 in all. 1.11 + 0.17 a peer fits both; a 4-GPU board without NVSwitch would measure less.
constexpr double kNvSwitchNccl = 1.11;
constexpr double kNvSwitchPeer = 0.17;
// 0.19.0 on H100 SXM (llm-d sweep, heldout7): 2.07-2.10 at TP 2, 2.13-2.21 at TP 4, read after that
// batch's check: 1.93 + 0.05 a peer beside the base.
constexpr double kNvSwitchNccl019 = 1.93;
constexpr double kNvSwitchPeer019 = 0.05;
constexpr double kContext = 0.25;          // 0.6.4 counts the CUDA context: RTX 3090 0.35 (vllm-issue10517) - 0.10
// V0 (0.7-0.8) measured NCCL's buffers too: its baseline came before the first collective. Cards
// with P2P (custom all-reduce on): A100 TP 4 and TP 8 ranks 0.89-1.07 (surajssd, 0.8.3, four logs),
// A100 TP 2 1.54 (daxdelvira, 0.7.2); without P2P it stays small (2x4090 0.25, 16x3090 0.20).
constexpr double kV0NcclP2p = 0.85;
// The last pipeline stage's rank: 2.11-2.24 where the others print 0.89-1.07 (the same four logs).
constexpr double kV0LastStage = 1.15;
constexpr double kCdnaBase = 2.20;     // MI300X TP 1, 0.6.3 with hipBLASLt: 2.53 GiB beyond weights - 0.35 activation
                                       // (lhl-mi300x-llama2-7b-tp1; without hipBLASLt 1.7 GiB less, same log)
constexpr double kRcclPerRank = 0.70;  // MI300X TP 8, 0.6.3: 5.70 - 0.29 activation - 0.46 base, over 7 peers
constexpr double kRdnaBase = 0.20;     // W7900, 0.6.4.post2: 0.34 and 0.44 with the context (lhl-w7900 logs)
// Radeon under the snapshot accounting (0.6.5 on): Radeon Pro VII 0.46 (0.8.5), a 24 GB RDNA3 card 0.62 (0.6.6)
// and 0.53 (0.9.0.1) (tests/fixtures/vllm-logs/heldout5, read after that batch's held-out check).
constexpr double kRdnaSnapshot = 0.50;
// ROCm's device-level weight figure (0.7.3 on) beyond the weights: Radeon Pro VII 0.22 (Qwen3-0.6B,
// 1.34 against 1.12 on CUDA, 0.8.5), R9700 0.09 (0.9.2), a 24 GB RDNA3 card 0.01 (OPT-125m, 0.9.0.1),
// Hygon DCU TP 8 0.08 (0.8.5) (heldout5, heldout6: read after their checks).
constexpr double kRocmLoadExtra = 0.10;
constexpr double kDcuExtra = 0.50;     // no DCU start-up log is published; seed 004: the DCU runtime takes more

std::int64_t cdiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

double non_torch_gib(const VllmContext& ctx, int tp, int pp) {
  const int gpus = tp * pp;
  const bool v0 = ctx.engine == VllmEngine::v0;
  double nt = 0;
  switch (ctx.platform) {
    case VllmPlatform::cuda:
    case VllmPlatform::dcu:
      if (gpus > 1 && v0 && ctx.custom_all_reduce)
        nt = kCudaBase + kV0NcclP2p + (pp > 1 ? kV0LastStage : 0);
      else if (tp > 1 && ctx.nvswitch && ctx.custom_all_reduce)
        nt = kCudaBase + (ctx.rules.nvswitch_late ? kNvSwitchNccl019 + kNvSwitchPeer019 * (tp - 1)
                                                  : kNvSwitchNccl + kNvSwitchPeer * (tp - 1));
      else  // the custom all-reduce is the TP group's: pipeline stages alone only send and receive
        nt = kCudaBase + (gpus > 1 ? kCudaNccl + (ctx.custom_all_reduce && tp > 1 ? kCustomAllReduce : 0) : 0);
      if (ctx.platform == VllmPlatform::dcu) nt += kDcuExtra;
      break;
    case VllmPlatform::rocm_cdna:
      nt = kCdnaBase + kRcclPerRank * (gpus - 1);
      break;
    case VllmPlatform::rocm_rdna:
      nt = (ctx.formula == ProfileFormula::snapshot ? kRdnaSnapshot : kRdnaBase) + kRcclPerRank * (gpus - 1);
      break;
  }
  if (ctx.formula == ProfileFormula::torch_peak) nt += kContext;
  return nt;
}

/// The widest point of the profiling forward pass, in elements a token: the residual stream and
/// the layer input (2h), the layer's output (h), and the widest intermediate of a layer kind.
double forward_width(const ModelConfig& m, int tp) {
  const double h = static_cast<double>(m.hidden_size);
  const bool any_dense =
      m.moe_layers.empty() || std::any_of(m.moe_layers.begin(), m.moe_layers.end(), [](bool b) { return !b; });
  double widest = 0;
  // Dense MLP (LlamaMLP.forward): gate_up (2I) and the activated product (I) live together;
  // an ungated one (OPT's fc1, activation, fc2) holds fc1's output and the activated copy (2I).
  if (any_dense && m.intermediate_size > 0)
    widest = std::max(widest, (m.gated_mlp ? 3.0 : 2.0) * static_cast<double>(m.intermediate_size) / tp);
  // fused_moe: intermediate caches of top-k × (2 I_moe, I_moe) and the top-k outputs of h each.
  if (m.moe())
    widest = std::max(widest, static_cast<double>(m.experts_per_token) *
                                  (3.0 * static_cast<double>(m.moe_intermediate_size) / tp + h));
  // Attention: q, k, v and the attention output on this rank.
  const double d = static_cast<double>(m.mla ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.head_dim);
  const double kv = m.mla ? 0 : static_cast<double>(std::max<std::int64_t>(1, m.num_kv_heads / tp));
  widest = std::max(widest, (2.0 * static_cast<double>(m.num_heads) / tp + 2.0 * kv) * d);
  return 3.0 * h + widest;
}

}  // namespace

std::string_view to_string(VllmPlatform platform) {
  return util::name_of(kPlatformNames, platform, "?");
}

std::optional<VllmPlatform> parse_platform(std::string_view text) {
  return util::value_of(kPlatformNames, text);
}

VllmPlatform platform_of(const Cards& cards, bool rocm_hint, bool navi_hint) {
  if (cards.dcu()) return VllmPlatform::dcu;
  if (cards.vendor == core::Vendor::amd || rocm_hint) {
    // Every Instinct card has 64 GB or more; an AMD card reporting under 60 GiB is a Radeon.
    const bool small = cards.total_bytes > 0 && static_cast<double>(cards.total_bytes) < 60.0 * kGiB;
    if (navi_hint || small || util::icontains(cards.name, "radeon") || util::icontains(cards.name, "w7900"))
      return VllmPlatform::rocm_rdna;
    return VllmPlatform::rocm_cdna;
  }
  return VllmPlatform::cuda;
}

SamplerKind default_sampler(const VllmRules& rules, VllmEngine engine, VllmPlatform platform) {
  // V0 always sorts; FlashInfer is CUDA's only (vLLM's TopKTopPSampler runs forward_native elsewhere).
  if (engine == VllmEngine::v0 || platform != VllmPlatform::cuda) return SamplerKind::native_sort;
  return rules.sampler;
}

VllmContext default_context(const VllmRules& rules, const Cards& cards) {
  VllmContext ctx;
  ctx.rules = rules;
  ctx.engine = rules.engine;
  ctx.formula = rules.formula(rules.engine);
  ctx.platform = platform_of(cards);
  ctx.sampler = default_sampler(rules, ctx.engine, ctx.platform);
  // vLLM 0.6 disables its custom all-reduce on AMD ("not supported on AMD GPUs" in the MI300X logs).
  ctx.custom_all_reduce = ctx.platform == VllmPlatform::cuda || ctx.platform == VllmPlatform::dcu;
  ctx.nvswitch = cards.nvls_board;
  return ctx;
}

namespace {

/// The layer group size of the hybrid allocator: the smaller layer count, or the larger where it is
/// within a quarter of the smaller (vLLM pads the smaller kind then).
std::int64_t hybrid_group(std::int64_t a, std::int64_t b) {
  const std::int64_t small = std::min(a, b), large = std::max(a, b);
  return static_cast<double>(large) < 1.25 * static_cast<double>(small) ? large : small;
}

/// V1's pool for full-attention + linear-attention (Gated DeltaNet) models: the attention block is
/// raised to a multiple of 16 tokens whose page holds one linear layer's state, the state page is
/// padded to it, and groups of layers share one pool of such pages (vLLM 0.10.2 and later:
/// "Setting attention block size to N tokens", "Padding mamba page size by x%").
KvLayout linear_hybrid_layout(const ModelConfig& m, const Settings& s, int pp, const VllmContext& ctx,
                              const KvFootprint& kv, double available) {
  KvLayout out;
  const std::int64_t full = cdiv(m.count(LayerKind::full_attention), pp);
  const std::int64_t linear = cdiv(m.count(LayerKind::linear_attention), pp);
  const double per_token = kv.per_token / static_cast<double>(full);  // one attention layer's bytes a token
  constexpr std::int64_t kAlign = 16;                                   // the attention kernels' block multiple
  const auto need = static_cast<std::int64_t>(std::ceil(kv.state_per_layer / (kAlign * per_token)));
  out.block_size = std::max<std::int64_t>(s.block_size, kAlign * need);
  const double page = static_cast<double>(out.block_size) * per_token;
  const std::int64_t group = hybrid_group(full, linear);
  const std::int64_t full_groups = cdiv(full, group), linear_groups = cdiv(linear, group);
  out.groups = static_cast<int>(full_groups + linear_groups);
  out.layers_per_group = group;
  out.pool_block_bytes = page * static_cast<double>(group);
  if (available <= 0) return out;
  out.blocks = static_cast<std::int64_t>(std::floor(available / out.pool_block_bytes));
  // A request needs its attention blocks in each full group and one state block in each linear group.
  const std::int64_t per_request = full_groups * cdiv(s.max_model_len, out.block_size) + linear_groups;
  out.max_concurrency = static_cast<double>(out.blocks) / static_cast<double>(per_request);
  out.tokens = ctx.rules.tokens_from_concurrency
                   ? static_cast<std::int64_t>(out.max_concurrency * static_cast<double>(s.max_model_len))
                   : out.blocks / out.groups * out.block_size;
  return out;
}

}  // namespace

bool linear_hybrid_pool(const ModelConfig& m, const VllmContext& ctx) {
  return ctx.engine == VllmEngine::v1 && ctx.rules.hybrid_allocator && m.hybrid() &&
         m.count(LayerKind::full_attention) > 0 && m.count(LayerKind::sliding_attention) == 0;
}

KvLayout vllm_kv_layout(const ModelConfig& m, const Settings& s, int tp, int pp, const VllmContext& ctx,
                        double available) {
  KvLayout out;
  out.block_size = s.block_size;
  const auto kv = kv_footprint(m, s, tp, pp, ctx.rules.mla_latent);
  if (linear_hybrid_pool(m, ctx)) return linear_hybrid_layout(m, s, pp, ctx, kv, available);
  const std::int64_t full = cdiv(m.count(LayerKind::full_attention), pp);
  const std::int64_t window = cdiv(m.count(LayerKind::sliding_attention), pp);
  const double per_layer = full > 0 ? kv.per_token / static_cast<double>(full)
                                    : (window > 0 ? kv.per_window_token / static_cast<double>(window) : 0);
  const std::int64_t bs = s.block_size;
  const double page = static_cast<double>(bs) * per_layer;
  if (page <= 0 || available <= 0) return out;
  const std::int64_t len_blocks = cdiv(s.max_model_len, bs);
  const bool v1 = ctx.engine == VllmEngine::v1;
  const bool hybrid = v1 && ctx.rules.hybrid_allocator && full > 0 && window > 0;
  if (!hybrid) {
    // One pool: every attention layer keeps a page a block (V0 counts window layers in full).
    const std::int64_t layers = full + window;
    out.layers_per_group = layers;
    out.blocks = static_cast<std::int64_t>(std::floor(available / page / static_cast<double>(layers)));
    out.tokens = out.blocks * bs;
    if (v1 && ctx.rules.concurrency == ConcurrencyRule::request_blocks) {
      const std::int64_t per_request =
          full > 0 ? len_blocks
                   : cdiv(std::min(m.sliding_window - 1 + s.max_num_batched_tokens, s.max_model_len), bs) + 1;
      out.max_concurrency = static_cast<double>(out.blocks) / static_cast<double>(per_request);
    } else {
      out.max_concurrency = static_cast<double>(out.tokens) / static_cast<double>(s.max_model_len);
    }
    return out;
  }
  // Hybrid allocator: layers of each kind in groups of equal size share one pool of blocks.
  const std::int64_t group = hybrid_group(full, window);
  const std::int64_t full_groups = cdiv(full, group), window_groups = cdiv(window, group);
  out.groups = static_cast<int>(full_groups + window_groups);
  out.layers_per_group = group;
  out.blocks = static_cast<std::int64_t>(std::floor(available / page / static_cast<double>(group)));
  out.tokens = out.blocks / out.groups * bs;
  const std::int64_t window_blocks =
      cdiv(std::min(m.sliding_window - 1 + s.max_num_batched_tokens, s.max_model_len), bs) + 1;
  const std::int64_t per_request = full_groups * len_blocks + window_groups * window_blocks;
  out.max_concurrency = static_cast<double>(out.blocks) / static_cast<double>(per_request);
  return out;
}

namespace {

/// Says what the weights hold beside the decoder where it is enough to matter (0.05 GiB a GPU).
void note_weight_extras(const Weights& w, int tp, int pp, std::vector<std::string>& notes) {
  const double vision = pp == 1 ? w.computed.vision * w.scale() / tp : 0;  // the first stage's, not the last's
  if (vision >= 0.05 * kGiB)
    notes.push_back(fmt::format("weights: {:.2f} GiB a GPU of them is the vision tower (its share under TP {}){}",
                                vision / kGiB, tp,
                                w.source == WeightSource::computed
                                    ? ", counted from vision_config: an estimate (vLLM skips it where "
                                      "--limit-mm-per-prompt allows no images, and replicates it with "
                                      "--mm-encoder-tp-mode data)"
                                    : ""));
  if (w.computed.rope >= 0.05 * kGiB)
    notes.push_back(fmt::format("weights: with {:.2f} GiB of RoPE cos/sin table that vLLM builds at load time "
                                "(max_position_embeddings rows; float32 where FlashInfer's RoPE runs would double it)",
                                w.computed.rope / kGiB));
}

}  // namespace

VllmBudget vllm_budget(const ModelConfig& m, const Weights& w, const Cards& cards, const Settings& s, int tp, int pp,
                       const VllmContext& ctx) {
  VllmBudget out;
  auto& b = out.budget;
  const double act_bytes = s.dtype == Dtype::float32 ? 4.0 : 2.0;
  const double tokens = static_cast<double>(s.max_num_batched_tokens);
  b.usable = s.gpu_memory_utilization * static_cast<double>(cards.total_bytes);
  // The last pipeline stage's rank: it samples, holds the output projection and (V0) more
  // collective buffers, so its budget is the smallest, the one vLLM sizes every stage's cache by.
  b.weights = ctx.weights_per_gpu ? *ctx.weights_per_gpu : static_cast<double>(w.per_stage(m, tp, pp).back());
  if (!ctx.weights_per_gpu) note_weight_extras(w, tp, pp, out.notes);
  if (!ctx.weights_per_gpu && ctx.platform != VllmPlatform::cuda && ctx.rules.rocm_device_weights) {
    out.load_extra = kRocmLoadExtra * kGiB;  // a figure vLLM prints is already device-level
    b.weights += out.load_extra;
    out.notes.push_back(fmt::format(
        "weights: vLLM {} on ROCm subtracts a device-level figure, the weights and what else the load left "
        "on the device: plan adds {:.2f} GiB (0.01-0.22 measured)",
        ctx.rules.version.upstream(), kRocmLoadExtra));
  }
  out.forward = tokens * act_bytes * forward_width(m, tp);
  // Eager (V0's profile run, or --enforce-eager): a dense model's layers replayed through PyTorch's
  // allocator; free_delta (0.6.3 and earlier) counts its reserved segments, the others its peak.
  if (ctx.engine == VllmEngine::v0 || s.enforce_eager)
    if (const auto eager = eager_forward(m, tp, s.max_num_batched_tokens, act_bytes)) {
      out.forward = ctx.formula == ProfileFormula::free_delta ? eager->reserved : eager->allocated_peak;
      out.forward_replayed = true;
    }
  const std::int64_t seqs = s.max_num_seqs;
  out.sampler_rows = ctx.engine == VllmEngine::v1 ? std::min<std::int64_t>(seqs, s.max_num_batched_tokens) : seqs;
  out.sampler =
      static_cast<double>(out.sampler_rows) * static_cast<double>(m.vocab_size) * sampler_bytes_per_logit(ctx.sampler) +
      tokens * static_cast<double>(m.hidden_size) * act_bytes;  // the hidden states stay alive
  b.activation = std::max(out.forward, out.sampler);            // the forward pass's buffers are freed before sampling
  if (pp == 1)
    out.encoder = encoder_profile(m, tp, act_bytes,
                                  {.v0 = ctx.engine == VllmEngine::v0,
                                   .qwen_v0_dummy = ctx.rules.qwen_v0_dummy,
                                   .tokens = ctx.encoder_tokens,
                                   .items = ctx.encoder_items,
                                   .max_model_len = s.max_model_len,
                                   .max_num_batched_tokens = s.max_num_batched_tokens,
                                   .max_num_seqs = s.max_num_seqs,
                                   .image_limit = s.limit_mm_per_prompt.images,
                                   .video_limit = s.limit_mm_per_prompt.videos,
                                   .dummy_sizes = !s.limit_mm_per_prompt.dummy_sizes.empty(),
                                   .rotary = ctx.rules.vision_rotary});
  if (const auto& e = out.encoder) {
    // V1 runs the encoder first and keeps its outputs cached while the text model runs; V0 runs it
    // inside the forward pass, beside what that holds, and keeps some of it through the layers.
    const bool v0 = ctx.engine == VllmEngine::v0;
    b.activation = v0 ? std::max({e->peak + e->beside, out.forward + e->through_text, out.sampler})
                      : std::max(e->peak, e->through_text + b.activation);
    out.notes.push_back(fmt::format(
        "activation: the profile runs the vision encoder over {} item{} ({} patches; {}): {:.2f} GiB at its "
        "peak on this rank ({}), the input pixels in float32 and the tower's dtype included{}, and {:.2f} GiB of "
        "outputs {}",
        e->items, e->items == 1 ? "" : "s", e->patches, e->budget_from, e->peak / kGiB,
        e->rotary_peak > e->mlp_peak ? fmt::format("the attention's rotary embedding, as vLLM {} copies q and k: {}",
                                                   ctx.rules.version.text, to_string(ctx.rules.vision_rotary))
                                     : std::string("a block's MLP"),
        e->beside > 0 ? fmt::format(", beside {:.2f} GiB the forward pass holds (the prompt's text embeddings; "
                                    "any other modality's pixels)",
                                    e->beside / kGiB)
                      : "",
        e->outputs / kGiB,
        !v0 ? "kept while the text model runs"
        : m.vision.profiled == ModelConfig::VisionShape::Profiled::qwen2_vit
            ? "merged into the text model's input; the float32 pixels stay alive through its layers"
            : "alive, with the pixels, through the text model's layers"));
  }
  b.non_torch = non_torch_gib(ctx, tp, pp) * kGiB;  // the last stage's rank, the smallest budget
  const bool rocm = ctx.platform != VllmPlatform::cuda;
  const bool graphs_profiled = rocm ? ctx.rules.graphs_profiled_rocm : ctx.rules.graphs_profiled_cuda;
  b.graphs = (!s.enforce_eager && graphs_profiled && ctx.engine == VllmEngine::v1) ? graph_bytes(s) : 0;
  if (!s.enforce_eager && !graphs_profiled)
    out.notes.push_back(
        "CUDA graphs are captured after the KV cache is sized: their memory comes out of the "
        "(1 - utilization) headroom, not out of the budget");
  b.settle(kv_footprint(m, s, tp, pp, ctx.rules.mla_latent));
  if (!b.weights_fit) return out;
  if (m.hybrid() && !linear_hybrid_pool(m, ctx)) {  // V0: count whole requests (its state cache is separate)
    b.count_whole_requests(s.max_model_len, s.block_size);
    out.notes.push_back(
        "linear-attention layers outside V1's hybrid allocator: plan counts whole requests");
  } else {
    out.layout = vllm_kv_layout(m, s, tp, pp, ctx, b.kv_budget);
    if (out.layout.block_size != s.block_size)
      out.notes.push_back(fmt::format(
          "linear-attention layers: vLLM raises the attention block to {} tokens so that a page holds one "
          "layer's state ({:.0f} B on this rank), in {} groups of {} layers",
          out.layout.block_size, b.kv.state_per_layer, out.layout.groups, out.layout.layers_per_group));
    b.blocks = out.layout.blocks;
    b.tokens = out.layout.tokens;
    b.max_concurrency = out.layout.max_concurrency;
  }
  b.one_request_fits = b.max_concurrency >= 1.0;
  b.longest_fitting_len =
      longest_fitting_len(b.kv, b.kv_budget, s.block_size, std::max(s.max_model_len, m.max_position_embeddings));
  return out;
}

VllmDefaults vllm_defaults(const VllmContext& ctx, const Cards& cards, std::int64_t max_model_len, bool llm_class,
                           std::optional<bool> chunked) {
  VllmDefaults d;
  const auto version = ctx.rules.version.upstream();
  if (ctx.engine == VllmEngine::v0) {
    const bool auto_chunk = ctx.rules.v0_auto_chunk_above > 0 && max_model_len > ctx.rules.v0_auto_chunk_above;
    d.chunked_prefill = chunked.value_or(auto_chunk);
    d.why_seqs = fmt::format("vLLM {} (V0) default", version);
    d.max_num_batched_tokens =
        d.chunked_prefill ? ctx.rules.v0_chunked_tokens : std::max<std::int64_t>(max_model_len, 2048);
    d.why = d.chunked_prefill
                ? fmt::format("vLLM {} (V0) with chunked prefill{}: {} tokens a step", version,
                              chunked ? "" : fmt::format(" (on above {} tokens)", ctx.rules.v0_auto_chunk_above),
                              d.max_num_batched_tokens)
                : fmt::format("vLLM {} (V0) without chunked prefill: max(max-model-len, 2048) = {} tokens", version,
                              d.max_num_batched_tokens);
    return d;
  }
  const double total_gib = static_cast<double>(cards.total_bytes) / kGiB;
  const bool big = ctx.rules.v1_big_gpu_by_memory ? total_gib >= 70 && !util::icontains(cards.name, "a100")
                                                  : util::icontains(cards.name, "h100") || util::icontains(cards.name, "h200");
  d.max_num_seqs = big ? ctx.rules.v1_big_gpu_seqs : 256;
  d.max_num_batched_tokens = big ? (llm_class ? 16384 : 8192) : (llm_class ? 8192 : 2048);
  d.why = fmt::format(
      "vLLM {} (V1) {} on {}: {} tokens and {} sequences a step", version, llm_class ? "LLM()" : "vllm serve",
      big ? (ctx.rules.v1_big_gpu_by_memory ? "a card of 70 GiB or more (not A100)" : "H100/H200") : "this card",
      d.max_num_batched_tokens, d.max_num_seqs);
  d.why_seqs = d.why;
  return d;
}

}  // namespace dcukit::plan
