#pragma once
// The probes guard sends to its service, each with a deadline: TCP accept, GET /health, GET
// /v1/models (listing the model), and the canary completion. AsyncProbe runs one at a time on
// a thread of its own, so that the supervisor keeps watching the process and its signals
// while a probe waits on a hung server.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "guard/types.h"
#include "serving/probe.h"
#include "util/net.h"

namespace dcukit::guard {

/// Where and what to probe.
struct ProbeTarget {
  serving::Endpoint endpoint;
  util::HostPort address;
  std::string model;  ///< wanted (models) or the one to ask (canary); empty: the first listed
  std::string canary_prompt = "Hello";
  int canary_max_tokens = 1;
};

/// How one probe went.
struct ProbeOutcome {
  Probe probe = Probe::tcp;
  bool ok = false;
  std::string detail;     ///< the error, when it failed
  std::string model;      ///< the model /v1/models listed (models probe)
  double seconds = 0;     ///< how long it took
  std::uint64_t tag = 0;  ///< the tag it was launched with (which service instance)
};

/// Runs one probe synchronously; never longer than about `timeout`.
ProbeOutcome run_probe(Probe probe, const ProbeTarget& target, std::chrono::milliseconds timeout);

/// One probe in flight at a time, on a detached thread that owns everything it uses: a probe
/// abandoned (the service was stopped meanwhile) ends on its own deadline and is forgotten.
class AsyncProbe {
public:
  /// True while a probe runs.
  bool busy() const { return m_slot != nullptr; }
  /// Starts `probe`; `tag` comes back with the outcome.
  void launch(Probe probe, ProbeTarget target, std::chrono::milliseconds timeout, std::uint64_t tag);
  /// The outcome once the probe has finished (then not busy any more); nullopt while it runs.
  std::optional<ProbeOutcome> poll();
  /// Forgets the probe in flight.
  void abandon() { m_slot.reset(); }

private:
  struct Slot {
    std::atomic<bool> done{false};
    ProbeOutcome outcome;
  };
  std::shared_ptr<Slot> m_slot;
};

}  // namespace dcukit::guard
