#pragma once
// A vLLM version as a user or a log writes it: "0.10.1.1", "v0.7.2", "0.6.3.dev114+g4f95ffee",
// and the Hygon DCU builds "0.18.1+das.dtk2604", which follow the upstream version they name.
// Which vLLM a plan follows: the one asked for, else the host's, else the newest the data knows.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::plan {

/// major.minor.patch of an upstream vLLM release; a fourth number (0.10.1.1) is kept for display.
struct VllmVersion {
  int major = 0, minor = 0, patch = 0;
  std::string text;  ///< as written, for messages ("0.18.1+das.dtk2604")
  bool dcu = false;  ///< a Hygon DCU build (+das...dtk...): upstream's accounting on HIP
  bool dev = false;  ///< a development build (".devN", "rcN"): between releases

  /// "0.10.1"; the comparison key.
  std::string upstream() const;
};

/// -1, 0, 1 as a is before, equal to or after b (major, minor, patch only).
int compare(const VllmVersion& a, const VllmVersion& b);
inline bool operator<(const VllmVersion& a, const VllmVersion& b) {
  return compare(a, b) < 0;
}
inline bool operator>=(const VllmVersion& a, const VllmVersion& b) {
  return compare(a, b) >= 0;
}

/// Parses "X.Y[.Z[.W]]" with an optional leading "v" and any "+local" or ".devN"/"rcN" tail.
/// Source builds without tags print "0.1.devN+g<sha>"; those are an error (the version is unknown)
/// that says to pass --vllm-version.
Result<VllmVersion> parse_vllm_version(std::string_view text);

/// The newest version the accounting data has evidence for (a start-up log of that version).
const VllmVersion& newest_known_vllm();

/// Reports the vLLM version installed on this host, or nothing. Injected by the caller so that
/// plan does not depend on how the host is probed (the stack probe lives outside plan).
using HostVllmProbe = std::function<std::optional<std::string>()>;

/// The version a plan follows and why, said in the output.
struct ChosenVllm {
  VllmVersion version;
  std::string from;  ///< "--vllm-version 0.10.1", "installed on this host", "newest the data knows ..."
};

/// --vllm-version when given, else the host's (when `probe` is set and finds one), else the newest
/// known. A malformed --vllm-version is an error naming it; a malformed host version is skipped with
/// its text in `from`.
Result<ChosenVllm> choose_vllm(const std::optional<std::string>& flag, const HostVllmProbe& probe);

}  // namespace dcukit::plan
