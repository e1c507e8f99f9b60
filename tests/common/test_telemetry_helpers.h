#pragma once
// Shared by the telemetry tests: the fixture tree and a reader that fails the test, not the run.
#include <gtest/gtest.h>

#include <string>

#include "telemetry/capture.h"
#include "telemetry/types.h"

namespace testutil {

/// tests/fixtures/telemetry/<rel>
inline std::string telemetry_fixture(const std::string& rel) {
  return std::string(DCUKIT_FIXTURES) + "/telemetry/" + rel;
}

/// Reads tests/fixtures/telemetry/samples/<rel> with --from's reader; an empty Snapshot (and a
/// test failure) when it cannot.
inline dcukit::telemetry::Snapshot read_sample(const std::string& rel) {
  auto s = dcukit::telemetry::read_capture_file(telemetry_fixture("samples/" + rel));
  if (!s) {
    ADD_FAILURE() << rel << ": " << s.error().message;
    return {};
  }
  return *s;
}

/// True when some warning contains `part`.
inline bool has_warning(const dcukit::telemetry::Snapshot& s, const std::string& part) {
  for (const auto& w : s.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

/// True when the snapshot records the fact key = value.
inline bool has_fact(const dcukit::telemetry::Snapshot& s, const std::string& key, const std::string& value) {
  for (const auto& f : s.facts)
    if (f.key == key && f.value == value) return true;
  return false;
}

}  // namespace testutil
