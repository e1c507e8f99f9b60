#include "load/chunk.h"

#include <nlohmann/json.hpp>

namespace dcukit::load {
namespace {

using nlohmann::json;

std::size_t string_bytes(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return 0;
  return it->get_ref<const std::string&>().size();
}

std::string message_of(const json& err) {
  if (err.is_string()) return err.get<std::string>();
  if (err.is_object()) {
    const auto m = err.find("message");
    if (m != err.end() && m->is_string()) return m->get<std::string>();
  }
  return err.dump();
}

ChunkInfo read_object(const json& j) {
  ChunkInfo info;
  if (!j.is_object()) return info;
  if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
    info.has_error = true;
    info.error_message = message_of(*e);
  }
  if (const auto u = j.find("usage"); u != j.end() && u->is_object()) {
    info.has_usage = true;
    info.prompt_tokens = u->value("prompt_tokens", 0);
    info.completion_tokens = u->value("completion_tokens", 0);
  }
  const auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array()) return info;
  for (const auto& c : *choices) {
    if (!c.is_object()) continue;
    info.content_bytes += string_bytes(c, "text");
    for (const char* holder : {"delta", "message"}) {
      const auto d = c.find(holder);
      if (d == c.end() || !d->is_object()) continue;
      info.content_bytes += string_bytes(*d, "content");
      info.reasoning_bytes += string_bytes(*d, "reasoning_content") + string_bytes(*d, "reasoning");
    }
    const auto f = c.find("finish_reason");
    if (f != c.end() && !f->is_null()) info.finished = true;
  }
  return info;
}

}  // namespace

Result<ChunkInfo> parse_chunk(std::string_view data) {
  if (data == "[DONE]") {
    ChunkInfo info;
    info.done = true;
    return info;
  }
  json j = json::parse(data.begin(), data.end(), nullptr, false);
  if (j.is_discarded()) {
    return Error{"not JSON: " + std::string(data.substr(0, 120))};
  }
  return read_object(j);
}

Result<ChunkInfo> parse_response(std::string_view body) {
  return parse_chunk(body);
}

std::string error_text(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    for (const char* key : {"error", "message", "detail"}) {
      const auto it = j.find(key);
      if (it != j.end()) return message_of(*it);
    }
  }
  return std::string(body.substr(0, 200));
}

}  // namespace dcukit::load
