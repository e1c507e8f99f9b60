// A small OpenAI-compatible server that misbehaves on command: guard's service in the guard
// tests. Real sockets on loopback; /health, /v1/models, /v1/completions (JSON and SSE). Each
// misbehaviour applies to the first --times starts (counted in --count-file), or to every start
// when --times is 0, so that a test can check that guard brings a service back to ready.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace {

struct Flags {
  std::string host = "127.0.0.1", model = "fake-model", count_file, stderr_message;
  int port = 0, times = 0, exit_code = 1, print_lines = 0;
  double listen_delay = 0, ready_delay = 0, exit_after = -1, health_hang_after = -1, completions_hang_after = -1;
  double grandchild_life = 600;
  bool fork_grandchild = false, ignore_sigterm = false;
};

void usage() {
  std::fprintf(
      stderr,
      "guard_service --port N [--model NAME] [--count-file F --times K] [--listen-delay S] [--ready-delay S]\n"
      "  [--exit-after S --exit-code N] [--health-hang-after S] [--completions-hang-after S]\n"
      "  [--fork-grandchild [--grandchild-life S]] [--ignore-sigterm] [--print-lines N] [--stderr-message T]\n");
  std::exit(2);
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--port")
      f.port = std::stoi(next());
    else if (a == "--host")
      f.host = next();
    else if (a == "--model")
      f.model = next();
    else if (a == "--count-file")
      f.count_file = next();
    else if (a == "--times")
      f.times = std::stoi(next());
    else if (a == "--listen-delay")
      f.listen_delay = std::stod(next());
    else if (a == "--ready-delay")
      f.ready_delay = std::stod(next());
    else if (a == "--exit-after")
      f.exit_after = std::stod(next());
    else if (a == "--exit-code")
      f.exit_code = std::stoi(next());
    else if (a == "--health-hang-after")
      f.health_hang_after = std::stod(next());
    else if (a == "--completions-hang-after")
      f.completions_hang_after = std::stod(next());
    else if (a == "--fork-grandchild")
      f.fork_grandchild = true;
    else if (a == "--grandchild-life")
      f.grandchild_life = std::stod(next());
    else if (a == "--ignore-sigterm")
      f.ignore_sigterm = true;
    else if (a == "--print-lines")
      f.print_lines = std::stoi(next());
    else if (a == "--stderr-message")
      f.stderr_message = next();
    else
      usage();
  }
  if (f.port <= 0) usage();
  return f;
}

/// This start's number (1 for the first), counted in the file.
int count_start(const std::string& path) {
  if (path.empty()) return 1;
  { std::ofstream(path, std::ios::app) << getpid() << "\n"; }
  std::ifstream in(path);
  int n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

void sleep_s(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

[[noreturn]] void hang() {
  for (;;) sleep_s(3600);
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  const int start_no = count_start(f.count_file);
  const bool bad = f.times == 0 || start_no <= f.times;
  std::printf("guard_service pid %d start %d misbehaving %s\n", getpid(), start_no, bad ? "yes" : "no");
  for (int i = 0; i < f.print_lines; ++i) std::printf("log line %06d of start %d: the quick brown fox\n", i, start_no);
  std::fflush(stdout);
  if (bad && f.ignore_sigterm) signal(SIGTERM, SIG_IGN);
  auto die = [&] {
    if (!f.stderr_message.empty()) std::fprintf(stderr, "%s\n", f.stderr_message.c_str());
    std::fflush(nullptr);
    _exit(f.exit_code);
  };
  if (bad && f.exit_after == 0) die();
  if (bad && f.listen_delay > 0) sleep_s(f.listen_delay);

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };
  server.Get("/health", [&](const httplib::Request&, httplib::Response& res) {
    if (bad && f.health_hang_after >= 0 && elapsed() >= f.health_hang_after) hang();
    if (bad && elapsed() < f.ready_delay) {
      res.status = 503;
      res.set_content("loading\n", "text/plain");
      return;
    }
    res.set_content("", "text/plain");
  });
  server.Get("/v1/models", [&](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = {{"object", "list"}, {"data", {{{"id", f.model}, {"object", "model"}}}}};
    res.set_content(j.dump(), "application/json");
  });
  server.Post("/v1/completions", [&](const httplib::Request& req, httplib::Response& res) {
    if (bad && f.completions_hang_after >= 0 && elapsed() >= f.completions_hang_after) hang();
    const auto body = nlohmann::json::parse(req.body, nullptr, false);
    const bool stream = body.is_object() && body.value("stream", false);
    nlohmann::json choice = {{"index", 0}, {"text", " world"}, {"finish_reason", "length"}};
    nlohmann::json reply = {{"id", "cmpl-1"}, {"object", "text_completion"}, {"model", f.model}, {"choices", {choice}}};
    if (!stream) {
      res.set_content(reply.dump(), "application/json");
      return;
    }
    res.set_chunked_content_provider("text/event-stream", [reply](size_t, httplib::DataSink& sink) {
      const std::string event = "data: " + reply.dump() + "\n\ndata: [DONE]\n\n";
      sink.write(event.data(), event.size());
      sink.done();
      return true;
    });
  });
  if (!server.bind_to_port(f.host, f.port)) {
    std::fprintf(stderr, "guard_service: cannot bind %s:%d (address in use?)\n", f.host.c_str(), f.port);
    return 1;
  }
  if (bad && f.fork_grandchild) {
    // Double fork into a new session: the grandchild keeps the listening socket (and our output).
    const pid_t child = fork();
    if (child == 0) {
      setsid();
      if (fork() == 0) {
        std::printf("guard_service grandchild pid %d holds port %d\n", getpid(), f.port);
        std::fflush(stdout);
        sleep_s(f.grandchild_life);
        _exit(0);
      }
      _exit(0);
    }
    waitpid(child, nullptr, 0);
  }
  if (bad && f.exit_after > 0) {
    std::thread([&] {
      sleep_s(f.exit_after);
      die();
    }).detach();
  }
  std::printf("guard_service listening on %s:%d\n", f.host.c_str(), f.port);
  std::fflush(stdout);
  server.listen_after_bind();
  return 0;
}
