#include "util/settings.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/files.h"
#include "util/json_text.h"
#include "util/text.h"

namespace dcukit::util {
namespace {

/// The value of a JSON item as an options file means it: a string as written, null as empty,
/// anything else as its JSON text.
std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : json_text(v);
}

}  // namespace

Result<Pairs> read_options_file(const std::string& path, const std::vector<std::string_view>& known,
                                std::string_view command) {
  auto text = read_file(path, kSettingsInput);
  if (!text) return Error{fmt::format("--config: {}", text.error().message)};
  Pairs pairs;
  const std::string body(trim(*text));
  auto check_key = [&](const std::string& key, const std::string& where) -> Status {
    if (key == "config") return Error{fmt::format("{}{}: an options file cannot name another", path, where)};
    if (std::find(known.begin(), known.end(), key) == known.end())
      return Error{fmt::format("{}{}: '{}' is not a {} option (the keys are the flag names without --)", path, where,
                               key, command)};
    return {};
  };
  if (!body.empty() && body.front() == '{') {
    const auto j = parse_json(body);
    if (j.is_discarded() || !j.is_object()) return Error{path + " is not a JSON object"};
    for (const auto& [key, value] : j.items()) {
      if (auto st = check_key(key, ""); !st) return st.error();
      if (value.is_array())
        for (const auto& item : value) pairs.emplace_back(key, value_text(item));
      else
        pairs.emplace_back(key, value_text(value));
    }
    return pairs;
  }
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text->size()) {
    const auto nl = text->find('\n', pos);
    const std::string line(trim(std::string_view(*text).substr(pos, nl == std::string::npos ? std::string::npos : nl - pos)));
    pos = nl == std::string::npos ? text->size() + 1 : nl + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    const std::string where = fmt::format(":{}", line_no);
    if (eq == std::string::npos) return Error{fmt::format("{}{}: expected NAME=VALUE, got '{}'", path, where, line)};
    std::string key(trim(std::string_view(line).substr(0, eq)));
    if (key.rfind("--", 0) == 0) key = key.substr(2);
    if (auto st = check_key(key, where); !st) return st.error();
    std::string value(trim(std::string_view(line).substr(eq + 1)));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    pairs.emplace_back(key, value);
  }
  return pairs;
}

Result<long long> parse_whole(std::string_view v, long long lo, long long hi) {
  const auto n = parse_int(v);
  if (!n) return Error{fmt::format("'{}' is not a whole number", v)};
  if (*n < lo || *n > hi) return Error{fmt::format("{} is outside {} to {}", v, lo, hi)};
  return *n;
}

Result<bool> parse_switch(std::string_view v) {
  if (v.empty() || v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  return Error{fmt::format("'{}' is not true or false", v)};
}

}  // namespace dcukit::util
