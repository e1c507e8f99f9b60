#include "exporter/exporter.h"

#include <fmt/format.h>

#include <memory>

#include "exporter/scraper.h"
#include "serving/prometheus.h"
#include "telemetry/capture.h"
#include "util/duration.h"
#include "util/http_server.h"
#include "util/listen.h"
#include "util/signals.h"

namespace dcukit::exporter {
namespace {

/// The reading each scrape asks for: the capture file read again, or the live Collector (kept
/// between scrapes, so that a library is loaded once; shared with the worker that uses it).
ReadFn make_reader(const Options& o) {
  if (!o.from.empty())
    return [path = o.from]() -> Result<telemetry::Snapshot> { return telemetry::read_capture_file(path); };
  auto collector = std::make_shared<telemetry::Collector>(o.collect);
  return [collector]() -> Result<telemetry::Snapshot> { return collector->sample(); };
}

std::string format_address(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

constexpr const char* kLanding =
    "<html><head><title>dcukit exporter</title></head><body><h1>dcukit exporter</h1>"
    "<p><a href=\"/metrics\">/metrics</a>: device metrics for Prometheus</p></body></html>\n";

}  // namespace

Status validate(const Options& o) {
  if (auto listen = util::parse_listen(o.listen, o.listen_any); !listen) return listen.error();
  if (o.deadline.count() <= 0)
    return Error{fmt::format("--deadline {}: give a positive duration, e.g. 8s", util::format_duration(o.deadline))};
  return Status::success();
}

Status run(const Options& o, const util::StopToken& stop, const std::function<void(const std::string&)>& on_listening) {
  if (auto st = validate(o); !st) return st;
  const auto listen = *util::parse_listen(o.listen, o.listen_any);
  auto scraper = std::make_shared<Scraper>(make_reader(o), o.deadline, o.from.empty() ? "live" : o.from);
  // Prometheus' default scrape timeout is 10 s: a write deadline a little past ours.
  util::HttpServer server(
      {.host = listen.host, .port = listen.port, .threads = 4, .io_timeout = o.deadline + std::chrono::seconds(2)});
  server.get("/metrics", [scraper](const util::HttpServerRequest&) {
    util::HttpServerReply reply;
    reply.content_type = serving::kTextContentType;
    reply.body = render_metrics(scraper->scrape());
    return reply;
  });
  server.get("/healthz", [](const util::HttpServerRequest&) { return util::HttpServerReply{.body = "ok\n"}; });
  server.get("/", [](const util::HttpServerRequest&) {
    return util::HttpServerReply{.content_type = "text/html; charset=utf-8", .body = kLanding};
  });
  if (auto st = server.start(); !st) return Error{"--listen: " + st.message()};
  if (on_listening) on_listening(format_address(listen.host, server.port()));
  while (!stop.wait_for(std::chrono::seconds(1))) {
  }
  server.stop();
  return Status::success();
}

}  // namespace dcukit::exporter
