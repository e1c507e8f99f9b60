#include "fake_protocol.h"

#include <nlohmann/json.hpp>

namespace fake {
namespace {

std::string frame(const Modes& m, const std::string& payload) {
  const char* nl = m.has("crlf") ? "\r\n" : "\n";
  std::string out;
  if (m.has("comments")) out += std::string(": keep-alive") + nl;
  out += m.has("nospace") ? "data:" : "data: ";
  out += payload;
  out += nl;
  out += nl;
  return out;
}

std::string quote(std::string_view s) {
  return nlohmann::json(std::string(s)).dump();
}

}  // namespace

void parse_modes(std::string_view text, Modes& modes) {
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string item(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.rfind("status=", 0) == 0) {
      modes.status = std::stoi(item.substr(7));
    } else if (!item.empty()) {
      modes.flags.insert(item);
    }
  }
}

int count_tokens(std::string_view text) {
  int n = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

bool parse_gen_request(std::string_view body, bool chat, GenRequest& out) {
  const auto j = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  out.chat = chat;
  out.model = j.value("model", std::string("fake"));
  out.stream = j.value("stream", false);
  if (const auto so = j.find("stream_options"); so != j.end() && so->is_object()) {
    out.include_usage = so->value("include_usage", false);
    out.continuous_usage = so->value("continuous_usage_stats", false);
  }
  out.max_tokens = j.value("max_tokens", j.value("max_completion_tokens", 16));
  out.prompt_tokens = 0;
  if (chat) {
    for (const auto& msg : j.value("messages", nlohmann::json::array())) {
      if (msg.contains("content") && msg["content"].is_string())
        out.prompt_tokens += count_tokens(msg["content"].get<std::string>());
    }
  } else if (const auto p = j.find("prompt"); p != j.end()) {
    out.prompt_tokens = p->is_array()    ? static_cast<int>(p->size())
                        : p->is_string() ? count_tokens(p->get<std::string>())
                                         : 0;
  }
  return true;
}

std::string text_event(const GenRequest& r, const Modes& m, std::string_view text, bool reasoning, bool last,
                       int usage_tokens) {
  const std::string finish = last ? "\"length\"" : "null";
  const std::string usage = usage_tokens < 0 ? std::string() : ",\"usage\":" + usage_json(r, m, usage_tokens);
  std::string p;
  if (r.chat) {
    p = "{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":" + quote(r.model) +
        ",\"choices\":[{\"index\":0,\"delta\":{\"" + (reasoning ? "reasoning_content" : "content") +
        "\":" + quote(text) + "},\"logprobs\":null,\"finish_reason\":" + finish + "}]" + usage + "}";
  } else {
    p = "{\"id\":\"cmpl-fake\",\"object\":\"text_completion\",\"created\":0,\"model\":" + quote(r.model) +
        ",\"choices\":[{\"index\":0,\"text\":" + quote(text) + ",\"logprobs\":null,\"finish_reason\":" + finish + "}]" +
        usage + "}";
  }
  return frame(m, p);
}

std::string empty_event(const GenRequest& r, const Modes& m, bool role_only) {
  if (r.chat) {
    const std::string delta = role_only ? "{\"role\":\"assistant\",\"content\":\"\"}" : "{}";
    return frame(
        m, "{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":" + quote(r.model) +
               ",\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":null}]}");
  }
  return frame(m, "{\"id\":\"cmpl-fake\",\"object\":\"text_completion\",\"created\":0,\"model\":" + quote(r.model) +
                      ",\"choices\":[{\"index\":0,\"text\":\"\",\"logprobs\":null,\"finish_reason\":null}]}");
}

std::string usage_json(const GenRequest& r, const Modes& m, int completion_tokens) {
  const std::string prompt = m.has("usage_null")     ? "null"
                             : m.has("usage_string") ? "\"" + std::to_string(r.prompt_tokens) + "\""
                                                     : std::to_string(r.prompt_tokens);
  const std::string completion = m.has("usage_huge") ? "1e30" : std::to_string(completion_tokens);
  return "{\"prompt_tokens\":" + prompt + ",\"total_tokens\":" + std::to_string(r.prompt_tokens + completion_tokens) +
         ",\"completion_tokens\":" + completion + "}";
}

std::string usage_event(const GenRequest& r, const Modes& m, int completion_tokens) {
  return frame(m, std::string("{\"id\":\"fake\",\"object\":\"") +
                      (r.chat ? "chat.completion.chunk" : "text_completion") + "\",\"created\":0,\"model\":" +
                      quote(r.model) + ",\"choices\":[],\"usage\":" + usage_json(r, m, completion_tokens) + "}");
}

std::string error_event(const Modes& m) {
  return frame(m,
               "{\"error\":{\"object\":\"error\",\"message\":\"fake engine failure "
               "mid-stream\",\"type\":\"InternalServerError\",\"code\":500}}");
}

std::string done_event(const Modes& m) {
  return frame(m, "[DONE]");
}

std::string full_response(const GenRequest& r, const Modes& m, int completion_tokens, std::string_view text) {
  nlohmann::json j;
  j["id"] = "fake";
  j["model"] = r.model;
  if (r.chat) {
    j["object"] = "chat.completion";
    j["choices"] = {
        {{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "length"}}};
  } else {
    j["object"] = "text_completion";
    j["choices"] = {{{"index", 0}, {"text", text}, {"finish_reason", "length"}}};
  }
  j["usage"] = nlohmann::json::parse(usage_json(r, m, completion_tokens));
  return j.dump();
}

}  // namespace fake
