// The plan against public vLLM start-up logs: same model, card and settings, within 5%; and the
// parser of those logs (V0 and V1 formats, reruns, wrapped and pasted-together lines).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/units.h"
#include "plan/cards.h"
#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/planner.h"
#include "plan/vllm_log.h"
#include "plan/vllm_log_text.h"
#include "plan/weights.h"

using namespace dcukit::plan;

namespace {
using dcukit::core::kGiB;

Plan plan_llama_on_h100(int count) {
  auto m = load_model_config(std::string(DCUKIT_FIXTURES) + "/models/meta-llama-3-8b");
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
}  // namespace

// Source: https://github.com/vllm-project/vllm/pull/10511 (comment of 2024-12-14, "Some sanity
// checks"), `vllm serve meta-llama/Meta-Llama-3-8B` on an H100 80GB with defaults:
//   total_gpu_memory 79.22GiB, gpu_memory_utilization 0.90, the current vLLM instance can use 71.29GiB,
//   model weights take 14.96GiB, non_torch_memory 1.79GiB, PyTorch activation peak memory 1.26GiB,
//   available_kv_cache_memory 53.29GiB
// and with -tp 2: model weights take 7.48GiB, non_torch_memory 3.58GiB, activation 1.26GiB, so
// 71.29 − 7.48 − 3.58 − 1.26 = 58.97GiB for the KV cache.
// Meta-Llama-3-8B's own config: Llama-3.1-8B has the same weights and KV geometry, but its 131,072
// positions make vLLM's RoPE table 32 MiB where this one's 8,192 make it 2 MiB.
// Defaults then: max_num_seqs 256, max_num_batched_tokens max(8192, 2048) = 8192, block 16, graphs.
// That vLLM captured graphs after sizing the cache; plan budgets them (0.5 GiB) and is still within 5%.
TEST(PlanVllmLog, Llama3_8B_H100_Tp1WithinFivePercent) {
  const auto p = plan_llama_on_h100(1);
  const auto& b = option(p, 1).budget;
  EXPECT_NEAR(b.usable / kGiB, 71.29, 0.01);   // 0.9 × 79.22 GiB: the card total is the runtime's
  EXPECT_NEAR(b.weights / kGiB, 14.96, 0.01);  // 16,060,522,496 B and the 2 MiB RoPE table
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

// ---- The start-up log parser, on the logs in tests/fixtures/vllm-logs (sources in their headers).

namespace {
VllmLog read_log(const char* name) {
  auto log = read_vllm_log(std::string(DCUKIT_FIXTURES) + "/vllm-logs/" + name);
  EXPECT_TRUE(log.ok()) << log.error().message;
  return log.ok() ? *log : VllmLog{};
}
}  // namespace

TEST(PlanVllmLogParse, NumbersAndSettingsInEveryFormVllmPrintsThem) {
  using namespace dcukit::plan::logtext;
  EXPECT_DOUBLE_EQ(*number_after("GPU KV cache size: 2,640,144 tokens", "size: "), 2640144);
  EXPECT_DOUBLE_EQ(*number_after("took 14.9888 GB", "took "), 14.9888);
  EXPECT_FALSE(number_after("took GB", "took ").has_value());
  EXPECT_EQ(*setting("tensor_parallel_size=2, pipeline_parallel_size=1", "tensor_parallel_size"), "2");
  EXPECT_EQ(*setting("{'max_model_len': 16384, 'x': 1}", "max_model_len"), "16384");
  EXPECT_EQ(*setting("vllm serve m --max-model-len 8192 --port 8000", "max_model_len"), "8192");
  EXPECT_EQ(*setting("vllm serve m --gpu_memory_utilization=0.98  /root/m", "gpu_memory_utilization"), "0.98");
  EXPECT_EQ(*setting("vllm serve m --quantization=\"fp8\" --x 1", "quantization"), "fp8");
  EXPECT_EQ(*setting("vllm serve m --enforce-eager --tensor-parallel-size=2", "enforce_eager"), "True");
  // kv_cache_dtype= is not dtype=: a setting is a whole name.
  EXPECT_EQ(*setting("kv_cache_dtype=auto, dtype=torch.float16", "dtype"), "torch.float16");
}

TEST(PlanVllmLogParse, V1LogHardWrappedByATerminal) {
  // 0.10.1.1 with Ray; the source file wraps at ~140 columns, inside words ("tensor_parallel_si" / "ze=2").
  const auto log = read_log("dennislee22-a100-40g-qwen2-7b-tp2-2nodes-u050.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const auto& r = log.runs[0];
  EXPECT_EQ(r.settings.version, "0.10.1.1");
  EXPECT_TRUE(r.settings.v1.value_or(false));
  EXPECT_EQ(r.settings.model, "Qwen2-7B-Instruct");
  EXPECT_EQ(r.settings.tp.value_or(0), 2);
  EXPECT_EQ(r.settings.pp.value_or(0), 1);
  EXPECT_DOUBLE_EQ(r.settings.gpu_memory_utilization.value_or(0), 0.5);
  EXPECT_EQ(r.settings.max_model_len.value_or(0), 16384);
  EXPECT_EQ(r.settings.max_num_batched_tokens.value_or(0), 2048);
  EXPECT_EQ(r.settings.dtype, Dtype::bfloat16);
  EXPECT_EQ(r.settings.kv_cache_dtype, KvCacheDtype::automatic);
  EXPECT_FALSE(r.settings.enforce_eager.value_or(true));
  EXPECT_EQ(r.format, VllmLogFormat::v1);
  EXPECT_DOUBLE_EQ(r.figures.weights.value_or(0), 7.1217);
  EXPECT_DOUBLE_EQ(r.figures.available_kv.value_or(0), 11.03);
  EXPECT_EQ(r.figures.kv_tokens.value_or(0), 412944);
  EXPECT_EQ(r.figures.gpu_blocks.value_or(0), 25809);  // "num_gpu_blocks is:\n 25809", joined
  EXPECT_DOUBLE_EQ(r.figures.max_concurrency.value_or(0), 25.20);
  EXPECT_FALSE(r.settings.flashinfer_sampler.has_value());  // this excerpt leaves the sampler line out
}

TEST(PlanVllmLogParse, SamplerAndCustomAllReduceLines) {
  const auto native = read_log("dennislee22-a100-40g-qwen2-7b-tp2-2nodes-u050-sampler.txt");
  ASSERT_EQ(native.runs.size(), 1u);
  EXPECT_FALSE(native.runs[0].settings.flashinfer_sampler.value_or(true));  // "FlashInfer i\ns not available"
  EXPECT_FALSE(native.runs[0].settings.custom_all_reduce.value_or(true));   // spans across nodes
  EXPECT_DOUBLE_EQ(native.runs[0].figures.graphs_after.value_or(0), 1.00);  // "finished in 11\n secs, took 1.00 GiB"
  const auto fi = read_log("dennislee22-a100-80g-gptoss120b-tp4-u080-sampler.txt");
  ASSERT_EQ(fi.runs.size(), 1u);
  EXPECT_TRUE(fi.runs[0].settings.flashinfer_sampler.value_or(false));
  EXPECT_EQ(fi.runs[0].figures.gpu_blocks.value_or(0), 330018);
  EXPECT_EQ(fi.runs[0].figures.kv_tokens.value_or(0), 2640144);
}

TEST(PlanVllmLogParse, V0RerunsOfOneCommandAreSeparateRuns) {
  // v0.4.1 on a W7900: two benchmark runs, each its own Namespace and engine config; "NAVI" names a Radeon.
  const auto log = read_log("lhl-w7900-llama3-8b-v041.txt");
  ASSERT_EQ(log.runs.size(), 2u);
  for (const auto& r : log.runs) {
    EXPECT_EQ(r.settings.version, "0.4.1");
    EXPECT_FALSE(r.settings.v1.value_or(true));
    EXPECT_TRUE(r.settings.llm_class);
    EXPECT_TRUE(r.settings.rocm);
    EXPECT_TRUE(r.settings.radeon);
    EXPECT_EQ(r.settings.max_model_len.value_or(0), 8192);
    EXPECT_FALSE(r.settings.chunked_prefill.value_or(true));
    EXPECT_EQ(r.format, VllmLogFormat::v0_blocks);
    EXPECT_EQ(r.figures.gpu_blocks.value_or(0), 12003);
    EXPECT_DOUBLE_EQ(r.figures.weights.value_or(0), 14.9595);
  }
  // On the RTX 3090 the second run's lines were pasted onto one line; they still form one run.
  const auto glued = read_log("lhl-rtx3090-llama3-8b-v041.txt");
  ASSERT_EQ(glued.runs.size(), 3u);
  EXPECT_EQ(glued.runs[1].figures.gpu_blocks.value_or(0), 2354);
  EXPECT_DOUBLE_EQ(glued.runs[1].figures.weights.value_or(0), 14.9595);
}

TEST(PlanVllmLogParse, MemoryProfilingResultsOf064AndAMaxModelLenSweep) {
  const auto log = read_log("vllm-issue10517-rtx3090-llama31-8b-maxlen-sweep.txt");
  ASSERT_EQ(log.runs.size(), 3u);  // 20k, 29k and the truncated 35k block
  const auto& a = log.runs[0];
  EXPECT_EQ(a.format, VllmLogFormat::v0_torch_peak);
  EXPECT_DOUBLE_EQ(a.figures.total.value_or(0), 23.58);
  EXPECT_DOUBLE_EQ(a.figures.peak_torch.value_or(0), 17.06);
  EXPECT_DOUBLE_EQ(a.figures.non_torch.value_or(0), 0.35);
  EXPECT_DOUBLE_EQ(a.figures.available_kv.value_or(0), 3.81);
  EXPECT_EQ(a.figures.gpu_blocks.value_or(0), 1952);  // "GPU blocks: 1952" without the '#'
  EXPECT_EQ(a.settings.max_model_len.value_or(0), 20000);
  EXPECT_DOUBLE_EQ(a.settings.gpu_memory_utilization.value_or(0), 0.90);
  // The rerun inherits the command's settings but takes its own length from its concurrency line.
  EXPECT_EQ(log.runs[1].settings.max_model_len.value_or(0), 29000);
  EXPECT_EQ(log.runs[1].figures.gpu_blocks.value_or(0), 1478);
  EXPECT_FALSE(log.runs[2].figures.has_kv_result());
}

TEST(PlanVllmLogParse, ProfilingBreakdownOf065AndLater) {
  const auto log = read_log("notebook-t4-qwen25-1p5b-v072.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const auto& r = log.runs[0];
  EXPECT_EQ(r.settings.version, "0.7.2");
  EXPECT_EQ(r.format, VllmLogFormat::v0_snapshot);
  EXPECT_EQ(r.settings.dtype, Dtype::float16);  // "torch.float16" in the engine line
  EXPECT_EQ(r.settings.max_model_len.value_or(0), 32768);
  EXPECT_FALSE(r.settings.chunked_prefill.value_or(true));
  EXPECT_DOUBLE_EQ(r.figures.total.value_or(0), 14.56);
  EXPECT_DOUBLE_EQ(r.settings.gpu_memory_utilization.value_or(0), 0.50);
  EXPECT_DOUBLE_EQ(r.figures.usable.value_or(0), 7.28);
  EXPECT_DOUBLE_EQ(r.figures.weights.value_or(0), 2.89);  // the breakdown's figure replaces "took 2.8884 GB"
  EXPECT_DOUBLE_EQ(r.figures.non_torch.value_or(0), 0.01);
  EXPECT_DOUBLE_EQ(r.figures.activation.value_or(0), 2.02);
  EXPECT_DOUBLE_EQ(r.figures.available_kv.value_or(0), 2.36);
  EXPECT_EQ(r.figures.gpu_blocks.value_or(0), 5517);  // "# CUDA blocks"
  EXPECT_DOUBLE_EQ(r.figures.max_concurrency.value_or(0), 2.69);
}

TEST(PlanVllmLogParse, CommandLineSettingsAndAWrappedNumber) {
  // MI300X, Llama-3.1-70B: settings only on the `vllm serve` line; "non_torch_memory=6\n.07GiB" wrapped mid-number.
  const auto log = read_log("lhl-mi300x-llama31-70b-fp8-tp1.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const auto& r = log.runs[0];
  EXPECT_EQ(r.settings.model, "meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(r.settings.tp.value_or(0), 1);
  EXPECT_EQ(r.settings.quantization.value_or(""), "fp8");
  EXPECT_EQ(r.settings.max_num_seqs.value_or(0), 4096);
  EXPECT_EQ(r.settings.max_model_len.value_or(0), 32768);
  EXPECT_DOUBLE_EQ(r.settings.gpu_memory_utilization.value_or(0), 0.98);
  EXPECT_DOUBLE_EQ(r.figures.non_torch.value_or(0), 6.07);
  EXPECT_DOUBLE_EQ(r.figures.available_kv.value_or(0), 95.28);
  EXPECT_DOUBLE_EQ(r.figures.peak_torch.value_or(0), 86.79);
}

TEST(PlanVllmLogParse, PipelineStagesKeepTheirSmallestAndLargestBudget) {
  const auto log = read_log("vllm-pr20665-4xl4-deepseek-v2-lite-tp2pp2.txt");
  ASSERT_EQ(log.runs.size(), 1u);
  const auto& r = log.runs[0];
  EXPECT_EQ(r.settings.tp.value_or(0), 2);
  EXPECT_EQ(r.settings.pp.value_or(0), 2);
  EXPECT_TRUE(r.settings.enforce_eager.value_or(false));
  EXPECT_EQ(r.settings.model, "deepseek-ai/DeepSeek-V2-Lite");
  EXPECT_DOUBLE_EQ(r.figures.available_kv.value_or(0), 11.33);
  EXPECT_DOUBLE_EQ(r.figures.available_kv_max.value_or(0), 12.13);
}

TEST(PlanVllmLogParse, TextWithoutVllmLinesIsAnError) {
  auto log = parse_vllm_log("hello\nworld\n", "notes.txt");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("notes.txt: no vLLM start-up line"), std::string::npos) << log.error().message;
}

TEST(PlanVllmLogParse, NumbersOutOfRangeAreLeftOutAndSaid) {
  // A log is input like any other: a setting vLLM would refuse, or a figure past 1 PiB, is not taken.
  const std::string digits(400, '9');  // strtod reads it as infinity
  const std::string text =
      "INFO Initializing an LLM engine (v0.6.3) with config: model='m', tensor_parallel_size=0, "
      "pipeline_parallel_size=" +
      digits +
      ", max_seq_len=16384, kv_cache_dtype=fp8_inc, dtype=torch.float16\n"
      "INFO # GPU blocks: " +
      digits +
      ", # CPU blocks: 2048\n"
      "INFO Loading model weights took 14.9595 GB\n";
  auto log = parse_vllm_log(text, "odd.log");
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_EQ(log->runs.size(), 1u);
  const auto& r = log->runs[0];
  EXPECT_FALSE(r.settings.tp.has_value());
  EXPECT_FALSE(r.settings.pp.has_value());
  EXPECT_FALSE(r.settings.kv_cache_dtype.has_value());
  EXPECT_FALSE(r.figures.gpu_blocks.has_value());
  EXPECT_EQ(r.settings.max_model_len.value_or(0), 16384);
  EXPECT_EQ(r.settings.dtype, Dtype::float16);
  EXPECT_DOUBLE_EQ(r.figures.weights.value_or(0), 14.9595);
  ASSERT_EQ(r.ignored.size(), 4u);
  EXPECT_EQ(r.ignored[0].rfind("line 1: tensor_parallel_size 0 is outside 1 to 1024", 0), 0u) << r.ignored[0];
  EXPECT_NE(r.ignored[2].find("kv_cache_dtype fp8_inc"), std::string::npos) << r.ignored[2];
  EXPECT_EQ(r.ignored[3].rfind("line 2: GPU blocks inf", 0), 0u) << r.ignored[3];
}
