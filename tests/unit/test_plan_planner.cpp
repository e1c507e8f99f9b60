// Options, the recommendation, card-following settings, bad input and the outputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "device/registry.h"
#include "plan/cards.h"
#include "plan/emit_vllm.h"
#include "plan/flags.h"
#include "plan/model_config.h"
#include "plan/planner.h"
#include "plan/render.h"
#include "plan/weights.h"
#include "util/json_text.h"

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

dcukit::Result<Plan> plan(const char* model, const char* gpu, int count, Asked r) {
  const auto in = load(model);
  auto cards = cards_from_name(gpu, count);
  if (!cards) return cards.error();
  return make_plan(in.model, in.weights, *cards, r);
}

/// A flag's value as the tables and the script render it.
std::string flag(const Plan& p, std::string_view name) {
  for (const auto& f : engine_flags(p))
    if (f.name == name) return f.value.empty() ? (f.on ? "on" : "off") : f.value;
  return "?";
}
}  // namespace

TEST(PlanPlanner, Qwen3_32BOnFourBw1000At32K) {
  Asked r;
  r.max_model_len = 32768;
  r.kv_cache_dtype = KvCacheDtype::automatic;  // the fp8 KV cache is pinned in test_plan_dcu.cpp
  auto p = plan("qwen3-32b", "BW1000", 4, r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  // DCU → headroom 0.85 at long context, eager mode.
  EXPECT_EQ(flag(*p, "--gpu-memory-utilization"), "0.85");
  EXPECT_EQ(flag(*p, "--enforce-eager"), "on");
  EXPECT_EQ(flag(*p, "--kv-cache-dtype"), "auto");
  // TP 1, 2, 4 and 8 (which needs 8 cards), auto only as asked.
  ASSERT_EQ(p->options.size(), 4u);
  EXPECT_EQ(p->options[3].problem, "needs 8 cards, 4 available");
  for (const auto& o : p->options) EXPECT_EQ(o.kv_cache_dtype, KvCacheDtype::automatic);
  EXPECT_FALSE(p->options[0].starts());  // 61 GiB of weights on one 64 GB card
  EXPECT_TRUE(p->options[1].starts());
  ASSERT_NE(p->chosen(), nullptr);
  EXPECT_EQ(p->chosen()->tp, 4);  // TP 2 holds about 5 requests of 32K, under the default target of 8
  EXPECT_GT(p->chosen()->budget.max_concurrency, 8);
  EXPECT_EQ(p->chosen()->budget.graphs, 0);  // eager
}

TEST(PlanPlanner, NothingFitsNamesTheNearestOptionThatWorks) {
  Asked r;
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
  Asked r;  // Llama-3.1-8B at its full 131,072 tokens on a BW1000 at 0.3 utilization
  r.gpu_memory_utilization = 0.3;
  r.kv_cache_dtype = KvCacheDtype::automatic;
  auto p = plan("llama-3.1-8b-instruct", "BW1000", 1, r);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->chosen(), nullptr);
  EXPECT_NE(p->options[0].problem.find("vLLM refuses to start"), std::string::npos) << p->options[0].problem;
  // 14.96 GiB of weights and vLLM's 32 MiB RoPE table (131,072 positions) leave 1.56 GiB of
  // 0.3 × 63.98 GiB: 12,752 tokens at 128 KiB a token, as
  // vLLM's own "estimated maximum model length" would say; or a utilization that fits 128K; or
  // the fp8 KV cache, which vLLM on a BW1000 has (seed 004).
  EXPECT_NE(p->nearest.find("--max-model-len 12752 on this card (TP 1)"), std::string::npos) << p->nearest;
  EXPECT_NE(p->nearest.find("--gpu-memory-utilization 0.53 (TP 1)"), std::string::npos) << p->nearest;
}

TEST(PlanPlanner, PipelineParallelOnlyWhereTpAloneCannotFit) {
  Asked r;
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

TEST(PlanPlanner, Fp8KvRowsWhereTheCardsVllmHasIt) {
  Asked r;
  r.max_model_len = 131072;
  r.min_concurrency = 64;
  auto p = plan("llama-3.1-8b-instruct", "H100", 1, r);
  ASSERT_TRUE(p.ok());
  bool fp8 = false;
  for (const auto& o : p->options) fp8 = fp8 || o.kv_cache_dtype == KvCacheDtype::fp8;
  EXPECT_TRUE(fp8);
  EXPECT_EQ(flag(*p, "--dtype"), "bfloat16");
  EXPECT_EQ(flag(*p, "--enforce-eager"), "off");
  EXPECT_EQ(flag(*p, "--gpu-memory-utilization"), "0.9");
}

TEST(PlanPlanner, BadInputNamesTheInputAndTheNearestValue) {
  Asked r;
  auto gpu = plan("qwen3-8b", "BW2000", 1, r);
  ASSERT_FALSE(gpu.ok());
  EXPECT_NE(gpu.error().message.find("the nearest is 'bw1000'"), std::string::npos) << gpu.error().message;

  Asked util;
  util.gpu_memory_utilization = 1.5;
  auto u = plan("qwen3-8b", "BW1000", 1, util);
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message.find("--gpu-memory-utilization 1.5"), std::string::npos);
  EXPECT_NE(u.error().message.find("pass 0.85"), std::string::npos);

  Asked block;
  block.block_size = 7;
  auto b = plan("qwen3-8b", "H100", 1, block);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("the nearest is 8"), std::string::npos) << b.error().message;

  Asked len;
  len.max_model_len = 100000;
  auto l = plan("qwen3-8b", "H100", 1, len);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("Pass --max-model-len 40960 or less"), std::string::npos);

  Asked f32;
  f32.dtype = Dtype::float32;
  auto d = plan("qwen3-8b", "H100", 1, f32);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("pass --dtype bfloat16 or float16"), std::string::npos) << d.error().message;

  Asked few;
  few.min_concurrency = 0;
  EXPECT_FALSE(plan("qwen3-8b", "H100", 1, few).ok());
  EXPECT_FALSE(plan("qwen3-8b", "H100", 0, Asked{}).ok());
  EXPECT_FALSE(plan("qwen3-8b", "H100", 2000000000, Asked{}).ok());  // refused, not allocated
}

TEST(PlanPlanner, APublishedNoIsRefusedWithTheSource) {
  const auto in = load("qwen3-8b");
  auto cards = cards_from_name("A100", 1);
  ASSERT_TRUE(cards.ok());
  cards->fp8_kv_cache.published = {dcukit::core::Support::no, "a test's source", "", {}, ""};
  Asked fp8;
  fp8.kv_cache_dtype = KvCacheDtype::fp8;
  auto k = make_plan(in.model, in.weights, *cards, fp8);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("has no fp8 KV cache (a test's source)"), std::string::npos) << k.error().message;
  EXPECT_NE(k.error().message.find("pass --kv-cache-dtype auto"), std::string::npos);
  auto none = make_plan(in.model, in.weights, *cards, Asked{});  // and no fp8 rows are offered
  ASSERT_TRUE(none.ok());
  for (const auto& o : none->options) EXPECT_EQ(o.kv_cache_dtype, KvCacheDtype::automatic);
}

TEST(PlanPlanner, DetectedCardsCarryFreeMemoryAndNumaNodes) {
  std::vector<dcukit::device::DetectedDevice> devices(2);
  for (int i = 0; i < 2; ++i) {
    auto& d = devices[static_cast<std::size_t>(i)];
    d.backend = dcukit::device::BackendKind::hip;
    d.info.index = i + 4;
    d.info.name = "BW";  // as seed 000's runtime names it; the arch identifies the card
    d.info.arch = "gfx936:sramecc+:xnack-";
    d.memory.total = 68698001900;
    d.memory.free = i == 0 ? 68000000000 : 30000000000;  // the second card is half taken
    d.numa_node = 2;
  }
  auto cards = cards_from_detected(devices, 0);
  ASSERT_TRUE(cards.ok());
  EXPECT_EQ(cards->free_bytes, 30000000000u);
  EXPECT_EQ(cards->key, "bw1000");
  EXPECT_EQ(cards->arch, "gfx936");
  EXPECT_TRUE(cards->dcu());
  const auto in = load("qwen3-8b");
  Asked r;
  r.max_model_len = 8192;
  auto p = make_plan(in.model, in.weights, *cards, r);
  ASSERT_TRUE(p.ok());
  // 30.0 GB free of 68.7 GB: vLLM would refuse 0.9, so plan lowers the utilization to fit.
  EXPECT_EQ(flag(*p, "--gpu-memory-utilization"), "0.42");
  ASSERT_NE(p->chosen(), nullptr);
  auto script = emit_vllm(*p, {});
  ASSERT_TRUE(script.ok());
  EXPECT_NE(script->find("export HIP_VISIBLE_DEVICES=4"), std::string::npos) << *script;
  EXPECT_NE(script->find("exec numactl --cpunodebind=2 --membind=2 \\"), std::string::npos) << *script;

  auto too_many = cards_from_detected(devices, 3);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("pass --count 2"), std::string::npos);
  auto none = cards_from_detected({}, 0);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("pass --gpu NAME"), std::string::npos);
}

TEST(PlanPlanner, TheRuntimesIsaDecidesTheCard) {
  // The runtime calls it "K100" but reports gfx928: a K100-AI.
  std::vector<dcukit::device::DetectedDevice> devices(1);
  devices[0].backend = dcukit::device::BackendKind::hip;
  devices[0].info.name = "K100";
  devices[0].info.arch = "gfx928";
  devices[0].memory.total = 68702699520;
  auto cards = cards_from_detected(devices, 0);
  ASSERT_TRUE(cards.ok());
  EXPECT_EQ(cards->key, "k100-ai");
}

TEST(PlanPlanner, LaunchScriptInSeed004sForm) {
  Asked r;
  r.max_model_len = 32768;
  r.kv_cache_dtype = KvCacheDtype::automatic;
  auto p = plan("qwen3-32b", "BW1000", 4, r);
  ASSERT_TRUE(p.ok());
  EmitOptions e;
  e.toolkit_env = "/opt/dtk-26.04/env.sh";
  auto s = emit_vllm(*p, e);
  ASSERT_TRUE(s.ok()) << s.error().message;
  for (const char* needle :
       {"#!/bin/bash", "\nsource /opt/dtk-26.04/env.sh\n",
        "\nexport TRITON_HIP_LLD_PATH=/opt/dtk-26.04/llvm/bin/ld.lld\n", "\nexport HIP_VISIBLE_DEVICES=0,1,2,3\n",
        "\nexec numactl --cpunodebind=0 --membind=0 \\\n", "\n  vllm serve ", "\n  --tensor-parallel-size 4 \\\n",
        "\n  --dtype bfloat16 \\\n", "\n  --gpu-memory-utilization 0.85 \\\n", "\n  --max-model-len 32768 \\\n",
        "\n  --enforce-eager \\\n"})
    EXPECT_NE(s->find(needle), std::string::npos) << needle << "\n" << *s;
  // Every flag of the command has a line saying why in the comment block above it.
  std::size_t flags = 0, pos = 0;
  while ((pos = s->find("\n  --", pos)) != std::string::npos) {
    const auto end = s->find(' ', pos + 3);
    const auto name = s->substr(pos + 3, end - pos - 3);
    EXPECT_TRUE(s->find("#   " + name + " ") != std::string::npos || s->find("#   " + name + ":") != std::string::npos)
        << name;
    ++flags, ++pos;
  }
  EXPECT_GE(flags, 12u);

  auto h100 = plan("llama-3.1-8b-instruct", "H100", 1, Asked{});
  ASSERT_TRUE(h100.ok());
  auto cuda = emit_vllm(*h100, {});
  ASSERT_TRUE(cuda.ok());
  EXPECT_NE(cuda->find("export CUDA_VISIBLE_DEVICES=0"), std::string::npos);
  EXPECT_EQ(cuda->find("source "), std::string::npos);
  EXPECT_NE(cuda->find("# --enforce-eager left off"), std::string::npos);
}

TEST(PlanPlanner, JsonStartsWithRunInfoAndCarriesTheSameNumbersAsTheTable) {
  Asked r;
  r.max_model_len = 32768;
  auto p = plan("qwen3-32b", "BW1000", 4, r);
  ASSERT_TRUE(p.ok());
  Report report{dcukit::core::collect_run_info("dcukit plan", "dcukit plan --test"), *p};
  const auto text = dcukit::util::json_document(to_json(report));
  EXPECT_EQ(text.rfind("{\n  \"run_info\": {", 0), 0u) << text.substr(0, 80);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["run_info"]["command"], "dcukit plan --test");
  EXPECT_EQ(j["recommended"].get<int>(), p->recommended);
  EXPECT_EQ(j["weights"]["total_bytes"].get<std::uint64_t>(), 65524246528u);
  const auto& o = j["options"][static_cast<std::size_t>(p->recommended)];
  EXPECT_EQ(o["budget"]["tokens"].get<std::int64_t>(), p->chosen()->budget.tokens);
  EXPECT_EQ(o["kv_cache_dtype"], std::string(to_string(p->chosen()->kv_cache_dtype)));
  EXPECT_EQ(j["settings"]["kv_cache_dtype"], std::string(to_string(p->chosen()->kv_cache_dtype)));
  EXPECT_EQ(j["settings"]["dtype"], "bfloat16");
  EXPECT_EQ(j["why"]["dtype"].get<std::string>(), p->settings.why.dtype);
  EXPECT_EQ(j["cards"]["capabilities"]["bf16"]["decided_by"], "offline advice");
  EXPECT_EQ(j["cards"]["capabilities"]["fp8"]["value"], "no");
  const auto rendered = render_plan(*p);
  EXPECT_NE(rendered.find("* recommended"), std::string::npos);
  EXPECT_NE(rendered.find("TP 2"), std::string::npos);
}

TEST(PlanPlanner, OneLabelForAnOption) {
  Option o;
  o.tp = 8;
  o.pp = 2;
  EXPECT_EQ(label(o), "TP 8 × PP 2");
  o.pp = 1;
  EXPECT_EQ(label(o), "TP 8");
}

TEST(PlanPlanner, Fp8CheckpointOnACardWithoutFp8IsWarnedAbout) {
  Asked r;
  r.max_model_len = 32768;
  auto p = plan("deepseek-v3", "BW1000", 16, r);
  ASSERT_TRUE(p.ok());
  bool warned = false;
  for (const auto& w : p->warnings) warned = warned || w.find("has no FP8 compute") != std::string::npos;
  EXPECT_TRUE(warned);
  // 627 GiB of weights: TP 8 alone leaves 78 GiB a card, above a BW1000's 54 GiB; TP 8 × PP 2 fits.
  ASSERT_NE(p->chosen(), nullptr) << p->reason;
  EXPECT_EQ(p->chosen()->tp, 8);
  EXPECT_EQ(p->chosen()->pp, 2);
}

TEST(PlanPlanner, HybridAndMlaModelsPlan) {
  Asked r;
  r.max_model_len = 32768;
  auto next = plan("qwen3-next-80b-a3b-instruct", "H100", 4, r);
  ASSERT_TRUE(next.ok());
  ASSERT_NE(next->chosen(), nullptr) << next->reason << " / " << next->nearest;
  EXPECT_GT(next->chosen()->budget.kv.per_sequence, 0);
  r.kv_cache_dtype = KvCacheDtype::automatic;
  auto ds = plan("deepseek-v2-lite", "BW1000", 1, r);
  ASSERT_TRUE(ds.ok());
  ASSERT_NE(ds->chosen(), nullptr) << ds->reason;
  EXPECT_EQ(ds->chosen()->budget.kv.per_token, 31104);
}

TEST(PlanPlanner, DtypeAndKvTablesRoundTrip) {
  for (auto d : {Dtype::automatic, Dtype::bfloat16, Dtype::float16, Dtype::float32})
    EXPECT_EQ(parse_dtype(to_string(d)), d);
  EXPECT_EQ(parse_dtype("half"), Dtype::float16);
  EXPECT_EQ(parse_dtype("float"), Dtype::float32);
  EXPECT_EQ(parse_dtype("bf17"), std::nullopt);
  for (auto k : {KvCacheDtype::automatic, KvCacheDtype::fp8, KvCacheDtype::fp8_e4m3, KvCacheDtype::fp8_e5m2})
    EXPECT_EQ(parse_kv_cache_dtype(to_string(k)), k);
  EXPECT_EQ(to_string(KvCacheDtype::automatic), "auto");
  EXPECT_EQ(kv_element_bytes(KvCacheDtype::fp8_e5m2), 1);
  EXPECT_EQ(kv_element_bytes(KvCacheDtype::automatic), 2);
}

TEST(PlanPlanner, AMultimodalPlanSaysItsWeightsAndActivationAreUnsure) {
  // Qwen2.5-VL-7B: its vision tower is counted from vision_config, and vLLM's start-up profile runs
  // the encoder, which the activation leaves out: the plan does not call its weights exact.
  auto vl = plan("qwen2.5-vl-7b-instruct", "H100", 1, Asked{});
  ASSERT_TRUE(vl.ok()) << vl.error().message;
  const auto text = render_plan(*vl);
  EXPECT_NE(text.find("the weights hold its vision tower counted from vision_config (an estimate)"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("weights and KV/token are exact"), std::string::npos) << text;
  auto llm = plan("qwen3-8b", "H100", 1, Asked{});
  ASSERT_TRUE(llm.ok()) << llm.error().message;
  EXPECT_NE(render_plan(*llm).find("weights and KV/token are exact"), std::string::npos);
}
