// `dcukit plan`: will a model start on these cards, with what parallelism, context and
// concurrency, and the launch script. Parsing only; the engine is src/plan/.
#include "cli/plan.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <optional>

#include "core/units.h"
#include "device/registry.h"
#include "plan/cards.h"
#include "plan/check_log.h"
#include "plan/check_log_render.h"
#include "plan/emit_vllm.h"
#include "plan/model_config.h"
#include "plan/planner.h"
#include "plan/render.h"
#include "plan/vllm_plan.h"
#include "plan/vllm_version.h"
#include "plan/weights.h"

namespace dcukit::cli {
namespace {

/// Everything the user typed; request's optionals stay empty where a flag was not given.
struct PlanOptions {
  std::string model, gpu, gpu_memory;
  int count = 0;
  double gpu_memory_utilization = 0;
  std::int64_t max_model_len = 0, max_num_batched_tokens = 0;
  int max_num_seqs = 0, block_size = 0, min_concurrency = 8;
  std::string kv_cache_dtype, dtype;
  bool enforce_eager = false, no_enforce_eager = false;
  bool json = false, markdown = false;
  std::string emit, output;
  plan::EmitOptions emit_options;
  plan::Request request;
  std::string check_log, vllm_version;
  bool weights_from_log = false;
};

/// The vLLM installed on this host, for --vllm-version's default. The stack probe
/// (src/stack/python.h) is not on this branch; wire it here when it lands: return its version.
plan::HostVllmProbe host_vllm_probe() { return {}; }

template <class T>
std::optional<T> given(const CLI::App* sub, const char* name, const T& value) {
  return sub->count(name) > 0 ? std::optional<T>(value) : std::nullopt;
}

ExitCode fail(ExitCode code, const std::string& message) {
  fmt::print(stderr, "dcukit plan: {}\n", message);
  return code;
}

Result<plan::Cards> find_cards(const PlanOptions& o) {
  auto cards = [&]() -> Result<plan::Cards> {
    if (!o.gpu.empty()) return plan::cards_from_name(o.gpu, o.count > 0 ? o.count : 8);
    auto registry = device::Registry::load();
    return plan::cards_from_detected(device::detect_gpus(registry), o.count);
  }();
  if (!cards || o.gpu_memory.empty()) return cards;
  auto bytes = core::parse_size(o.gpu_memory);
  if (!bytes || *bytes == 0)
    return Error{fmt::format("--gpu-memory {}: give the total a card's runtime reports, e.g. 63.98GiB", o.gpu_memory)};
  cards->total_bytes = *bytes;
  cards->total_source = fmt::format("--gpu-memory {}", o.gpu_memory);
  return cards;
}

ExitCode write_script(const PlanOptions& o, const plan::Plan& p) {
  auto script = plan::emit_vllm(p, o.emit_options);
  if (!script) return fail(ExitCode::failed, script.error().message);
  if (o.output.empty() || o.output == "-") {
    fmt::print("{}", *script);
    return ExitCode::ok;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  out << *script;
  if (!out) return fail(ExitCode::failed, fmt::format("--output {}: cannot write there; pass a writable path", o.output));
  out.close();
  std::error_code ec;
  namespace fs = std::filesystem;
  fs::permissions(o.output, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add, ec);
  fmt::print("{}\nwrote {}\n", plan::render_text(p, o.markdown), o.output);
  return ExitCode::ok;
}

ExitCode run_check_log(const PlanOptions& o, const CLI::App* sub) {
  plan::CheckLogOptions c;
  if (sub->count("--model") > 0) c.model = o.model;
  if (!o.gpu.empty()) c.gpu = o.gpu;
  if (!o.gpu_memory.empty()) {
    auto bytes = core::parse_size(o.gpu_memory);
    if (!bytes || *bytes == 0)
      return fail(ExitCode::bad_input,
                  fmt::format("--gpu-memory {}: give the total a card's runtime reports, e.g. 39.39GiB", o.gpu_memory));
    c.gpu_memory = *bytes;
  }
  if (!o.vllm_version.empty()) c.vllm_version = o.vllm_version;
  c.weights_from_log = o.weights_from_log;
  c.request = o.request;
  auto check = plan::check_log(o.check_log, c);
  if (!check) return fail(ExitCode::bad_input, check.error().message);
  fmt::print("{}", o.json ? plan::render_check_json(*check) : plan::render_check_text(*check, o.markdown));
  return check->all_within() ? ExitCode::ok : ExitCode::failed;
}

ExitCode run_plan(const PlanOptions& o, const CLI::App* sub) {
  if (!o.check_log.empty()) return run_check_log(o, sub);
  if (o.model.empty()) return fail(ExitCode::bad_input, "--model is required: the directory holding config.json");
  if (!o.emit.empty() && o.emit != "vllm")
    return fail(ExitCode::bad_input, fmt::format("--emit {}: plan writes vLLM launch scripts only; pass --emit vllm", o.emit));
  if (o.count < 0) return fail(ExitCode::bad_input, fmt::format("--count {}: pass 1 or more cards", o.count));
  auto model = plan::load_model_config(o.model);
  if (!model) return fail(ExitCode::bad_input, model.error().message);
  auto weights = plan::count_weights(*model);
  if (!weights) return fail(ExitCode::bad_input, weights.error().message);
  auto cards = find_cards(o);
  if (!cards) return fail(ExitCode::bad_input, cards.error().message);
  auto vllm = plan::choose_vllm(o.vllm_version.empty() ? std::nullopt : std::optional<std::string>(o.vllm_version),
                                host_vllm_probe());
  if (!vllm) return fail(ExitCode::bad_input, vllm.error().message);
  const std::string accounting = fmt::format("vLLM {} ({})", vllm->version.upstream(), vllm->from);
  auto result = plan::make_plan(*model, *weights, *cards, o.request, plan::vllm_budget_model(vllm->version));
  if (!result) return fail(ExitCode::bad_input, result.error().message);
  const auto& p = *result;
  if (!o.emit.empty()) return write_script(o, p);
  if (o.json) {  // the accounting line joins the plan's JSON here until the renderer carries it
    auto j = nlohmann::json::parse(plan::render_json(p));
    j["accounting"] = accounting;
    fmt::print("{}\n", j.dump(2));
    if (!p.chosen()) fmt::print(stderr, "dcukit plan: {}. Nearest that works: {}\n", p.reason, p.nearest);
  } else {
    fmt::print("accounting {}\n{}", accounting, plan::render_text(p, o.markdown));
  }
  return p.chosen() ? ExitCode::ok : ExitCode::failed;
}

} // namespace

void setup_plan(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<PlanOptions>();
  auto* sub = app.add_subcommand("plan", "Memory budget, parallelism, context and concurrency for a model on given "
                                         "cards, the vLLM way; writes the launch script");
  sub->add_option("--model", opts->model, "Model directory (with config.json) or a config.json; read locally");
  sub->add_option("--gpu", opts->gpu, "Plan for these cards from the peak data (BW1000, H100, ...); default: this host's");
  sub->add_option("--count", opts->count, "Cards available (default: all detected; 8 with --gpu)");
  sub->add_option("--gpu-memory", opts->gpu_memory,
                  "Total memory of a card as its runtime reports it, overriding the peak data (e.g. 96GiB)");
  sub->add_option("--max-model-len", opts->max_model_len, "Longest request in tokens (default: the model's limit)");
  sub->add_option("--gpu-memory-utilization", opts->gpu_memory_utilization,
                  "Fraction of each card vLLM may use (default: 0.9; 0.85-0.9 on DCU)");
  sub->add_option("--max-num-seqs", opts->max_num_seqs, "Sequences batched at once (default 256)");
  sub->add_option("--max-num-batched-tokens", opts->max_num_batched_tokens, "Tokens a step (default 8192)");
  sub->add_option("--kv-cache-dtype", opts->kv_cache_dtype, "auto, fp8, fp8_e4m3 or fp8_e5m2 (default auto)");
  sub->add_option("--block-size", opts->block_size, "KV block size in tokens (default 16)");
  sub->add_option("--dtype", opts->dtype, "auto, bfloat16 or float16 (default: the checkpoint's, float16 without bf16)");
  auto* eager = sub->add_flag("--enforce-eager", opts->enforce_eager, "No CUDA/HIP graphs (default on DCU)");
  sub->add_flag("--no-enforce-eager", opts->no_enforce_eager, "Capture graphs even on DCU")->excludes(eager);
  sub->add_option("--min-concurrency", opts->min_concurrency,
                  "Full-length requests the recommended option should hold at once (default 8)");
  sub->add_flag("--json", opts->json, "Print the plan as JSON");
  sub->add_flag("--markdown", opts->markdown, "Print the tables as Markdown");
  sub->add_option("--emit", opts->emit, "Write a launch script instead of the tables: vllm");
  sub->add_option("-o,--output", opts->output, "Where --emit writes the script (default: standard output)");
  sub->add_option("--toolkit-env", opts->emit_options.toolkit_env,
                  "Environment script the launch script sources (default /opt/dtk/env.sh on DCU)");
  sub->add_option("--served-model-name", opts->emit_options.served_model_name, "Name clients use (default: the directory's)");
  sub->add_option("--host", opts->emit_options.host, "Address vLLM listens on (default 0.0.0.0)");
  sub->add_option("--port", opts->emit_options.port, "Port vLLM listens on (default 8000)");
  sub->add_option("--vllm-version", opts->vllm_version,
                  "Follow this vLLM version's accounting and defaults (default: this host's vLLM, else the newest "
                  "the data knows)");
  sub->add_option("--check-log", opts->check_log,
                  "Hold the plan against a vLLM start-up log: model, settings and version from the log (flags "
                  "override), line by line");
  sub->add_flag("--weights-from-log", opts->weights_from_log,
                "With --check-log: take the weights vLLM printed instead of counting them");
  sub->callback([opts, sub, &runner] {
    auto& r = opts->request;
    r.gpu_memory_utilization = given(sub, "--gpu-memory-utilization", opts->gpu_memory_utilization);
    r.max_model_len = given(sub, "--max-model-len", opts->max_model_len);
    r.max_num_seqs = given(sub, "--max-num-seqs", opts->max_num_seqs);
    r.max_num_batched_tokens = given(sub, "--max-num-batched-tokens", opts->max_num_batched_tokens);
    r.kv_cache_dtype = given(sub, "--kv-cache-dtype", opts->kv_cache_dtype);
    r.block_size = given(sub, "--block-size", opts->block_size);
    r.dtype = given(sub, "--dtype", opts->dtype);
    if (opts->enforce_eager) r.enforce_eager = true;
    if (opts->no_enforce_eager) r.enforce_eager = false;
    r.min_concurrency = opts->min_concurrency;
    runner = [opts, sub] { return run_plan(*opts, sub); };
  });
}

} // namespace dcukit::cli
