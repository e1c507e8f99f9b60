#pragma once
// What a support bundle must not carry: the values of environment variables whose names say
// they hold a secret (KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH), and the user and
// password inside URLs ("https://user:pass@host" -> "https://<removed>@host") anywhere.
#include <map>
#include <string>
#include <string_view>

namespace dcukit::doctor {

/// The text a removed value is replaced with.
inline constexpr std::string_view kRemoved = "<removed>";

/// True when a variable's name says it holds a secret.
bool secret_name(std::string_view name);
/// `text` with the credentials of every URL in it replaced by kRemoved.
std::string strip_url_credentials(std::string_view text);
/// The environment with secret values replaced and URL credentials stripped.
std::map<std::string, std::string> redact_environment(const std::map<std::string, std::string>& env);

}  // namespace dcukit::doctor
