#include "plan/check_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/units.h"
#include "plan/check_log_verdict.h"
#include "plan/vllm_version.h"

namespace dcukit::plan {
namespace {

using core::kGiB;  // bytes; the arithmetic below is in double
using logcheck::compare_lines;
using logcheck::name_uncertain_terms;
using logcheck::printed_activation;
using logcheck::reproduce;
using logcheck::vllm_available;

/// The version whose rules a run follows: --vllm-version, else the log's, else the first version
/// that prints lines of the log's format.
Result<VllmVersion> run_version(const VllmRun& run, const CheckLogOptions& o, std::string& from) {
  if (o.vllm_version) {
    auto v = parse_vllm_version(*o.vllm_version);
    if (!v) return Error{fmt::format("--vllm-version {}: {}", *o.vllm_version, v.error().message)};
    from = fmt::format("--vllm-version {}", *o.vllm_version);
    return v;
  }
  std::string skipped;
  if (!run.settings.version.empty()) {
    auto v = parse_vllm_version(run.settings.version);
    if (v) {
      from = fmt::format("the log (v{})", run.settings.version);
      return v;
    }
    skipped = fmt::format("the log's v{} names no release; ", run.settings.version);
  }
  const char* implied = "0.6.5";
  switch (run.format) {
    case VllmLogFormat::v0_blocks:
      implied = "0.6.3";
      break;
    case VllmLogFormat::v0_torch_peak:
      implied = "0.6.4";
      break;
    case VllmLogFormat::v0_snapshot:
      implied = "0.6.5";
      break;
    case VllmLogFormat::v1:
      implied = "0.9.0";
      break;
    case VllmLogFormat::unknown:
      implied = "0.28.0";
      break;
  }
  from =
      fmt::format("{}inferred from the log's format ({}); pass --vllm-version to say", skipped, to_string(run.format));
  return parse_vllm_version(implied);
}

VllmContext run_context(const VllmRun& run, const VllmVersion& version, const Cards& cards) {
  VllmContext ctx = default_context(vllm_rules(version), cards);
  ctx.platform = platform_of(cards, run.settings.rocm, run.settings.radeon);
  if (run.settings.v1)
    ctx.engine = *run.settings.v1 ? VllmEngine::v1 : VllmEngine::v0;
  else if (run.format == VllmLogFormat::v1)
    ctx.engine = VllmEngine::v1;
  else if (run.format != VllmLogFormat::unknown)
    ctx.engine = VllmEngine::v0;
  switch (run.format) {  // the lines printed tell which code measured
    case VllmLogFormat::v0_blocks:
      ctx.formula = ProfileFormula::free_delta;
      break;
    case VllmLogFormat::v0_torch_peak:
      ctx.formula = ProfileFormula::torch_peak;
      break;
    case VllmLogFormat::v0_snapshot:
      ctx.formula = ProfileFormula::snapshot;
      break;
    default:
      ctx.formula = ctx.rules.formula(ctx.engine);
      break;
  }
  ctx.sampler = default_sampler(ctx.rules, ctx.engine, ctx.platform);
  if (ctx.engine == VllmEngine::v1 && run.settings.flashinfer_sampler) {
    ctx.sampler = *run.settings.flashinfer_sampler ? SamplerKind::flashinfer : SamplerKind::native_sort;
    ctx.sampler_known = true;
  }
  ctx.custom_all_reduce =
      run.settings.custom_all_reduce.value_or(ctx.platform == VllmPlatform::cuda || ctx.platform == VllmPlatform::dcu);
  return ctx;
}

/// What plan says of a multimodal model's profile run: that the encoder's run is an estimate, or what
/// the activation leaves out; nothing for a text model.
/// `counted`: plan's budget holds the encoder's run (VllmBudget::encoder).
std::string multimodal_profile(const VllmLogFigures& f, const ModelConfig& m, const VllmContext& ctx, bool counted) {
  const bool qwen_tower = m.vision.profiled == ModelConfig::VisionShape::Profiled::qwen2_vit;
  if (counted)
    return fmt::format(
        "the profile run's vision encoder ({}) is counted from the tower's shape: an estimate of a block's "
        "peak ({}), which the attention kernel's buffers{} may exceed",
        f.encoder_budget
            ? fmt::format("{} tokens, {} items, as the log printed", *f.encoder_budget, f.encoder_items.value_or(1))
            : std::string("over plan's count, not printed"),
        qwen_tower ? "its MLP, or the attention's rotary embedding with the version's copies of q and k" : "its MLP",
        qwen_tower ? " or PyTorch's fallback rotary" : "");
  if (f.encoder_budget)
    return fmt::format(
        "the profile run also ran the vision encoder over {} tokens ({} {} item{}) and kept its "
        "outputs: not in plan's activation, which may be low by the encoder's peak",
        *f.encoder_budget, f.encoder_items.value_or(0), f.encoder_modality,
        f.encoder_items.value_or(0) == 1 ? "" : "s");
  if (m.vision_params <= 0) return {};
  return ctx.engine == VllmEngine::v0
             ? "V0's profile run feeds a multimodal model dummy images through its vision encoder: not in plan's "
               "activation, which may be low by the encoder's peak"
             : "a multimodal model: the profile run may also run its vision encoder, which plan's activation leaves "
               "out";
}

/// The engine flags: the command line first, then the log, then the version's defaults.
Asked run_asked(const VllmRun& run, const VllmContext& ctx, const Cards& cards, const ModelConfig& m,
                const CheckLogOptions& o, std::vector<std::string>& notes) {
  Asked r = o.asked;
  const auto& s = run.settings;
  if (!r.gpu_memory_utilization) r.gpu_memory_utilization = s.gpu_memory_utilization.value_or(0.9);
  if (!r.max_model_len && s.max_model_len) r.max_model_len = s.max_model_len;
  const auto len = r.max_model_len.value_or(m.default_max_model_len());
  const auto d = vllm_defaults(ctx, cards, len, s.llm_class, s.chunked_prefill);
  if (!r.max_num_seqs) r.max_num_seqs = s.max_num_seqs.value_or(d.max_num_seqs);
  if (!r.max_num_batched_tokens) r.max_num_batched_tokens = s.max_num_batched_tokens.value_or(d.max_num_batched_tokens);
  if (!o.asked.max_num_seqs && !s.max_num_seqs)
    notes.push_back(fmt::format("max-num-seqs {}: {}", *r.max_num_seqs, d.why_seqs));
  if (!o.asked.max_num_batched_tokens && !s.max_num_batched_tokens)
    notes.push_back(fmt::format("max-num-batched-tokens {}: {}", *r.max_num_batched_tokens, d.why));
  // V1 gives a card of 70 GiB or more larger defaults unless it is an A100: a total without a name
  // leaves that open.
  const bool defaulted =
      (!o.asked.max_num_seqs && !s.max_num_seqs) || (!o.asked.max_num_batched_tokens && !s.max_num_batched_tokens);
  if (defaulted && !o.gpu && ctx.engine == VllmEngine::v1) {
    if (!ctx.rules.v1_big_gpu_by_memory)
      notes.push_back(fmt::format(
          "the card is not named (--gpu): vLLM {} gives an H100 or H200 {} sequences and 8192 tokens a step "
          "(16384 offline), other cards the 256 and 2048 (8192) taken here: pass --gpu NAME",
          ctx.rules.version.upstream(), ctx.rules.v1_big_gpu_seqs));
    else if (static_cast<double>(cards.total_bytes) >= 70 * kGiB)
      notes.push_back(
          "the card is not named (--gpu): vLLM's defaults for a card of 70 GiB or more are taken; an A100 gets "
          "256 sequences and 2048 tokens a step (8192 offline) instead, which changes the sampler's and the "
          "forward pass's profile: pass --gpu NAME");
  }
  if (!r.kv_cache_dtype && s.kv_cache_dtype) r.kv_cache_dtype = *s.kv_cache_dtype;
  if (!r.block_size) r.block_size = s.block_size.value_or(16);
  if (!r.enforce_eager) r.enforce_eager = s.enforce_eager.value_or(false);
  if (!r.dtype && s.dtype && (*s.dtype == Dtype::float16 || *s.dtype == Dtype::bfloat16)) r.dtype = *s.dtype;
  if (r.limit_mm_per_prompt.empty()) r.limit_mm_per_prompt = s.mm_limits;  // the flag replaces the log's whole
  return r;
}

}  // namespace

bool LogCheck::all_within() const {
  return checked() > 0 &&
         std::all_of(runs.begin(), runs.end(), [](const RunCheck& r) { return !r.checked || r.within; });
}

int LogCheck::checked() const {
  return static_cast<int>(std::count_if(runs.begin(), runs.end(), [](const RunCheck& r) { return r.checked; }));
}

Result<RunCheck> check_run(const VllmRun& run, const ModelConfig& m, const Result<Weights>& weights, const Cards& cards,
                           const CheckLogOptions& o) {
  RunCheck c;
  c.run = run;
  auto version = run_version(run, o, c.version);
  if (!version) return version.error();
  c.version = fmt::format("vLLM {} ({})", version->upstream(), c.version);
  c.context = run_context(run, *version, cards);
  if (!run.settings.parallel_unknown.empty())
    return Error{
        fmt::format("{} (the run of lines {}-{})", run.settings.parallel_unknown, run.first_line, run.last_line)};
  c.tp = run.settings.tp.value_or(1);
  c.pp = run.settings.pp.value_or(1);
  if (!run.settings.parallel_source.empty())
    c.notes.push_back(run.settings.parallel_source);
  else if (!run.settings.tp)
    c.notes.push_back("TP 1: the log states no tensor-parallel size and shows no worker ranks");
  for (const auto& n : run.ignored) c.notes.push_back(n);
  c.context.encoder_tokens = run.figures.encoder_budget;
  c.context.encoder_items = run.figures.encoder_items;
  auto asked = run_asked(run, c.context, cards, m, o, c.notes);
  auto resolved = resolve_settings(m, cards, asked);
  if (!resolved)
    return Error{fmt::format("{} (the run of lines {}-{})", resolved.error().message, run.first_line, run.last_line)};
  c.settings = resolved->settings;
  if (o.weights_from_log || !weights) {
    if (!run.figures.weights)
      return Error{
          fmt::format("plan cannot count this model's weights ({}) and the log printed none; put the "
                      "*.safetensors next to config.json",
                      weights ? "--weights-from-log" : weights.error().message)};
    c.context.weights_per_gpu = *run.figures.weights * kGiB;
    c.notes.push_back(fmt::format("weights: the {:.4f} GiB vLLM printed ({})", *run.figures.weights,
                                  o.weights_from_log ? "--weights-from-log" : weights.error().message));
  }
  const Weights none{};
  c.plan = vllm_budget(m, weights ? *weights : none, cards, c.settings, c.tp, c.pp, c.context);
  c.multimodal_profile = multimodal_profile(run.figures, m, c.context, c.plan.encoder.has_value());
  if (!c.multimodal_profile.empty()) c.notes.push_back(c.multimodal_profile);
  bool derived = false;
  const auto avail = vllm_available(c, derived);
  // V1 on CUDA runs FlashInfer's sampler where flashinfer is installed; a log that does not say
  // which ran leaves the activation open between the two: the one vLLM's figure fits is taken, and said.
  if (avail && c.context.engine == VllmEngine::v1 && !c.context.sampler_known &&
      c.context.platform == VllmPlatform::cuda) {
    VllmContext other = c.context;
    other.sampler = c.context.sampler == SamplerKind::flashinfer ? SamplerKind::native_sort : SamplerKind::flashinfer;
    auto alt = vllm_budget(m, weights ? *weights : none, cards, c.settings, c.tp, c.pp, other);
    // The activation peak where vLLM printed it (the sampler is a term of it), else the KV it left.
    const std::optional<double> printed = printed_activation(run.figures);
    const double mine =
        printed ? std::abs(c.plan.budget.activation / kGiB - *printed) : std::abs(c.plan.budget.kv_budget - *avail);
    const double theirs =
        printed ? std::abs(alt.budget.activation / kGiB - *printed) : std::abs(alt.budget.kv_budget - *avail);
    if (theirs < mine && alt.sampler != c.plan.sampler) {
      c.notes.push_back(fmt::format(
          "sampler: the log does not say which ran; vLLM's {} fits {} ({:.2f} GiB) rather than {} ({:.2f} GiB), "
          "taken as the one that ran",
          printed ? "activation peak" : "figure", to_string(other.sampler), alt.sampler / kGiB,
          to_string(c.context.sampler), c.plan.sampler / kGiB));
      c.context = other;
      c.plan = std::move(alt);
    }
  }
  for (const auto& n : c.plan.notes) c.notes.push_back(n);
  const auto& b = c.plan.budget;
  const auto& f = run.figures;
  const std::optional<double> activation = printed_activation(f);
  c.lines.push_back({"card total", f.total, static_cast<double>(cards.total_bytes) / kGiB, true, cards.total_source});
  c.lines.push_back(
      {"x utilization",
       f.usable ? f.usable
                : (f.total ? std::optional<double>(*f.total * c.settings.gpu_memory_utilization) : std::nullopt),
       b.usable / kGiB, true, fmt::format("{:.2f}", c.settings.gpu_memory_utilization)});
  c.lines.push_back({"weights", f.weights, b.weights / kGiB, true, ""});
  c.lines.push_back({"activation peak", activation, b.activation / kGiB, true,
                     c.plan.encoder && b.activation <= c.plan.encoder->peak + c.plan.encoder->beside
                         ? std::string("vision encoder")
                     : c.plan.forward >= c.plan.sampler ? "forward pass"
                                                        : fmt::format("sampler, {}", to_string(c.context.sampler))});
  c.lines.push_back({"non-torch", f.non_torch, b.non_torch / kGiB, true, std::string(to_string(c.context.platform))});
  c.lines.push_back({"CUDA graphs in the budget", f.graphs_estimate, b.graphs / kGiB, true,
                     f.graphs_after ? fmt::format("captured after sizing: {:.2f} GiB", *f.graphs_after) : ""});
  c.lines.push_back(
      {"available KV per GPU", avail ? std::optional<double>(*avail / kGiB) : std::nullopt, b.kv_budget / kGiB, true,
       derived ? (f.available_kv
                      ? fmt::format("from its # GPU blocks: a rank the log does not show "
                                    "(printed ranks {:.2f} to {:.2f})",
                                    *f.available_kv, f.available_kv_max.value_or(0))
                      : std::string(f.gpu_blocks ? "vLLM's from its # GPU blocks" : "vLLM's from its token count"))
               : (f.available_kv_max && *f.available_kv_max != *f.available_kv
                      ? fmt::format("smallest rank{}; largest {:.2f}",
                                    f.available_from_terms ? " (its budget less its printed usage)" : "",
                                    *f.available_kv_max)
                      : "")});
  c.lines.push_back({"KV blocks",
                     f.gpu_blocks ? std::optional<double>(static_cast<double>(*f.gpu_blocks)) : std::nullopt,
                     static_cast<double>(b.blocks), false,
                     c.plan.layout.groups > 1
                         ? fmt::format("{} groups of {} layers", c.plan.layout.groups, c.plan.layout.layers_per_group)
                         : ""});
  std::optional<double> tokens = f.kv_tokens ? std::optional<double>(static_cast<double>(*f.kv_tokens)) : std::nullopt;
  if (!tokens && f.gpu_blocks && c.context.engine == VllmEngine::v0)
    tokens = static_cast<double>(*f.gpu_blocks * c.settings.block_size);
  c.lines.push_back({"KV tokens", tokens, static_cast<double>(b.tokens), false, ""});
  c.lines.push_back({"max concurrency", f.max_concurrency, b.max_concurrency, false,
                     fmt::format("{}-token requests", c.settings.max_model_len)});
  if (avail) {
    c.checked = true;
    c.kv_difference = b.kv_budget - *avail;
    c.kv_tolerance = std::max(kKvTolerance * std::abs(*avail), kKvToleranceGiB * kGiB);
    c.kv_within = std::abs(c.kv_difference) <= c.kv_tolerance;
    c.within = compare_lines(c, *avail) && c.kv_within;
    reproduce(c, m, *avail, derived);
    if (!c.within) name_uncertain_terms(c);
  } else {
    c.not_checked =
        "vLLM printed no available KV memory or blocks, and its token count cannot be turned into "
        "bytes for this model's layout (KV-cache groups or per-request state)";
  }
  return c;
}

Result<LogCheck> check_log(const std::string& path, const CheckLogOptions& o) {
  auto log = read_vllm_log(path);
  if (!log) return log.error();
  LogCheck out;
  out.log = path;
  std::string model_path = o.model.value_or("");
  if (model_path.empty())
    for (const auto& r : log->runs)
      if (!r.settings.model.empty()) {
        model_path = r.settings.model;
        break;
      }
  std::error_code ec;
  if (!o.model && model_path.empty())
    return Error{
        fmt::format("--check-log {}: the log names no model; plan reads config.json locally: pass --model DIR", path)};
  if (!o.model && !std::filesystem::exists(model_path, ec))
    return Error{
        fmt::format("--check-log {}: the log names the model '{}', which is not a directory here; plan reads "
                    "config.json locally: pass --model DIR",
                    path, model_path)};
  auto model = load_model_config(model_path);
  if (!model) return model.error();
  out.model = model->name;
  int index = 0;
  for (const auto& run : log->runs) {
    ++index;
    if (!run.figures.has_kv_result()) continue;
    const int gpus = run.settings.tp.value_or(1) * run.settings.pp.value_or(1);
    Cards cards;
    if (o.gpu) {
      auto named = cards_from_name(*o.gpu, gpus);
      if (!named) return named.error();
      cards = *named;
    } else {
      cards.name = run.settings.rocm ? "AMD GPU of the log" : "GPU of the log";
      cards.vendor = run.settings.rocm ? core::Vendor::amd : core::Vendor::nvidia;
      cards.count = gpus;
    }
    if (o.gpu_memory) {
      cards.total_bytes = *o.gpu_memory;
      cards.total_source = fmt::format("--gpu-memory {}", o.gpu_memory_text);
    } else if (run.figures.total) {
      cards.total_bytes = static_cast<std::uint64_t>(std::llround(*run.figures.total * kGiB));
      cards.total_source = "total_gpu_memory in the log";
    }
    if (cards.total_bytes == 0)
      return Error{
          fmt::format("--check-log {}: run {} (lines {}-{}) does not print the card's total memory; pass --gpu "
                      "NAME or --gpu-memory SIZE (what torch.cuda.mem_get_info reports)",
                      path, index, run.first_line, run.last_line)};
    ModelConfig m = *model;
    if (run.settings.quantization == "fp8" &&
        m.quant == QuantMethod::none) {  // --quantization fp8 on a 16-bit checkpoint
      m.quant = QuantMethod::fp8;
      m.quant_bits = 8;
      m.quant_name = "fp8";
    }
    Result<Weights> weights = count_weights(m);
    if (m.quant != model->quant) {  // count from config.json: the files on disk hold the 16-bit weights
      Weights w;
      w.computed = compute_weights(m);
      w.total_bytes = static_cast<std::uint64_t>(std::llround(w.computed.total()));
      w.detail = "computed from config.json with the log's --quantization fp8";
      weights = w;
    }
    auto rc = check_run(run, m, weights, cards, o);
    if (!rc) return Error{fmt::format("--check-log {}: {}", path, rc.error().message)};
    rc->index = index;
    out.runs.push_back(std::move(*rc));
  }
  if (out.runs.empty())
    return Error{
        fmt::format("--check-log {}: no run prints a KV-cache result (available KV cache memory, # GPU blocks "
                    "or GPU KV cache size); nothing to check",
                    path)};
  return out;
}

}  // namespace dcukit::plan
