#include "plan/vllm_log.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <tuple>

#include "plan/cards.h"
#include "plan/vllm_log_text.h"
#include "plan/vllm_log_workers.h"
#include "util/files.h"
#include "util/names.h"

namespace dcukit::plan {
namespace {

using logtext::has;
using logtext::log_lines;
using logtext::number_after;
using logtext::setting;
using logworkers::read_workers;
using logworkers::settle_parallelism;
using logworkers::worker_line;

// The ranges a number of a log must lie in to be taken: what vLLM accepts for a setting, and
// figures up to 1 PiB (GiB) or 10^15 (blocks, tokens, requests).
constexpr double kMaxGiB = 1024.0 * 1024.0;
constexpr double kMaxCount = 1e15;
constexpr double kMaxLen = 1 << 28;
constexpr double kMaxSeqs = 1 << 20;
constexpr double kMaxBlock = 1 << 16;

/// A line that starts an engine: the command, the benchmark's Namespace, the engine config.
bool starts_run(std::string_view line) {
  return has(line, "vllm serve ") || has(line, "benchmark_throughput.py") || has(line, "Namespace(") ||
         has(line, "LLM engine (v") || has(line, "vLLM API server version") || has(line, "LLM(model=");
}

void read_model(std::string_view line, VllmLogSettings& s) {
  if (auto m = setting(line, "model"); m && !m->empty() && *m != "None") {
    s.model = *m;
    return;
  }
  const auto at = line.find("vllm serve ");
  if (at == std::string_view::npos) return;
  std::string prev = "serve";
  std::size_t pos = at + 11;
  while (pos < line.size()) {
    while (pos < line.size() && line[pos] == ' ') ++pos;
    const auto end = std::min(line.size(), line.find(' ', pos));
    const std::string tok(line.substr(pos, end - pos));
    const bool flag_value = prev.rfind("-", 0) == 0 && prev.find('=') == std::string::npos &&
                            prev != "--trust-remote-code" && prev != "--enforce-eager" &&
                            prev != "--enable-prefix-caching" && prev != "--disable-log-stats";
    if (!tok.empty() && tok[0] != '-' && tok != "\\" && (prev == "serve" || !flag_value)) {
      s.model = tok;
      return;
    }
    prev = tok;
    pos = end;
  }
}

/// Takes the numbers of one line into a run, each checked against its range first; one out of
/// range is listed in the run's `ignored` with the line, never cast.
struct Taker {
  VllmRun& run;
  int line;

  /// `v` into `field` when it lies in [lo, hi]; true when taken.
  template <class T>
  bool take(std::optional<T>& field, std::optional<double> v, double lo, double hi, std::string_view what) {
    if (!v) return false;
    if (!(*v >= lo && *v <= hi)) {
      run.ignored.push_back(fmt::format("line {}: {} {} is outside {} to {}; not taken", line, what, *v, lo, hi));
      return false;
    }
    field = static_cast<T>(*v);
    return true;
  }
  /// A figure in GiB.
  bool gib(std::optional<double>& field, std::optional<double> v, std::string_view what) {
    return take(field, v, 0, kMaxGiB, what);
  }
  /// A count of blocks or tokens.
  bool count(std::optional<std::int64_t>& field, std::optional<double> v, std::string_view what) {
    return take(field, v, 0, kMaxCount, what);
  }
};

/// --limit-mm-per-prompt's value as text parse_mm_limits reads, in the forms logs hold it:
/// 'limit_mm_per_prompt': {'image': 1, 'video': 0} (non-default args; 0.11.1+'s options objects
/// nested), limit_mm_per_prompt={...} (Namespace), --limit-mm-per-prompt image=1,video=0 or
/// '{"image": 1}', and --limit-mm-per-prompt.image 1 (or .image.count 1). Empty: none here.
std::string mm_limits_text(std::string_view line) {
  constexpr std::string_view kKey = "limit_mm_per_prompt", kFlag = "limit-mm-per-prompt";  // the same length
  auto at = line.find(kKey);
  if (at == std::string_view::npos) at = line.find(kFlag);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + kKey.size());
  if (!rest.empty() && rest.front() == '.') {  // --limit-mm-per-prompt.image 1
    const auto end = rest.find_first_of(" =");
    std::string key(rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
    if (key.size() > 6 && key.compare(key.size() - 6, 6, ".count") == 0) key.resize(key.size() - 6);
    if (end == std::string_view::npos) return key;
    std::string_view value = rest.substr(end + 1);
    value = value.substr(0, value.find(' '));
    return key + "=" + std::string(value);
  }
  std::size_t pos = 0;
  while (pos < rest.size() &&
         (rest[pos] == '\'' || rest[pos] == '"' || rest[pos] == ':' || rest[pos] == '=' || rest[pos] == ' '))
    ++pos;
  rest = rest.substr(pos);
  if (rest.empty()) return {};
  if (rest.front() != '{') {
    const std::string_view word = rest.substr(0, std::min(rest.find_first_of(" ,)'\""), rest.size()));
    return word == "None" ? std::string()
                          : std::string(rest.substr(0, std::min(rest.find_first_of(" '\""), rest.size())));
  }
  int depth = 0;
  std::string out;
  for (const char c : rest.substr(0, 400)) {
    out += c == '\'' ? '"' : c;  // Python's repr quotes with '
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (depth == 0) return out;
  }
  return out;  // unbalanced: parse_mm_limits says what it could not read
}

/// --limit-mm-per-prompt's images and videos where the line states them (parse_mm_limits reads
/// the value, as for plan's own flag). A modality it does not name keeps vLLM's default.
/// Unsloth's vision banner passes image 1, video 0.
void read_mm_limits(std::string_view line, Taker& t) {
  auto& s = t.run.settings;
  if (has(line, "Unsloth: Vision model detected")) {  // unsloth-zoo PR #202 (2025-09-16)
    s.mm_limits = MmLimits{.images = 1, .videos = 0};
    return;
  }
  const std::string text = mm_limits_text(line);
  if (text.empty()) return;
  const auto limits = parse_mm_limits(text);
  if (!limits) {
    t.run.ignored.push_back(fmt::format("line {}: limit_mm_per_prompt '{}' not read ({}); vLLM's defaults taken",
                                        t.line, text.substr(0, 60), limits.error().message));
    return;
  }
  for (auto [v, field, name] :
       {std::tuple{limits->images, &s.mm_limits.images, "image"}, {limits->videos, &s.mm_limits.videos, "video"}})
    if (v) t.take(*field, static_cast<double>(*v), 0, kMaxSeqs, fmt::format("limit_mm_per_prompt {}", name));
  if (!limits->dummy_sizes.empty()) s.mm_limits.dummy_sizes = limits->dummy_sizes;
}

void read_settings(std::string_view line, Taker& t) {
  using logtext::to_bool;
  using logtext::to_number;
  auto& s = t.run.settings;
  read_workers(line, s);
  if (auto at = line.find("LLM engine (v"); at != std::string_view::npos) {
    const auto end = line.find(')', at);
    s.version = std::string(line.substr(at + 13, end == std::string_view::npos ? 0 : end - at - 13));
    s.v1 = has(line, "V1 LLM engine");
  }
  if (auto at = line.find("vLLM API server version "); at != std::string_view::npos)
    s.version = std::string(line.substr(at + 24, line.find_first_of(" \r", at + 24) - at - 24));
  // The start-up banner (0.1x on): block-letter art, then "version 0.20.0" on one of its lines
  constexpr std::string_view kBanner = "\xe2\x96\x88  version ";  // U+2588, the art's last block
  if (auto at = line.find(kBanner); at != std::string_view::npos && s.version.empty()) {
    const auto from = at + kBanner.size();
    s.version = std::string(line.substr(from, line.find_first_of(" \r", from) - from));
  }
  if (has(line, "with config:") || has(line, "non-default args") || has(line, "Namespace(") ||
      has(line, "vllm serve ") || has(line, "benchmark_throughput.py") || has(line, "LLM(model="))
    read_model(line, s);
  if (has(line, "benchmark_throughput.py") || has(line, "LLM(model=") || has(line, "Namespace(backend=") ||
      has(line, "for LLM_CLASS usage context"))
    s.llm_class = true;  // the offline LLM class: benchmarks and scripts, not `vllm serve`
  // V1's defaults as it chose them (DEBUG, arg_utils.py): "Setting max_num_seqs to 1024 for
  // LLM_CLASS usage context."
  t.take(s.max_num_seqs, number_after(line, "Setting max_num_seqs to "), 1, kMaxSeqs, "max_num_seqs");
  t.take(s.max_num_batched_tokens, number_after(line, "Setting max_num_batched_tokens to "), 1, kMaxLen,
         "max_num_batched_tokens");
  if (auto v = to_number(setting(line, "tensor_parallel_size")))
    t.take(s.tp, v, 1, kMaxCards, "tensor_parallel_size");
  else if (auto n = logtext::number_after(line, " -tp "))
    t.take(s.tp, n, 1, kMaxCards, "-tp");
  t.take(s.pp, to_number(setting(line, "pipeline_parallel_size")), 1, kMaxCards, "pipeline_parallel_size");
  if (!has(line, "Memory profiling results"))
    t.take(s.gpu_memory_utilization, to_number(setting(line, "gpu_memory_utilization")), 0.001, 1,
           "gpu_memory_utilization");
  t.take(s.max_model_len, to_number(setting(line, "max_model_len")), 1, kMaxLen, "max_model_len");
  t.take(s.max_model_len, to_number(setting(line, "max_seq_len")), 1, kMaxLen, "max_seq_len");
  t.take(s.max_num_seqs, to_number(setting(line, "max_num_seqs")), 1, kMaxSeqs, "max_num_seqs");
  t.take(s.max_num_batched_tokens, to_number(setting(line, "max_num_batched_tokens")), 1, kMaxLen,
         "max_num_batched_tokens");
  if (!has(line, "compilation_config"))
    t.take(s.block_size, to_number(setting(line, "block_size")), 1, kMaxBlock, "block_size");
  if (auto v = setting(line, "kv_cache_dtype"); v && *v != "None") {
    if (auto k = parse_kv_cache_dtype(*v))
      s.kv_cache_dtype = *k;
    else
      t.run.ignored.push_back(fmt::format("line {}: kv_cache_dtype {} is not one plan budgets; not taken", t.line, *v));
  }
  if (auto v = setting(line, "dtype"); v && *v != "None") {
    const std::string name = v->rfind("torch.", 0) == 0 ? v->substr(6) : *v;
    if (auto d = parse_dtype(name))
      s.dtype = *d;
    else
      t.run.ignored.push_back(fmt::format("line {}: dtype {} is not one plan budgets; not taken", t.line, *v));
  }
  if (auto v = setting(line, "quantization"); v && *v != "None") s.quantization = *v;
  if (auto v = to_bool(setting(line, "enforce_eager"))) s.enforce_eager = *v;
  if (auto v = to_bool(setting(line, "chunked_prefill_enabled"))) s.chunked_prefill = *v;
  if (auto v = to_bool(setting(line, "enable_chunked_prefill"))) s.chunked_prefill = *v;
  if (auto v = to_bool(setting(line, "disable_custom_all_reduce")); v && *v) s.custom_all_reduce = false;
  if (has(line, "Custom allreduce is disabled") || has(line, "custom all-reduce kernel because"))
    s.custom_all_reduce = false;
  if (has(line, "Chunked prefill is enabled with max_num_batched_tokens=")) {
    s.chunked_prefill = true;
    t.take(s.max_num_batched_tokens, number_after(line, "max_num_batched_tokens="), 1, kMaxLen,
           "max_num_batched_tokens");
  }
  t.take(s.max_model_len, number_after(line, "Using max model len "), 1, kMaxLen, "max model len");
  // Unsloth's fast_inference banner: what it passes vLLM as max_num_batched_tokens and max_num_seqs.
  if (has(line, "Unsloth: Using conservativeness")) {
    t.take(s.max_num_batched_tokens, number_after(line, "Chunked prefill tokens = "), 1, kMaxLen,
           "Unsloth's chunked prefill tokens");
    t.take(s.max_num_seqs, number_after(line, "Num Sequences = "), 1, kMaxSeqs, "Unsloth's num sequences");
  }
  if (has(line, "Unsloth: vLLM loading "))
    if (auto pct = number_after(line, " with actual GPU utilization = "))
      t.take(s.gpu_memory_utilization, std::optional<double>(*pct / 100), 0.001, 1, "Unsloth's GPU utilization");
  read_mm_limits(line, t);
  if (has(line, "Using FlashInfer for top-p & top-k sampling")) s.flashinfer_sampler = true;
  if (has(line, "PyTorch-native implementation of top-p & top-k") || has(line, "FlashInfer is not available"))
    s.flashinfer_sampler = false;
  // vLLM 0.8+ names the platform it chose; its DEBUG probes name the others ("Checking if ROCm
  // platform is available.", "ROCm platform is not available because: No module named 'amdsmi'").
  if (const auto at = line.find("Automatically detected platform "); at != std::string_view::npos) {
    s.rocm = line.substr(at + 32).starts_with("rocm");
    s.platform_stated = true;
  } else if (!s.platform_stated && !has(line, "platform is not available") && !has(line, "Checking if ROCm") &&
             (has(line, "rocm.py") || has(line, "ROCm") || has(line, "+rocm") || has(line, "on AMD GPUs") ||
              has(line, "hipBLASLt") || has(line, "HIPBLASLT") || has(line, "NAVI GPUs"))) {
    s.rocm = true;
  }
  if (has(line, "NAVI GPUs")) s.radeon = true;
}

void keep_min_max(VllmLogFigures& f, double v) {
  f.available_kv = f.available_kv ? std::min(*f.available_kv, v) : v;
  f.available_kv_max = f.available_kv_max ? std::max(*f.available_kv_max, v) : v;
}

void read_figures(std::string_view line, Taker& t) {
  auto& run = t.run;
  auto& f = run.figures;
  std::optional<double> v;
  if (t.gib(v, number_after(line, "Loading model weights took "), "weights"))
    f.weights = std::max(f.weights.value_or(0), *v);
  if (t.gib(v, number_after(line, "Model loading took "), "weights")) f.weights = std::max(f.weights.value_or(0), *v);
  if (t.count(f.encoder_budget, number_after(line, "Encoder cache will be initialized with a budget of "),
              "encoder budget") &&
      t.count(f.encoder_items, number_after(line, "profiled with "), "profiled items")) {
    const auto rest = line.substr(line.find("profiled with ") + 14);  // "1 video items ..."
    if (const auto space = rest.find(' '); space != std::string_view::npos)
      f.encoder_modality = std::string(rest.substr(space + 1, rest.find(' ', space + 1) - space - 1));
  }
  if (has(line, "Memory profiling results")) {  // 0.6.4: key=value pairs
    run.format = VllmLogFormat::v0_torch_peak;
    t.gib(f.total, logtext::to_number(setting(line, "total_gpu_memory")), "total_gpu_memory");
    t.gib(f.peak_torch, logtext::to_number(setting(line, "peak_torch_memory")), "peak_torch_memory");
    t.gib(f.non_torch, logtext::to_number(setting(line, "non_torch_memory")), "non_torch_memory");
    if (t.gib(v, logtext::to_number(setting(line, "kv_cache_size")), "kv_cache_size")) keep_min_max(f, *v);
    t.take(run.settings.gpu_memory_utilization, logtext::to_number(setting(line, "gpu_memory_utilization")), 0.001, 1,
           "gpu_memory_utilization");
  }
  if (auto total = number_after(line, "total_gpu_memory (")) {  // 0.6.5+: "total (T) x utilization (U) = Y"
    run.format = VllmLogFormat::v0_snapshot;
    t.gib(f.total, total, "total_gpu_memory");
    if (auto u = number_after(line, "gpu_memory_utilization ("))
      t.take(run.settings.gpu_memory_utilization, u, 0.001, 1, "gpu_memory_utilization");
    else if (auto x = number_after(line, ") x "))
      t.take(run.settings.gpu_memory_utilization, x, 0.001, 1, "gpu_memory_utilization");
    t.gib(f.usable, number_after(line, " = "), "usable memory");
  }
  // One rank's profile on one line (0.6.5+). Where ranks differ (pipeline stages), vLLM sizes the
  // cache by the smallest budget: that rank's terms are kept together, the others' are dropped.
  const auto kv_here = number_after(line, "reserved for KV Cache is ");
  const bool smallest = !kv_here || !f.available_kv || *kv_here <= *f.available_kv;
  if (smallest) {
    t.gib(f.weights, number_after(line, "model weights take "), "model weights");
    if (!t.gib(f.non_torch, number_after(line, "non_torch_memory takes "), "non_torch_memory"))
      t.gib(f.non_torch, number_after(line, "non_torch_memory "), "non_torch_memory");
    t.gib(f.activation, number_after(line, "activation peak memory takes "), "activation peak");
  }
  // vLLM prints a negative budget as it computed it ("reserved for KV Cache is -1.55GiB"): kept as printed.
  if (t.take(v, kv_here, -kMaxGiB, kMaxGiB, "KV cache memory")) keep_min_max(f, *v);
  if (auto a = number_after(line, "Available KV cache memory: ")) {
    run.format = VllmLogFormat::v1;
    if (t.take(v, a, -kMaxGiB, kMaxGiB, "available KV cache memory")) keep_min_max(f, *v);
  }
  // V1 prints a KV configuration for each worker and then gives every worker the smallest one
  // (unify_kv_cache_configs): where ranks differ, the tokens and concurrency kept are the smallest,
  // the figures of the rank whose available KV is kept.
  std::optional<std::int64_t> tokens;
  if (auto n = number_after(line, "GPU KV cache size: ")) {
    run.format = VllmLogFormat::v1;
    if (t.count(tokens, n, "GPU KV cache size")) f.kv_tokens = std::min(f.kv_tokens.value_or(*tokens), *tokens);
  }
  for (std::string_view m :
       {"# GPU blocks: ", "# CUDA blocks: ", "# cuda blocks: ", "GPU blocks: ", "num_gpu_blocks is: "})
    if (auto n = number_after(line, m)) {
      t.count(f.gpu_blocks, n, "GPU blocks");
      if (run.format == VllmLogFormat::unknown) run.format = VllmLogFormat::v0_blocks;
      break;
    }
  if (auto at = line.find("Maximum concurrency for "); at != std::string_view::npos) {
    if (!run.settings.max_model_len || run.settings_inherited)  // a sweep reruns with another length
      t.take(run.settings.max_model_len, logtext::number_at(line, at + 24), 1, kMaxLen, "max model len");
    std::optional<double> x;
    if (auto per = line.find("per request: ", at); per != std::string_view::npos)
      if (t.take(x, logtext::number_at(line, per + 13), 0, kMaxCount, "maximum concurrency"))
        f.max_concurrency = std::min(f.max_concurrency.value_or(*x), *x);
  }
  if (auto at = line.find("Graph capturing finished"); at != std::string_view::npos)
    t.gib(f.graphs_after, number_after(line.substr(at), "took "), "graph memory");
  t.gib(f.graphs_estimate, number_after(line, "Estimated CUDA graph memory: "), "estimated CUDA graph memory");
  // 0.10.2 on, each rank after start-up: "Desired GPU memory utilization is (U, R GiB). Actual usage is
  // W GiB for weight, A GiB for peak activation, N GiB for non-torch memory, and G GiB for CUDAGraph
  // memory" (later: "C GiB for consumed memory (weights + non-torch), A GiB for peak activation, ...").
  // R - W - A - N is that rank's available KV; where it is clearly below the printed one (a pipeline
  // stage whose KV line vLLM does not print), it is the run's smallest, and its terms are kept.
  if (has(line, "CUDA graph memory profiling will be enabled by default")) f.graphs_outside = true;
  if (has(line, "Actual usage is ")) {
    std::optional<double> w, a, n, consumed, desired;
    t.gib(w, logtext::number_before(line, " GiB for weight"), "weight");
    t.gib(a, logtext::number_before(line, " GiB for peak activation"), "peak activation");
    t.gib(n, logtext::number_before(line, " GiB for non-torch memory"), "non-torch memory");
    t.gib(consumed, logtext::number_before(line, " GiB for consumed memory"), "consumed memory");
    if (auto at = line.find("Desired GPU memory utilization is ("); at != std::string_view::npos)
      t.gib(desired, number_after(line.substr(at), ", "), "desired memory");
    if (!n && consumed && f.weights) n = std::max(0.0, *consumed - *f.weights);
    std::optional<double> here;
    if (desired && a && (!f.graphs_estimate || f.graphs_outside) && (consumed || (w && n)))
      here = *desired - *a - (consumed ? *consumed : *w + *n);
    const bool below = here && f.available_kv && *here < *f.available_kv - 0.05;
    if (a && (below || !f.activation)) f.activation = a;
    if (n && (below || !f.non_torch)) f.non_torch = n;
    if (here && (below || !f.available_kv)) {
      keep_min_max(f, *here);
      f.available_from_terms = true;
    }
    if (here && f.available_kv_max && *here > *f.available_kv_max + 0.05) f.available_kv_max = *here;
  }
  // V1 at DEBUG, each rank after profiling: "Total non KV cache memory: X; torch peak memory increase:
  // A; non-torch forward increase memory: N; weights memory: W." Kept where nothing else printed them.
  if (has(line, "Total non KV cache memory: ")) {
    std::optional<double> a, n, w;
    t.gib(a, number_after(line, "torch peak memory increase: "), "torch peak memory increase");
    t.gib(n, number_after(line, "non-torch forward increase memory: "), "non-torch forward increase");
    t.gib(w, number_after(line, "weights memory: "), "weights memory");
    if (a && !f.activation) f.activation = a;
    if (n && !f.non_torch) f.non_torch = n;
    if (w && !f.weights) f.weights = w;
  }
  if (auto at = line.find("Free memory on device ("); at != std::string_view::npos)
    if (auto slash = line.find('/', at); slash != std::string_view::npos)
      t.gib(f.total, logtext::number_at(line, slash + 1), "total memory");
}

constexpr util::Name<VllmLogFormat> kFormatNames[] = {
    {VllmLogFormat::unknown, "unknown"},
    {VllmLogFormat::v0_blocks, "V0, # GPU blocks only (0.6.3 and before)"},
    {VllmLogFormat::v0_torch_peak, "V0, 'Memory profiling results' (0.6.4)"},
    {VllmLogFormat::v0_snapshot, "V0, 'model weights take ...' (0.6.5 and later)"},
    {VllmLogFormat::v1, "V1, 'Available KV cache memory'"},
};

}  // namespace

std::string_view to_string(VllmLogFormat format) {
  return util::name_of(kFormatNames, format, "?");
}

Result<VllmLog> parse_vllm_log(std::string_view text, std::string_view origin) {
  VllmLog log;
  log.origin = std::string(origin);
  VllmRun run;
  bool any = false;
  auto flush = [&](bool inherit) {
    settle_parallelism(run.settings);
    if (run.first_line != 0) log.runs.push_back(run);
    VllmRun next;
    if (inherit) {  // a rerun of the same command
      next.settings = run.settings;
      next.settings_inherited = true;
    }
    run = next;
  };
  for (const auto& [number, line] : log_lines(text)) {
    const bool has_figures = run.figures.has_kv_result() || run.figures.weights;
    if (starts_run(line) && has_figures)
      flush(false);
    else if ((has(line, "model weights took") || has(line, "Model loading took")) && run.figures.has_kv_result() &&
             !worker_line(line))  // a worker's line, printed late, belongs to the start-up it is part of
      flush(true);
    Taker taker{run, number};
    read_settings(line, taker);
    read_figures(line, taker);
    const auto& st = run.settings;
    const bool seen = run.figures.has_kv_result() || run.figures.weights || !st.version.empty() || !st.model.empty() ||
                      st.tp || st.max_model_len;
    if (seen) {  // the run spans from its first vLLM line to its last
      if (run.first_line == 0) run.first_line = number;
      run.last_line = number;
      any = true;
    }
  }
  flush(false);
  if (!any)
    return Error{
        fmt::format("{}: no vLLM start-up line found (expected lines such as 'Initializing ... LLM engine', "
                    "'Loading model weights took', '# GPU blocks' or 'GPU KV cache size'); pass a vLLM log",
                    origin)};
  return log;
}

Result<VllmLog> read_vllm_log(const std::filesystem::path& path) {
  auto text = util::read_file(path.string(), util::kLogInput);
  if (!text) return Error{fmt::format("--check-log {}: {}", path.string(), text.error().message)};
  return parse_vllm_log(*text, path.string());
}

}  // namespace dcukit::plan
