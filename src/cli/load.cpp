// `dcukit load`: a serving benchmark for OpenAI-compatible endpoints, and `dcukit load compare`.
// Parsing and output files live here; the engine is dcukit::load.
#include "cli/load.h"

#include <fmt/core.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "core/table.h"
#include "core/units.h"
#include "load/compare.h"
#include "load/report.h"
#include "load/runner.h"
#include "util/http.h"

namespace dcukit::cli {
namespace {

/// The command line of `dcukit load`, as typed.
struct LoadCliOptions {
  std::string url, endpoint = "/v1/completions", model, api_key_env = "OPENAI_API_KEY";
  std::vector<std::string> headers;
  bool insecure = false;
  std::string cacert;
  double timeout_s = 600;
  std::string dataset = "random", dataset_path, prompt_mode = "auto";
  int input_len = 1024, output_len = -1, output_len_max = 0, prefix_len = 0;  // -1: 128 or the file's
  bool no_ignore_eos = false, min_tokens = false, no_stream = false, no_usage = false, continuous_usage = false;
  double temperature = 0;
  std::string extra_body;
  std::size_t num_prompts = 0;
  double duration_s = 0;
  std::string concurrency, request_rate;
  double burstiness = 1;
  int max_concurrency = 0;
  int threads = 0;
  std::size_t warmup = 0;
  std::uint64_t seed = 0;
  double wait_ready_s = 0;
  std::string slo, metrics_url, json_path, csv_path;
  bool quiet = false, markdown = false;
  std::string compare_a, compare_b;
};

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) {
  g_interrupted.store(true);
}

Result<std::vector<double>> parse_list(const std::string& text, const char* flag) {
  std::vector<double> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item == "inf") {
      out.push_back(std::numeric_limits<double>::infinity());
    } else {
      auto v = core::parse_number(item);
      if (!v || *v <= 0)
        return Error{fmt::format("{} {}: '{}' is not a positive number; pass e.g. {} 1,8,32", flag, text, item, flag)};
      out.push_back(*v);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

Result<load::Slo> parse_slo(const std::string& text) {
  load::Slo slo;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find_first_of("=:");
    auto v = eq == std::string::npos ? Result<double>(Error{""}) : core::parse_number(item.substr(eq + 1));
    const std::string key = eq == std::string::npos ? item : item.substr(0, eq);
    if (!v || *v <= 0)
      return Error{
          fmt::format("--slo {}: '{}' needs a positive number of ms, e.g. --slo ttft=500,tpot=50", text, item)};
    if (key == "ttft")
      slo.ttft_ms = *v;
    else if (key == "tpot")
      slo.tpot_ms = *v;
    else if (key == "e2e" || key == "e2el")
      slo.e2e_ms = *v;
    else
      return Error{fmt::format("--slo {}: unknown '{}'; the keys are ttft, tpot and e2e", text, key)};
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return slo;
}

Status write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    fmt::print("{}", text);
    return {};
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return Error{"cannot write " + path};
  return {};
}

/// Turns the command line into the engine's options; errors are bad input.
Result<load::LoadOptions> to_options(const LoadCliOptions& c) {
  if (c.url.empty()) return Error{"--url is required, e.g. --url http://127.0.0.1:8000"};
  load::LoadOptions o;
  o.base_url = util::url_origin(c.url);
  o.endpoint = c.endpoint.empty() || c.endpoint.front() != '/' ? "/" + c.endpoint : c.endpoint;
  o.model = c.model;
  for (const auto& h : c.headers) {
    if (h.find(':') == std::string::npos) return Error{fmt::format("--header '{}' needs the form 'Name: value'", h)};
    o.engine.headers.push_back(h);
  }
  if (const char* key = std::getenv(c.api_key_env.c_str()); key && *key) {
    o.engine.headers.push_back(std::string("Authorization: Bearer ") + key);
  }
  o.engine.tls.insecure = c.insecure;
  if (!c.cacert.empty()) {
    if (!std::ifstream(c.cacert).good())
      return Error{fmt::format("--cacert {}: no such readable file; pass a PEM file of CA certificates", c.cacert)};
    o.engine.tls.ca_file = c.cacert;
  }
  o.engine.timeout = std::chrono::milliseconds(static_cast<long long>(c.timeout_s * 1000));
  o.engine.threads = c.threads;
  o.engine.request.stream = !c.no_stream;
  o.engine.request.include_usage = !c.no_usage;
  o.engine.request.continuous_usage = c.continuous_usage;
  if (c.continuous_usage && c.no_usage) return Error{"--continuous-usage needs usage; drop --no-usage"};
  o.engine.request.ignore_eos = !c.no_ignore_eos;
  o.engine.request.min_tokens = c.min_tokens;
  o.engine.request.temperature = c.temperature;
  if (!c.extra_body.empty()) {
    auto j = nlohmann::json::parse(c.extra_body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"--extra-body must be a JSON object, e.g. '{\"top_k\": 1}'"};
    o.engine.request.extra_body = std::move(j);
  }
  auto& w = o.workload;
  if (c.dataset == "random")
    w.kind = load::DatasetKind::random;
  else if (c.dataset == "sharegpt")
    w.kind = load::DatasetKind::sharegpt;
  else if (c.dataset == "jsonl")
    w.kind = load::DatasetKind::jsonl;
  else
    return Error{"--dataset " + c.dataset + ": use random, sharegpt or jsonl"};
  if (w.kind != load::DatasetKind::random && c.dataset_path.empty())
    return Error{"--dataset " + c.dataset + " needs --dataset-path"};
  w.path = c.dataset_path;
  w.input_len = c.input_len;
  w.prefix_len = c.prefix_len;
  w.output_len = c.output_len >= 0 ? c.output_len : (w.kind == load::DatasetKind::random ? 128 : 0);
  w.output_len_max = c.output_len_max;
  if (c.prompt_mode == "text")
    w.token_ids = false;
  else if (c.prompt_mode == "ids" || c.prompt_mode == "auto")
    w.token_ids = true;
  else
    return Error{"--prompt " + c.prompt_mode + ": use ids, text or auto"};
  if (c.prompt_mode == "ids" && c.endpoint.find("chat") != std::string::npos)
    return Error{"--prompt ids needs /v1/completions; chat takes text"};
  w.seed = c.seed;
  o.num_prompts = c.num_prompts;
  if (o.num_prompts == 0 && c.duration_s <= 0) o.num_prompts = 200;
  o.duration_s = c.duration_s;
  if (!c.request_rate.empty()) {
    auto r = parse_list(c.request_rate, "--request-rate");
    if (!r) return r.error();
    o.rates = *r;
  }
  auto conc = parse_list(c.concurrency.empty() ? "1" : c.concurrency, "--concurrency");
  if (!conc) return conc.error();
  for (double v : *conc) o.concurrencies.push_back(static_cast<int>(v));
  o.burstiness = c.burstiness;
  if (c.burstiness <= 0) return Error{"--burstiness must be positive (1 is a Poisson process)"};
  o.max_concurrency = c.max_concurrency;
  o.warmup = c.warmup;
  o.seed = c.seed;
  o.wait_ready_s = c.wait_ready_s;
  if (!c.slo.empty()) {
    auto s = parse_slo(c.slo);
    if (!s) return s.error();
    o.slo = *s;
  }
  o.metrics_url = c.metrics_url;
  o.progress = !c.quiet && isatty(STDERR_FILENO);
  return o;
}

ExitCode run_load(const LoadCliOptions& c) {
  auto opts = to_options(c);
  if (!opts) {
    fmt::print(stderr, "dcukit load: {}\n", opts.error().message);
    return ExitCode::bad_input;
  }
  g_interrupted.store(false);
  opts->interrupt = &g_interrupted;
  // Ctrl-C, or a supervisor's SIGTERM, stops the run and still writes what was measured.
  auto previous_int = std::signal(SIGINT, on_sigint);
  auto previous_term = std::signal(SIGTERM, on_sigint);
  auto report = load::run_load_test(std::move(*opts));
  std::signal(SIGINT, previous_int);
  std::signal(SIGTERM, previous_term);
  if (!report) {
    fmt::print(stderr, "dcukit load: {}\n", report.error().message);
    return ExitCode::failed;
  }
  if (c.json_path != "-" && !c.quiet) {
    for (const auto& t : load::report_tables(*report))
      fmt::print("{}\n", c.markdown ? core::render_markdown(t) : core::render_text(t));
  }
  if (!c.json_path.empty()) {
    if (Status s = write_file(c.json_path, load::report_json(*report)); !s) {
      fmt::print(stderr, "dcukit load: {}\n", s.message());
      return ExitCode::failed;
    }
  }
  if (!c.csv_path.empty()) {
    if (Status s = write_file(c.csv_path, load::report_csv(*report)); !s) {
      fmt::print(stderr, "dcukit load: {}\n", s.message());
      return ExitCode::failed;
    }
  }
  if (g_interrupted.load()) return ExitCode::interrupted;
  for (const auto& l : report->levels) {
    if (l.completed == 0) {
      fmt::print(stderr, "dcukit load: {}: no request succeeded; see the errors above\n", l.label);
      return ExitCode::failed;
    }
  }
  return ExitCode::ok;
}

ExitCode run_compare(const LoadCliOptions& c) {
  auto tables = load::compare_files(c.compare_a, c.compare_b);
  if (!tables) {
    fmt::print(stderr, "dcukit load compare: {}\n", tables.error().message);
    return ExitCode::bad_input;
  }
  for (const auto& t : *tables) fmt::print("{}\n", c.markdown ? core::render_markdown(t) : core::render_text(t));
  return ExitCode::ok;
}

}  // namespace

void setup_load(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<LoadCliOptions>();
  auto* sub = app.add_subcommand(
      "load", "Benchmark an OpenAI-compatible server (vLLM, SGLang, ...): TTFT, TPOT, ITL, throughput, goodput");
  auto& o = *opts;
  sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  sub->add_option("--url", o.url, "Server base URL, e.g. http://127.0.0.1:8000");
  sub->add_option("--endpoint", o.endpoint, "API path: /v1/completions or /v1/chat/completions")->capture_default_str();
  sub->add_option("--model", o.model, "Model name (default: the first /v1/models lists)");
  sub->add_option("--api-key-env", o.api_key_env, "Environment variable holding the API key (sent as a Bearer token)")
      ->capture_default_str();
  sub->add_option("-H,--header", o.headers, "Extra header 'Name: value' (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_flag("--insecure", o.insecure, "Skip TLS certificate verification");
  sub->add_option("--cacert", o.cacert, "PEM file of CA certificates to trust for https (a private CA)");
  sub->add_option("--timeout", o.timeout_s, "Per-request deadline in seconds (a stream that never ends fails here)")
      ->capture_default_str();
  sub->add_option("--dataset", o.dataset, "random, sharegpt or jsonl")->capture_default_str();
  sub->add_option("--dataset-path", o.dataset_path,
                  "ShareGPT JSON or JSONL file ({\"prompt\": ..., \"output_len\": N} a line)");
  sub->add_option("--input-len", o.input_len, "random: prompt length in tokens, shared prefix included")
      ->capture_default_str();
  sub->add_option("--output-len", o.output_len,
                  "max_tokens (default 128; files: overrides their lengths, 0 keeps them)");
  sub->add_option("--output-len-max", o.output_len_max, "random: draw max_tokens uniformly from [--output-len, this]");
  sub->add_option("--prefix-len", o.prefix_len, "random: tokens shared by every prompt");
  sub->add_option("--prompt", o.prompt_mode,
                  "random prompts as token ids (completions) or text calibrated by /tokenize: ids, text, auto")
      ->capture_default_str();
  sub->add_flag("--no-ignore-eos", o.no_ignore_eos, "Do not send ignore_eos (outputs may end before max_tokens)");
  sub->add_flag("--min-tokens", o.min_tokens, "Also send min_tokens = max_tokens");
  sub->add_flag("--no-stream", o.no_stream, "Non-streaming requests (TTFT is then the whole response)");
  sub->add_flag("--no-usage", o.no_usage, "Do not ask for stream_options.include_usage");
  sub->add_flag(
      "--continuous-usage", o.continuous_usage,
      "Ask for usage in every chunk (vLLM's continuous_usage_stats): exact tokens per chunk for per-token ITL");
  sub->add_option("--temperature", o.temperature, "Sampling temperature")->capture_default_str();
  sub->add_option("--extra-body", o.extra_body, "JSON object merged into every request body");
  sub->add_option("-n,--num-prompts", o.num_prompts, "Requests per level (default 200 unless --duration)");
  sub->add_option("--duration", o.duration_s, "Stop issuing after this many seconds per level");
  sub->add_option("-c,--concurrency", o.concurrency, "Closed loop: requests in flight; a list sweeps: 1,8,32");
  sub->add_option("-r,--request-rate", o.request_rate,
                  "Open loop: requests/s (inf = all at once); a list sweeps: 1,2,4");
  sub->add_option("--burstiness", o.burstiness, "Open loop: gamma shape of the gaps (1 = Poisson)")
      ->capture_default_str();
  sub->add_option("--max-concurrency", o.max_concurrency, "Open loop: cap on requests in flight");
  sub->add_option("--threads", o.threads,
                  "Event-loop threads for the streams (0 = one for every 256 streams, at most half the CPUs)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  sub->add_option("--warmup", o.warmup, "Requests sent first and left out of the figures");
  sub->add_option("--seed", o.seed, "Seed for prompts and gaps")->capture_default_str();
  sub->add_option("--wait-ready", o.wait_ready_s, "Poll /health then /v1/models for up to this many seconds first");
  sub->add_option("--slo", o.slo, "Goodput SLOs in ms: ttft=500,tpot=50,e2e=10000");
  sub->add_option("--metrics-url", o.metrics_url, "vLLM /metrics URL: report the change in its counters per level");
  sub->add_option("--json", o.json_path,
                  "Write the result (vllm bench serve's fields + per-request detail); - for stdout");
  sub->add_option("--csv", o.csv_path, "Write one CSV row per level");
  sub->add_flag("--markdown", o.markdown, "Print tables as Markdown");
  sub->add_flag("-q,--quiet", o.quiet, "No progress and no tables");
  auto* cmp = sub->add_subcommand("compare", "Show two --json results side by side with the change in each metric");
  cmp->add_option("a", o.compare_a, "Baseline result JSON")->required();
  cmp->add_option("b", o.compare_b, "New result JSON")->required();
  cmp->add_flag("--markdown", o.markdown, "Print tables as Markdown");
  cmp->callback([&runner, opts] { runner = [opts] { return run_compare(*opts); }; });
  sub->callback([&runner, opts, cmp] {
    if (cmp->parsed()) return;
    runner = [opts] { return run_load(*opts); };
  });
}

}  // namespace dcukit::cli
