#include "guard/guard.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include "guard/events.h"
#include "guard/log_pump.h"
#include "guard/status.h"
#include "guard/supervisor.h"
#include "serving/prometheus.h"
#include "util/http_server.h"
#include "util/net.h"
#include "util/sd_notify.h"
#include "util/signals.h"

namespace dcukit::guard {

Result<Report> run(const Request& request) {
  const Options& o = request.options;
  if (o.device && !request.read_memory)
    return Error{"--device needs a way to read device memory, and none is available in this build"};
  auto listen = util::parse_host_port(o.listen);
  if (!listen) return Error{"--listen: " + listen.error().message};

  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout or a dropped connection is an error, not our end
  EventLog events;
  if (auto st = events.open(o.events_file); !st) return st.error();
  events.set_detail(request.detail);
  LogPump logs(o.log_file, o.log_max_bytes, o.log_keep);
  if (auto st = logs.start(); !st) return st.error();
  StatusBoard board;
  board.set_target(o.url, o.model);
  board.set_log_tail([&logs] { return logs.tail(); });

  util::HttpServer server({.host = listen->host, .port = listen->port, .threads = 4});
  // /healthz: 200 only when the service is ready (readiness). /healthz?live: 200 unless guard
  // gave up (liveness for a kubelet: guard restarts the service itself, the kubelet only when
  // guard cannot).
  server.get("/healthz", [&board](const util::HttpServerRequest& req) {
    const StatusView v = board.view();
    const bool ok = req.params.count("live") ? v.state != State::failed : v.state == State::ready;
    return util::HttpServerReply{ok ? 200 : 503, "application/json", render_healthz(v)};
  });
  server.get("/metrics", [&board](const util::HttpServerRequest&) {
    return util::HttpServerReply{200, serving::kTextContentType, render_metrics(board.view())};
  });
  server.get("/", [](const util::HttpServerRequest&) {
    return util::HttpServerReply{200, "text/plain; charset=utf-8",
                                 "dcukit guard: /healthz (200 when the service is ready), /metrics (Prometheus)\n"};
  });
  if (auto st = server.start(); !st) return Error{"--listen: " + st.message()};

  // Processes that double-fork out of the service become our children: found, ended, reaped.
  const Status reaper = util::become_child_subreaper();
  auto& stop = util::StopToken::process();
  const std::string bound = listen->host.find(':') != std::string::npos
                                ? fmt::format("[{}]:{}", listen->host, server.port())
                                : fmt::format("{}:{}", listen->host, server.port());
  events.emit(EventKind::guard_started, State::starting,
              {{"pid", getpid()},
               {"listen", bound},
               {"url", o.url},
               {"command", o.command},
               {"log_file", o.log_file},
               {"version", DCUKIT_VERSION},
               {"subreaper", reaper.ok()}});
  // An earlier guard killed with SIGKILL took its service's leader with it (die_with_parent),
  // but not the workers that left its group: end them before starting anew.
  if (const auto left = util::kill_marked(service_marker(o.command, o.url), std::chrono::seconds(5)); !left.empty())
    events.emit(EventKind::leftovers_killed, State::starting, {{"pids", left}});
  (void)util::sd_notify("READY=1\nSTATUS=guard started");

  Supervisor supervisor(o, request.overrides, {events, board, logs, stop, request.read_memory});
  Report report;
  report.run_info = core::collect_run_info("dcukit guard", request.command);
  report.stop_complete = supervisor.run();
  server.stop();
  const auto view = board.view();
  report.restarts = view.restarts;
  report.final_state = view.state;
  return report;
}

}  // namespace dcukit::guard
