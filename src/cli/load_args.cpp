#include "cli/load_args.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/common.h"
#include "core/run_info.h"
#include "load/render.h"
#include "serving/url.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/net.h"
#include "util/redact.h"

namespace dcukit::cli {
namespace {

constexpr double kMaxPromptTokensHeld = 2e8;  // token ids held in memory at once (800 MB)

bool has_line_break(const std::string& s) {
  return s.find_first_of("\r\n") != std::string::npos;
}

Result<load::Slo> parse_slo(const std::string& text) {
  auto kv = parse_key_values(text, "--slo");
  if (!kv) return kv.error();
  load::Slo slo;
  for (const auto& [key, value] : *kv) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e9)
      return Error{fmt::format("--slo {}: '{}' needs a positive number of ms, e.g. --slo ttft=500,tpot=50", text, key)};
    if (key == "ttft")
      slo.ttft_ms = v;
    else if (key == "tpot")
      slo.tpot_ms = v;
    else if (key == "e2e" || key == "e2el")
      slo.e2e_ms = v;
    else
      return Error{fmt::format("--slo {}: unknown '{}'; the keys are ttft, tpot and e2e", text, key)};
  }
  return slo;
}

}  // namespace

Result<load::Request> to_request(const LoadArgs& a) {
  if (a.url.empty()) return Error{"--url is required, e.g. --url http://127.0.0.1:8000"};
  const std::string scheme = serving::scheme_of(a.url);
  if (scheme != "http" && scheme != "https")
    return Error{fmt::format("--url {}: use an http or https URL, e.g. --url http://127.0.0.1:8000",
                             util::redact(a.url))};
  if (auto hp = util::url_host_port(a.url); !hp) return Error{"--url " + hp.error().message};
  if (!a.metrics_url.empty())
    if (auto hp = util::url_host_port(a.metrics_url); !hp) return Error{"--metrics-url " + hp.error().message};
  load::Request q;
  q.url = a.url;
  q.endpoint = a.endpoint.empty() || a.endpoint.front() != '/' ? "/" + a.endpoint : a.endpoint;
  q.model = a.model;
  for (const auto& h : a.headers) {
    if (h.find(':') == std::string::npos || has_line_break(h))
      return Error{fmt::format("--header '{}' needs the form 'Name: value' on one line", h)};
    q.headers.push_back(h);
  }
  if (const char* key = std::getenv(a.api_key_env.c_str()); key && *key) {
    if (has_line_break(key))
      return Error{
          fmt::format("the API key in ${} holds a line break (it would add headers to every request); "
                      "remove it",
                      a.api_key_env)};
    q.api_key = key;
  }
  q.tls.insecure = a.insecure;
  if (!a.cacert.empty()) {
    auto pem = util::read_file(a.cacert, util::kCertificateInput);
    if (!pem) return Error{fmt::format("--cacert: {}", pem.error().message)};
    if (pem->find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return Error{fmt::format("--cacert {}: holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's "
                               "certificate in PEM form", a.cacert)};
  }
  q.tls.ca_file = a.cacert;
  q.timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(a.timeout_s * 1000)));
  q.threads = a.threads;
  q.body.stream = !a.no_stream;
  q.body.include_usage = !a.no_usage;
  q.body.continuous_usage = a.continuous_usage;
  if (a.continuous_usage && (a.no_usage || a.no_stream))
    return Error{"--continuous-usage needs streamed usage; drop --no-usage and --no-stream"};
  q.body.ignore_eos = !a.no_ignore_eos;
  q.body.min_tokens = a.min_tokens;
  q.body.temperature = a.temperature;
  if (!a.extra_body.empty()) {
    auto j = util::parse_json(a.extra_body);
    if (j.is_discarded() || !j.is_object()) return Error{"--extra-body must be a JSON object, e.g. '{\"top_k\": 1}'"};
    q.body.extra_body = std::move(j);
  }
  auto& w = q.workload;
  w.kind = *load::parse_dataset(a.dataset == "custom" ? "jsonl" : a.dataset);  // CLI11 checked the name
  if (w.kind != load::DatasetKind::random && a.dataset_path.empty())
    return Error{"--dataset " + a.dataset + " needs --dataset-path FILE"};
  w.path = a.dataset_path;
  w.input_len = a.input_len;
  w.prefix_len = a.prefix_len;
  if (w.prefix_len > w.input_len)
    return Error{fmt::format("--prefix-len {} is longer than --input-len {}", a.prefix_len, a.input_len)};
  w.output_len = a.output_len >= 0 ? a.output_len : (w.kind == load::DatasetKind::random ? 128 : 0);
  if (w.kind == load::DatasetKind::random && w.output_len == 0)
    return Error{"--output-len 0 keeps a file's lengths; random prompts need a length, e.g. --output-len 128"};
  w.output_len_max = a.output_len_max;
  w.seed = a.seed;
  const bool chat = q.endpoint.find("chat") != std::string::npos;
  q.prompts = a.prompt_mode == "ids"    ? load::PromptMode::ids
              : a.prompt_mode == "text" ? load::PromptMode::text
                                        : load::PromptMode::automatic;
  if (q.prompts == load::PromptMode::ids && chat) return Error{"--prompt ids needs /v1/completions; chat takes text"};
  q.num_prompts = a.num_prompts;
  if (q.num_prompts == 0 && a.duration_s <= 0) q.num_prompts = 200;
  q.duration_s = a.duration_s;
  const double held = static_cast<double>(std::max<std::size_t>(q.num_prompts, 1000)) * a.input_len;
  if (w.kind == load::DatasetKind::random && held > kMaxPromptTokensHeld)
    return Error{
        fmt::format("-n {} prompts of --input-len {} would hold {:.0f} million tokens in memory; lower -n "
                    "or --input-len (at most {:.0f} million)",
                    q.num_prompts, a.input_len, held / 1e6, kMaxPromptTokensHeld / 1e6)};
  q.rates = a.rates;
  q.concurrencies = a.concurrency;
  q.max_concurrency = a.max_concurrency;
  if (!a.concurrency.empty() && a.max_concurrency > 0 && a.rates.empty())
    return Error{
        "-c runs a closed loop at that concurrency; --max-concurrency caps an open loop (-r). Pass one of "
        "them (--max-concurrency alone means -r inf, as in vLLM)"};
  if (!a.concurrency.empty() && !a.rates.empty())
    return Error{"-c (closed loop) and -r (open loop) exclude each other; cap an open loop with --max-concurrency"};
  q.burstiness = a.burstiness;
  q.warmup = a.warmup;
  q.seed = a.seed;
  q.wait_ready_s = a.wait_ready_s;
  q.trial = !a.no_trial;
  // vLLM's --goodput ttft:500 tpot:50 e2el:10000 is --slo ttft=500,tpot=50,e2e=10000.
  std::string slo_text = a.slo;
  for (const auto& item : a.goodput) {
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      return Error{fmt::format("--goodput {}: write KEY:VALUE in ms, e.g. --goodput ttft:500 tpot:50", item)};
    slo_text += (slo_text.empty() ? "" : ",") + item.substr(0, colon) + "=" + item.substr(colon + 1);
  }
  if (!slo_text.empty()) {
    auto s = parse_slo(slo_text);
    if (!s) return s.error();
    q.slo = *s;
    if (q.slo.tpot_ms > 0 && a.no_stream)
      return Error{"--slo tpot needs streamed replies: --no-stream has no time per output token"};
  }
  q.metrics_url = a.metrics_url;
  q.metrics_auth = a.metrics_auth;
  const auto reserved = load::reserved_keys();
  for (const auto& item : a.metadata) {
    auto kv = parse_key_values(item, "--metadata");
    if (!kv) return kv.error();
    for (const auto& [k, v] : *kv) {
      if (std::find(reserved.begin(), reserved.end(), k) != reserved.end())
        return Error{fmt::format("--metadata {}: '{}' is a field of the results; choose another key", item, k)};
      for (const auto& [k0, v0] : q.metadata)
        if (k0 == k) return Error{fmt::format("--metadata: '{}' is given twice", k)};
      q.metadata.emplace_back(k, v);
    }
  }
  q.percentile_metrics = a.percentile_metrics;
  if (q.percentile_metrics.empty())
    for (const auto& m : load::kLatencyMetrics) q.percentile_metrics.emplace_back(m.key);
  q.metric_percentiles = a.metric_percentiles.empty() ? std::vector<double>{90, 95, 99, 99.9} : a.metric_percentiles;
  q.save_detailed = a.save_detailed;
  q.label = a.label;
  if (!a.result_filename.empty() && !a.save_result)
    return Error{"--result-filename names --save-result's file: add --save-result"};
  if (!a.result_dir.empty() && !a.save_result) return Error{"--result-dir is where --save-result writes: add --save-result"};
  const std::size_t levels = std::max<std::size_t>({a.concurrency.size(), a.rates.size(), 1});
  if (!a.result_filename.empty() && levels > 1)
    return Error{fmt::format("--result-filename names one file, and this run has {} levels; leave it out (each level "
                             "gets vLLM's name) or run one level",
                             levels)};
  q.run_info = core::collect_run_info("dcukit load", util::redact(command_line()));
  return q;
}

}  // namespace dcukit::cli
