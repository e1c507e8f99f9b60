#include "plan/advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "util/names.h"

namespace dcukit::plan {
namespace {

using core::Support;

constexpr std::int64_t kLongContext = 32768;

constexpr util::Name<Goal> kGoalNames[] = {{Goal::fewest_cards, "fewest-cards"},
                                           {Goal::most_concurrency, "most-concurrency"}};

/// "a bf16 checkpoint served in fp16" callout: said wherever plan or the user picks fp16 for it.
std::string conversion_warning(const ModelConfig& model) {
  return fmt::format(
      "{}'s checkpoint is {}, served as float16: values beyond fp16's range (±65504) overflow to "
      "inf, so check the outputs (or serve bfloat16 where the card does it)",
      model.name.empty() ? std::string("the model") : model.name, model.torch_dtype);
}

/// What is known of the card's bf16, as a clause: "Hygon Z100 / Z100L does bf16 (this host: ...)".
std::string bf16_words(const Cards& cards) {
  const auto& c = cards.bf16;
  switch (c.decider()) {
    case Decider::this_host:
    case Decider::published:
      return fmt::format("{} {} bf16 ({})", cards.name, c.effective() == Support::yes ? "does" : "lacks", c.source());
    case Decider::offline_advice:
    case Decider::nobody:
      break;
  }
  return fmt::format("nobody has published whether {} does bf16{}", cards.name,
                     c.published.note.empty() ? std::string{} : fmt::format(" ({})", c.published.note));
}

Status pick_dtype(const ModelConfig& model, const Cards& cards, const Asked& asked, Resolved& r) {
  auto& s = r.settings;
  const Dtype want = asked.dtype.value_or(Dtype::automatic);
  const auto bf16 = cards.bf16.effective();
  const auto decider = cards.bf16.decider();
  const bool known = decider == Decider::this_host || decider == Decider::published;
  const bool bf16_checkpoint = model.torch_dtype != "float16";
  if (want == Dtype::float32)
    return Error{
        "--dtype float32: plan budgets 16-bit serving (vLLM's float32 doubles the weights and the KV "
        "cache); pass --dtype bfloat16 or float16, or leave it out"};
  if (want == Dtype::bfloat16 && known && bf16 == Support::no)
    return Error{fmt::format("--dtype bfloat16: {}; pass --dtype float16", bf16_words(cards))};
  if (want != Dtype::automatic) {
    s.dtype = want;
    s.why.dtype = "as asked";
    if (want == Dtype::bfloat16 && !known)
      s.why.dtype += fmt::format("; {}. Check on the host: {}", bf16_words(cards), kBf16Check);
    if (want == Dtype::float16 && bf16_checkpoint) r.warnings.push_back(conversion_warning(model));
    return {};
  }
  if (!bf16_checkpoint) {
    s.dtype = Dtype::float16;
    s.why.dtype = "the checkpoint's dtype (float16)";
    return {};
  }
  if (known) {
    s.dtype = bf16 == Support::yes ? Dtype::bfloat16 : Dtype::float16;
    s.why.dtype = fmt::format("{}: {}", bf16 == Support::yes ? "the checkpoint's dtype" : "float16", bf16_words(cards));
  } else if (decider == Decider::offline_advice) {
    s.dtype = bf16 == Support::yes ? Dtype::bfloat16 : Dtype::float16;
    s.why.dtype = fmt::format(
        "{}; following {}: {}. Check on the host: {}", bf16_words(cards), cards.bf16.published.assume_source,
        bf16 == Support::yes ? "the checkpoint's bfloat16 kept" : "float16 recommended", kBf16Check);
  } else {  // nobody knows and nobody advises: vLLM's own choice, which stops with a clear error where bf16 fails
    s.dtype = Dtype::bfloat16;
    s.why.dtype = fmt::format("the checkpoint's dtype; {}. Check on the host: {}", bf16_words(cards), kBf16Check);
  }
  if (s.dtype == Dtype::float16) {
    r.warnings.push_back(conversion_warning(model));
    if (!known)
      r.dtype_option =
          DtypeOption{Dtype::bfloat16, fmt::format("keeps the checkpoint's range where the card does bf16, which "
                                                   "nobody has published for {}; check on the host with {} (or run "
                                                   "dcukit plan there: the card's own answer decides)",
                                                   cards.name, kBf16Check)};
  } else if (!known) {
    r.dtype_option = DtypeOption{Dtype::float16, fmt::format("where {} prints False; the fp16 conversion "
                                                             "overflows values beyond ±65504",
                                                             kBf16Check)};
  }
  if (!cards.bf16.host_error.empty())
    r.warnings.push_back(fmt::format("this host could not say whether the card does bf16 ({}); the plan follows {}",
                                     cards.bf16.host_error, to_string(decider)));
  return {};
}

Status pick_kv_cache_dtype(const Cards& cards, const Asked& asked, Settings& s) {
  s.kv_cache_dtype = asked.kv_cache_dtype.value_or(KvCacheDtype::automatic);
  const auto& cap = cards.fp8_kv_cache;
  const auto name = to_string(s.kv_cache_dtype);
  if (!asked.kv_cache_dtype) {
    s.why.kv_cache_dtype = "the model dtype";  // the recommendation may choose fp8 and say why
    return {};
  }
  if (!is_fp8(s.kv_cache_dtype)) {
    s.why.kv_cache_dtype = "as asked: the model dtype";
    return {};
  }
  if (cap.effective() == Support::no && cap.decider() != Decider::offline_advice)
    return Error{fmt::format("--kv-cache-dtype {}: vLLM on {} has no fp8 KV cache ({}); pass --kv-cache-dtype auto",
                             name, cards.name, cap.source())};
  s.why.kv_cache_dtype = cap.effective() == Support::yes
                             ? fmt::format("as asked; half the bytes a token ({})", cap.source())
                             : fmt::format("as asked; nobody has verified vLLM's fp8 KV cache on {}{}", cards.name,
                                           cap.published.note.empty() ? "" : " (" + cap.published.note + ")");
  return {};
}

}  // namespace

std::string_view to_string(Goal goal) {
  return util::name_of(kGoalNames, goal, "fewest-cards");
}

std::optional<Goal> parse_goal(std::string_view text) {
  return util::value_of(kGoalNames, text);
}

Result<Resolved> resolve_settings(const ModelConfig& model, const Cards& cards, const Asked& asked) {
  Resolved r;
  auto& s = r.settings;
  if (auto st = pick_dtype(model, cards, asked, r); !st) return st.error();

  s.max_model_len = asked.max_model_len.value_or(model.default_max_model_len());
  if (s.max_model_len <= 0)
    return Error{fmt::format("--max-model-len {}: must be a positive token count, e.g. 32768", s.max_model_len)};
  if (const std::int64_t model_max = model.max_position_embeddings; model_max > 0 && s.max_model_len > model_max)
    return Error{
        fmt::format("--max-model-len {} exceeds the model's max_position_embeddings ({}); vLLM refuses it. "
                    "Pass --max-model-len {} or less",
                    s.max_model_len, model_max, model_max)};
  s.why.max_model_len = asked.max_model_len ? "as asked" : "the model's max_position_embeddings (vLLM's default)";

  if (asked.gpu_memory_utilization) {
    s.gpu_memory_utilization = *asked.gpu_memory_utilization;
    if (!(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1))
      return Error{
          fmt::format("--gpu-memory-utilization {}: must be a fraction in (0, 1]; pass {} (the headroom "
                      "seed 004 advises on DCU is 0.85-0.9)",
                      s.gpu_memory_utilization, cards.dcu() ? "0.85" : "0.9")};
    s.why.gpu_memory_utilization = "as asked";
    if (cards.dcu() && s.gpu_memory_utilization > 0.9)
      s.why.gpu_memory_utilization +=
          "; seed 004 advises 0.85-0.9 on DCU: its runtime takes more than CUDA's and near-full cards crash";
  } else if (cards.dcu()) {
    s.gpu_memory_utilization = s.max_model_len >= kLongContext ? 0.85 : 0.9;
    s.why.gpu_memory_utilization = s.max_model_len >= kLongContext
                                       ? "headroom on DCU (seed 004: 0.85-0.9); long requests and warm-up ran out of "
                                         "memory near the top (seed 000)"
                                       : "headroom on DCU (seed 004: 0.85-0.9, never above 0.95)";
  } else {
    s.gpu_memory_utilization = 0.9;
    s.why.gpu_memory_utilization = "vLLM's default";
  }
  if (cards.detected && cards.free_bytes > 0 && !asked.gpu_memory_utilization) {
    const double free_fraction = static_cast<double>(cards.free_bytes) / static_cast<double>(cards.total_bytes);
    if (free_fraction < s.gpu_memory_utilization) {
      s.gpu_memory_utilization = std::floor(free_fraction * 100 - 1) / 100;
      s.why.gpu_memory_utilization = fmt::format(
          "only {:.0f}% of a card is free now; vLLM refuses to start when free "
          "memory is below utilization × total",
          free_fraction * 100);
    }
  }

  s.max_num_seqs = asked.max_num_seqs.value_or(256);
  if (s.max_num_seqs < 1) return Error{fmt::format("--max-num-seqs {}: must be at least 1, e.g. 256", s.max_num_seqs)};
  s.why.max_num_seqs = asked.max_num_seqs ? "as asked" : "vLLM's default; the sampler's profiling run scales with it";

  s.max_num_batched_tokens = asked.max_num_batched_tokens.value_or(8192);
  if (s.max_num_batched_tokens < s.max_num_seqs)
    return Error{
        fmt::format("--max-num-batched-tokens {} is below --max-num-seqs {}; vLLM refuses it. Pass "
                    "--max-num-batched-tokens {} or more",
                    s.max_num_batched_tokens, s.max_num_seqs, std::max<std::int64_t>(8192, s.max_num_seqs))};
  s.why.max_num_batched_tokens = asked.max_num_batched_tokens
                                     ? "as asked; the activation peak grows with it"
                                     : "vLLM's chunked-prefill default; the activation peak grows with it";

  constexpr std::array<int, 6> kBlockSizes{1, 8, 16, 32, 64, 128};
  s.block_size = asked.block_size.value_or(16);
  if (std::find(kBlockSizes.begin(), kBlockSizes.end(), s.block_size) == kBlockSizes.end()) {
    int nearest = 16;
    for (int b : kBlockSizes)
      if (std::abs(b - s.block_size) < std::abs(nearest - s.block_size)) nearest = b;
    return Error{fmt::format("--block-size {}: vLLM takes 1, 8, 16, 32, 64 or 128 tokens; the nearest is {}",
                             s.block_size, nearest)};
  }
  s.why.block_size = asked.block_size ? "as asked" : "vLLM's default: 16 tokens a KV block";

  if (auto st = pick_kv_cache_dtype(cards, asked, s); !st) return st.error();

  s.limit_mm_per_prompt = asked.limit_mm_per_prompt;
  s.enforce_eager = asked.enforce_eager.value_or(cards.dcu());
  if (asked.enforce_eager)
    s.why.enforce_eager = *asked.enforce_eager ? "as asked; no graph memory" : "as asked; graph pools are budgeted";
  else
    s.why.enforce_eager = cards.dcu() ? "DCU: graph capture crashes some kernels and stretches tail latency (seed 004)"
                                      : "graphs cut decode latency; their pools are budgeted";
  return r;
}

}  // namespace dcukit::plan
