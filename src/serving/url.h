#pragma once
// A server's URL as dcukit shows and compares it: credentials written into a URL
// (http://user:secret@host) are sent to that host but never printed, and two URLs name the same
// server when scheme, host and port match. Shared by every command that takes a --url.
#include <string>
#include <string_view>

namespace dcukit::serving {


/// Whether url carries credentials ("user:secret@" or "token@") before its host.
bool has_credentials(std::string_view url);

/// The scheme of url in lower case ("http", "https"), or "" when it has none.
std::string scheme_of(std::string_view url);

/// Whether a and b reach the same server: the same scheme, host (case-insensitive) and port
/// (80 and 443 by default), whatever their credentials and paths.
bool same_origin(std::string_view a, std::string_view b);

}  // namespace dcukit::serving
