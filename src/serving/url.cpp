#include "serving/url.h"

#include <algorithm>
#include <cctype>

#include "util/text.h"

namespace dcukit::serving {
namespace {

bool ends_authority(char c) {
  return c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' ||
         std::isspace(static_cast<unsigned char>(c));
}

/// The authority of url (after "://", before the path), or the whole url without a scheme.
std::string_view authority_of(std::string_view url) {
  const auto scheme = url.find("://");
  std::string_view rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  std::size_t end = 0;
  while (end < rest.size() && !ends_authority(rest[end])) ++end;
  return rest.substr(0, end);
}

struct HostPort {
  std::string host, port;
};

HostPort host_port(std::string_view url) {
  std::string_view a = authority_of(url);
  if (const auto at = a.rfind('@'); at != std::string_view::npos) a = a.substr(at + 1);
  HostPort hp;
  const auto bracket = a.find(']');  // [v6]:port
  const auto colon = a.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    hp.host = util::lower(a.substr(0, colon));
    hp.port = std::string(a.substr(colon + 1));
  } else {
    hp.host = util::lower(a);
  }
  if (hp.port.empty()) {
    const std::string s = scheme_of(url);
    hp.port = s == "https" ? "443" : "80";
  }
  return hp;
}

}  // namespace

std::string redact_credentials(std::string_view text) {
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    const auto sep = text.find("://", pos);
    if (sep == std::string_view::npos) break;
    const std::size_t start = sep + 3;
    std::size_t end = start;
    while (end < text.size() && !ends_authority(text[end])) ++end;
    const std::string_view authority = text.substr(start, end - start);
    const auto at = authority.rfind('@');
    out.append(text.substr(pos, start - pos));
    if (at == std::string_view::npos) {
      out.append(authority);
    } else {
      const std::string_view userinfo = authority.substr(0, at);
      const auto colon = userinfo.find(':');
      out.append(colon == std::string_view::npos ? std::string_view("***") : userinfo.substr(0, colon + 1));
      if (colon != std::string_view::npos) out.append("***");
      out.append(authority.substr(at));
    }
    pos = end;
  }
  out.append(text.substr(pos));
  return out;
}

bool has_credentials(std::string_view url) {
  return authority_of(url).find('@') != std::string_view::npos;
}

std::string scheme_of(std::string_view url) {
  const auto sep = url.find("://");
  return sep == std::string_view::npos ? std::string() : util::lower(url.substr(0, sep));
}

bool same_origin(std::string_view a, std::string_view b) {
  if (scheme_of(a) != scheme_of(b)) return false;
  const HostPort x = host_port(a), y = host_port(b);
  return x.host == y.host && x.port == y.port;
}

}  // namespace dcukit::serving
