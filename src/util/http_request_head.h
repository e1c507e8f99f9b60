#pragma once
// The request line and query of an HTTP/1.x request head, as the server of http_server.h needs
// them: the method, the path without its query, and the query's parameters percent-decoded.
// Anything else in the head (headers, a body) is not read: the endpoints take no input.
#include <map>
#include <string>
#include <string_view>

namespace dcukit::util {

struct RequestHead {
  bool ok = false;  ///< false: not "METHOD /path HTTP/1.x"
  std::string method;
  std::string path;
  std::map<std::string, std::string> params;
};

RequestHead parse_request_head(std::string_view head);

/// "OK", "Not Found", ... for the statuses the server sends.
const char* reason_phrase(int status);

}  // namespace dcukit::util
