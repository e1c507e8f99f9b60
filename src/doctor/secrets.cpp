#include "doctor/secrets.h"

#include "doctor/text.h"

namespace dcukit::doctor {

bool secret_name(std::string_view name) {
  const std::string n = lower(name);
  for (const char* word : {"key", "token", "secret", "password", "passwd", "credential", "auth"})
    if (contains(n, word)) return true;
  return false;
}

std::string strip_url_credentials(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto scheme = text.find("://", at);
    if (scheme == std::string_view::npos) break;
    const std::size_t start = scheme + 3;
    std::size_t end = start;  // the authority ends at '/', '?', '#' or a blank
    while (end < text.size() && text[end] != '/' && text[end] != '?' && text[end] != '#' && text[end] != ' ' &&
           text[end] != '\n' && text[end] != '"' && text[end] != '\'')
      ++end;
    const auto atsign = text.substr(start, end - start).rfind('@');
    out += text.substr(at, start - at);
    if (atsign != std::string_view::npos) {
      out += kRemoved;
      out += text.substr(start + atsign, end - start - atsign);
    } else {
      out += text.substr(start, end - start);
    }
    at = end;
  }
  out += text.substr(at);
  return out;
}

std::map<std::string, std::string> redact_environment(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) out[k] = secret_name(k) ? std::string(kRemoved) : strip_url_credentials(v);
  return out;
}

}  // namespace dcukit::doctor
