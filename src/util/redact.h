#pragma once
// The one redactor: everything dcukit prints, logs, bundles or records (run_info's command,
// guard's events and /healthz, patrol's status line, doctor's bundles) passes through here, so
// that a secret is caught by its value as well as by the name of the variable that held it.
// Caught by value: user:password@ in URLs (with or without a scheme), Authorization and Bearer
// headers, query keys (api_key, token, sig, ...), key=value and --flag value pairs whose name
// says secret, and the token formats of the services users deploy with (GitHub, GitLab, Slack
// and its webhooks, Hugging Face, OpenAI-style sk-, AWS access keys, JWTs, PEM private keys).
#include <map>
#include <string>
#include <string_view>

namespace dcukit::util {

/// What a secret is replaced with.
inline constexpr std::string_view kRedacted = "***";

/// True when an environment variable's name says it holds a secret (HF_TOKEN, DB_PASS,
/// SSHPASS, MYSQL_PWD, GH_PAT, CI_JOB_JWT, AWS_SECRET_ACCESS_KEY; not PATH or PWD).
bool secret_name(std::string_view name);

/// `text` with every secret found by value replaced by kRedacted; the rest is unchanged.
std::string redact(std::string_view text);

/// Every string inside a JSON value (nlohmann::json or ordered_json) redacted, so that the
/// document stays valid JSON whatever a secret held.
template <class Json>
void redact_strings(Json& j) {
  if (j.is_string()) {
    j = redact(j.template get_ref<const std::string&>());
  } else if (j.is_structured()) {
    for (auto& v : j) redact_strings(v);
  }
}

/// An environment with secret names' values replaced and every other value redacted.
std::map<std::string, std::string> redact_environment(const std::map<std::string, std::string>& env);

}  // namespace dcukit::util
