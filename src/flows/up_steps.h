#pragma once
// The steps of `dcukit up` (flows/up.h) and what they share: the request, the report, the guard
// child that keeps the engine served.
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "flows/up.h"
#include "util/process.h"

namespace dcukit::flows {

class UpContext {
public:
  UpContext(const UpRequest& request, UpReport& report) : m_request(request), m_report(report) {}
  ~UpContext();
  UpContext(const UpContext&) = delete;
  UpContext& operator=(const UpContext&) = delete;

  const UpRequest& request() const { return m_request; }
  UpReport& report() { return m_report; }
  void say(const std::string& line) const;
  bool stopped() const;
  /// The path of `name` in the output folder.
  std::string out(const std::string& name) const;
  /// Runs `dcukit ARGS...` with a deadline; its output is kept in OUT/<log>.log. Once `cut`
  /// returns true (asked every 200 ms), the child is interrupted as Ctrl-C would: it writes what
  /// it measured and ends.
  util::Captured run_dcukit(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                            const std::string& log, const std::function<bool()>& cut = {});
  /// The guard child, once the serve step started it.
  util::Process& guard() { return m_guard; }
  /// After the steps: detach, or keep serving until the stop token, then stop guard completely.
  void finish();

private:
  const UpRequest& m_request;
  UpReport& m_report;
  util::Process m_guard;
};

/// The engine started under guard, ready (tune runs it once a setting).
StepResult serve_step(UpContext& ctx);
/// Three completions whose text and token counts are checked.
StepResult smoke_step(UpContext& ctx);

/// Runs one step (its outcome and detail; run_up sets step and seconds).
StepResult run_step(UpContext& ctx, UpStep step);

/// Guard's /healthz (its state, ready, reason) as JSON; not an object when guard did not answer
/// within `timeout`.
nlohmann::json guard_status(const UpRequest& r, std::chrono::milliseconds timeout);

/// The last `n` lines of `text`, joined with " | ".
std::string tail_lines(const std::string& text, std::size_t n);

}  // namespace dcukit::flows
