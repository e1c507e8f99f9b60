#pragma once
// A vLLM start-up log as data: the settings it states (engine config line, "non-default args",
// benchmark Namespace, the command line) and the figures it printed (weights, the memory
// profiling lines, available KV cache, blocks, tokens, concurrency), V0 and V1 formats, one
// run per engine start when a file holds several.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/settings.h"
#include "util/result.h"

namespace dcukit::plan {

/// Which accounting code printed the lines, told by their wording; decides the formula when the
/// log does not print its version.
enum class VllmLogFormat {
  unknown,
  v0_blocks,      ///< "# GPU blocks" only: V0 up to 0.6.3
  v0_torch_peak,  ///< "Memory profiling results: ... peak_torch_memory=": 0.6.4
  v0_snapshot,    ///< "the current vLLM instance can use ... model weights take": V0 0.6.5+
  v1,             ///< "Available KV cache memory" / "GPU KV cache size": V1
};

std::string_view to_string(VllmLogFormat format);

/// The settings a run states; empty where the log does not say.
struct VllmLogSettings {
  std::string version;     ///< as printed: "0.10.1.1", "0.6.3.dev114+g4f95ffee"
  std::string model;       ///< the model name or path vLLM was given
  std::optional<bool> v1;  ///< the engine, where a line names it
  std::optional<int> tp, pp, max_num_seqs, block_size;
  std::optional<double> gpu_memory_utilization;
  std::optional<std::int64_t> max_model_len, max_num_batched_tokens;
  std::optional<Dtype> dtype;  ///< --dtype as the log has it ("torch.float16" reads as float16)
  std::optional<KvCacheDtype> kv_cache_dtype;
  std::optional<std::string> quantization;  ///< vLLM's method name as printed ("fp8", "gptq_marlin")
  std::optional<bool> enforce_eager, chunked_prefill;
  std::optional<bool> custom_all_reduce;   ///< false where vLLM says it is disabled
  std::optional<bool> flashinfer_sampler;  ///< true: "Using FlashInfer for top-p & top-k"; false: PyTorch-native
  MmLimits mm_limits;                      ///< --limit-mm-per-prompt, where stated (or Unsloth's)
  bool rocm = false;                       ///< ROCm/HIP named in the log
  bool platform_stated = false;            ///< "Automatically detected platform X." decided `rocm`
  bool radeon = false;                     ///< a Radeon (RDNA, "NAVI") card named in the log
  bool llm_class = false;                  ///< offline LLM()/benchmark_throughput rather than `vllm serve`
  /// What the worker lines show where no setting states the parallelism: the highest TP and PP
  /// ranks + 1 ("(VllmWorker TP3 pid=..)", "rank 3 in world size 4 is assigned as ... TP rank 3"),
  /// and the world size ("world_size=4", "(VllmWorker rank=3 ..)").
  std::optional<int> worker_tp, worker_pp, world_size;
  /// A worker's name carries "TP<n>" or "PP<n>" ("Worker_PP0_TP0"): vLLM's multiprocess workers
  /// exist only when the world is larger than one, and V1 names a PP rank only under pipeline
  /// parallelism, so a named axis has at least two ranks even where the excerpt shows only rank 0.
  bool worker_tp_named = false, worker_pp_named = false;
  bool worker_process = false;  ///< a "(VllmWorkerProcess pid=..)" or Ray worker line: more than one GPU
  std::string parallel_source;   ///< where tp/pp came from when the worker lines set them
  std::string parallel_unknown;  ///< why the worker lines show parallelism but not its size
};

/// The figures a run printed, in GiB or counts; empty where it did not print them.
struct VllmLogFigures {
  std::optional<double> weights;     ///< "Loading model weights took X GB" (GiB really) / "Model loading took"
  std::optional<double> total;       ///< total_gpu_memory, or "Free memory on device (F/T GiB)"
  std::optional<double> usable;      ///< "total x utilization = Y"
  std::optional<double> non_torch;   ///< non_torch_memory
  std::optional<double> activation;  ///< "PyTorch activation peak memory"
  std::optional<double> peak_torch;  ///< 0.6.4's peak_torch_memory, weights included
  std::optional<double>
      available_kv;  ///< smallest per-GPU "Available KV cache memory" / "reserved for KV Cache" / kv_cache_size
  std::optional<double> available_kv_max;  ///< largest, where ranks differ (pipeline stages)
  std::optional<std::int64_t> gpu_blocks, kv_tokens;
  std::optional<double> max_concurrency;
  std::optional<double> graphs_after;     ///< "Graph capturing finished ..., took X GiB" (outside the budget)
  std::optional<double> graphs_estimate;  ///< "Estimated CUDA graph memory: X GiB" (inside the budget)
  /// 0.19's notice that the estimate above is not subtracted yet ("CUDA graph memory profiling will
  /// be enabled by default"): graphs are outside this run's budget.
  bool graphs_outside = false;
  /// available_kv is a rank's budget less its printed terms ("Actual usage is ..."), not a printed
  /// figure: four roundings to 0.01 GiB, so it is good to 0.02 GiB.
  bool available_from_terms = false;
  /// V1's multimodal profile: "Encoder cache will be initialized with a budget of N tokens, and
  /// profiled with K video items of the maximum feature size."
  std::optional<std::int64_t> encoder_budget, encoder_items;
  std::string encoder_modality;  ///< "image", "video"

  /// True when the run printed a KV-cache result: available memory, blocks or tokens.
  bool has_kv_result() const { return available_kv || gpu_blocks || kv_tokens; }
};

/// One engine start: its settings and what it printed, with the lines it spans (1-based).
struct VllmRun {
  VllmLogSettings settings;
  VllmLogFigures figures;
  VllmLogFormat format = VllmLogFormat::unknown;
  int first_line = 0, last_line = 0;
  bool settings_inherited = false;  ///< settings carried over from the run before (a rerun of its command)
  /// Values the log printed that plan does not take, each with its line and why: a number out of
  /// range ("line 12: tensor_parallel_size=0 is outside 1 to 1024"), a dtype plan does not know.
  std::vector<std::string> ignored;
};

/// A parsed log.
struct VllmLog {
  std::string origin;
  std::vector<VllmRun> runs;
};

/// Parses log text. Lines before "# ---- verbatim log lines below ----" (the collector's header in
/// ../shared/vllm-logs) are skipped; lines a terminal hard-wrapped are joined. Every number is
/// range-checked before it is taken (a setting as vLLM would accept it, a figure in GiB up to
/// 1 PiB); one outside its range is left out and listed in the run's `ignored`. A file with no
/// vLLM line is an error that says what was expected.
Result<VllmLog> parse_vllm_log(std::string_view text, std::string_view origin);

/// Reads and parses a log file; errors name the path.
Result<VllmLog> read_vllm_log(const std::filesystem::path& path);

}  // namespace dcukit::plan
