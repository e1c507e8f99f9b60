#pragma once
// JSON as text, never throwing: strings read from tool outputs, logs and servers may hold bytes
// that are not UTF-8, on which nlohmann's dump() throws (type_error 316). Here such bytes come
// out as U+FFFD, and everything else as dump() writes it.
#include <nlohmann/json.hpp>
#include <string>

namespace dcukit::util {

/// `util::json_text(j, indent)`, with bytes that are not UTF-8 replaced instead of thrown on.
template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace dcukit::util
