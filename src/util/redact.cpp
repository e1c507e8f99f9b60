#include "util/redact.h"

#include <vector>

#include "util/regex.h"
#include "util/text.h"

namespace dcukit::util {
namespace {

struct Rule {
  Regex re;
  const char* rewrite;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> all = [] {
    std::vector<Rule> r;
    auto add = [&](const char* pattern, const char* rewrite) {
      r.push_back(Rule{Regex(pattern, Regex::Case::insensitive), rewrite});
    };
    // Whole secrets first, so that the generic rules below never leave a part of them.
    add(R"(-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]*?-----END [A-Z ]*PRIVATE KEY-----)", "***");
    add(R"(-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]*)", "***");  // cut short
    add(R"((https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_-]+)", "\\1***");
    add(R"((https://(?:discord(?:app)?\.com/api/webhooks|[a-z0-9.-]*webhook\.office\.com/webhookb2)/)[^\s"'<>]+)",
        "\\1***");
    add(R"(\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,})", "***");  // JWT
    add(R"(\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))", "***");
    add(R"(\bgl(?:pat|ptt|dt|rt|cbt|oas)-[A-Za-z0-9_-]{16,})", "***");
    add(R"(\bxox[abposr]-[A-Za-z0-9-]{10,})", "***");
    add(R"(\bhf_[A-Za-z0-9]{20,})", "***");
    add(R"(\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,})", "***");
    add(R"(\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)", "***");
    // Headers: "Authorization: Bearer X", "Authorization: Basic X", "X-Api-Key: X", "Bearer X".
    add(R"(\b((?:proxy-)?authorization\s*[:=]\s*(?:(?:bearer|basic|token|digest)\s+)?)[^\s"',;]+)", "\\1***");
    add(R"(\b((?:x-)?api-?key\s*:\s*)[^\s"',;]+)", "\\1***");
    add(R"(\b(bearer\s+)[A-Za-z0-9._~+/=-]{4,})", "\\1***");
    // URLs: scheme://user:password@ and scheme://token@.
    add(R"(\b([a-z][a-z0-9+.-]*://)([^/?#\s@:"'<>]*):([^/?#\s@"'<>]*)@)", "\\1\\2:***@");
    add(R"(\b([a-z][a-z0-9+.-]*://)([^/?#\s@:"'<>]+)@)", "\\1***@");
    // user:password@host without a scheme (https_proxy=u:pw@proxy:3128).
    add(R"((^|[\s=,;"'(])([A-Za-z0-9._%~-]+):([^\s/@"'<>]+)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d+)?))",
        "\\1\\2:***@\\4");
    // Query keys.
    add(R"(([?&;](?:api[_-]?key|apikey|key|access[_-]?token|refresh[_-]?token|id[_-]?token|token|auth|sig|signature|)"
        R"(secret|password|passwd|pwd|code|x-amz-signature|x-amz-credential|x-goog-signature)=)[^&#\s"'<>]+)",
        "\\1***");
    // NAME=value and --flag value whose name says secret.
    // The word must end the name or be followed by '_': HF_TOKEN=, DB_PASSWORD=, not max_tokens=.
    add(R"(\b([A-Za-z0-9_]*(?:password|passwd|passphrase|secret|token|api_?key|jwt|_pwd|_pass|sshpass|_pat)(?:_[A-Za-z0-9_]*)?=)(?:"[^"]*"|'[^']*'|[^\s"'&]+))",
        "\\1***");
    add(R"((--(?:api-key|password|passwd|token|hf-token|secret|auth-token|access-token)(?:=|\s+))(?:"[^"]*"|'[^']*'|[^\s"']+))",
        "\\1***");
    return r;
  }();
  return all;
}

}  // namespace

bool secret_name(std::string_view name) {
  const std::string n = lower(name);
  if (n == "pwd" || n == "oldpwd") return false;  // the shell's folders
  for (const char* word : {"key", "token", "secret", "password", "passwd", "passphrase", "credential", "auth", "jwt",
                           "cookie", "webhook", "signature"})
    if (contains(n, word)) return true;
  // Words that are secrets only whole: DB_PASS, SSHPASS, MYSQL_PWD, GH_PAT, SENTRY_DSN (not PATH).
  std::vector<std::string> words{""};
  for (const char c : n) {
    if (c == '_') words.emplace_back();
    else words.back().push_back(c);
  }
  for (const std::string& w : words) {
    if (w == "pat" || w == "pwd" || w == "dsn" || w == "pw") return true;
    if (w == "pass" || (w.size() > 4 && w.compare(w.size() - 4, 4, "pass") == 0)) return true;
  }
  return false;
}

std::string redact(std::string_view text) {
  std::string out(text);
  for (const auto& rule : rules()) out = rule.re.replace_all(out, rule.rewrite);
  return out;
}

std::map<std::string, std::string> redact_environment(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) out[k] = secret_name(k) ? std::string(kRedacted) : redact(v);
  return out;
}

}  // namespace dcukit::util
