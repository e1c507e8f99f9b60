#pragma once
// A vLLM version as a user or a log writes it: "0.10.1.1", "v0.7.2", "0.6.3.dev114+g4f95ffee",
// and the Hygon DCU builds "0.18.1+das.dtk2604", which follow the upstream version they name.
// Which vLLM a plan follows: the one asked for, else the host's, else the newest the data knows.
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

/// What this host said of its vLLM: the version vllm.__version__ printed ("0.18.1das.dtk2604"),
/// or why there is none. plan does not probe the host itself (stack/python.h does); plan::run
/// passes what the probe found.
struct HostVllm {
  std::optional<std::string> version;
  std::string absent;  ///< why there is no version: "No module named 'vllm'", the probe's error
};

/// The version a plan follows and why, said in the output.
struct ChosenVllm {
  VllmVersion version;
  std::string from;  ///< "--vllm-version 0.10.1", "vLLM 0.18.1das.dtk2604 installed on this host", ...
};

/// --vllm-version when given, else the host's (where `host` holds one), else the newest known.
/// A malformed --vllm-version is an error naming it; a host version that names no release, or
/// none, is said in `from`. `host` empty: this host was not asked (cards named by --gpu).
Result<ChosenVllm> choose_vllm(const std::optional<std::string>& flag, const std::optional<HostVllm>& host);

}  // namespace dcukit::plan
