#pragma once
// JSON in and out of untrusted text, never throwing. Out: strings read from tool outputs, logs
// and servers may hold bytes that are not UTF-8, on which nlohmann's dump() throws (type_error
// 316); here they come out as U+FFFD. In: parse_json bounds the work before nlohmann sees the
// text, since a parser builds one node per '[' and a header of nested brackets costs about 80
// times its size: text nested deeper than a limit is refused as discarded, as malformed JSON is.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace dcukit::util {

/// Deeper than any configuration, reply or header dcukit reads (they nest under 10).
inline constexpr int kMaxJsonDepth = 64;

/// `util::json_text(j, indent)`, with bytes that are not UTF-8 replaced instead of thrown on.
template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

/// A report as a document: indented by 2, with a final newline (what every --json FILE holds).
template <class Json>
std::string json_document(const Json& j) {
  return json_text(j, 2) + "\n";
}

/// Fields of a document read back, whatever it holds: the string or number at `key` of `o`, or
/// "" / 0 / nullopt where `o` is no object, the key is absent or holds another type.
inline std::string string_at(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}
inline std::optional<double> optional_number_at(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number() ? std::optional<double>(o[key].get<double>())
                                                                : std::nullopt;
}
inline double number_at(const nlohmann::json& o, const char* key) {
  return optional_number_at(o, key).value_or(0.0);
}

/// The deepest nesting of [ and { in `text` outside strings, counted in one pass; stops
/// counting past `limit` (returns limit + 1).
int json_depth(std::string_view text, int limit = kMaxJsonDepth);

/// nlohmann::json::parse without exceptions and with the nesting bounded: a discarded value
/// (is_discarded()) for text that is not JSON or nests deeper than `max_depth`.
nlohmann::json parse_json(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace dcukit::util
