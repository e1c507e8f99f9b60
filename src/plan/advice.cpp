#include "plan/advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

namespace dcukit::plan {
namespace {

constexpr std::int64_t kLongContext = 32768;

std::string pick_dtype(const ModelConfig& model, const Cards& cards, const Request& request, std::string& why,
                       Status& status) {
  std::string asked = request.dtype.value_or("auto");
  if (asked == "half" || asked == "fp16") asked = "float16";
  if (asked == "bf16") asked = "bfloat16";
  if (asked != "auto" && asked != "float16" && asked != "bfloat16") {
    status = Error{fmt::format("--dtype {}: plan knows auto, bfloat16 and float16 (vLLM serves 16-bit); "
                               "pass --dtype float16 or leave it out", asked)};
    return {};
  }
  const bool no_bf16 = cards.bf16.has_value() ? !*cards.bf16 : cards.dcu();
  if (asked == "bfloat16" && no_bf16) {
    status = Error{fmt::format("--dtype bfloat16: {} {} bf16 (seed 002: some DCUs lack it); pass --dtype float16",
                               cards.name, cards.bf16.has_value() ? "does not support" : "has no published")};
    return {};
  }
  if (asked != "auto") {
    why = "as asked";
    return asked;
  }
  const std::string own = model.torch_dtype == "float16" ? "float16" : "bfloat16";
  if (own == "bfloat16" && no_bf16) {
    why = fmt::format("{} {} bf16 (seed 002); fp16 has bf16's size but a narrower range", cards.name,
                      cards.bf16.has_value() ? "lacks" : "does not publish");
    return "float16";
  }
  why = fmt::format("the checkpoint's dtype ({}); {} supports it", model.torch_dtype, cards.name);
  return own;
}

} // namespace

Result<Settings> resolve_settings(const ModelConfig& model, const Cards& cards, const Request& request,
                                  std::vector<Advice>& advice) {
  Settings s;
  std::string why;
  Status status;

  s.dtype = pick_dtype(model, cards, request, why, status);
  if (!status) return status.error();
  advice.push_back({"--dtype", s.dtype, why});

  const std::int64_t model_max = model.max_position_embeddings;
  s.max_model_len = request.max_model_len.value_or(model_max > 0 ? model_max : 4096);
  if (s.max_model_len <= 0)
    return Error{fmt::format("--max-model-len {}: must be a positive token count, e.g. 32768", s.max_model_len)};
  if (model_max > 0 && s.max_model_len > model_max)
    return Error{fmt::format("--max-model-len {} exceeds the model's max_position_embeddings ({}); vLLM refuses it. "
                             "Pass --max-model-len {} or less", s.max_model_len, model_max, model_max)};
  advice.push_back({"--max-model-len", std::to_string(s.max_model_len),
                    request.max_model_len ? "as asked" : "the model's max_position_embeddings (vLLM's default)"});

  if (request.gpu_memory_utilization) {
    s.gpu_memory_utilization = *request.gpu_memory_utilization;
    if (!(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1))
      return Error{fmt::format("--gpu-memory-utilization {}: must be a fraction in (0, 1]; pass {} (the headroom "
                               "seed 004 advises on DCU is 0.85-0.9)", s.gpu_memory_utilization,
                               cards.dcu() ? "0.85" : "0.9")};
    why = "as asked";
    if (cards.dcu() && s.gpu_memory_utilization > 0.9)
      why += "; seed 004 advises 0.85-0.9 on DCU: its runtime takes more than CUDA's and near-full cards crash";
  } else if (cards.dcu()) {
    s.gpu_memory_utilization = s.max_model_len >= kLongContext ? 0.85 : 0.9;
    why = s.max_model_len >= kLongContext
              ? "headroom on DCU (seed 004: 0.85-0.9); long requests and warm-up ran out of memory near the top (seed 000)"
              : "headroom on DCU (seed 004: 0.85-0.9, never above 0.95)";
  } else {
    s.gpu_memory_utilization = 0.9;
    why = "vLLM's default";
  }
  if (cards.detected && cards.free_bytes > 0 && !request.gpu_memory_utilization) {
    const double free_fraction = static_cast<double>(cards.free_bytes) / static_cast<double>(cards.total_bytes);
    if (free_fraction < s.gpu_memory_utilization) {
      s.gpu_memory_utilization = std::floor(free_fraction * 100 - 1) / 100;
      why = fmt::format("only {:.0f}% of a card is free now; vLLM refuses to start when free memory is below "
                        "utilization × total", free_fraction * 100);
    }
  }
  advice.push_back({"--gpu-memory-utilization", fmt::format("{:.2f}", s.gpu_memory_utilization), why});

  s.max_num_seqs = request.max_num_seqs.value_or(256);
  if (s.max_num_seqs < 1) return Error{fmt::format("--max-num-seqs {}: must be at least 1, e.g. 256", s.max_num_seqs)};
  advice.push_back({"--max-num-seqs", std::to_string(s.max_num_seqs),
                    request.max_num_seqs ? "as asked" : "vLLM's default; the sampler's profiling run scales with it"});

  s.max_num_batched_tokens = request.max_num_batched_tokens.value_or(8192);
  if (s.max_num_batched_tokens < s.max_num_seqs)
    return Error{fmt::format("--max-num-batched-tokens {} is below --max-num-seqs {}; vLLM refuses it. Pass "
                             "--max-num-batched-tokens {} or more", s.max_num_batched_tokens, s.max_num_seqs,
                             std::max<std::int64_t>(8192, s.max_num_seqs))};
  advice.push_back({"--max-num-batched-tokens", std::to_string(s.max_num_batched_tokens),
                    request.max_num_batched_tokens ? "as asked; the activation peak grows with it"
                                                   : "vLLM's chunked-prefill default; the activation peak grows with it"});

  constexpr std::array<int, 6> kBlockSizes{1, 8, 16, 32, 64, 128};
  s.block_size = request.block_size.value_or(16);
  if (std::find(kBlockSizes.begin(), kBlockSizes.end(), s.block_size) == kBlockSizes.end()) {
    int nearest = 16;
    for (int b : kBlockSizes)
      if (std::abs(b - s.block_size) < std::abs(nearest - s.block_size)) nearest = b;
    return Error{fmt::format("--block-size {}: vLLM takes 1, 8, 16, 32, 64 or 128 tokens; the nearest is {}",
                             s.block_size, nearest)};
  }
  advice.push_back({"--block-size", std::to_string(s.block_size),
                    request.block_size ? "as asked" : "vLLM's default: 16 tokens a KV block"});

  s.kv_cache_dtype = request.kv_cache_dtype.value_or("auto");
  const auto& kv = s.kv_cache_dtype;
  if (kv != "auto" && kv != "fp8" && kv != "fp8_e4m3" && kv != "fp8_e5m2")
    return Error{fmt::format("--kv-cache-dtype {}: vLLM takes auto, fp8, fp8_e4m3 or fp8_e5m2; pass auto", kv)};
  if (kv != "auto" && cards.fp8.has_value() && !*cards.fp8)
    return Error{fmt::format("--kv-cache-dtype {}: {} has no FP8 (the peak data says so{}); pass --kv-cache-dtype auto",
                             kv, cards.name, cards.key == "bw1000" ? "; seed 000: BW1000 lists no FP8" : "")};
  if (request.kv_cache_dtype)
    why = kv == "auto" ? "as asked" : (cards.fp8.has_value() ? "as asked; half the bytes a token"
                                                              : "as asked; nobody has published whether this card has FP8");
  else if (cards.fp8.has_value() && !*cards.fp8)
    why = fmt::format("the model dtype: {} has no FP8, so no fp8 KV cache (the peak data)", cards.name);
  else if (!cards.fp8.has_value())
    why = fmt::format("the model dtype: nobody has published whether {} has FP8", cards.name);
  else
    why = "the model dtype: full precision where the target concurrency is reached without fp8";
  advice.push_back({"--kv-cache-dtype", kv, why});

  s.enforce_eager = request.enforce_eager.value_or(cards.dcu());
  if (request.enforce_eager)
    why = *request.enforce_eager ? "as asked; no graph memory" : "as asked; graph pools are budgeted";
  else
    why = cards.dcu() ? "DCU: graph capture crashes some kernels and stretches tail latency (seed 004)"
                      : "graphs cut decode latency; their pools are budgeted";
  advice.push_back({"--enforce-eager", s.enforce_eager ? "true" : "false", why});
  return s;
}

} // namespace dcukit::plan
