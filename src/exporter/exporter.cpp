#include "exporter/exporter.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "exporter/scraper.h"
#include "telemetry/collector.h"
#include "serving/prometheus.h"
#include "telemetry/capture.h"
#include "util/duration.h"
#include "util/http_server.h"
#include "util/listen.h"
#include "util/host.h"
#include "util/signals.h"
#include "util/text.h"

namespace dcukit::exporter {
namespace {

/// The reading each scrape asks for: the capture file read again, or the live Collector (kept
/// between scrapes, so that a library is loaded once; shared with the worker that uses it).
ReadFn make_reader(const Request& o) {
  if (!o.from.empty())
    return [path = o.from]() -> Result<telemetry::Snapshot> { return telemetry::read_capture_file(path); };
  auto collector = std::make_shared<telemetry::Collector>(o.collect);
  return [collector]() -> Result<telemetry::Snapshot> { return collector->sample(); };
}

/// The host's name for the labels: Kubernetes' NODE_NAME where set (the node, not the pod, as
/// dcgm-exporter takes it), else this host's.
std::string host_name() {
  const char* node = std::getenv("NODE_NAME");
  return node && *node ? node : util::hostname();
}

std::string format_address(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

constexpr const char* kLanding =
    "<html><head><title>dcukit exporter</title></head><body><h1>dcukit exporter</h1>"
    "<p><a href=\"/metrics\">/metrics</a>: device metrics for Prometheus</p></body></html>\n";

}  // namespace

Status validate(const Request& o) {
  if (auto listen = util::parse_listen(o.listen, o.listen_any); !listen) return listen.error();
  if (o.deadline.count() <= 0)
    return Error{fmt::format("--deadline {}: give a positive duration, e.g. 8s", util::format_duration(o.deadline))};
  return Status::success();
}

Result<Report> run(const Request& o) {
  if (auto st = validate(o); !st) return st.error();
  const auto listen = *util::parse_listen(o.listen, o.listen_any);
  auto scraper = std::make_shared<Scraper>(make_reader(o), o.deadline, o.from.empty() ? "live" : "capture");
  // What the labels leave out (errors, each source's detail) goes to stderr, once per change.
  struct Log {
    std::mutex mutex;
    std::string last;
  };
  auto log = std::make_shared<Log>();
  // Prometheus' default scrape timeout is 10 s: a write deadline a little past ours.
  util::HttpServer server(
      {.host = listen.host, .port = listen.port, .threads = 4, .io_timeout = o.deadline + std::chrono::seconds(2)});
  RenderOptions render{o.names, {host_name(), o.cluster, {}}, o.health};
  const auto say = [sink = o.log](const std::string& line) {
    if (sink) return sink(line);
    fmt::print(stderr, "dcukit exporter: {}\n", util::terminal_safe(line));
    std::fflush(stderr);
  };
  server.get("/metrics", [scraper, log, render, say, every = o.log_scrapes,
                          jobs = o.job_mapping_dir](const util::HttpServerRequest&) {
    util::HttpServerReply reply;
    reply.content_type = serving::kTextContentType;
    const Scrape s = scraper->scrape();
    RenderOptions now = render;
    now.identity.jobs = read_job_mapping(jobs);  // a job starts and ends between scrapes
    reply.body = render_metrics(s, now);
    const std::string line = diagnostics(s);
    std::lock_guard<std::mutex> lock(log->mutex);
    if (every)
      say(fmt::format("scrape {}: {} device(s) in {:.3f} s{}", s.scrapes_total,
                      s.snapshot ? s.snapshot->devices.size() : 0, s.collect_seconds,
                      s.error.empty() ? "" : "; " + s.error));
    if (line != log->last) {
      say(line.empty() ? "every source reads again" : line);
      log->last = line;
    }
    return reply;
  });
  server.get("/healthz", [](const util::HttpServerRequest&) { return util::HttpServerReply{.body = "ok\n"}; });
  server.get("/", [](const util::HttpServerRequest&) {
    return util::HttpServerReply{.content_type = "text/html; charset=utf-8", .body = kLanding};
  });
  if (auto st = server.start(); !st) return Error{"--listen: " + st.message()};
  Report report;
  report.run_info = core::collect_run_info("dcukit exporter", o.command);
  report.address = format_address(listen.host, server.port());
  if (o.on_listening) o.on_listening(report.address);
  if (o.stop)
    while (!o.stop->wait_for(std::chrono::seconds(1))) {
    }
  else
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  server.stop();
  report.scrapes = scraper->scrapes();
  report.collect_errors = scraper->collect_errors();
  return report;
}

}  // namespace dcukit::exporter
