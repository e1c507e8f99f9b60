// The serving steps of `dcukit up`: the engine started under `dcukit guard` (a child in a
// session of its own, so that Ctrl-C reaches up, which then stops guard in order), readiness
// read from guard's /healthz, a smoke test whose answers are checked, and the end: detached, or
// served until Ctrl-C and stopped completely.
#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "flows/up_steps.h"
#include "util/http.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::flows {
namespace {

using namespace std::chrono_literals;

StepResult serve_failed(std::string why) { return {UpStep::serve, StepOutcome::failed, std::move(why), "", 0}; }

/// The engine's command line: vLLM from the plan's launch script, llama.cpp with 4 slots.
Result<std::vector<std::string>> engine_command(const UpContext& ctx) {
  const auto& r = ctx.request();
  if (r.engine == Engine::vllm) {
    if (!std::filesystem::exists(ctx.out("launch.sh")))
      return Error{"no launch.sh in the output folder: run the plan step (--from plan)"};
    return std::vector<std::string>{"bash", ctx.out("launch.sh")};
  }
  auto cmd = engine_base_command(r);
  if (cmd && r.engine == Engine::llama_cpp) cmd->insert(cmd->end(), {"-np", "4"});
  return cmd;
}

std::string read_tail(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return tail_lines(text, 4);
}

}  // namespace

Result<std::vector<std::string>> engine_base_command(const UpRequest& r) {
  const std::string port = std::to_string(r.port);
  switch (r.engine) {
    case Engine::vllm:
      return std::vector<std::string>{"vllm", "serve", r.model, "--host", r.host, "--port", port};
    case Engine::sglang:
      return std::vector<std::string>{"python3", "-m", "sglang.launch_server", "--model-path", r.model,
                                      "--host",  r.host, "--port", port};
    case Engine::llama_cpp: {
      const auto bin = util::find_program("llama-server");
      if (!bin) return Error{"llama-server is not on PATH"};
      return std::vector<std::string>{*bin, "-m", r.model, "--host", r.host, "--port", port, "-c", "4096", "--metrics"};
    }
    case Engine::command:
      return r.command;
  }
  return Error{"unknown engine"};
}

StepResult serve_step(UpContext& ctx) {
  const auto& r = ctx.request();
  auto command = engine_command(ctx);
  if (!command) return serve_failed(command.error().message);
  const auto ms = [](std::chrono::milliseconds d) { return fmt::format("{}ms", d.count()); };
  util::SpawnOptions o;
  o.argv = {r.self, "guard", "--url", ctx.report().url, "--listen", r.listen, "--log-file", ctx.out("service.log"),
            "--events", ctx.out("guard-events.jsonl"), "--startup-timeout", ms(r.startup_timeout), "--json",
            ctx.out("guard.json"), "-q"};
  if (r.max_restarts) o.argv.insert(o.argv.end(), {"--max-restarts", std::to_string(*r.max_restarts)});
  o.argv.push_back("--");
  o.argv.insert(o.argv.end(), command->begin(), command->end());
  o.stdout_path = o.stderr_path = ctx.out("guard.log");
  o.new_session = true;
  o.die_with_parent = !r.detach;  // a foreground up never leaves a service behind, even killed
  auto guard = util::Process::spawn(o);
  if (!guard) return serve_failed(guard.error().message);
  ctx.guard() = std::move(*guard);
  const auto deadline = std::chrono::steady_clock::now() + r.startup_timeout + 60s;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ctx.stopped()) return serve_failed("interrupted while the engine started");
    if (!ctx.guard().running())
      return serve_failed(fmt::format("dcukit guard ended ({}): {}", ctx.guard().status()->describe(), read_tail(ctx.out("guard.log"))));
    if (const auto j = guard_status(r, 2s); j.is_object()) {
      last = util::string_at(j, "state");
      if (j.value("ready", false))
        return {UpStep::serve, StepOutcome::done,
                fmt::format("{} served at {} under guard (pid {}, status at http://{}/healthz)",
                            to_string(r.engine), ctx.report().url, ctx.guard().pid(), r.listen),
                ctx.out("service.log"), 0};
      if (last == "failed")
        return serve_failed(fmt::format("the engine never became ready: {}; its log: {}", util::string_at(j, "reason"),
                                        read_tail(ctx.out("service.log"))));
    }
    std::this_thread::sleep_for(500ms);
  }
  return serve_failed(fmt::format("not ready within the start-up budget (guard's state: {}); its log: {}",
                            last.empty() ? "unknown" : last, read_tail(ctx.out("service.log"))));
}

nlohmann::json guard_status(const UpRequest& r, std::chrono::milliseconds timeout) {
  util::HttpRequest probe;
  probe.url = fmt::format("http://{}/healthz", r.listen);
  probe.timeout = timeout;
  const auto reply = util::http_request(probe);
  return reply && reply->status > 0 ? util::parse_json(reply->body) : nlohmann::json();
}

StepResult smoke_step(UpContext& ctx) {
  const std::string url = ctx.report().url;
  util::HttpRequest models;
  models.url = url + "/v1/models";
  models.timeout = 30s;
  auto listed = util::http_request(models);
  if (!listed || listed->status != 200)
    return serve_failed(fmt::format("GET /v1/models: {}", listed ? fmt::format("HTTP {}", listed->status) : listed.error().message));
  const auto mj = util::parse_json(listed->body);
  std::string model;
  if (mj.is_object() && mj.contains("data") && mj["data"].is_array() && !mj["data"].empty() && mj["data"][0].is_object())
    model = util::string_at(mj["data"][0], "id");
  if (model.empty()) return serve_failed("GET /v1/models listed no model");
  constexpr int kTokens = 8;
  const char* prompts[] = {"The capital of France is", "def fibonacci(n):", "Once upon a time"};
  for (const char* prompt : prompts) {
    util::HttpRequest q;
    q.url = url + "/v1/completions";
    q.method = "POST";
    q.headers = {"Content-Type: application/json"};
    q.body = nlohmann::json{{"model", model}, {"prompt", prompt}, {"max_tokens", kTokens}, {"temperature", 0},
                            {"ignore_eos", true}}
                 .dump();
    q.timeout = 120s;
    auto reply = util::http_request(q);
    if (!reply) return serve_failed(fmt::format("the completion of \"{}\": {}", prompt, reply.error().message));
    if (reply->status != 200)
      return serve_failed(fmt::format("the completion of \"{}\": HTTP {}: {}", prompt, reply->status, tail_lines(reply->body, 2)));
    const auto j = util::parse_json(reply->body);
    if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
      return serve_failed(fmt::format("the completion of \"{}\" has no choices: {}", prompt, tail_lines(reply->body, 2)));
    const std::string text = util::string_at(j["choices"][0], "text");
    if (text.empty()) return serve_failed(fmt::format("the completion of \"{}\" is empty", prompt));
    // A number of any size or type is read as a double: a hostile count is a finding, not a cast.
    std::optional<double> counted;
    if (j.contains("usage") && j["usage"].is_object() && j["usage"].contains("completion_tokens") &&
        j["usage"]["completion_tokens"].is_number())
      counted = j["usage"]["completion_tokens"].get<double>();
    if (!counted || *counted != kTokens)
      return serve_failed(fmt::format("asked for {} tokens (ignore_eos) of \"{}\", the server counted {}", kTokens,
                                      prompt, counted ? fmt::format("{:g}", *counted) : "none (no usage)"));
  }
  return {UpStep::smoke, StepOutcome::done,
          fmt::format("{} completions of {} tokens from {}, each non-empty and counted", std::size(prompts), kTokens,
                      model),
          "", 0};
}

void UpContext::finish() {
  if (m_guard.pid() <= 0 || !m_guard.running()) return;
  const bool ok = m_report.ok();
  if (ok && m_request.detach) {
    std::ofstream(out("guard.pid")) << m_guard.pid() << "\n";
    m_report.guard_pid = m_guard.pid();
    m_guard.release();
    return;
  }
  if (ok) {
    say(fmt::format("serving at {}; Ctrl-C stops it (guard stops the engine completely)", m_report.url));
    while (!stopped() && m_guard.running())
      if (m_request.stop) m_request.stop->wait_for(500ms);
      else std::this_thread::sleep_for(500ms);
    if (!m_guard.running()) {
      m_report.steps.push_back({UpStep::serve, StepOutcome::failed,
                                fmt::format("dcukit guard ended on its own ({}): {}", m_guard.status()->describe(),
                                            read_tail(out("guard.log"))),
                                out("guard.log"), 0});
      return;
    }
  }
  say("stopping: guard stops the engine and waits for its port and memory to be released");
  (void)m_guard.signal_group(SIGTERM);
  if (!m_guard.wait_for(150s)) m_guard.stop(5s);
}

UpContext::~UpContext() {
  if (m_guard.pid() > 0 && m_guard.running()) {  // never leave guard behind (a failed step, an exception)
    (void)m_guard.signal_group(SIGTERM);
    if (!m_guard.wait_for(150s)) m_guard.stop(5s);
  }
}

}  // namespace dcukit::flows
