#include "load/steps.h"

#include <fmt/format.h>

#include <algorithm>

#include "serving/url.h"
#include "util/host.h"
#include "util/signals.h"
#include "util/redact.h"

namespace dcukit::load {
namespace {

constexpr auto kProbeTimeout = std::chrono::seconds(10);
constexpr int kTrialTokens = 16;  // the trial request's max_tokens at most

/// What to do about a failed trial request, by its class and status.
std::string hint_for(const RequestRecord& r, const std::string& url) {
  switch (r.error) {
    case ErrorClass::connect:
      return "is the server running at " + url + "? Check --url (and --cacert or --insecure for https)";
    case ErrorClass::timeout:
      return "the server did not finish one request within --timeout: raise it, or lower --output-len";
    case ErrorClass::http_status:
      if (r.http_status == 401 || r.http_status == 403)
        return "the server wants an API key: put it in the variable --api-key-env names (OPENAI_API_KEY)";
      if (r.http_status == 404) return "check --endpoint and --model";
      if (r.http_status == 429 || r.http_status >= 500) return "the server is overloaded or failing; see its log";
      return "the server refused the request body; --extra-body, --no-ignore-eos or --prompt text may help";
    default:
      return "see the server's log";
  }
}

bool mentions(const std::string& text, const char* word) {
  return text.find(word) != std::string::npos;
}

}  // namespace

Steps::Steps(Request& q) : request(q) {
  m_chat = q.endpoint.find("chat") != std::string::npos;
  server = serving::Endpoint{util::url_origin(q.url), q.headers, q.tls};
  if (!q.api_key.empty()) server.headers.push_back("Authorization: Bearer " + q.api_key);
  generate_url = server.base_url + q.endpoint;
  q.body.api = m_chat ? Api::chat : Api::completions;
  report.run_info = q.run_info;
  report.date = util::local_compact_timestamp();
  report.backend = m_chat ? "openai-chat" : "openai";
  report.label = q.label.empty() ? report.backend : q.label;
  report.num_prompts = q.num_prompts;
  report.url = util::redact(server.base_url);
  report.endpoint = q.endpoint;
  report.model = q.model;
  report.dataset = std::string(to_string(q.workload.kind));
  report.input_len = q.workload.input_len;
  report.output_len = q.workload.output_len;
  report.stream = q.body.stream;
  report.seed = q.seed;
  report.slo = q.slo;
  report.warmup = q.warmup;
  report.metadata = q.metadata;
  report.percentile_metrics = q.percentile_metrics;
  report.metric_percentiles = q.metric_percentiles;
  report.save_detailed = q.save_detailed;
}

bool Steps::stopped() const {
  return request.stop && request.stop->stop_requested();
}

void Steps::notice(const std::string& line) {
  const std::string text = util::redact(line);
  report.notes.push_back(text);
  if (request.on_notice) request.on_notice(text);
}

void Steps::problem(ProblemKind kind, const std::string& message) {
  if (!report.problem) report.problem = Problem{kind, util::redact(message)};
}

ProgressFn Steps::progress_fn(const std::string& label) const {
  if (!request.on_progress) return {};
  return [this, label](const Progress& p) { request.on_progress(label, p); };
}

bool Steps::check_url() {
  const std::string scheme = serving::scheme_of(request.url);
  if (scheme == "http" || scheme == "https") return true;
  problem(ProblemKind::bad_input,
          fmt::format("--url {}: dcukit speaks http and https, not '{}'; pass e.g. --url http://127.0.0.1:8000",
                      request.url, scheme.empty() ? "(no scheme)" : scheme));
  return false;
}

bool Steps::wait_ready() {
  if (request.wait_ready_s <= 0) return true;
  const auto budget =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(request.wait_ready_s));
  if (Status st = serving::wait_ready(server, budget, request.stop); !st) {
    if (stopped()) {
      report.interrupted = true;
      return false;
    }
    problem(ProblemKind::failed, st.message() + "; start the server, or wait longer with a larger --wait-ready");
    return false;
  }
  return true;
}

bool Steps::resolve_model() {
  const std::string where = server.base_url + "/v1/models";
  auto r = serving::get(server, "/v1/models", kProbeTimeout);
  Result<std::vector<std::string>> models = Error{""};
  if (!r) {
    if (!request.model.empty()) return true;  // the trial request will say what is wrong
    problem(ProblemKind::failed, fmt::format("cannot reach the server ({}); is it running? Check --url, or wait for "
                                             "it with --wait-ready SECONDS",
                                             r.error().message));
    return false;
  }
  if (r->status != 200)
    models = Error{fmt::format("{} answered HTTP {}", where, r->status)};
  else
    models = serving::parse_models(r->body, where);
  if (request.model.empty()) {
    if (!models) {
      problem(ProblemKind::failed, models.error().message + "; pass --model NAME");
      return false;
    }
    if (models->empty()) {
      problem(ProblemKind::failed, where + " lists no model; pass --model NAME");
      return false;
    }
    request.model = models->front();
  } else if (!models) {
    notice("Could not check --model " + request.model + ": " + models.error().message);
  } else if (std::find(models->begin(), models->end(), request.model) == models->end()) {
    std::string listed;
    for (const auto& m : *models) listed += (listed.empty() ? "" : ", ") + m;
    notice(fmt::format("The server does not list the model {} (it lists {}); it may refuse the requests", request.model,
                       listed.empty() ? "none" : listed));
  }
  request.body.model = request.model;
  report.model = request.model;
  return true;
}

TokenCounter& Steps::counter() {
  if (!m_counter) {
    TokenizerConfig c{server, generate_url, request.body, request.timeout, request.stop};
    m_counter = std::make_unique<TokenCounter>(std::move(c));
  }
  return *m_counter;
}

bool Steps::make_prompts(std::vector<Prompt>& prompts) {
  WorkloadSpec spec = request.workload;
  const bool random = spec.kind == DatasetKind::random;
  spec.token_ids = random && !m_chat && request.prompts != PromptMode::text;
  // One prompt more than the levels send: the trial and the warm-up use it, so that no measured
  // prompt is already in the server's prefix cache.
  if (random)
    spec.count = (request.num_prompts > 0 ? request.num_prompts : std::max<std::size_t>(spec.count, 1000)) + 1;
  else
    spec.count = request.num_prompts > 0 ? request.num_prompts + 1 : 0;
  const bool needs_counter = (random && !spec.token_ids) || spec.kind == DatasetKind::sharegpt;
  Workload w = load::make_prompts(spec, needs_counter ? &counter() : nullptr);
  if (w.problem) {
    if (stopped()) {
      report.interrupted = true;
      return false;
    }
    problem(w.problem->kind, w.problem->message);
    return false;
  }
  for (const auto& n : w.notes) notice(n);
  prompts = std::move(w.prompts);
  const std::size_t wanted = random ? spec.count - 1 : request.num_prompts;
  if (wanted > 0 && prompts.size() > wanted) {
    spare = std::move(prompts.back());
    prompts.pop_back();
  } else {
    spare = prompts.front();
  }
  request.workload.token_ids = spec.token_ids;
  report.prompts = spec.token_ids ? "token ids" : "text";
  if (m_counter && m_counter->kind()) report.tokenizer = std::string(to_string(*m_counter->kind()));
  return true;
}

bool Steps::rebuild_as_text(std::vector<Prompt>& prompts) {
  request.prompts = PromptMode::text;
  return make_prompts(prompts);
}

bool Steps::trial(std::unique_ptr<Engine>& engine, EngineConfig& config, std::vector<Prompt>& prompts) {
  const LoadShape one{ShapeKind::closed, 1, 0, 1, 1, 0, request.seed};
  for (int attempt = 0; attempt < 4; ++attempt) {
    Prompt probe = spare;  // the request's shape, with a short answer so that the trial is quick
    if (probe.max_tokens <= 0 || probe.max_tokens > kTrialTokens) probe.max_tokens = kTrialTokens;
    auto run = engine->run({probe}, one, progress_fn("trial request"));
    if (!run) {
      problem(ProblemKind::failed, "the load engine failed: " + run.error().message);
      return false;
    }
    if (run->requests.empty() || run->cancelled) {
      report.interrupted = true;
      return false;
    }
    const RequestRecord& r = run->requests.front();
    if (r.ok()) {
      if (attempt > 0) notice("The trial request succeeded with that change");
      return true;
    }
    const bool refused = r.error == ErrorClass::http_status && r.http_status >= 400 && r.http_status < 500 &&
                         r.http_status != 401 && r.http_status != 403 && r.http_status != 404 && r.http_status != 429;
    const std::string why = r.error_message;
    if (refused && request.workload.token_ids && request.prompts == PromptMode::automatic) {
      notice(
          fmt::format("The server refused a token-id prompt ({}); sending text prompts of the same token "
                      "lengths instead, counted the server's way",
                      why));
      if (!rebuild_as_text(prompts)) return false;
      continue;
    }
    if (refused && config.body.include_usage && config.body.stream && mentions(why, "stream_options")) {
      notice(
          fmt::format("The server refused stream_options ({}); sending without it (token counts then come "
                      "from the content chunks unless the server sends usage anyway)",
                      why));
      config.body.include_usage = config.body.continuous_usage = false;
    } else if (refused && (config.body.ignore_eos || config.body.min_tokens) &&
               (mentions(why, "ignore_eos") || mentions(why, "min_tokens"))) {
      notice(
          fmt::format("The server refused ignore_eos or min_tokens ({}); sending without them, so replies may "
                      "end before --output-len",
                      why));
      config.body.ignore_eos = config.body.min_tokens = false;
    } else {
      problem(ProblemKind::failed, fmt::format("the trial request failed ({}: {}); nothing else was sent. {}",
                                               to_string(r.error), why, hint_for(r, report.url)));
      return false;
    }
    request.body = config.body;
    engine = std::make_unique<Engine>(config);
  }
  problem(ProblemKind::failed, "the trial request kept failing; nothing else was sent");
  return false;
}

bool Steps::check_metrics_url() {
  if (request.metrics_url.empty()) return true;
  const std::string scheme = serving::scheme_of(request.metrics_url);
  if (scheme != "http" && scheme != "https") {
    problem(ProblemKind::bad_input, "--metrics-url " + request.metrics_url + ": use an http or https URL");
    return false;
  }
  const bool auth = request.metrics_auth || serving::same_origin(request.url, request.metrics_url);
  util::HttpRequest probe{.url = request.metrics_url,
                          .headers = auth ? server.headers : std::vector<std::string>{},
                          .timeout = kProbeTimeout,
                          .tls = request.tls};
  auto r = util::http_request(probe);
  if (!r || r->status != 200) {
    problem(ProblemKind::failed,
            fmt::format("--metrics-url {} does not answer ({}); vLLM and SGLang serve /metrics, llama.cpp with "
                        "--metrics, TGI at /metrics{}",
                        request.metrics_url, r ? fmt::format("HTTP {}", r->status) : r.error().message,
                        !auth && r && (r->status == 401 || r->status == 403)
                            ? "; it is on another server, so the API key was not sent: pass --metrics-auth to send it"
                            : ""));
    return false;
  }
  return true;
}

bool Steps::check_open_files(const std::vector<std::pair<LoadShape, std::string>>& levels) {
  constexpr std::uint64_t kSpare = 64;  // stdio, epoll and timer descriptors, resolver, /metrics
  std::uint64_t streams = 8;            // the warm-up's concurrency when it is not the first level's
  bool bounded = true;
  for (const auto& [s, label] : levels) {
    if (const auto n = s.max_in_flight())
      streams = std::max<std::uint64_t>(streams, *n);
    else
      bounded = false;
  }
  const std::uint64_t wanted = bounded ? streams + kSpare : 1u << 20;
  const std::uint64_t limit = util::raise_open_files_limit(wanted);
  if (bounded && limit < wanted) {
    problem(ProblemKind::failed,
            fmt::format("{} concurrent streams need about {} open files, but this process may open {} (the hard "
                        "limit); raise it (ulimit -n {}, or LimitNOFILE= in a systemd unit) or lower -c",
                        streams, wanted, limit, wanted));
    return false;
  }
  return true;
}

bool Steps::warm_up(Engine& engine) {
  if (request.warmup == 0) return true;
  const int conc = std::max(1, request.concurrencies.empty() ? std::min<int>(static_cast<int>(request.warmup), 8)
                                                             : request.concurrencies.front());
  const LoadShape warm{ShapeKind::closed, conc, 0, 1, request.warmup, 0, request.seed};
  auto w = engine.run({spare}, warm, progress_fn("warm-up"));
  if (!w) {
    problem(ProblemKind::failed, "the load engine failed during the warm-up: " + w.error().message);
    return false;
  }
  if (w->cancelled) {
    report.interrupted = true;
    return false;
  }
  const auto failed = std::count_if(w->requests.begin(), w->requests.end(), [](const auto& r) { return !r.ok(); });
  if (failed > 0)
    notice(fmt::format("{} of {} warm-up requests failed (they are not in the figures)", failed, w->requests.size()));
  return true;
}

Report Steps::finish() {
  report.run_info.command = util::redact(report.run_info.command);
  if (serving::has_credentials(request.url) || serving::has_credentials(request.metrics_url)) {
    for (auto& l : report.levels)
      for (auto& r : l.records.requests)
        if (!r.ok()) r.error_message = util::redact(r.error_message);
  }
  if (m_counter && m_counter->kind() && report.tokenizer.empty())
    report.tokenizer = std::string(to_string(*m_counter->kind()));
  return std::move(report);
}

}  // namespace dcukit::load
