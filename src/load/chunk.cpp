#include "load/chunk.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace dcukit::load {
namespace {

using nlohmann::json;

std::size_t add_string(const json& obj, const char* key, std::string* text) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return 0;
  const auto& s = it->get_ref<const std::string&>();
  if (text) text->append(s);
  return s.size();
}

std::string message_of(const json& err) {
  if (err.is_string()) return err.get<std::string>();
  if (err.is_object()) {
    const auto m = err.find("message");
    if (m != err.end() && m->is_string()) return m->get<std::string>();
  }
  return util::json_text(err);
}

/// usage.<key> as a token count: absent or null is unknown (a null field is an absent one, as
/// servers that fill only some counts send them); a whole number in range is itself; anything
/// else (a string, a fraction, a negative or huge number) is an Error naming the value.
Result<std::optional<int>> token_count(const json& usage, const char* key) {
  const auto it = usage.find(key);
  if (it == usage.end() || it->is_null()) return std::optional<int>{};
  const json& v = *it;
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxTokenCount))
    return std::optional<int>{static_cast<int>(v.get<std::uint64_t>())};
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= kMaxTokenCount)
    return std::optional<int>{static_cast<int>(v.get<std::int64_t>())};
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d <= static_cast<double>(kMaxTokenCount) && d == std::floor(d))
      return std::optional<int>{static_cast<int>(d)};
  }
  return Error{std::string("usage.") + key + " is " + util::json_text(v).substr(0, 40) + ", not a token count"};
}

Result<ChunkInfo> read_object(const json& j, std::string* text) {
  ChunkInfo info;
  if (!j.is_object()) return info;
  if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
    info.has_error = true;
    info.error_message = message_of(*e);
  }
  if (const auto u = j.find("usage"); u != j.end() && u->is_object()) {
    auto prompt = token_count(*u, "prompt_tokens");
    if (!prompt) return prompt.error();
    auto completion = token_count(*u, "completion_tokens");
    if (!completion) return completion.error();
    info.prompt_tokens = *prompt;
    info.completion_tokens = *completion;
    info.has_usage = info.prompt_tokens || info.completion_tokens;
  }
  const auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array()) return info;
  for (const auto& c : *choices) {
    if (!c.is_object()) continue;
    info.content_bytes += add_string(c, "text", text);
    for (const char* holder : {"delta", "message"}) {
      const auto d = c.find(holder);
      if (d == c.end() || !d->is_object()) continue;
      info.reasoning_bytes += add_string(*d, "reasoning_content", text) + add_string(*d, "reasoning", text);
      info.content_bytes += add_string(*d, "content", text);
    }
    const auto f = c.find("finish_reason");
    if (f != c.end() && !f->is_null()) info.finished = true;
  }
  return info;
}

}  // namespace

Result<ChunkInfo> parse_chunk(std::string_view data, std::string* text) {
  if (data == "[DONE]") {
    ChunkInfo info;
    info.done = true;
    return info;
  }
  json j = util::parse_json(data);
  if (j.is_discarded()) return Error{"not JSON: " + std::string(data.substr(0, 120))};
  return read_object(j, text);
}

Result<ChunkInfo> parse_response(std::string_view body, std::string* text) {
  return parse_chunk(body, text);
}

std::string error_text(std::string_view body) {
  json j = util::parse_json(body);
  if (!j.is_discarded() && j.is_object()) {
    for (const char* key : {"error", "message", "detail"}) {
      const auto it = j.find(key);
      if (it != j.end()) return message_of(*it);
    }
  }
  return std::string(body.substr(0, 200));
}

}  // namespace dcukit::load
