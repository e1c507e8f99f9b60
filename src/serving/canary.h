#pragma once
// The canary: one small completion, the only probe that shows a server which answers /health
// and /v1/models but hangs or fails on real work. guard sends it to decide readiness and
// liveness, patrol to measure its latency against a limit.
#include <chrono>
#include <string>

#include "serving/probe.h"
#include "util/result.h"

namespace dcukit::serving {

/// What to ask.
struct CanaryRequest {
  std::string model;  ///< the served model's id
  std::string prompt = "Hello";
  int max_tokens = 1;
  std::chrono::milliseconds timeout{30000};
};

/// A completion that came back well formed.
struct CanaryResult {
  double latency_seconds = 0;
  std::string text;  ///< choices[0].text, for the record
};

/// POSTs /v1/completions (not streamed) and checks the reply: HTTP 200, a JSON object with a
/// non-empty "choices" array. The error says which of those failed (or the transport error:
/// refused, timed out) and how long it took.
Result<CanaryResult> send_canary(const Endpoint& server, const CanaryRequest& request);

/// The model to probe: `wanted` when /v1/models lists it, the first listed when `wanted` is
/// empty; an Error naming what was listed otherwise.
Result<std::string> served_model(const Endpoint& server, const std::string& wanted, std::chrono::milliseconds timeout);

}  // namespace dcukit::serving
