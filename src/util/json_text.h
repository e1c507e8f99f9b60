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
#include <type_traits>
#include <vector>

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

namespace detail {
template <class T>
struct is_vector : std::false_type {};
template <class U>
struct is_vector<std::vector<U>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class U>
struct is_optional<std::optional<U>> : std::true_type {};

/// `v` as a T, or false where it holds another kind of value.
template <class Json, class T>
bool value_as(const Json& v, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return false;
    out = v.template get<bool>();
  } else if constexpr (std::is_arithmetic_v<T>) {
    if (!v.is_number()) return false;
    out = v.template get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return false;
    out = v.template get<std::string>();
  } else if constexpr (is_vector<T>::value) {
    if (!v.is_array()) return false;
    T items;
    for (const auto& e : v) {
      typename T::value_type item{};
      if (value_as(e, item)) items.push_back(std::move(item));
    }
    out = std::move(items);
  } else if constexpr (is_optional<T>::value) {
    if (v.is_null()) {
      out.reset();
      return true;
    }
    typename T::value_type item{};
    if (!value_as(v, item)) return false;
    out = std::move(item);
  } else {
    static_assert(sizeof(T) == 0, "read_at reads booleans, numbers, strings and arrays or optionals of them");
  }
  return true;
}
}  // namespace detail

/// Reads `o[key]` into `out` where it holds a value of out's kind (a boolean, a number, a string,
/// an array of them, or null for an optional); `out` keeps its value otherwise. For reading a
/// report's own JSON back (from_json), where what is absent keeps the struct's default.
template <class Json, class T>
void read_at(const Json& o, const char* key, T& out) {
  if (o.is_object() && o.contains(key)) detail::value_as(o[key], out);
}

/// The deepest nesting of [ and { in `text` outside strings, counted in one pass; stops
/// counting past `limit` (returns limit + 1).
int json_depth(std::string_view text, int limit = kMaxJsonDepth);

/// nlohmann::json::parse without exceptions and with the nesting bounded: a discarded value
/// (is_discarded()) for text that is not JSON or nests deeper than `max_depth`.
nlohmann::json parse_json(std::string_view text, int max_depth = kMaxJsonDepth);
/// parse_json keeping the objects' keys in the order written (a report read back whose keys
/// are its own order: metadata, percentiles).
nlohmann::ordered_json parse_ordered_json(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace dcukit::util
