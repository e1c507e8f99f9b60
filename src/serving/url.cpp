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
