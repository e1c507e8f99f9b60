// The forms in which real vLLM logs state what `plan --check-log` needs, and the rule that a
// check that compared nothing is not a pass. Each line below is written as vLLM prints it (the
// worker prefixes of 0.8-0.11, V0 0.7's lower-case block line and negative budget, an argparse
// abbreviation on the command line); the logs they come from are in tests/fixtures/vllm-logs.
#include <gtest/gtest.h>

#include <string>

#include "plan/check_log.h"
#include "plan/check_log_render.h"
#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/vllm_log.h"
#include "plan/vllm_log_text.h"
#include "plan/vllm_rules.h"
#include "tempdir.h"

using namespace dcukit::plan;

namespace {
VllmRun only_run(const std::string& text) {
  auto log = parse_vllm_log(text, "test.log");
  EXPECT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->runs.size(), 1u);
  return log->runs.at(0);
}
}  // namespace

TEST(PlanLogForms, TensorParallelSizeFromTheWorkerLines) {
  // 0.10/0.11 multiprocessing workers: one prefix a rank, no config line in the excerpt.
  const auto run = only_run(
      "(VllmWorker TP0 pid=2081) INFO 08-01 10:00:01 [gpu_model_runner.py:1892] Model loading took 8.9 GiB\n"
      "(VllmWorker TP3 pid=2084) INFO 08-01 10:00:01 [gpu_model_runner.py:1892] Model loading took 8.9 GiB\n"
      "(VllmWorker TP1 pid=2082) INFO 08-01 10:00:20 [gpu_worker.py:276] Available KV cache memory: 51.2 GiB\n"
      "(VllmWorker TP2 pid=2083) INFO 08-01 10:00:20 [gpu_worker.py:276] Available KV cache memory: 51.3 GiB\n");
  EXPECT_EQ(run.settings.tp, 4);
  EXPECT_FALSE(run.settings.pp);
  EXPECT_NE(run.settings.parallel_source.find("TP0..TP3"), std::string::npos) << run.settings.parallel_source;
  // PP from Worker_PP1_TP0 prefixes.
  const auto pp = only_run(
      "(Worker_PP0_TP0 pid=11) INFO [gpu_worker.py:276] Available KV cache memory: 12.13 GiB\n"
      "(Worker_PP1_TP1 pid=14) INFO [gpu_worker.py:276] Available KV cache memory: 11.33 GiB\n");
  EXPECT_EQ(pp.settings.tp, 2);
  EXPECT_EQ(pp.settings.pp, 2);
  // 0.8.x: "(VllmWorker rank=3 pid=...)" and parallel_state's assignment line give the world size.
  const auto ranks = only_run(
      "(VllmWorker rank=0 pid=7) INFO 05-02 [parallel_state.py:1004] rank 0 in world size 4 is assigned as DP rank "
      "0, PP rank 0, TP rank 0\n"
      "(VllmWorker rank=2 pid=9) INFO 05-02 [gpu_worker.py:227] Available KV cache memory: 40.1 GiB\n");
  EXPECT_EQ(ranks.settings.tp, 4);
  // A stated size wins over what the workers show.
  const auto stated = only_run(
      "INFO Initializing a V1 LLM engine (v0.8.5) with config: model='m', tensor_parallel_size=2, "
      "pipeline_parallel_size=2\n"
      "(VllmWorker rank=3 pid=9) INFO Available KV cache memory: 40.1 GiB\n");
  EXPECT_EQ(stated.settings.tp, 2);
  EXPECT_EQ(stated.settings.pp, 2);
  EXPECT_TRUE(stated.settings.parallel_source.empty());
}

TEST(PlanLogForms, ArgparseAbbreviationsOnTheCommandLine) {
  using logtext::setting;
  EXPECT_EQ(setting("vllm serve m --max-num-batched-token 16384 --max-model-len 8192", "max_num_batched_tokens"),
            "16384");
  EXPECT_EQ(setting("vllm serve m --max-num-seq=64", "max_num_seqs"), "64");
  // Too short a prefix is not taken: it could name another flag.
  EXPECT_FALSE(setting("vllm serve m --max 8192", "max_model_len"));
  // The exact flag still wins, and a longer name is not this flag.
  EXPECT_EQ(setting("--max-model-len 4096 --max-model 2048", "max_model_len"), "4096");
  EXPECT_FALSE(setting("--max-model-lengths 4096", "max_model_len"));
}

TEST(PlanLogForms, UnslothsBannerGivesTheSequencesAndBatchedTokensItPassesVllm) {
  // unsloth_zoo's load_vllm prints what it passes LLM() as max_num_batched_tokens and max_num_seqs;
  // its V0 engine-config line states neither (tests/fixtures/vllm-logs/heldout6, the rldecisionagent logs).
  const auto run = only_run(
      "Unsloth: Using conservativeness = 1.0. Chunked prefill tokens = 8192. Num Sequences = 192.\n"
      "INFO 08-20 21:33:18 [worker.py:287] model weights take 0.51GiB; non_torch_memory takes 0.07GiB; PyTorch "
      "activation peak memory takes 1.06GiB; the rest of the memory reserved for KV Cache is 3.63GiB.\n");
  EXPECT_EQ(run.settings.max_num_seqs, 192);
  EXPECT_EQ(run.settings.max_num_batched_tokens, 8192);
  // The utilization it passes, as a percentage (heldout12's rldecisionagent log; its V1 engine-config
  // line does not print it).
  const auto vl = only_run(
      "Unsloth: vLLM loading ./unsloth/Qwen2.5-VL-3B-Instruct with actual GPU utilization = 78.61%\n"
      "INFO 09-22 20:33:21 [gpu_worker.py:232] Available KV cache memory: 13.48 GiB\n");
  ASSERT_TRUE(vl.settings.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*vl.settings.gpu_memory_utilization, 0.7861);
  // Another program's "Num Sequences" is not Unsloth's setting.
  const auto other = only_run(
      "Num Sequences = 64\n"
      "INFO [worker.py:287] the rest of the memory reserved for KV Cache is 3.63GiB.\n");
  EXPECT_FALSE(other.settings.max_num_seqs);
}

TEST(PlanLogForms, TheImagesAndVideosAPromptMayHoldInEveryFormTheyAreWritten) {
  constexpr const char* kKv = "INFO [worker.py:287] the rest of the memory reserved for KV Cache is 3.63GiB.\n";
  struct Form {
    const char* line;
    std::optional<std::int64_t> images, videos;
  };
  const Form forms[] = {
      {"INFO [utils.py:326] non-default args: {'model': 'm', 'limit_mm_per_prompt': {'image': 2, 'video': 0}}", 2, 0},
      {"INFO [api_server.py:912] args: Namespace(model='m', limit_mm_per_prompt={'image': 4}, max_num_seqs=8)", 4, {}},
      {"$ vllm serve m --limit-mm-per-prompt image=3,video=1 --max-model-len 8192", 3, 1},
      {"$ vllm serve m --limit-mm-per-prompt '{\"image\": 5, \"video\": 0}' --max-model-len 8192", 5, 0},
      {"$ vllm serve m --limit-mm-per-prompt.video 0 --max-model-len 8192", {}, 0},
      {"$ vllm serve m --limit-mm-per-prompt.image.count 2 --max-model-len 8192", 2, {}},
      // vLLM 0.11.1+'s options objects (PR #25631): the count, and the sizes kept aside.
      {"INFO [utils.py:233] non-default args: {'model': 'm', 'limit_mm_per_prompt': {'image': {'count': 1, 'width': "
       "512, 'height': 512}, 'video': 0}}",
       1, 0},
      // Namespace prints every argument: None is vLLM's default, not a reading.
      {"INFO [api_server.py:585] args: Namespace(model='m', limit_mm_per_prompt=None, max_num_seqs=8)", {}, {}},
      // unsloth-zoo PR #202: its vision banner means it passed image 1, video 0.
      {"Unsloth: Vision model detected, setting approx_max_num_seqs to 1", 1, 0},
  };
  for (const auto& f : forms) {
    SCOPED_TRACE(f.line);
    const auto run = only_run(std::string(f.line) + "\n" + kKv);
    EXPECT_EQ(run.settings.mm_limits.images, f.images);
    EXPECT_EQ(run.settings.mm_limits.videos, f.videos);
    EXPECT_TRUE(run.ignored.empty());
  }
  // A limit it cannot read is said, and vLLM's defaults stay.
  const auto odd = only_run(std::string("$ vllm serve m --limit-mm-per-prompt image=many\n") + kKv);
  EXPECT_TRUE(odd.settings.mm_limits.empty());
  ASSERT_EQ(odd.ignored.size(), 1u);
  EXPECT_NE(odd.ignored[0].find("limit_mm_per_prompt"), std::string::npos) << odd.ignored[0];
  // A limit of another modality only, or none, is not a reading.
  EXPECT_TRUE(only_run(std::string("non-default args: {'limit_mm_per_prompt': {'audio': 2}}\n") + kKv).ignored.empty());
  // The dummy sizes are kept (plan's term says it does not follow them), as JSON.
  const auto sized =
      only_run(std::string("non-default args: {'limit_mm_per_prompt': {'image': {'count': 1, 'width': 512}}}\n") + kKv);
  EXPECT_EQ(sized.settings.mm_limits.dummy_sizes, R"({"image":{"count":1,"width":512}})");
}

TEST(PlanLogForms, NegativeBudgetAndLowerCaseBlocksAsPrinted) {
  // V0 0.7: "# cuda blocks: 0" and a negative figure the profiler computed.
  const auto run = only_run(
      "INFO 03-01 [worker.py:267] model weights take 14.99GiB; non_torch_memory takes 0.08GiB; PyTorch activation "
      "peak memory takes 1.19GiB; the rest of the memory reserved for KV Cache is -1.55GiB.\n"
      "INFO 03-01 [executor_base.py:111] # cuda blocks: 0, # CPU blocks: 2048\n");
  ASSERT_TRUE(run.figures.available_kv);
  EXPECT_DOUBLE_EQ(*run.figures.available_kv, -1.55);
  EXPECT_EQ(run.figures.gpu_blocks, 0);
  EXPECT_TRUE(run.ignored.empty());
}

TEST(PlanLogForms, Before071AnMlaModelCachesFullKeysAndValues) {
  auto m = load_model_config(std::string(DCUKIT_FIXTURES) + "/models/deepseek-v2-lite");
  ASSERT_TRUE(m.ok()) << m.error().message;
  Settings s;
  s.kv_cache_dtype = KvCacheDtype::automatic;
  s.dtype = Dtype::bfloat16;
  // 0.5.0 cached K (qk_nope + qk_rope = 192) and V padded to 192 for all 16 heads of 27 layers.
  EXPECT_DOUBLE_EQ(kv_footprint(*m, s, 1, 1, false).per_token, 331776.0);
  EXPECT_DOUBLE_EQ(kv_footprint(*m, s, 2, 1, false).per_token, 331776.0 / 2);
  // 0.7.1 on: one latent (512 + 64) a layer: 31,104 B a token, whatever the TP.
  EXPECT_DOUBLE_EQ(kv_footprint(*m, s, 1, 1, true).per_token, 31104.0);
  EXPECT_FALSE(vllm_rules(*parse_vllm_version("0.5.0")).mla_latent);
  EXPECT_FALSE(vllm_rules(*parse_vllm_version("0.7.0")).mla_latent);
  EXPECT_TRUE(vllm_rules(*parse_vllm_version("0.7.1")).mla_latent);
}

TEST(PlanLogForms, AFileInWhichNothingWasComparedIsNotAPass) {
  // A hybrid model whose V1 log prints only its token count: plan cannot turn the tokens into
  // bytes (per-request state), so nothing is compared; that is exit 1, with the reason.
  testutil::TempDir tmp("forms");
  const auto path = tmp.write(
      "hybrid.log",
      "INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', tensor_parallel_size=1\n"
      "INFO [kv_cache_utils.py:1087] GPU KV cache size: 1,234,567 tokens\n");
  CheckLogOptions o;
  o.model = std::string(DCUKIT_FIXTURES) + "/models/qwen3-next-80b-a3b-instruct";
  o.gpu = "h200";
  auto check = check_log(path, o);
  ASSERT_TRUE(check.ok()) << check.error().message;
  EXPECT_EQ(check->checked(), 0);
  EXPECT_FALSE(check->all_within());
  const auto text = render_check_text(*check);
  EXPECT_NE(text.find("nothing compared"), std::string::npos) << text;
  EXPECT_NE(text.find("not a pass"), std::string::npos);
  EXPECT_FALSE(check->runs.at(0).not_checked.empty());
}

TEST(PlanLogForms, PipelineRanksUnderRayAreOneRunSizedByTheSmallestRank) {
  // 0.8.3 V0 under Ray (surajssd-2x4xa100-...-run2.txt, shortened): a colour-coded worker line
  // after a long record is a record of its own, a worker's late "Model loading took" does not
  // start a rerun, and the terms kept are those of the rank with the smallest budget.
  const std::string long_tail(120, '.');
  const auto run = only_run(
      "INFO 04-14 17:01:33 [llm_engine.py:242] Initializing a V0 LLM engine (v0.8.3) with config: model='m', "
      "tensor_parallel_size=4, pipeline_parallel_size=2\n"
      "\x1b[36m(RayWorkerWrapper pid=626, ip=10.244.1.182)\x1b[0m INFO 04-14 17:05:06 [worker.py:267] model weights "
      "take 16.46GiB; non_torch_memory takes 2.24GiB; PyTorch activation peak memory takes 1.27GiB; the rest of the "
      "memory reserved for KV Cache is 15.58GiB.\n"
      "INFO 04-14 17:05:08 [worker.py:267] model weights take 16.46GiB; non_torch_memory takes 0.93GiB; PyTorch "
      "activation peak memory takes 0.25GiB; the rest of the memory reserved for KV Cache is 17.90GiB." +
      long_tail +
      "\n"
      "\x1b[36m(RayWorkerWrapper pid=626, ip=10.244.1.182)\x1b[0m INFO 04-14 17:05:05 [model_runner.py:1146] Model "
      "loading took 16.4603 GiB and 176.590164 seconds\x1b[32m [repeated 6x across cluster]\x1b[0m\n"
      "INFO 04-14 17:05:08 [executor_base.py:112] # cuda blocks: 25524, # CPU blocks: 6553\n");
  ASSERT_TRUE(run.figures.available_kv);
  EXPECT_DOUBLE_EQ(*run.figures.available_kv, 15.58);
  EXPECT_DOUBLE_EQ(run.figures.available_kv_max.value_or(0), 17.90);
  EXPECT_DOUBLE_EQ(run.figures.non_torch.value_or(0), 2.24);
  EXPECT_DOUBLE_EQ(run.figures.activation.value_or(0), 1.27);
  EXPECT_EQ(run.figures.gpu_blocks, 25524);
  EXPECT_EQ(run.settings.pp, 2);
}

TEST(PlanLogForms, EachWorkersKvConfigurationAndTheSmallestKept) {
  // 0.10.0 V1, TP 8 (daisuketakai-8xh100-qwen3-32b-fp8kv-tp8-v0100.txt, three ranks of eight): every
  // worker prints its KV configuration, and vLLM gives every worker the smallest. The tokens and
  // concurrency kept are those of the rank whose available KV is kept, whatever the order printed.
  const auto run = only_run(
      "(VllmWorker rank=0 pid=771993) INFO 08-16 01:49:52 [gpu_worker.py:255] Available KV cache memory: 55.71 GiB\n"
      "(VllmWorker rank=7 pid=772000) INFO 08-16 01:49:52 [gpu_worker.py:255] Available KV cache memory: 56.08 GiB\n"
      "(VllmWorker rank=1 pid=771994) INFO 08-16 01:49:52 [gpu_worker.py:255] Available KV cache memory: 55.62 GiB\n"
      "INFO 08-16 01:49:52 [kv_cache_utils.py:833] GPU KV cache size: 3,650,960 tokens\n"
      "INFO 08-16 01:49:52 [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 111.42x\n"
      "INFO 08-16 01:49:52 [kv_cache_utils.py:833] GPU KV cache size: 3,644,816 tokens\n"
      "INFO 08-16 01:49:52 [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 111.23x\n"
      "INFO 08-16 01:49:52 [kv_cache_utils.py:833] GPU KV cache size: 3,675,536 tokens\n"
      "INFO 08-16 01:49:52 [kv_cache_utils.py:837] Maximum concurrency for 32,768 tokens per request: 112.17x\n");
  EXPECT_DOUBLE_EQ(run.figures.available_kv.value_or(0), 55.62);
  EXPECT_DOUBLE_EQ(run.figures.available_kv_max.value_or(0), 56.08);
  EXPECT_EQ(run.figures.kv_tokens, 3644816);
  EXPECT_DOUBLE_EQ(run.figures.max_concurrency.value_or(0), 111.23);
  EXPECT_EQ(run.settings.tp, 8);
}

TEST(PlanLogForms, TheBreakdownPrintedAfterStartUpIsCompared) {
  // 0.10.2 (legalai-2xh200-qwen3-next-80b-tp2-v0102-hybrid.txt): weight, activation, non-torch and
  // graph memory on one line, after the KV result.
  const auto v0102 = only_run(
      "(Worker_TP0 pid=1806413) INFO 10-23 15:14:30 [gpu_worker.py:298] Available KV cache memory: 44.59 GiB\n"
      "(Worker_TP0 pid=1806413) INFO 10-23 15:14:56 [gpu_worker.py:391] Free memory on device (139.21/139.81 GiB) on "
      "startup. Desired GPU memory utilization is (0.9, 125.83 GiB). Actual usage is 74.28 GiB for weight, 5.58 GiB "
      "for peak activation, 1.38 GiB for non-torch memory, and 2.37 GiB for CUDAGraph memory. Replace "
      "gpu_memory_utilization config with `--kv-cache-memory=45175492096` to fit into requested memory\n");
  EXPECT_DOUBLE_EQ(v0102.figures.activation.value_or(0), 5.58);
  EXPECT_DOUBLE_EQ(v0102.figures.non_torch.value_or(0), 1.38);
  EXPECT_DOUBLE_EQ(v0102.figures.total.value_or(0), 139.81);
  // 0.27.1 (kubesimplify-4xrtxpro6000-qwen3-235b-a22b-fp8-tp4-v0271.txt): weights and non-torch
  // together; non-torch is what the weights printed leave of it.
  const auto v0271 = only_run(
      "(Worker_TP0 pid=770) INFO 08-21 18:18:05 [gpu_model_runner.py:5405] Model loading took 55.19 GiB memory and "
      "48.502592 seconds\n"
      "(Worker_TP0 pid=770) INFO 08-21 18:22:06 [gpu_worker.py:789] Free memory on device (94.05/95.01 GiB) on "
      "startup. Desired GPU memory utilization is (0.9, 85.51 GiB). Actual usage is 56.89 GiB for consumed memory "
      "(weights + non-torch), 0.76 GiB for peak activation, and 0.32 GiB for CUDAGraph memory.\n");
  EXPECT_DOUBLE_EQ(v0271.figures.activation.value_or(0), 0.76);
  EXPECT_NEAR(v0271.figures.non_torch.value_or(0), 1.70, 1e-9);
  // Without the weights printed, the sum is not split.
  const auto alone = only_run(
      "INFO 08-21 18:22:05 [gpu_worker.py:298] Available KV cache memory: 28.42 GiB\n"
      "INFO 08-21 18:22:06 [gpu_worker.py:789] Free memory on device (94.05/95.01 GiB) on startup. Actual usage is "
      "56.89 GiB for consumed memory (weights + non-torch), 0.76 GiB for peak activation, and 0.32 GiB for CUDAGraph "
      "memory.\n");
  EXPECT_FALSE(alone.figures.non_torch);
}

TEST(PlanLogForms, CollectorStampsBannerBracketsAndNcclRanks) {
  // Docker compose's time stamp before every record, and 0.20's banner (wslnote-32g-qwen36-35b-a3b-...-v0200):
  // the stamp had joined the records and read "65536" and the next stamp's "2026" as one number.
  const auto docker = only_run(
      "2026-05-01 22:44:30.355 | (APIServer pid=1) INFO 05-01 20:44:30 [utils.py:299] \xe2\x96\x84\xe2\x96\x84 "
      "\xe2\x96\x88  version 0.20.0\n"
      "2026-05-01 22:44:41.105 | (APIServer pid=1) INFO 05-01 20:44:41 [model.py:1680] Using max model len 65536\n"
      "2026-05-01 22:47:46.772 | (EngineCore pid=187) INFO 05-01 20:47:46 [gpu_worker.py:440] Available KV cache "
      "memory: 2.95 GiB\n");
  EXPECT_EQ(docker.settings.version, "0.20.0");
  EXPECT_EQ(docker.settings.max_model_len, 65536);
  EXPECT_TRUE(docker.ignored.empty());
  EXPECT_EQ(logtext::drop_collector_stamp("2025-11-19T21:09:35.123456Z INFO x"), "INFO x");
  EXPECT_EQ(logtext::drop_collector_stamp("INFO 05-01 20:44:41 [model.py:1680] x"), "INFO 05-01 20:44:41 [model.py:1680] x");
  // A paste with square brackets, and V1's DEBUG profile line (vllm-issue29070-4xa30-opt-2p7b-...).
  const auto debug = only_run(
      "[Worker_TP3 pid=540] DEBUG 11-19 21:09:35 [v1/worker/gpu_worker.py:297] Memory profiling takes 19.58 "
      "seconds. Total non KV cache memory: 1.56GiB; torch peak memory increase: 0.22GiB; non-torch forward increase "
      "memory: 0.09GiB; weights memory: 1.24GiB.\n"
      "[Worker_TP3 pid=540] INFO 11-19 21:09:35 [v1/worker/gpu_worker.py:298] Available KV cache memory: 17.24 GiB\n");
  EXPECT_EQ(debug.settings.tp, 4);
  EXPECT_DOUBLE_EQ(debug.figures.activation.value_or(0), 0.22);
  EXPECT_DOUBLE_EQ(debug.figures.non_torch.value_or(0), 0.09);
  EXPECT_DOUBLE_EQ(debug.figures.weights.value_or(0), 1.24);
  // V0 with NCCL_DEBUG=INFO (vllm-issue10150-2x7900xtx-...): the size only in NCCL's lines.
  const auto nccl = only_run(
      "ruijie:849:1185 [0] NCCL INFO comm 0x55a968d59160 rank 0 nranks 2 cudaDev 0 busId 3000 - Init COMPLETE\n"
      "2024-11-08 09:37:39,378 vllm.executor.distributed_gpu_executor 849 INFO     # GPU blocks: 31800, # CPU "
      "blocks: 9362\n"
      "(VllmWorkerProcess pid=1122) INFO 11-08 09:37:40 model_runner.py:1402] Capturing the model for CUDA graphs.\n");
  EXPECT_EQ(nccl.settings.tp, 2);
  EXPECT_TRUE(nccl.settings.parallel_unknown.empty());
  // Worker processes and no size: more than one GPU, how many not shown; refused, not read as TP 1.
  const auto unsized = only_run(
      "INFO 11-08 09:37:39 distributed_gpu_executor.py:57] # GPU blocks: 31800, # CPU blocks: 9362\n"
      "(VllmWorkerProcess pid=1122) INFO 11-08 09:37:40 model_runner.py:1402] Capturing the model for CUDA graphs.\n");
  EXPECT_FALSE(unsized.settings.tp);
  EXPECT_NE(unsized.settings.parallel_unknown.find("more than one GPU"), std::string::npos)
      << unsized.settings.parallel_unknown;
}

TEST(PlanLogForms, TheEncoderProfileOfAMultimodalModelIsRead) {
  // sipeed-4x3090-qwen3-vl-30b-a3b-tp4-v0110: V1 runs the vision encoder in its profile run.
  const auto run = only_run(
      "(Worker_TP0 pid=41699) INFO 10-06 15:57:18 [gpu_model_runner.py:3344] Encoder cache will be initialized with "
      "a budget of 153600 tokens, and profiled with 1 video items of the maximum feature size.\n"
      "(Worker_TP0 pid=41699) INFO 10-06 15:58:01 [gpu_worker.py:298] Available KV cache memory: 2.31 GiB\n");
  EXPECT_EQ(run.figures.encoder_budget, 153600);
  EXPECT_EQ(run.figures.encoder_items, 1);
  EXPECT_EQ(run.figures.encoder_modality, "video");
  // A line cut after its budget keeps no item count and no modality.
  const auto cut = only_run(
      "INFO 10-06 15:57:18 [gpu_model_runner.py:3344] Encoder cache will be initialized with a budget of 153600\n"
      "INFO 10-06 15:58:01 [gpu_worker.py:298] Available KV cache memory: 2.31 GiB\n");
  EXPECT_EQ(cut.figures.encoder_items, std::nullopt);
  EXPECT_TRUE(cut.figures.encoder_modality.empty());
}

TEST(PlanLogForms, ThePlatformVllmDetectedDecidesNotItsProbesOfTheOthers) {
  // vllm-issue15394 (H200, 0.8.1 with DEBUG): the probe of the ROCm platform names ROCm on a CUDA host.
  constexpr const char* kKv = "INFO [worker.py:287] the rest of the memory reserved for KV Cache is 3.63GiB.\n";
  const auto cuda =
      only_run(std::string("DEBUG 03-24 12:09:29 [__init__.py:101] Checking if ROCm platform is available.\n"
                           "DEBUG 03-24 12:09:29 [__init__.py:115] ROCm platform is not available because: "
                           "No module named 'amdsmi'\n"
                           "INFO 03-24 12:09:29 [__init__.py:256] Automatically detected platform cuda.\n") +
               kKv);
  EXPECT_FALSE(cuda.settings.rocm);
  // Without the platform line the probes alone say nothing either.
  EXPECT_FALSE(
      only_run(std::string("DEBUG [__init__.py:115] ROCm platform is not available because: x\n") + kKv).settings.rocm);
  const auto rocm =
      only_run(std::string("DEBUG [__init__.py:106] Confirmed ROCm platform is available.\n"
                           "INFO 06-25 10:03:17 [__init__.py:243] Automatically detected platform rocm.\n") +
               kKv);
  EXPECT_TRUE(rocm.settings.rocm);
  // A ROCm build of PyTorch or vLLM in a version string (0.2.6's warning on vllm-issue2217's Instinct host).
  EXPECT_TRUE(only_run(std::string("(RayWorkerVllm pid=343834)     PyTorch 2.1.1+cu121 with CUDA 1201 (you have "
                                   "2.1.1+rocm5.6)\n") +
                       kKv)
                  .settings.rocm);
  // Where vLLM said cuda, a later mention of ROCm (a path, a note) does not overturn it.
  EXPECT_FALSE(only_run(std::string("INFO [__init__.py:256] Automatically detected platform cuda.\n"
                                    "WARNING [config.py:1] hipBLASLt is not used\n") +
                        kKv)
                   .settings.rocm);
}

TEST(PlanLogForms, TheDefaultsV1SaysItSetAreTaken) {
  // vllm-issue15394 (H200, 0.8.1, LLM class, DEBUG): the defaults arg_utils.py chose, as it says.
  const auto run = only_run(
      "DEBUG 03-24 12:09:37 [arg_utils.py:1722] Setting max_num_batched_tokens to 16384 for LLM_CLASS usage context.\n"
      "DEBUG 03-24 12:09:37 [arg_utils.py:1730] Setting max_num_seqs to 1024 for LLM_CLASS usage context.\n"
      "INFO [worker.py:287] the rest of the memory reserved for KV Cache is 3.63GiB.\n");
  EXPECT_EQ(run.settings.max_num_seqs, 1024);
  EXPECT_EQ(run.settings.max_num_batched_tokens, 16384);
  EXPECT_TRUE(run.settings.llm_class);
}
