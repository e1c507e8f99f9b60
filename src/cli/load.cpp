// `dcukit load` and `dcukit load compare`: the command line, checked as it is parsed (every
// number has a range; bad input exits 2 before anything is sent), then load::run and the
// renderers. The engine is dcukit::load.
#include "cli/commands.h"

#include <fmt/core.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "cli/common.h"
#include "cli/load_args.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "core/run_info.h"
#include "core/table.h"
#include "load/compare.h"
#include "load/render.h"
#include "load/run.h"
#include "serving/url.h"
#include "util/redact.h"
#include "util/signals.h"
#include "util/text.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

constexpr const char* kLoad = "load";

/// A request rate: a number in [0.001, 1e6] requests/s, or "inf" (all at once, vLLM's default).
CLI::Validator rate_in() {
  const CLI::Validator number = number_in(1e-3, 1e6);
  return CLI::Validator(
      [number](std::string& text) -> std::string {
        if (text == "inf") return {};
        std::string copy = text;
        const std::string why = number(copy);
        return why.empty() ? why : why + " (requests/s; or inf)";
      },
      "RATE in [0.001, 1e6] or inf");
}

/// "412 of 1000 done (3 failed), 64 in flight, 31.2 s, ETA 44 s": how far a level is, with an
/// ETA when its size (a count or a duration) is known.
std::string progress_text(const load::Progress& p) {
  const std::size_t done = p.completed + p.failed;
  double fraction = -1;
  std::string of;
  if (p.total > 0) {
    fraction = static_cast<double>(done) / static_cast<double>(p.total);
    of = fmt::format(" of {}", p.total);
  } else if (p.duration_s > 0) {
    fraction = p.elapsed_s / p.duration_s;
    of = fmt::format(" in {:.0f} s", p.duration_s);
  }
  std::string text = fmt::format("{}{} done ({} failed), {} in flight, {:.1f} s", done, of, p.failed, p.in_flight,
                                 p.elapsed_s);
  if (const std::string eta = util::eta_text(fraction, p.elapsed_s); !eta.empty() && !p.finished)
    text += ", " + eta;
  return text;
}

std::string markdown_of(const std::vector<core::Table>& tables) {
  std::string out;
  for (const auto& t : tables) out += core::render_markdown(t) + "\n";
  return out;
}

/// "6 of 200 requests failed (http_status 6); the first: HTTP 400: ..."
std::string failure_summary(const load::Report& r) {
  std::size_t total = 0;
  std::map<load::ErrorClass, std::size_t> by_class;
  std::string first;
  for (const auto& l : r.levels) {
    total += l.num_prompts;
    for (const auto& [c, n] : l.errors_by_class) by_class[c] += n;
    if (l.first_error && first.empty()) first = *l.first_error;
  }
  std::string classes;
  for (const auto& [c, n] : by_class)
    classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", load::to_string(c), n);
  return fmt::format("{} of {} requests failed ({}); the first: {}", r.failed_requests(), total, classes, first);
}

ExitCode run_load(const LoadArgs& a) {
  auto request = to_request(a);
  if (!request) {
    print_error(kLoad, request.error().message);
    return ExitCode::bad_input;
  }
  const Output json_out{"--json", a.json_path}, csv_out{"--csv", a.csv_path}, md_out{"--markdown", a.markdown_path};
  if (Status s = check_outputs({json_out, csv_out, md_out}); !s) {
    print_error(kLoad, s.message());
    return ExitCode::bad_input;
  }
  auto& stop = util::StopToken::process();
  request->stop = &stop;
  if (progress().shown() && !a.no_progress)
    request->on_progress = [](const std::string& label, const load::Progress& p) {
      progress().status(label, progress_text(p), p.finished);
    };
  request->on_notice = [](const std::string& line) { print_note(kLoad, line); };
  print_verbose(kLoad, fmt::format("{} {} ({}), {} level(s)", util::redact(request->url), request->endpoint,
                                   request->model.empty() ? "the first model /v1/models lists" : request->model,
                                   request->rates.empty() ? request->concurrencies.size() : request->rates.size()));
  const auto result = load::run(*request);
  progress().close();
  if (!result) {
    print_error(kLoad, result.error().message);
    return ExitCode::bad_input;
  }
  const load::Report& report = *result;
  // The --json result, to stdout for "-": written whole also when the run stopped early.
  const auto write_json = [&] { return emit(kLoad, json_out, util::json_document(load::to_json(report))); };
  if (report.levels.empty()) {
    // Stopped before any level (no server, a failed trial, a stop): a program that asked for
    // --json still gets the file, with run_info, no runs, and the problem.
    (void)write_json();
    if (report.problem) print_error(kLoad, report.problem->message);
    if (report.interrupted) {
      print_error(kLoad, "stopped (Ctrl-C or SIGTERM) before anything was measured");
      return ExitCode::interrupted;
    }
    return report.problem && report.problem->kind == load::ProblemKind::bad_input ? ExitCode::bad_input
                                                                                   : ExitCode::failed;
  }
  if (!json_out.to_stdout() && !csv_out.to_stdout() && !md_out.to_stdout())
    print_report([&] { return load::render_text(report); });
  bool written = write_json();
  written = emit(kLoad, md_out, md_out.asked() ? load::render_markdown(report) : std::string()) && written;
  written = emit(kLoad, csv_out, load::report_csv(report)) && written;
  if (a.save_result) {
    // As vLLM: --result-dir is made when it is not there.
    std::error_code ec;
    if (!a.result_dir.empty()) std::filesystem::create_directories(a.result_dir, ec);
    if (ec) {
      print_error(kLoad, fmt::format("--result-dir {}: {}", a.result_dir, ec.message()));
      written = false;
    } else {
      for (const auto& f : load::vllm_result_files(report, a.result_dir, a.result_filename))
        written = write_output(kLoad, OutputFile{"--save-result", f.path}, f.content) && written;
    }
  }
  // What went wrong goes last, after the tables, whichever of stdout and stderr is redirected.
  std::fflush(stdout);
  if (report.problem)
    print_error(kLoad,
                fmt::format("{}; the {} level{} measured before it are in the results", report.problem->message,
                            report.levels.size(), report.levels.size() == 1 ? "" : "s"));
  if (report.failed_requests() > 0) print_error(kLoad, failure_summary(report));
  if (report.interrupted) return ExitCode::interrupted;
  if (report.problem && report.problem->kind == load::ProblemKind::bad_input) return ExitCode::bad_input;
  if (report.problem || report.failed_requests() > 0 || !written) return ExitCode::failed;
  return ExitCode::ok;
}

ExitCode run_compare(const LoadArgs& a) {
  auto tables = load::compare_files(a.compare_a, a.compare_b);
  if (!tables) {
    print_error("load compare", tables.error().message);
    return ExitCode::bad_input;
  }
  const Output md_out{"--markdown", a.markdown_path};
  if (Status s = check_outputs({md_out}); !s) return fail("load compare", ExitCode::bad_input, s.message());
  if (!md_out.to_stdout())
    print_report([&] {
      std::string text;
      for (const auto& t : *tables) text += core::render_text(t) + "\n";
      return text;
    });
  return emit("load compare", md_out, markdown_of(*tables)) ? ExitCode::ok : ExitCode::failed;
}

void add_target_options(CLI::App* sub, LoadArgs& o) {
  sub->add_option("--url,--base-url", o.request.url,
                  "Server base URL, e.g. http://127.0.0.1:8000 (user:password@ is sent, never shown)");
  sub->add_option("--endpoint", o.request.endpoint, "API path: /v1/completions or /v1/chat/completions")->capture_default_str();
  sub->add_option("--model", o.request.model, "Model name (default: the first /v1/models lists)");
  sub->add_option("--api-key-env", o.api_key_env, "Environment variable holding the API key (sent as a Bearer token)")
      ->capture_default_str();
  sub->add_option("-H,--header", o.request.headers, "Extra header 'Name: value' (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_flag("--insecure", o.request.tls.insecure, "Skip TLS certificate verification");
  sub->add_option("--cacert", o.request.tls.ca_file, "PEM file of CA certificates to trust for https (a private CA)")
      ->check(CLI::ExistingFile);
  sub->add_option("--timeout", o.timeout_s, "Deadline of every request (30, 2m; a stream that never ends fails)")
      ->transform(seconds_in(0.001, 7 * 86400))
      ->capture_default_str();
  sub->add_option("--wait-ready", o.request.wait_ready_s, "Poll /health then /v1/models for up to this long first (600, 10m)")
      ->transform(seconds_in(0.001, 86400));
  sub->add_flag("--no-trial", o.no_trial,
                "Send the load without one trial request first (the trial stops a run whose first request fails)");
  sub->add_option("--metrics-url", o.request.metrics_url,
                  "The server's Prometheus /metrics (vLLM, SGLang, llama.cpp --metrics, TGI): its counters per level");
  sub->add_flag("--metrics-auth", o.request.metrics_auth,
                "Also send the API key and -H headers to a --metrics-url on another host (never sent there otherwise)");
}

void add_workload_options(CLI::App* sub, LoadArgs& o) {
  sub->add_option("--dataset,--dataset-name", o.dataset, "random, sharegpt or jsonl (vLLM's custom: jsonl)")
      ->check(CLI::IsMember({"random", "sharegpt", "jsonl", "custom"}))
      ->capture_default_str();
  sub->add_option("--dataset-path", o.request.workload.path,
                  "ShareGPT JSON or JSONL file ({\"prompt\": ..., \"output_len\": N} a line)")
      ->check(CLI::ExistingFile);
  sub->add_option("--input-len,--random-input-len", o.request.workload.input_len, "random: prompt length in tokens, shared prefix included")
      ->check(whole_in(1, 1'000'000))
      ->capture_default_str();
  sub->add_option("--output-len,--random-output-len", o.output_len,
                  "max_tokens (default 128; files: overrides their lengths, 0 keeps them)")
      ->check(whole_in(0, 1'000'000));
  sub->add_option("--output-len-max", o.request.workload.output_len_max, "random: draw max_tokens uniformly from [--output-len, this]")
      ->check(whole_in(0, 1'000'000));
  sub->add_option("--prefix-len,--random-prefix-len", o.request.workload.prefix_len, "random: tokens shared by every prompt")
      ->check(whole_in(0, 1'000'000));
  sub->add_option("--prompt", o.prompt_mode,
                  "random prompts: ids (token ids), text (calibrated to the server's count) or auto (ids, and text "
                  "where the server refuses ids or on chat)")
      ->check(CLI::IsMember({"auto", "ids", "text"}))
      ->capture_default_str();
  auto* no_eos =
      sub->add_flag("--no-ignore-eos", o.no_ignore_eos, "Do not send ignore_eos (outputs may end before max_tokens)");
  sub->add_flag("--ignore-eos", o.ignore_eos, "Send ignore_eos (the default here; vLLM's flag, accepted)")
      ->excludes(no_eos);
  sub->add_flag("--min-tokens", o.request.body.min_tokens, "Also send min_tokens = max_tokens");
  sub->add_flag("--no-stream", o.no_stream, "Non-streaming requests (TTFT is then the whole response; no TPOT)");
  sub->add_flag("--no-usage", o.no_usage, "Do not ask for stream_options.include_usage");
  sub->add_flag(
      "--continuous-usage", o.request.body.continuous_usage,
      "Ask for usage in every chunk (vLLM's continuous_usage_stats): exact tokens per chunk for per-token ITL");
  sub->add_option("--temperature", o.request.body.temperature, "Sampling temperature")
      ->check(number_in(0, 100))
      ->capture_default_str();
  sub->add_option("--extra-body", o.extra_body, "JSON object merged into every request body");
  sub->add_option("--seed", o.request.seed, "Seed for prompts and gaps")->capture_default_str();
}

void add_shape_options(CLI::App* sub, LoadArgs& o) {
  sub->add_option("-n,--num-prompts", o.request.num_prompts, "Requests per level (default 200 unless --duration)")
      ->check(whole_in(1, 10'000'000));
  sub->add_option("--duration", o.request.duration_s, "Stop issuing after this long per level (120, 2m)")
      ->transform(seconds_in(0.001, 30 * 86400));
  sub->add_option("-c,--concurrency", o.request.concurrencies, "Closed loop: requests in flight; a list sweeps: 1,8,32")
      ->delimiter(',')
      ->check(whole_in(1, 100'000));
  sub->add_option("-r,--request-rate", o.request.rates, "Open loop: requests/s (inf = all at once); a list sweeps: 1,2,4")
      ->delimiter(',')
      ->check(rate_in());
  sub->add_option("--burstiness", o.request.burstiness, "Open loop: gamma shape of the gaps (1 = Poisson)")
      ->check(number_in(0.001, 1000))
      ->capture_default_str();
  sub->add_option("--max-concurrency", o.request.max_concurrency,
                  "At most this many requests in flight; alone it means -r inf with this cap, as in vLLM")
      ->check(whole_in(1, 100'000));
  sub->add_option("--threads", o.request.threads,
                  "Event-loop threads for the streams (0 = one for every 256 streams, at most half the CPUs)")
      ->check(whole_in(0, 256))
      ->capture_default_str();
  sub->add_option("--warmup", o.request.warmup, "Requests sent first and left out of the figures")
      ->check(whole_in(0, 1'000'000));
}

void add_output_options(CLI::App* sub, LoadArgs& o) {
  auto* slo = sub->add_option("--slo", o.slo, "Goodput SLOs in ms: ttft=500,tpot=50,e2e=10000");
  sub->add_option("--goodput", o.goodput, "Goodput SLOs as vLLM writes them: --goodput ttft:500 tpot:50 e2el:10000")
      ->excludes(slo)
      ->expected(1, 3);
  sub->add_option("--json", o.json_path,
                  "The result, every level under \"runs\", to FILE (no FILE or -: stdout, in place of the tables)")
      ->type_name("[FILE]");
  sub->add_flag("--save-result", o.save_result,
                "As vllm bench serve: a flat result file per level, named as vLLM names them "
                "({label}-{rate}qps-{model}-{date}.json)");
  sub->add_option("--result-dir", o.result_dir, "Where --save-result writes (default: the current folder)");
  sub->add_option("--result-filename", o.result_filename, "--save-result's file name (a run of one level)");
  sub->add_option("--label", o.request.label, "The result's label, as vLLM's (default: openai or openai-chat)");
  sub->add_option("--csv", o.csv_path, "One CSV row per level, to FILE (no FILE or -: stdout)")->type_name("[FILE]");
  sub->add_option("--markdown", o.markdown_path, "The tables as Markdown, to FILE (no FILE or -: stdout, in their place)")
      ->type_name("[FILE]");
  sub->add_flag("--save-detailed", o.request.save_detailed,
                "Also write each request's detail in the JSON (vLLM's input_lens, output_lens, ttfts, itls, "
                "generated_texts, errors, and dcukit's requests)");
  sub->add_option("--metadata", o.metadata, "KEY=VALUE pairs recorded in the JSON (repeatable, or a,b lists)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::vector<std::string> stems;
  for (const auto& m : load::kLatencyMetrics) stems.emplace_back(m.key);
  sub->add_option("--percentile-metrics", o.request.percentile_metrics,
                  "Metrics reported, as vLLM names them: ttft,tpot,itl,e2el (and ttft_sched, send_lag, itl_token, "
                  "e2el_sched; default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(stems));
  sub->add_option("--metric-percentiles", o.request.metric_percentiles, "Percentiles of each metric (default 90,95,99,99.9)")
      ->delimiter(',')
      ->check(number_in(0, 100));
  add_presentation(sub);
  sub->add_flag("--disable-tqdm", o.no_progress, "No progress line (vLLM's flag; --progress none)");
}

}  // namespace

void setup_load(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<LoadArgs>();
  auto* sub = app.add_subcommand(
      "load",
      "Benchmark an OpenAI-compatible server (vLLM, SGLang, llama.cpp, TGI, ...): TTFT, TPOT, ITL, throughput, "
      "goodput");
  sub->footer(
      "Exit status: 0 when every request succeeded; 1 when any request failed (the results are still written) or "
      "the run could not finish; 2 for bad input; 130 when stopped by Ctrl-C or SIGTERM (what was measured is "
      "written).");
  add_target_options(sub, *opts);
  add_workload_options(sub, *opts);
  add_shape_options(sub, *opts);
  add_output_options(sub, *opts);
  auto* cmp = sub->add_subcommand("compare", "Show two --json results side by side, level by level, with the change");
  cmp->add_option("a", opts->compare_a, "Baseline result JSON")->required()->check(CLI::ExistingFile);
  cmp->add_option("b", opts->compare_b, "New result JSON")->required()->check(CLI::ExistingFile);
  cmp->add_option("--markdown", opts->markdown_path, "The tables as Markdown (no FILE or -: stdout, in place of the text)")
      ->type_name("[FILE]");
  add_presentation(cmp);
  cmp->callback([&runner, opts] { runner = [opts] { return run_compare(*opts); }; });
  sub->callback([&runner, opts, cmp] {
    if (cmp->parsed()) return;
    runner = [opts] { return run_load(*opts); };
  });
}

}  // namespace dcukit::cli
