#include "plan/vllm_version.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <tuple>
#include <vector>

namespace dcukit::plan {
namespace {

bool lower_contains(std::string_view text, std::string_view what) {
  std::string low;
  for (char c : text) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return low.find(what) != std::string::npos;
}

}  // namespace

std::string VllmVersion::upstream() const {
  return fmt::format("{}.{}.{}", major, minor, patch);
}

int compare(const VllmVersion& a, const VllmVersion& b) {
  const auto ka = std::tie(a.major, a.minor, a.patch), kb = std::tie(b.major, b.minor, b.patch);
  return ka < kb ? -1 : (kb < ka ? 1 : 0);
}

Result<VllmVersion> parse_vllm_version(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && (s.front() == 'v' || s.front() == 'V')) s.remove_prefix(1);
  VllmVersion v;
  v.text = std::string(s);
  const auto plus = s.find('+');
  const std::string_view release = s.substr(0, plus);
  // DCU builds: "0.18.1+das.dtk2604" as pip shows it, "0.18.1das.dtk2604" as vllm.__version__ has it.
  v.dcu = lower_contains(s, "das") || lower_contains(s, "dtk");
  v.dev = lower_contains(release, "dev") || lower_contains(release, "rc");
  std::vector<int> parts;
  std::size_t i = 0;
  while (i < release.size() && parts.size() < 4) {
    if (!std::isdigit(static_cast<unsigned char>(release[i]))) break;  // from_chars would take "-1"
    int n = 0;
    const auto [end, ec] = std::from_chars(release.data() + i, release.data() + release.size(), n);
    if (ec != std::errc{}) break;
    parts.push_back(n);
    i = static_cast<std::size_t>(end - release.data());
    if (i >= release.size() || release[i] != '.') break;
    ++i;
  }
  if (parts.size() < 2)
    return Error{fmt::format("vLLM version '{}': expected X.Y[.Z], e.g. 0.10.1 or 0.18.1+das.dtk2604", text)};
  v.major = parts[0];
  v.minor = parts[1];
  v.patch = parts.size() > 2 ? parts[2] : 0;
  if (v.major == 0 && v.minor == 1 && v.dev)
    return Error{
        fmt::format("vLLM version '{}' is a source build without release tags (0.1.devN); the release it "
                    "follows is unknown: pass --vllm-version X.Y.Z",
                    text)};
  return v;
}

const VllmVersion& newest_known_vllm() {
  // The newest start-up log in the data: blog-l40s-qwen3-14b-v0280.txt (vLLM 0.28.0, V1).
  static const VllmVersion v = [] {
    auto parsed = parse_vllm_version("0.28.0");
    return *parsed;
  }();
  return v;
}

Result<ChosenVllm> choose_vllm(const std::optional<std::string>& flag, const std::optional<HostVllm>& host) {
  if (flag) {
    auto v = parse_vllm_version(*flag);
    if (!v) return Error{fmt::format("--vllm-version {}: {}", *flag, v.error().message)};
    return ChosenVllm{*v, fmt::format("--vllm-version {}", *flag)};
  }
  std::string skipped;
  if (host && host->version) {
    if (auto v = parse_vllm_version(*host->version))
      return ChosenVllm{*v, fmt::format("vLLM {} installed on this host{}", *host->version,
                                        v->dcu ? "; a DCU build follows its upstream version" : "")};
    skipped = fmt::format(" (this host's vLLM '{}' names no release)", *host->version);
  } else if (host) {
    skipped = fmt::format(" (no vLLM on this host{})", host->absent.empty() ? "" : ": " + host->absent);
  }
  return ChosenVllm{newest_known_vllm(),
                    fmt::format("the newest the data knows{}; pass --vllm-version to plan for another", skipped)};
}

}  // namespace dcukit::plan
