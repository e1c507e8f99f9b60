#pragma once
// The steps of a run before its levels (load/run.cpp drives them): check the URL, wait for the
// server, find the model, make the prompts, send a trial request and fall back to what the
// server accepts, check the metrics URL and the open-files limit, warm up. Each step returns
// false when the run must end, with Report::problem (or interrupted) saying why.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "load/engine.h"
#include "load/types.h"
#include "load/run.h"
#include "load/tokenizer.h"
#include "serving/probe.h"

namespace dcukit::load {

class Steps {
public:
  explicit Steps(Request& request);

  Request& request;          ///< the run's input; steps adjust body and prompts to the server
  Report report;             ///< what is known so far
  serving::Endpoint server;  ///< the server's origin, its headers (API key, -H) and TLS
  std::string generate_url;  ///< origin + endpoint

  /// Whether the user asked to stop.
  bool stopped() const;
  /// Tells the user now (on_notice) and keeps the line in the report's notes.
  void notice(const std::string& line);
  /// Ends the run with this problem (the first one stays).
  void problem(ProblemKind kind, const std::string& message);
  /// A progress callback that labels its snapshots, or none.
  ProgressFn progress_fn(const std::string& label) const;

  /// An http or https URL; anything else is bad input.
  bool check_url();
  /// --wait-ready: /health then /v1/models, stopping on Ctrl-C.
  bool wait_ready();
  /// The model: the first /v1/models lists, or --model (with a warning when it is not listed).
  bool resolve_model();
  /// The prompts, as token ids or as text counted the server's way, and the spare one.
  bool make_prompts(std::vector<Prompt>& prompts);
  Prompt spare;  ///< a prompt the levels do not send, for the trial and the warm-up
  /// One request before the run; on a refusal, falls back to what the server accepts (text for
  /// token ids, no stream_options, no ignore_eos) and tries again; stops when it still fails.
  bool trial(std::unique_ptr<Engine>& engine, EngineConfig& config, std::vector<Prompt>& prompts);
  /// --metrics-url answers before anything is measured.
  bool check_metrics_url();
  /// Enough open files for the largest level's sockets (raised when the hard limit allows).
  bool check_open_files(const std::vector<std::pair<LoadShape, std::string>>& levels);
  /// --warmup requests (the spare prompt, again and again), left out of the figures.
  bool warm_up(Engine& engine);
  /// The report, with credentials redacted from everything in it.
  Report finish();

private:
  TokenCounter& counter();
  bool rebuild_as_text(std::vector<Prompt>& prompts);

  std::unique_ptr<TokenCounter> m_counter;
  bool m_chat = false;
};

}  // namespace dcukit::load
