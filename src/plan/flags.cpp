#include "plan/flags.h"

#include <fmt/format.h>

#include <cmath>

namespace dcukit::plan {

std::string format_fraction(double value) {
  return fmt::format("{:g}", std::round(value * 100) / 100);
}

std::vector<EngineFlag> engine_flags(const Plan& p) {
  const auto& s = p.settings;
  std::vector<EngineFlag> f;
  if (const Option* o = p.chosen()) {
    f.push_back({"--tensor-parallel-size", std::to_string(o->tp), true, p.reason, "1"});
    if (o->pp > 1)
      f.push_back({"--pipeline-parallel-size", std::to_string(o->pp), true,
                   "TP alone does not fit the weights and one request", ""});
  }
  f.push_back({"--dtype", std::string(to_string(s.dtype)), true, s.why.dtype, "bfloat16"});
  f.push_back({"--max-model-len", std::to_string(s.max_model_len), true, s.why.max_model_len, "8192"});
  f.push_back({"--gpu-memory-utilization", format_fraction(s.gpu_memory_utilization), true,
               s.why.gpu_memory_utilization, "0.9"});
  f.push_back({"--kv-cache-dtype", std::string(to_string(s.kv_cache_dtype)), true, s.why.kv_cache_dtype, "fp8"});
  f.push_back({"--enforce-eager", "", s.enforce_eager, s.why.enforce_eager, "on"});
  f.push_back({"--max-num-seqs", std::to_string(s.max_num_seqs), true, s.why.max_num_seqs, "256"});
  f.push_back(
      {"--max-num-batched-tokens", std::to_string(s.max_num_batched_tokens), true, s.why.max_num_batched_tokens, ""});
  f.push_back({"--block-size", std::to_string(s.block_size), true, s.why.block_size, ""});
  if (const auto& l = s.limit_mm_per_prompt; !l.empty())
    f.push_back({"--limit-mm-per-prompt", mm_limits_flag(l), true,
                 l.dummy_sizes.empty() ? "as asked; sizes the vision encoder's run in the profile"
                                       : "as asked; sizes the vision encoder's run in the profile (its dummy sizes "
                                         "are not followed)",
                 ""});
  return f;
}

}  // namespace dcukit::plan
