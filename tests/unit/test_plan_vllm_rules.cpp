// vLLM's accounting version by version: versions, the rule table, defaults, and the budget terms
// worked by hand against what the logs in tests/fixtures/vllm-logs printed.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fixture_model.h"
#include "core/units.h"
#include "plan/cards.h"
#include "plan/model_config.h"
#include "plan/vllm_budget.h"
#include "plan/vllm_plan.h"
#include "plan/vllm_rules.h"
#include "plan/vllm_version.h"
#include "plan/weights.h"

using namespace dcukit::plan;

namespace {
constexpr double kGiB = static_cast<double>(dcukit::core::kGiB);

VllmVersion version(const char* text) {
  auto v = parse_vllm_version(text);
  EXPECT_TRUE(v.ok()) << text;
  return *v;
}

ModelConfig model(const char* name) {
  return testutil::fixture_model(name);
}

Cards card(const char* name, int count = 1) {
  auto c = cards_from_name(name, count);
  EXPECT_TRUE(c.ok());
  return *c;
}

Settings settings(std::int64_t len, std::int64_t tokens, int seqs, Dtype dtype = Dtype::bfloat16) {
  Settings s;
  s.max_model_len = len;
  s.max_num_batched_tokens = tokens;
  s.max_num_seqs = seqs;
  s.dtype = dtype;
  return s;
}
}  // namespace

TEST(PlanVllmVersion, UpstreamDevAndDcuBuilds) {
  const auto dcu = version("0.18.1+das.dtk2604");  // seed 000's BW1000 environment
  EXPECT_EQ(dcu.upstream(), "0.18.1");
  EXPECT_TRUE(dcu.dcu);
  const auto probed = version("0.18.1das.dtk2604");  // vllm.__version__ on that host, as the stack probe reads it
  EXPECT_EQ(probed.upstream(), "0.18.1");
  EXPECT_TRUE(probed.dcu);
  EXPECT_EQ(version("v0.7.2").upstream(), "0.7.2");
  EXPECT_EQ(version("0.10.1.1").upstream(), "0.10.1");
  const auto dev = version("0.6.3.dev114+g4f95ffee");
  EXPECT_EQ(dev.upstream(), "0.6.3");
  EXPECT_TRUE(dev.dev);
  EXPECT_FALSE(dev.dcu);
  EXPECT_LT(compare(version("0.9.2"), version("0.10.1")), 0);
  auto untagged = parse_vllm_version("0.1.dev7548+gbaba038");  // vllm-pr20665's source build
  ASSERT_FALSE(untagged.ok());
  EXPECT_NE(untagged.error().message.find("pass --vllm-version"), std::string::npos);
  EXPECT_FALSE(parse_vllm_version("main").ok());
  for (const char* bad : {"-1.0", "0.-1", "+1.0", "1.+2", "99999999999.1", " .1", "1..2"})
    EXPECT_FALSE(parse_vllm_version(bad).ok()) << bad;
}

TEST(PlanVllmVersion, FlagThenHostThenNewestKnown) {
  auto flag = choose_vllm(std::string("0.10.1"), HostVllm{std::string("0.6.3"), ""});
  ASSERT_TRUE(flag.ok());
  EXPECT_EQ(flag->version.upstream(), "0.10.1");
  EXPECT_EQ(flag->from, "--vllm-version 0.10.1");
  auto host = choose_vllm(std::nullopt, HostVllm{std::string("0.18.1das.dtk2604"), ""});  // vllm.__version__ on DCU
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->version.upstream(), "0.18.1");
  EXPECT_NE(host->from.find("installed on this host; a DCU build follows its upstream"), std::string::npos)
      << host->from;
  auto none = choose_vllm(std::nullopt, std::nullopt);  // cards named: this host is not asked
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->version.upstream(), newest_known_vllm().upstream());
  EXPECT_NE(none->from.find("newest the data knows"), std::string::npos);
  auto absent = choose_vllm(std::nullopt, HostVllm{std::nullopt, "ModuleNotFoundError: No module named 'vllm'"});
  ASSERT_TRUE(absent.ok());
  EXPECT_NE(absent->from.find("no vLLM on this host: ModuleNotFoundError"), std::string::npos) << absent->from;
  auto odd = choose_vllm(std::nullopt, HostVllm{std::string("main"), ""});
  ASSERT_TRUE(odd.ok());
  EXPECT_NE(odd->from.find("'main' names no release"), std::string::npos) << odd->from;
  auto bad = choose_vllm(std::string("x.y"), std::nullopt);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("--vllm-version x.y:", 0), 0u) << bad.error().message;
}

TEST(PlanVllmRules, EveryRuleNamesItsSource) {
  for (const auto& r : accounting_rules()) {
    EXPECT_TRUE(parse_vllm_version(r.since).ok()) << r.since;
    EXPECT_GT(r.source.size(), 20u) << r.since;
  }
}

TEST(PlanVllmRules, FoldedVersionByVersion) {
  const auto v041 = vllm_rules(version("0.4.1"));
  EXPECT_EQ(v041.engine, VllmEngine::v0);
  EXPECT_EQ(v041.v0_formula, ProfileFormula::free_delta);
  EXPECT_EQ(v041.v0_chunked_tokens, 512);
  EXPECT_EQ(v041.v0_auto_chunk_above, 0);
  const auto v064 = vllm_rules(version("0.6.4.post1"));
  EXPECT_EQ(v064.v0_formula, ProfileFormula::torch_peak);
  EXPECT_EQ(v064.v0_auto_chunk_above, 32768);
  EXPECT_EQ(v064.v0_chunked_tokens, 512);
  const auto v066 = vllm_rules(version("0.6.6"));
  EXPECT_EQ(v066.v0_formula, ProfileFormula::snapshot);
  EXPECT_EQ(v066.v0_chunked_tokens, 2048);
  const auto v0101 = vllm_rules(version("0.10.1.1"));
  EXPECT_EQ(v0101.engine, VllmEngine::v1);
  EXPECT_EQ(v0101.v1_formula, ProfileFormula::snapshot);
  EXPECT_TRUE(v0101.v1_big_gpu_by_memory);
  EXPECT_EQ(v0101.v1_big_gpu_seqs, 1024);
  EXPECT_TRUE(v0101.hybrid_allocator);
  EXPECT_EQ(v0101.concurrency, ConcurrencyRule::request_blocks);
  EXPECT_FALSE(v0101.graphs_profiled_cuda);
  EXPECT_EQ(v0101.sampler, SamplerKind::native_sort);
  // The vision attention's rotation of q and k (Qwen2-VL and Qwen2.5-VL towers).
  EXPECT_EQ(v0101.vision_rotary, VisionRotary::split_fp32);
  EXPECT_EQ(vllm_rules(version("0.11.0")).vision_rotary, VisionRotary::cat_fp32_copies);
  EXPECT_EQ(vllm_rules(version("0.11.2")).vision_rotary, VisionRotary::cat_fp32);
  EXPECT_EQ(vllm_rules(version("0.12.0")).vision_rotary, VisionRotary::packed);
  EXPECT_EQ(vllm_rules(version("0.6.3")).vision_rotary, VisionRotary::split_fp32);
  // V0's dummy images and videos for Qwen2-VL towers, from the processor (0.7.2 on).
  EXPECT_FALSE(vllm_rules(version("0.7.1")).qwen_v0_dummy);
  EXPECT_TRUE(vllm_rules(version("0.7.2")).qwen_v0_dummy);
  const auto dcu = vllm_rules(version("0.18.1+das.dtk2604"));
  EXPECT_FALSE(dcu.graphs_profiled_cuda);
  const auto v021 = vllm_rules(version("0.21.0"));
  EXPECT_TRUE(v021.graphs_profiled_cuda);
  EXPECT_FALSE(v021.graphs_profiled_rocm);
  EXPECT_EQ(v021.sampler, SamplerKind::flashinfer);
  EXPECT_TRUE(vllm_rules(version("0.28.0")).graphs_profiled_rocm);
  EXPECT_FALSE(vllm_rules(version("0.7.2")).rocm_device_weights);
  EXPECT_TRUE(vllm_rules(version("0.7.3")).rocm_device_weights);
  EXPECT_FALSE(vllm_rules(version("0.20.0")).tokens_from_concurrency);
  EXPECT_TRUE(v021.tokens_from_concurrency);
  EXPECT_FALSE(vllm_rules(version("0.10.2")).nvswitch_late);
  EXPECT_TRUE(vllm_rules(version("0.19.0")).nvswitch_late);
}

TEST(PlanVllmRules, LinearAttentionLayersShareOnePoolOfRaisedBlocks) {
  // Qwen3-Next at TP 2 on 0.10.2 (legalai-2xh200-qwen3-next-80b-tp2-v0102-hybrid.txt): one Gated
  // DeltaNet layer's state is (2 x 2048 + 4096) / 2 x 3 x 2 + 16 x 128 x 128 x 2 = 548,864 B a rank,
  // an attention layer 1 x 256 x 2 x 2 = 1,024 B a token: 16 x ceil(548864 / 16384) = 544 tokens a
  // block ("Setting attention block size to 544 tokens"), groups of 12 layers: 1 full + 3 linear.
  const auto m = model("qwen3-next-80b-a3b-instruct");
  auto s = settings(262144, 8192, 1024);
  const auto ctx = default_context(vllm_rules(version("0.10.2")), card("h200-sxm", 2));
  ASSERT_TRUE(linear_hybrid_pool(m, ctx));
  const auto lay = vllm_kv_layout(m, s, 2, 1, ctx, 44.59 * kGiB);
  EXPECT_EQ(lay.block_size, 544);
  EXPECT_EQ(lay.groups, 4);
  EXPECT_EQ(lay.layers_per_group, 12);
  EXPECT_DOUBLE_EQ(lay.pool_block_bytes, 544.0 * 1024 * 12);
  EXPECT_EQ(lay.blocks, 7162);                  // vLLM printed num_gpu_blocks 7162
  EXPECT_EQ(lay.tokens, 7162 / 4 * 544);        // 973,760 as printed
  EXPECT_NEAR(lay.max_concurrency, 14.77, 0.005);  // 7162 / (482 + 3)
  // From 0.21 the tokens are the concurrency times the length.
  const auto late = vllm_kv_layout(m, s, 2, 1, default_context(vllm_rules(version("0.27.1")), card("h200-sxm", 2)),
                                   44.59 * kGiB);
  EXPECT_EQ(late.tokens, static_cast<std::int64_t>(late.max_concurrency * 262144));
  // V0 keeps whole requests: no pool.
  EXPECT_FALSE(linear_hybrid_pool(m, default_context(vllm_rules(version("0.6.6")), card("h200-sxm", 2))));
}

TEST(PlanVllmRules, DefaultsFollowVersionAndCard) {
  auto ctx = [](const char* v, const Cards& c) { return default_context(vllm_rules(version(v)), c); };
  const auto a100 = card("a100-sxm-80gb"), h100 = card("h100-sxm");
  // V1 0.10: the A100 keeps the small defaults (PR #17885), the H100 gets 8192 tokens and 1024 sequences.
  auto d = vllm_defaults(ctx("0.10.1", a100), a100, 16384, false, std::nullopt);
  EXPECT_EQ(d.max_num_batched_tokens, 2048);
  EXPECT_EQ(d.max_num_seqs, 256);
  d = vllm_defaults(ctx("0.10.1", h100), h100, 16384, false, std::nullopt);
  EXPECT_EQ(d.max_num_batched_tokens, 8192);
  EXPECT_EQ(d.max_num_seqs, 1024);
  EXPECT_EQ(vllm_defaults(ctx("0.10.1", h100), h100, 16384, true, std::nullopt).max_num_batched_tokens, 16384);
  // 0.8 chose by name: an H100 got 8192 tokens but 256 sequences.
  d = vllm_defaults(ctx("0.8.5", h100), h100, 16384, false, std::nullopt);
  EXPECT_EQ(d.max_num_batched_tokens, 8192);
  EXPECT_EQ(d.max_num_seqs, 256);
  // V0: max(len, 2048) without chunked prefill; above 32K chunked prefill turns itself on.
  EXPECT_EQ(vllm_defaults(ctx("0.6.3", a100), a100, 8192, false, std::nullopt).max_num_batched_tokens, 8192);
  EXPECT_EQ(vllm_defaults(ctx("0.6.3", a100), a100, 131072, false, std::nullopt).max_num_batched_tokens, 512);
  EXPECT_EQ(vllm_defaults(ctx("0.6.6", a100), a100, 131072, false, std::nullopt).max_num_batched_tokens, 2048);
  EXPECT_EQ(vllm_defaults(ctx("0.6.6", a100), a100, 131072, false, false).max_num_batched_tokens, 131072);
}

TEST(PlanVllmRules, PlatformOfTheCards) {
  EXPECT_EQ(platform_of(card("bw1000")), VllmPlatform::dcu);
  EXPECT_EQ(platform_of(card("mi300x")), VllmPlatform::rocm_cdna);
  EXPECT_EQ(platform_of(card("h100-sxm")), VllmPlatform::cuda);
  Cards radeon;  // a card the peak data lacks, named ROCm by its log: W7900's 44.98 GiB
  radeon.total_bytes = static_cast<std::uint64_t>(44.98 * kGiB);
  EXPECT_EQ(platform_of(radeon, true), VllmPlatform::rocm_rdna);
}

TEST(PlanVllmRules, KvLayoutOfAFullAttentionModel) {
  // Qwen2-7B at TP 2: 28 layers · 2 · 2 heads · 128 · 2 B = 28,672 B a token, 458,752 B a block.
  // vllm-logs/dennislee22-a100-40g...: 25,809 blocks, 412,944 tokens, 25.20x at 16,384.
  const auto m = model("qwen2-7b-instruct");
  auto ctx = default_context(vllm_rules(version("0.10.1")), card("a100-sxm-80gb"));
  const auto lay = vllm_kv_layout(m, settings(16384, 2048, 256), 2, 1, ctx, 25809.0 * 458752 + 1000);
  EXPECT_EQ(lay.blocks, 25809);
  EXPECT_EQ(lay.tokens, 412944);
  EXPECT_NEAR(lay.max_concurrency, 25809.0 / 1024, 1e-9);  // 25.20
  EXPECT_EQ(lay.groups, 1);
}

TEST(PlanVllmRules, KvLayoutOfSlidingWindowGroups) {
  // gpt-oss-120b at TP 4: 2 KV heads · 64 · 2 (K, V) · 2 B · 16 = 8,192 B a layer-block. 18 full and 18 window
  // layers make 2 groups of 18 sharing the pool: blocks = bytes / 8,192 / 18; tokens = blocks // 2 · 16.
  // A request: 1,024 full blocks + cdiv(min(128 - 1 + 2,048, 16,384), 16) + 1 = 137 window blocks.
  // vllm-logs/dennislee22-a100-80g-gptoss120b...: 330,018 blocks, 2,640,144 tokens, 284.25x.
  const auto m = model("gpt-oss-120b");
  auto ctx = default_context(vllm_rules(version("0.10.1")), card("a100-sxm-80gb", 4));
  const auto lay = vllm_kv_layout(m, settings(16384, 2048, 256), 4, 1, ctx, 330018.0 * 8192 * 18 + 100);
  EXPECT_EQ(lay.groups, 2);
  EXPECT_EQ(lay.layers_per_group, 18);
  EXPECT_EQ(lay.blocks, 330018);
  EXPECT_EQ(lay.tokens, 2640144);
  EXPECT_NEAR(lay.max_concurrency, 330018.0 / 1161, 1e-9);  // 284.25
  // Before the hybrid allocator (and in V0) window layers take a full page a block each.
  auto v0 = default_context(vllm_rules(version("0.6.6")), card("a100-sxm-80gb", 4));
  EXPECT_EQ(vllm_kv_layout(m, settings(16384, 2048, 256), 4, 1, v0, 330018.0 * 8192 * 18 + 100).blocks, 165009);
}

TEST(PlanVllmRules, ActivationIsTheLargerOfForwardAndSampler) {
  // Qwen2.5-1.5B in fp16, 32,768 tokens (notebook-t4, V0 0.7.2): the forward pass holds 3·1,536 of
  // hidden states and 3·8,960 of MLP a token: 32,768 · 2 · 31,488 = 2,063,597,568 B (vLLM: 2.02 GiB).
  // The sampler's 256 rows: 256 · 151,936 · 38 + 32,768 · 1,536 · 2 = 1,578,696,704 B, smaller.
  const auto qwen = model("qwen2.5-1.5b-instruct");
  Cards t4;
  t4.total_bytes = static_cast<std::uint64_t>(14.56 * kGiB);
  auto ctx = default_context(vllm_rules(version("0.7.2")), t4);
  auto w = count_weights(qwen);
  ASSERT_TRUE(w.ok());
  auto s = settings(32768, 32768, 256, Dtype::float16);
  s.gpu_memory_utilization = 0.5;
  const auto b = vllm_budget(qwen, *w, t4, s, 1, 1, ctx);
  EXPECT_DOUBLE_EQ(b.forward, 2063597568.0);
  EXPECT_DOUBLE_EQ(b.sampler, 1578696704.0);
  EXPECT_DOUBLE_EQ(b.budget.activation, b.forward);
  EXPECT_NEAR(b.budget.non_torch / kGiB, 0.10, 1e-12);
  EXPECT_DOUBLE_EQ(b.budget.graphs, 0);  // V0 captures graphs after sizing the cache
  // Llama-3.1-70B with 4,096 sequences (lhl-mi300x...fp8): 4,096 · 128,256 · 38 + 32,768 · 8,192 · 2
  // = 20,499,660,800 B = 19.09 GiB, the activation peak that log printed.
  const auto llama = model("llama-3.1-70b-instruct");
  auto mi = card("mi300x");
  auto c064 = default_context(vllm_rules(version("0.6.4")), mi);
  auto wl = count_weights(llama);
  ASSERT_TRUE(wl.ok());
  const auto bl = vllm_budget(llama, *wl, mi, settings(32768, 32768, 4096), 1, 1, c064);
  EXPECT_DOUBLE_EQ(bl.sampler, 20499660800.0);
  EXPECT_NEAR(bl.budget.activation / kGiB, 19.09, 0.005);
  EXPECT_NEAR(bl.budget.non_torch / kGiB, 2.20 + 0.25, 1e-12);  // Instinct base + the context 0.6.4 counts
  // V1 samples one row a request, never more rows than tokens.
  auto v1 = default_context(vllm_rules(version("0.10.1")), t4);
  EXPECT_EQ(vllm_budget(qwen, *w, t4, settings(32768, 128, 256), 1, 1, v1).sampler_rows, 128);
}

TEST(PlanVllmRules, NonTorchAndGraphsByPlatformAndVersion) {
  const auto m = model("qwen3-32b");
  auto w = count_weights(m);
  ASSERT_TRUE(w.ok());
  const auto h100 = card("h100-sxm", 2);
  auto s = settings(32768, 8192, 1024);
  auto c0101 = default_context(vllm_rules(version("0.10.1")), h100);
  // The peak data sells an SXM Hopper card on an NVSwitch board with NVLS: 1.38 at TP 2 (the H200 log's figure),
  // 0.17 more a peer (2.40 at TP 8); without P2P (custom all-reduce off) the PCIe terms.
  ASSERT_TRUE(c0101.nvswitch);
  EXPECT_NEAR(vllm_budget(m, *w, h100, s, 2, 1, c0101).budget.non_torch / kGiB, 0.10 + 1.11 + 0.17, 1e-12);
  EXPECT_NEAR(vllm_budget(m, *w, card("h100-sxm", 8), s, 8, 1, c0101).budget.non_torch / kGiB, 0.10 + 1.11 + 7 * 0.17,
              1e-12);
  auto no_p2p = c0101;
  no_p2p.custom_all_reduce = false;
  EXPECT_NEAR(vllm_budget(m, *w, h100, s, 2, 1, no_p2p).budget.non_torch / kGiB, 0.10 + 0.10, 1e-12);
  const auto a100 = card("a100-sxm-80gb", 2);
  auto ca100 = default_context(vllm_rules(version("0.10.1")), a100);
  EXPECT_FALSE(ca100.nvswitch);
  EXPECT_NEAR(vllm_budget(m, *w, a100, s, 2, 1, ca100).budget.non_torch / kGiB, 0.10 + 0.10 + 0.35, 1e-12);
  EXPECT_DOUBLE_EQ(vllm_budget(m, *w, h100, s, 2, 1, c0101).budget.graphs, 0);
  auto c021 = default_context(vllm_rules(version("0.21.0")), h100);
  EXPECT_GT(vllm_budget(m, *w, h100, s, 2, 1, c021).budget.graphs, 0);  // profiled since 0.21
  s.enforce_eager = true;
  EXPECT_DOUBLE_EQ(vllm_budget(m, *w, h100, s, 2, 1, c021).budget.graphs, 0);
  const auto mi = card("mi300x", 8);
  auto cmi = default_context(vllm_rules(version("0.6.3")), mi);
  EXPECT_NEAR(vllm_budget(m, *w, mi, s, 8, 1, cmi).budget.non_torch / kGiB, 2.20 + 7 * 0.70, 1e-12);
}

TEST(PlanVllmRules, APlanFollowsTheVersionsDefaults) {
  const auto m = model("qwen3-32b");
  auto w = count_weights(m);
  ASSERT_TRUE(w.ok());
  Asked r;
  r.max_model_len = 16384;
  const ChosenVllm v0101{version("0.10.1"), "--vllm-version 0.10.1"};
  auto p = make_plan(m, *w, card("h100-sxm", 2), r, vllm_budget_model(v0101));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->settings.max_num_batched_tokens, 8192);
  EXPECT_EQ(p->settings.max_num_seqs, 1024);
  EXPECT_NE(p->settings.why.max_num_seqs.find("vLLM 0.10.1"), std::string::npos) << p->settings.why.max_num_seqs;
  EXPECT_NE(p->settings.why.max_num_batched_tokens.find("vLLM 0.10.1"), std::string::npos);
  ASSERT_TRUE(p->accounting.has_value());
  EXPECT_EQ(p->accounting->from, "--vllm-version 0.10.1");
  // A flag the user gave stays.
  r.max_num_seqs = 64;
  auto q = make_plan(m, *w, card("h100-sxm", 2), r, vllm_budget_model(v0101));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->settings.max_num_seqs, 64);
  EXPECT_EQ(q->settings.why.max_num_seqs, "as asked");
  // A token budget below the version's default sequences is what vLLM refuses: the error says both ways out.
  r.max_num_seqs.reset();
  r.max_num_batched_tokens = 512;
  auto refused = make_plan(m, *w, card("h100-sxm", 2), r, vllm_budget_model(v0101));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--max-num-batched-tokens 512 is below --max-num-seqs 1024"),
            std::string::npos)
      << refused.error().message;
  // The generic estimate names no version.
  auto generic = make_plan(m, *w, card("h100-sxm", 2), Asked{});
  ASSERT_TRUE(generic.ok());
  EXPECT_FALSE(generic->accounting.has_value());
}
