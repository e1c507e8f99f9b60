// `dcukit plan`: will a model start on these cards, with what parallelism, context and
// concurrency, and the launch script. Parsing and rendering only; the engine is plan::run.
#include "cli/commands.h"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "core/units.h"
#include "plan/cards.h"
#include "plan/check_log_render.h"
#include "plan/emit_vllm.h"
#include "plan/render.h"
#include "plan/run.h"
#include "plan/vllm_version.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

constexpr const char* kPlan = "plan";

/// Everything the user typed; the request's optionals stay empty where a flag was not given.
struct PlanOptions {
  std::string gpu_memory, dtype, kv_cache_dtype, goal, limit_mm_per_prompt;
  int count = 0;
  double gpu_memory_utilization = 0;
  std::int64_t max_model_len = 0, max_num_batched_tokens = 0;
  int max_num_seqs = 0, block_size = 0;
  bool enforce_eager = false, no_enforce_eager = false;
  Output json{"--json", ""}, markdown{"--markdown", ""};
  std::string emit, output, vllm_version;
  plan::EmitOptions emit_options;
  plan::Request request;
};

template <class T>
std::optional<T> given(const CLI::App* sub, const char* name, const T& value) {
  return sub->count(name) > 0 ? std::optional<T>(value) : std::nullopt;
}

/// A validator that accepts what `parse` maps to a value; the error lists the spellings.
template <class Parse>
CLI::Validator one_of(Parse parse, std::string names) {
  return CLI::Validator(
      [parse, names](std::string& text) -> std::string {
        return parse(text) ? std::string{} : fmt::format("'{}' is not one of {}", text, names);
      },
      names);
}

/// A validator that accepts what `parse` reads (a Result); the error is the parser's.
template <class Parse>
CLI::Validator read_by(Parse parse, std::string form) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        auto v = parse(text);
        return v ? std::string{} : v.error().message;
      },
      std::move(form));
}

/// A validator for --check-log: a file that exists and can be read; the error names it.
CLI::Validator readable_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        namespace fs = std::filesystem;
        if (!fs::exists(path, ec)) return fmt::format("{}: no such file; pass a vLLM start-up log", path);
        if (!fs::is_regular_file(path, ec))
          return fmt::format("{}: not a regular file; pass a vLLM start-up log", path);
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (f == nullptr) return fmt::format("{}: cannot be read ({})", path, std::strerror(errno));
        std::fclose(f);
        return {};
      },
      "FILE");
}

ExitCode run_plan(PlanOptions& o) {
  if (!o.emit.empty() && o.emit != "vllm")
    return fail(kPlan, ExitCode::bad_input,
                fmt::format("--emit {}: plan writes vLLM launch scripts only; pass --emit vllm", o.emit));
  if (!o.output.empty() && o.emit.empty())
    return fail(kPlan, ExitCode::bad_input,
                fmt::format("-o {}: -o names where --emit writes its script; add --emit vllm", o.output));
  const OutputFile script_file{"-o", o.output == "-" ? std::string{} : o.output};
  if (Status s = check_outputs({script_file}); !s) return fail(kPlan, ExitCode::bad_input, s.message());
  if (Status s = check_outputs({o.json, o.markdown}); !s) return fail(kPlan, ExitCode::bad_input, s.message());
  if (o.json.to_stdout() && !o.emit.empty() && script_file.path.empty())
    return fail(kPlan, ExitCode::bad_input, "--json and --emit both write to stdout: give one a file (-o FILE)");
  if (!o.gpu_memory.empty()) {
    auto bytes = core::parse_size(o.gpu_memory);
    if (!bytes) return fail(kPlan, ExitCode::bad_input, fmt::format("--gpu-memory {}", bytes.error().message));
    o.request.gpu_memory = *bytes;
    o.request.gpu_memory_text = o.gpu_memory;
  }
  o.request.command = command_line();
  auto report = plan::run(o.request);
  if (!report) return fail(kPlan, ExitCode::bad_input, report.error().message);
  // The text on stdout unless --json or --markdown take it; the Markdown where --markdown says.
  const auto show = [&o, &report] {
    if (!o.json.to_stdout() && !o.markdown.to_stdout()) print_report([&] { return plan::render_text(*report); });
    return emit(kPlan, o.markdown, o.markdown.asked() ? plan::render_markdown(*report) : std::string());
  };
  if (report->check) {
    bool written = show();
    written = emit(kPlan, o.json, util::json_document(plan::to_json(*report))) && written;
    return report->check->all_within() && written ? ExitCode::ok : ExitCode::failed;
  }
  const auto& p = report->plan;
  print_verbose(kPlan, fmt::format("{} option(s) weighed; {}", p.options.size(), p.reason));
  if (!o.emit.empty()) {
    auto script = plan::emit_vllm(p, o.emit_options);
    if (!script) return fail(kPlan, p.chosen() ? ExitCode::bad_input : ExitCode::failed, script.error().message);
    if (script_file.path.empty()) {
      fmt::print("{}", *script);
      return emit(kPlan, o.json, util::json_document(plan::to_json(*report))) ? ExitCode::ok : ExitCode::failed;
    }
    if (!write_output(kPlan, script_file, *script)) return ExitCode::failed;
    std::error_code ec;
    namespace fs = std::filesystem;
    fs::permissions(script_file.path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    bool written = show();
    written = emit(kPlan, o.json, util::json_document(plan::to_json(*report))) && written;
    print_note(kPlan, "wrote " + script_file.path);
    return written ? ExitCode::ok : ExitCode::failed;
  }
  bool written = show();
  written = emit(kPlan, o.json, util::json_document(plan::to_json(*report))) && written;
  if ((o.json.to_stdout() || o.markdown.to_stdout()) && !p.chosen())
    print_error(kPlan, fmt::format("{}. Nearest that works: {}", p.reason, p.nearest));
  return p.chosen() && written ? ExitCode::ok : ExitCode::failed;
}

}  // namespace

void setup_plan(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<PlanOptions>();
  auto* sub = app.add_subcommand("plan",
                                 "Memory budget, parallelism, context and concurrency for a model on given "
                                 "cards, the vLLM way; writes the launch script");
  auto& r = opts->request;
  sub->add_option("--model", r.model,
                  "Model directory (with config.json) or a config.json; read locally (required unless --check-log "
                  "names a log whose model is here)");
  sub->add_option("--gpu", r.gpu, "Plan for these cards from the peak data (BW1000, H100, ...); default: this host's");
  sub->add_option("--count", opts->count, "Cards available (default: all detected; 8 with --gpu)")
      ->check(whole_in(1, plan::kMaxCards));
  sub->add_option("--gpu-memory", opts->gpu_memory,
                  "Total memory of a card as its runtime reports it, overriding the peak data (e.g. 96GiB)")
      ->check(size_in(core::kGiB, 16 * 1024 * core::kGiB));
  sub->add_option("--max-model-len", opts->max_model_len, "Longest request in tokens (default: the model's limit)")
      ->check(whole_in(1, 1 << 28));
  sub->add_option("--gpu-memory-utilization", opts->gpu_memory_utilization,
                  "Fraction of each card vLLM may use (default: 0.9; 0.85-0.9 on DCU)")
      ->check(number_in(0.01, 1));
  sub->add_option("--max-num-seqs", opts->max_num_seqs, "Sequences batched at once (default 256)")
      ->check(whole_in(1, 65536));
  sub->add_option("--max-num-batched-tokens", opts->max_num_batched_tokens, "Tokens a step (default 8192)")
      ->check(whole_in(1, 1 << 24));
  sub->add_option("--kv-cache-dtype", opts->kv_cache_dtype,
                  "auto, fp8, fp8_e4m3 or fp8_e5m2 (default: auto, or fp8 "
                  "where it reaches the concurrency target)")
      ->check(one_of(plan::parse_kv_cache_dtype, "auto, fp8, fp8_e4m3, fp8_e5m2"));
  sub->add_option("--block-size", opts->block_size, "KV block size in tokens (default 16)")->check(whole_in(1, 128));
  sub->add_option("--dtype", opts->dtype,
                  "auto, bfloat16 or float16 (default: the checkpoint's where the card does it)")
      ->check(one_of(plan::parse_dtype, "auto, bfloat16, float16 (half), float32 (float)"));
  sub->add_option("--limit-mm-per-prompt", opts->limit_mm_per_prompt,
                  "Images and videos a prompt may hold, as vLLM takes it: '{\"image\": 2, \"video\": 0}' or "
                  "image=2,video=0 (default vLLM's; sizes the vision encoder's run in the profile)")
      ->check(read_by(plan::parse_mm_limits, "JSON"));
  auto* eager = sub->add_flag("--enforce-eager", opts->enforce_eager, "No CUDA/HIP graphs (default on DCU)");
  sub->add_flag("--no-enforce-eager", opts->no_enforce_eager, "Capture graphs even on DCU")->excludes(eager);
  sub->add_option("--min-concurrency", r.asked.min_concurrency,
                  "Full-length requests the recommended option should hold at once (default 8)")
      ->check(whole_in(1, 1000000));
  sub->add_option("--goal", opts->goal,
                  "fewest-cards (default) or most-concurrency (the fp8 KV cache where the "
                  "card's vLLM has it, as seed 004 serves)")
      ->check(one_of(plan::parse_goal, "fewest-cards, most-concurrency"));
  sub->add_option("--python", r.python,
                  "The serving environment's Python, asked whether the card does bf16 "
                  "(default python3; only for this host's cards)");
  add_output(sub, opts->json, "The plan as JSON");
  add_output(sub, opts->markdown, "The tables as Markdown");
  add_presentation(sub);
  sub->add_option("--emit", opts->emit, "Write a launch script instead of the tables: vllm");
  sub->add_option("-o,--output", opts->output, "Where --emit writes the script (default: standard output)");
  sub->add_option("--toolkit-env", opts->emit_options.toolkit_env,
                  "Environment script the launch script sources (default /opt/dtk/env.sh on DCU)");
  sub->add_option("--served-model-name", opts->emit_options.served_model_name,
                  "Name clients use (default: the directory's)");
  sub->add_option("--host", opts->emit_options.host, "Address vLLM listens on (default 0.0.0.0)");
  sub->add_option("--port", opts->emit_options.port, "Port vLLM listens on (default 8000)")->check(whole_in(1, 65535));
  sub->add_option("--vllm-version", opts->vllm_version,
                  "Follow this vLLM version's accounting and defaults, e.g. 0.10.1 or 0.18.1+das.dtk2604 (default: "
                  "this host's vLLM where its cards are planned, else the newest the data knows)")
      ->check(read_by(plan::parse_vllm_version, "X.Y[.Z]"));
  auto* check_log =
      sub->add_option("--check-log", r.check_log,
                      "Hold the plan against a vLLM start-up log: model, settings and version from the log (flags "
                      "override), line by line; exit 1 where available KV is outside the tolerance")
          ->check(readable_file());
  sub->add_flag("--weights-from-log", r.weights_from_log,
                "With --check-log: take the weights vLLM printed instead of counting them")
      ->needs(check_log);
  for (const char* name : {"--count", "--min-concurrency", "--goal", "--emit", "--output"})  // plan-only flags
    check_log->excludes(sub->get_option(name));
  sub->callback([opts, sub, &runner] {
    auto& a = opts->request.asked;
    opts->request.count = given(sub, "--count", opts->count);
    a.gpu_memory_utilization = given(sub, "--gpu-memory-utilization", opts->gpu_memory_utilization);
    a.max_model_len = given(sub, "--max-model-len", opts->max_model_len);
    a.max_num_seqs = given(sub, "--max-num-seqs", opts->max_num_seqs);
    a.max_num_batched_tokens = given(sub, "--max-num-batched-tokens", opts->max_num_batched_tokens);
    a.block_size = given(sub, "--block-size", opts->block_size);
    if (sub->count("--kv-cache-dtype") > 0) a.kv_cache_dtype = plan::parse_kv_cache_dtype(opts->kv_cache_dtype);
    if (sub->count("--dtype") > 0) a.dtype = plan::parse_dtype(opts->dtype);
    if (sub->count("--limit-mm-per-prompt") > 0)
      if (auto l = plan::parse_mm_limits(opts->limit_mm_per_prompt)) a.limit_mm_per_prompt = *l;
    if (sub->count("--goal") > 0) a.goal = plan::parse_goal(opts->goal).value_or(plan::Goal::fewest_cards);
    if (opts->enforce_eager) a.enforce_eager = true;
    if (opts->no_enforce_eager) a.enforce_eager = false;
    if (sub->count("--vllm-version") > 0) opts->request.vllm_version = opts->vllm_version;
    runner = [opts] { return run_plan(*opts); };
  });
}

}  // namespace dcukit::cli
