// Options, the recommendation, card-following advice, bad input and the outputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "device/registry.h"
#include "plan/cards.h"
#include "plan/emit_vllm.h"
#include "plan/model_config.h"
#include "plan/planner.h"
#include "plan/render.h"
#include "plan/weights.h"

using namespace dcukit::plan;

namespace {
struct Inputs {
  ModelConfig model;
  Weights weights;
};

Inputs load(const char* name) {
  auto m = load_model_config(std::string(DCUKIT_FIXTURES) + "/models/" + name);
  EXPECT_TRUE(m.ok()) << m.error().message;
  auto w = count_weights(*m);
  EXPECT_TRUE(w.ok());
  return {*m, *w};
}

dcukit::Result<Plan> plan(const char* model, const char* gpu, int count, Request r) {
  const auto in = load(model);
  auto cards = cards_from_name(gpu, count);
  if (!cards) return cards.error();
  return make_plan(in.model, in.weights, *cards, r);
}

std::string advice(const Plan& p, const std::string& flag) {
  for (const auto& a : p.advice)
    if (a.flag == flag) return a.value;
  return "?";
}
} // namespace

TEST(PlanPlanner, Qwen3_32BOnFourBw1000At32K) {
  Request r;
  r.max_model_len = 32768;
  auto p = plan("qwen3-32b", "BW1000", 4, r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  // The card decides: no bf16 → float16; DCU → headroom 0.85 at long context, eager mode.
  EXPECT_EQ(advice(*p, "--dtype"), "float16");
  EXPECT_EQ(advice(*p, "--gpu-memory-utilization"), "0.85");
  EXPECT_EQ(advice(*p, "--enforce-eager"), "true");
  EXPECT_EQ(advice(*p, "--kv-cache-dtype"), "auto");
  // TP 1, 2, 4 and 8 (which needs 8 cards), and no fp8 rows: BW1000 has no FP8.
  ASSERT_EQ(p->options.size(), 4u);
  EXPECT_EQ(p->options[3].problem, "needs 8 cards, 4 available");
  for (const auto& o : p->options) EXPECT_EQ(o.kv_cache_dtype, "auto");
  EXPECT_FALSE(p->options[0].starts());  // 61 GiB of weights on one 64 GB card
  EXPECT_TRUE(p->options[1].starts());
  ASSERT_NE(p->chosen(), nullptr);
  EXPECT_EQ(p->chosen()->tp, 4);  // TP 2 holds about 5 requests of 32K, under the default target of 8
  EXPECT_GT(p->chosen()->budget.max_concurrency, 8);
  EXPECT_EQ(p->chosen()->budget.graphs, 0);  // eager
}

TEST(PlanPlanner, NothingFitsNamesTheNearestOptionThatWorks) {
  Request r;
  r.max_model_len = 32768;
  auto p = plan("qwen3-32b", "BW1000", 1, r);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->chosen(), nullptr);
  EXPECT_NE(p->reason.find("starts on none of the options"), std::string::npos) << p->reason;
  EXPECT_NE(p->nearest.find("--count 2 (TP 2)"), std::string::npos) << p->nearest;
  auto script = emit_vllm(*p, {});
  ASSERT_FALSE(script.ok());
  EXPECT_NE(script.error().message.find("Nearest that works: --count 2"), std::string::npos);
}

TEST(PlanPlanner, TooLongForOneRequestNamesTheLongestThatFits) {
  Request r;  // Llama-3.1-8B at its full 131,072 tokens on a BW1000 at 0.3 utilization
  r.gpu_memory_utilization = 0.3;
  auto p = plan("llama-3.1-8b-instruct", "BW1000", 1, r);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->chosen(), nullptr);
  EXPECT_NE(p->options[0].problem.find("vLLM refuses to start"), std::string::npos) << p->options[0].problem;
  // 14.96 GiB of weights leave 1.59 GiB of 0.3 × 63.98 GiB: 13,008 tokens at 128 KiB a token, as
  // vLLM's own "estimated maximum model length" would say; or a utilization that fits 128K.
  EXPECT_NE(p->nearest.find("--max-model-len 13008 on this card (TP 1)"), std::string::npos) << p->nearest;
  EXPECT_NE(p->nearest.find("--gpu-memory-utilization 0.53 (TP 1)"), std::string::npos) << p->nearest;
}

TEST(PlanPlanner, PipelineParallelOnlyWhereTpAloneCannotFit) {
  Request r;
  r.max_model_len = 4096;
  // Qwen3-Next on 8 BW1000: 148 GiB of weights fit at TP 4 and 8, so no PP rows are tried.
  auto p = plan("qwen3-next-80b-a3b-instruct", "BW1000", 8, r);
  ASSERT_TRUE(p.ok());
  ASSERT_NE(p->chosen(), nullptr);
  for (const auto& o : p->options) EXPECT_EQ(o.pp, 1);
  // Qwen3-32B on two 32 GB Z100: neither TP 1 nor TP 2 holds 61 GiB of weights, so TP 1 × PP 2 is
  // tried as well; it fails too, and the nearest that works needs four cards.
  auto q = plan("qwen3-32b", "Z100", 2, r);
  ASSERT_TRUE(q.ok());
  bool has_pp = false;
  for (const auto& o : q->options) has_pp = has_pp || (o.tp == 1 && o.pp == 2);
  EXPECT_TRUE(has_pp);
  EXPECT_EQ(q->chosen(), nullptr);
  EXPECT_NE(q->nearest.find("--count 4"), std::string::npos) << q->nearest;
}

TEST(PlanPlanner, Fp8KvOptionsOnlyWhereTheCardHasFp8) {
  Request r;
  r.max_model_len = 131072;
  r.min_concurrency = 64;
  auto p = plan("llama-3.1-8b-instruct", "H100", 1, r);
  ASSERT_TRUE(p.ok());
  bool fp8 = false;
  for (const auto& o : p->options) fp8 = fp8 || o.kv_cache_dtype == "fp8";
  EXPECT_TRUE(fp8);
  EXPECT_EQ(advice(*p, "--dtype"), "bfloat16");
  EXPECT_EQ(advice(*p, "--enforce-eager"), "false");
  EXPECT_EQ(advice(*p, "--gpu-memory-utilization"), "0.90");
}

TEST(PlanPlanner, BadInputNamesTheInputAndTheNearestValue) {
  Request r;
  auto gpu = plan("qwen3-8b", "BW2000", 1, r);
  ASSERT_FALSE(gpu.ok());
  EXPECT_NE(gpu.error().message.find("the nearest is 'bw1000'"), std::string::npos) << gpu.error().message;

  r.kv_cache_dtype = "fp8";
  auto fp8 = plan("qwen3-8b", "BW1000", 1, r);
  ASSERT_FALSE(fp8.ok());
  EXPECT_NE(fp8.error().message.find("has no FP8"), std::string::npos);
  EXPECT_NE(fp8.error().message.find("pass --kv-cache-dtype auto"), std::string::npos);

  Request util;
  util.gpu_memory_utilization = 1.5;
  auto u = plan("qwen3-8b", "BW1000", 1, util);
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message.find("--gpu-memory-utilization 1.5"), std::string::npos);
  EXPECT_NE(u.error().message.find("pass 0.85"), std::string::npos);

  Request block;
  block.block_size = 7;
  auto b = plan("qwen3-8b", "H100", 1, block);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("the nearest is 8"), std::string::npos) << b.error().message;

  Request len;
  len.max_model_len = 100000;
  auto l = plan("qwen3-8b", "H100", 1, len);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("Pass --max-model-len 40960 or less"), std::string::npos);

  Request bf16;
  bf16.dtype = "bfloat16";
  auto d = plan("qwen3-8b", "BW1000", 1, bf16);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("pass --dtype float16"), std::string::npos);
}

TEST(PlanPlanner, DetectedCardsCarryFreeMemoryAndNumaNodes) {
  std::vector<dcukit::device::DetectedDevice> devices(2);
  for (int i = 0; i < 2; ++i) {
    auto& d = devices[static_cast<std::size_t>(i)];
    d.backend = dcukit::device::BackendKind::hip;
    d.info.index = i + 4;
    d.info.name = "BW";  // as seed 000's runtime names it; the arch identifies the card
    d.info.arch = "gfx936";
    d.memory.total = 68698001900;
    d.memory.free = i == 0 ? 68000000000 : 30000000000;  // the second card is half taken
    d.numa_node = 2;
  }
  auto cards = cards_from_detected(devices, 0);
  ASSERT_TRUE(cards.ok());
  EXPECT_EQ(cards->free_bytes, 30000000000u);
  EXPECT_EQ(cards->key, "bw1000");
  EXPECT_TRUE(cards->dcu());
  const auto in = load("qwen3-8b");
  Request r;
  r.max_model_len = 8192;
  auto p = make_plan(in.model, in.weights, *cards, r);
  ASSERT_TRUE(p.ok());
  // 30.0 GB free of 68.7 GB: vLLM would refuse 0.9, so plan lowers the utilization to fit.
  EXPECT_EQ(advice(*p, "--gpu-memory-utilization"), "0.42");
  ASSERT_NE(p->chosen(), nullptr);
  auto script = emit_vllm(*p, {});
  ASSERT_TRUE(script.ok());
  EXPECT_NE(script->find("export HIP_VISIBLE_DEVICES=4"), std::string::npos) << *script;
  EXPECT_NE(script->find("NUMA_NODE=${NUMA_NODE:-2}"), std::string::npos);

  auto too_many = cards_from_detected(devices, 3);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("pass --count 2"), std::string::npos);
  auto none = cards_from_detected({}, 0);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("pass --gpu NAME"), std::string::npos);
}

TEST(PlanPlanner, LaunchScriptInSeed004sForm) {
  Request r;
  r.max_model_len = 32768;
  auto p = plan("qwen3-32b", "BW1000", 4, r);
  ASSERT_TRUE(p.ok());
  EmitOptions e;
  e.toolkit_env = "/opt/dtk-26.04/env.sh";
  auto s = emit_vllm(*p, e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  for (const char* needle : {"#!/bin/bash", "source '/opt/dtk-26.04/env.sh'",
                             "export TRITON_HIP_LLD_PATH='/opt/dtk-26.04/llvm/bin/ld.lld'",
                             "export HIP_VISIBLE_DEVICES=0,1,2,3", "numactl --cpunodebind=\"$NUMA_NODE\" --membind=\"$NUMA_NODE\"",
                             "vllm serve \"$MODEL\" \"${args[@]}\"", "--tensor-parallel-size 4", "--dtype float16",
                             "--gpu-memory-utilization 0.85", "--max-model-len 32768", "--enforce-eager"})
    EXPECT_NE(s->find(needle), std::string::npos) << needle << "\n" << *s;
  // Every flag in the args array carries a comment saying why.
  std::size_t flags = 0, pos = 0;
  while ((pos = s->find("\n  --", pos)) != std::string::npos) {
    const auto end = s->find('\n', pos + 1);
    EXPECT_NE(s->substr(pos, end - pos).find(" # "), std::string::npos) << s->substr(pos, end - pos);
    ++flags, pos = end;
  }
  EXPECT_GE(flags, 10u);

  auto h100 = plan("llama-3.1-8b-instruct", "H100", 1, Request{});
  ASSERT_TRUE(h100.ok());
  auto cuda = emit_vllm(*h100, {});
  ASSERT_TRUE(cuda.ok());
  EXPECT_NE(cuda->find("export CUDA_VISIBLE_DEVICES=0"), std::string::npos);
  EXPECT_EQ(cuda->find("source "), std::string::npos);
  EXPECT_NE(cuda->find("# --enforce-eager left off"), std::string::npos);
}

TEST(PlanPlanner, JsonCarriesTheSameNumbersAsTheTable) {
  Request r;
  r.max_model_len = 32768;
  auto p = plan("qwen3-32b", "BW1000", 4, r);
  ASSERT_TRUE(p.ok());
  const auto j = nlohmann::json::parse(render_json(*p));
  EXPECT_EQ(j["recommended"].get<int>(), p->recommended);
  EXPECT_EQ(j["weights"]["total_bytes"].get<std::uint64_t>(), 65524246528u);
  const auto& o = j["options"][static_cast<std::size_t>(p->recommended)];
  EXPECT_EQ(o["budget"]["tokens"].get<std::int64_t>(), p->chosen()->budget.tokens);
  EXPECT_EQ(o["budget"]["kv_bytes_per_token"].get<std::int64_t>(), 65536);
  const auto text = render_text(*p);
  EXPECT_NE(text.find("* recommended"), std::string::npos);
  EXPECT_NE(text.find("TP 4"), std::string::npos);
}

TEST(PlanPlanner, Fp8CheckpointOnACardWithoutFp8IsWarnedAbout) {
  Request r;
  r.max_model_len = 32768;
  auto p = plan("deepseek-v3", "BW1000", 16, r);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_NE(p->warnings[0].find("has no FP8"), std::string::npos);
  // 627 GiB of weights: TP 8 alone leaves 78 GiB a card, above a BW1000's 54 GiB; TP 8 × PP 2 fits.
  ASSERT_NE(p->chosen(), nullptr) << p->reason;
  EXPECT_EQ(p->chosen()->tp, 8);
  EXPECT_EQ(p->chosen()->pp, 2);
}

TEST(PlanPlanner, HybridAndMlaModelsPlan) {
  Request r;
  r.max_model_len = 32768;
  auto next = plan("qwen3-next-80b-a3b-instruct", "H100", 4, r);
  ASSERT_TRUE(next.ok());
  ASSERT_NE(next->chosen(), nullptr) << next->reason << " / " << next->nearest;
  EXPECT_GT(next->chosen()->budget.kv.per_sequence, 0);
  auto ds = plan("deepseek-v2-lite", "BW1000", 1, r);
  ASSERT_TRUE(ds.ok());
  ASSERT_NE(ds->chosen(), nullptr) << ds->reason;
  EXPECT_EQ(ds->chosen()->budget.kv.per_token, 31104);
}
