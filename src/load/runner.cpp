#include "load/runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "load/prom.h"
#include "serving/probe.h"
#include "util/host.h"
#include "util/http.h"

namespace dcukit::load {
namespace {

void print_progress(const std::string& label, const Progress& p) {
  fmt::print(stderr, "\r\033[K{}: {} issued, {} ok, {} failed, {} in flight, {:.1f} s", label, p.issued, p.completed,
             p.failed, p.in_flight, p.elapsed_s);
}

/// Each stream holds a socket: raises the open-files limit for the largest level, or says how
/// to raise it when the hard limit is too low (before anything is sent).
Status check_open_files(const std::vector<LoadShape>& shapes) {
  constexpr std::uint64_t kSpare = 64;  // stdio, epoll and timer descriptors, resolver, /metrics
  std::uint64_t streams = 8;            // the warm-up's concurrency when it is not the first level's
  bool bounded = true;
  for (const auto& s : shapes) {
    if (s.kind == ShapeKind::closed || s.concurrency > 0)  // a closed loop's concurrency, an open loop's cap
      streams = std::max<std::uint64_t>(streams, static_cast<std::uint64_t>(s.concurrency));
    else if (s.count > 0)
      streams = std::max<std::uint64_t>(streams, s.count);
    else
      bounded = false;
  }
  const std::uint64_t wanted = bounded ? streams + kSpare : 1u << 20;
  const std::uint64_t limit = util::raise_open_files_limit(wanted);
  if (bounded && limit < wanted) {
    return Error{
        fmt::format("{} concurrent streams need about {} open files, but this process may open {} (the hard "
                    "limit); raise it (ulimit -n {}, or LimitNOFILE= in a systemd unit) or lower -c",
                    streams, wanted, limit, wanted)};
  }
  return {};
}

}  // namespace

Result<LoadReport> run_load_test(LoadOptions o) {
  const util::Tls& tls = o.engine.tls;
  const serving::Endpoint server{o.base_url, o.engine.headers, tls};
  if (o.wait_ready_s > 0) {
    const auto budget =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(o.wait_ready_s));
    if (Status s = serving::wait_ready(server, budget); !s)
      return Error{s.message() + "; start the server or raise --wait-ready"};
  }
  if (o.model.empty()) {
    auto models = serving::list_models(server, std::chrono::seconds(5));
    if (!models) return Error{models.error().message + "; pass --model"};
    if (models->empty()) return Error{o.base_url + "/v1/models did not list a model; pass --model"};
    o.model = models->front();
  }
  const bool chat = o.endpoint.find("chat") != std::string::npos;
  o.engine.url = o.base_url + o.endpoint;
  o.engine.request.model = o.model;
  o.engine.request.api = chat ? Api::chat : Api::completions;
  if (chat) o.workload.token_ids = false;
  o.workload.count = o.num_prompts > 0 ? o.num_prompts : std::max<std::size_t>(o.workload.count, 1000);
  if (o.workload.kind != DatasetKind::random) o.workload.count = o.num_prompts;
  TokenizeEndpoint tok{o.base_url + "/tokenize", o.model, chat, o.engine.headers, tls};
  auto prompts = make_prompts(o.workload, tok);
  if (!prompts) return prompts.error();

  LoadReport report;
  report.date = util::utc_timestamp();
  report.backend = chat ? "openai-chat" : "openai";
  report.url = o.base_url;
  report.endpoint = o.endpoint;
  report.model = o.model;
  report.dataset = o.workload.kind == DatasetKind::random     ? "random"
                   : o.workload.kind == DatasetKind::sharegpt ? "sharegpt"
                                                              : "jsonl";
  report.input_len = o.workload.input_len;
  report.output_len = o.workload.output_len;
  report.stream = o.engine.request.stream;
  report.slo = o.slo;
  report.warmup = o.warmup;

  std::vector<LoadShape> shapes;
  std::vector<std::string> labels;
  if (!o.rates.empty()) {
    for (double r : o.rates) {
      shapes.push_back(
          LoadShape{ShapeKind::open, o.max_concurrency, r, o.burstiness, o.num_prompts, o.duration_s, o.seed});
      labels.push_back(std::isinf(r) ? "rate inf" : fmt::format("rate {:g}/s", r));
    }
  } else {
    for (int c : o.concurrencies) {
      shapes.push_back(LoadShape{ShapeKind::closed, c, 0, 1, o.num_prompts, o.duration_s, o.seed});
      labels.push_back(fmt::format("concurrency {}", c));
    }
  }
  if (Status s = check_open_files(shapes); !s) return s.error();
  Engine engine(o.engine);
  std::atomic<bool> watching{true};
  std::thread interrupt_watch;
  if (o.interrupt) {
    interrupt_watch = std::thread([&] {
      while (watching.load()) {
        if (o.interrupt->load()) engine.request_stop();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  struct Joiner {
    std::atomic<bool>& flag;
    std::thread& t;
    ~Joiner() {
      flag.store(false);
      if (t.joinable()) t.join();
    }
  } joiner{watching, interrupt_watch};

  if (o.warmup > 0) {
    const int conc =
        std::max(1, o.concurrencies.empty() ? std::min<int>(static_cast<int>(o.warmup), 8) : o.concurrencies.front());
    LoadShape warm{ShapeKind::closed, conc, 0, 1, o.warmup, 0, o.seed};
    ProgressFn pf;
    if (o.progress) pf = [](const Progress& p) { print_progress("warm-up", p); };
    auto w = engine.run(*prompts, warm, pf);
    if (o.progress) fmt::print(stderr, "\n");
    if (!w) return w.error();
  }
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (o.interrupt && o.interrupt->load()) break;
    std::unique_ptr<serving::MetricsWatcher> watcher;
    if (!o.metrics_url.empty()) {
      watcher = std::make_unique<serving::MetricsWatcher>(o.metrics_url, o.engine.headers, tls, watched_gauges());
      if (Status s = watcher->start(); !s) return Error{s.message() + "; check --metrics-url"};
    }
    ProgressFn pf;
    const std::string label = fmt::format("[{}/{}] {}", i + 1, shapes.size(), labels[i]);
    if (o.progress) pf = [label](const Progress& p) { print_progress(label, p); };
    auto records = engine.run(*prompts, shapes[i], pf);
    if (o.progress) fmt::print(stderr, "\n");
    if (!records) return records.error();
    LevelResult level = summarize_level(std::move(*records), o.slo);
    level.label = labels[i];
    level.kind = shapes[i].kind;
    level.concurrency = shapes[i].concurrency;
    level.rate = shapes[i].rate;
    level.burstiness = shapes[i].burstiness;
    if (watcher) level.server = server_delta(watcher->stop());
    report.levels.push_back(std::move(level));
  }
  return report;
}

}  // namespace dcukit::load
