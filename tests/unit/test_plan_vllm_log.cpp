// The plan against public vLLM start-up logs: same model, card and settings, within 5%.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/units.h"
#include "plan/cards.h"
#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/planner.h"
#include "plan/weights.h"

using namespace dcukit::plan;

namespace {
using dcukit::core::kGiB;

Plan plan_llama_on_h100(int count) {
  auto m = load_model_config(std::string(DCUKIT_FIXTURES) + "/models/llama-3.1-8b-instruct");
  EXPECT_TRUE(m.ok());
  auto w = count_weights(*m);
  EXPECT_TRUE(w.ok());
  auto cards = cards_from_name("H100", count);
  EXPECT_TRUE(cards.ok());
  Asked r;
  r.max_model_len = 8192;  // Meta-Llama-3-8B's max_position_embeddings, vLLM's default there
  auto p = make_plan(*m, *w, *cards, r);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return *p;
}

const Option& option(const Plan& p, int tp) {
  for (const auto& o : p.options)
    if (o.tp == tp && o.pp == 1 && o.kv_cache_dtype == KvCacheDtype::automatic) return o;
  throw std::runtime_error("no such option");
}
} // namespace

// Source: https://github.com/vllm-project/vllm/pull/10511 (comment of 2024-12-14, "Some sanity
// checks"), `vllm serve meta-llama/Meta-Llama-3-8B` on an H100 80GB with defaults:
//   total_gpu_memory 79.22GiB, gpu_memory_utilization 0.90, the current vLLM instance can use 71.29GiB,
//   model weights take 14.96GiB, non_torch_memory 1.79GiB, PyTorch activation peak memory 1.26GiB,
//   available_kv_cache_memory 53.29GiB
// and with -tp 2: model weights take 7.48GiB, non_torch_memory 3.58GiB, activation 1.26GiB, so
// 71.29 − 7.48 − 3.58 − 1.26 = 58.97GiB for the KV cache.
// Meta-Llama-3-8B has Llama-3.1-8B's weights and KV geometry (only RoPE scaling and the context
// limit differ), so the Llama-3.1-8B fixture at --max-model-len 8192 is the same engine input.
// Defaults then: max_num_seqs 256, max_num_batched_tokens max(8192, 2048) = 8192, block 16, graphs.
// That vLLM captured graphs after sizing the cache; plan budgets them (0.5 GiB) and is still within 5%.
TEST(PlanVllmLog, Llama3_8B_H100_Tp1WithinFivePercent) {
  const auto p = plan_llama_on_h100(1);
  const auto& b = option(p, 1).budget;
  EXPECT_NEAR(b.usable / kGiB, 71.29, 0.01);   // 0.9 × 79.22 GiB: the card total is the runtime's
  EXPECT_NEAR(b.weights / kGiB, 14.96, 0.01);  // exact: 16,060,522,496 B
  const double logged_kv = 53.29 * kGiB;
  EXPECT_LT(std::abs(b.kv_budget - logged_kv) / logged_kv, 0.05) << b.kv_budget / kGiB << " GiB";
  // Tokens: the log's 53.29 GiB in 16-token blocks of 16 · 131,072 B → 27,284 blocks → 436,544 tokens.
  const double logged_tokens = std::floor(logged_kv / (16 * 131072.0)) * 16;
  EXPECT_DOUBLE_EQ(logged_tokens, 436544);
  EXPECT_LT(std::abs(static_cast<double>(b.tokens) - logged_tokens) / logged_tokens, 0.05) << b.tokens;
  // Maximum concurrency for 8,192 tokens per request: 436,544 / 8,192 = 53.29x.
  EXPECT_LT(std::abs(b.max_concurrency - logged_tokens / 8192) / (logged_tokens / 8192), 0.05);
}

TEST(PlanVllmLog, Llama3_8B_H100_Tp2WithinFivePercent) {
  const auto p = plan_llama_on_h100(2);
  const auto& b = option(p, 2).budget;
  EXPECT_NEAR(b.weights / kGiB, 7.48, 0.01);
  const double logged_kv = 58.97 * kGiB;
  EXPECT_LT(std::abs(b.kv_budget - logged_kv) / logged_kv, 0.05) << b.kv_budget / kGiB << " GiB";
}
