#include "load/workload.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "util/http.h"

namespace dcukit::load {
namespace {

// Common short English words: most tokenizers give each one token with its leading space.
constexpr const char* kWords[] = {"the",   "of",    "and",  "to",    "in",    "is",   "that", "for",  "it",    "as",
                                  "was",   "with",  "be",   "by",    "on",    "not",  "he",   "this", "are",   "or",
                                  "his",   "from",  "at",   "which", "but",   "have", "an",   "had",  "they",  "you",
                                  "were",  "their", "one",  "all",   "we",    "can",  "her",  "has",  "there", "been",
                                  "if",    "more",  "when", "will",  "would", "who",  "so",   "no",   "time",  "day",
                                  "water", "light", "city", "house", "world", "river"};

std::string random_words(std::mt19937_64& rng, int n) {
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += ' ';
    s += kWords[pick(rng)];
  }
  return s;
}

int pick_output(const WorkloadSpec& spec, std::mt19937_64& rng) {
  if (spec.output_len_max > spec.output_len) {
    return std::uniform_int_distribution<int>(spec.output_len, spec.output_len_max)(rng);
  }
  return spec.output_len;
}

Result<std::vector<Prompt>> random_prompts(const WorkloadSpec& spec, const TokenizeEndpoint& tok) {
  if (spec.input_len < 1) return Error{"--input-len must be at least 1"};
  if (spec.prefix_len < 0 || spec.prefix_len > spec.input_len) {
    return Error{"--prefix-len " + std::to_string(spec.prefix_len) + " must be between 0 and --input-len"};
  }
  std::mt19937_64 rng(spec.seed);
  std::vector<Prompt> out;
  const std::size_t n = std::max<std::size_t>(1, spec.count);
  if (spec.token_ids) {
    std::uniform_int_distribution<std::int32_t> id(1000, 20000);
    std::vector<std::int32_t> prefix(static_cast<std::size_t>(spec.prefix_len));
    for (auto& t : prefix) t = id(rng);
    for (std::size_t i = 0; i < n; ++i) {
      Prompt p;
      p.token_ids = prefix;
      while (static_cast<int>(p.token_ids.size()) < spec.input_len) p.token_ids.push_back(id(rng));
      p.input_tokens = spec.input_len;
      p.max_tokens = pick_output(spec, rng);
      out.push_back(std::move(p));
    }
    return out;
  }
  std::string prefix;
  if (spec.prefix_len > 0) {
    auto pre = calibrated_text(tok, spec.prefix_len, "", spec.seed ^ 0x9e3779b97f4a7c15ULL);
    if (!pre) return pre.error();
    prefix = *pre + " ";
  }
  for (std::size_t i = 0; i < n; ++i) {
    auto text = calibrated_text(tok, spec.input_len, prefix, spec.seed + i + 1);
    if (!text) return text.error();
    Prompt p;
    p.text = std::move(*text);
    p.input_tokens = spec.input_len;
    p.max_tokens = pick_output(spec, rng);
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open " + path + "; check --dataset-path"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<std::vector<Prompt>> sharegpt_prompts(const WorkloadSpec& spec, const TokenizeEndpoint& tok) {
  auto text = read_file(spec.path);
  if (!text) return text.error();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return Error{spec.path + " is not a ShareGPT JSON array"};
  std::vector<std::pair<std::string, std::string>> convs;
  for (const auto& item : j) {
    const auto c = item.find("conversations");
    if (c == item.end() || !c->is_array() || c->size() < 2) continue;
    const auto& q = (*c)[0];
    const auto& a = (*c)[1];
    if (!q.contains("value") || !a.contains("value") || !q["value"].is_string() || !a["value"].is_string()) continue;
    convs.emplace_back(q["value"].get<std::string>(), a["value"].get<std::string>());
  }
  if (convs.empty()) return Error{spec.path + " has no conversation with two turns"};
  std::mt19937_64 rng(spec.seed);
  std::shuffle(convs.begin(), convs.end(), rng);
  if (spec.count > 0 && convs.size() > spec.count) convs.resize(spec.count);
  std::vector<Prompt> out;
  for (auto& [q, a] : convs) {
    Prompt p;
    p.text = std::move(q);
    if (spec.output_len > 0) {
      p.max_tokens = spec.output_len;
    } else {
      auto n = count_tokens(tok, a);
      p.max_tokens = n ? std::max(1, *n) : std::max<int>(1, static_cast<int>(a.size() / 4));
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<Prompt>> jsonl_prompts(const WorkloadSpec& spec) {
  std::ifstream in(spec.path);
  if (!in) return Error{"cannot open " + spec.path + "; check --dataset-path"};
  std::vector<Prompt> out;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line) && (spec.count == 0 || out.size() < spec.count)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return Error{spec.path + ":" + std::to_string(line_no) + " is not a JSON object"};
    Prompt p;
    for (const char* key : {"prompt", "text"}) {
      if (j.contains(key) && j[key].is_string()) p.text = j[key].get<std::string>();
    }
    if (p.text.empty()) return Error{spec.path + ":" + std::to_string(line_no) + " has no \"prompt\" string"};
    for (const char* key : {"output_len", "max_tokens", "output_tokens"}) {
      if (j.contains(key) && j[key].is_number_integer()) p.max_tokens = j[key].get<int>();
    }
    if (spec.output_len > 0) p.max_tokens = spec.output_len;
    out.push_back(std::move(p));
  }
  if (out.empty()) return Error{spec.path + " has no prompts"};
  return out;
}

}  // namespace

Result<int> count_tokens(const TokenizeEndpoint& endpoint, const std::string& text) {
  nlohmann::json body;
  body["model"] = endpoint.model;
  if (endpoint.chat) {
    body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", text}}});
  } else {
    body["prompt"] = text;
  }
  util::HttpRequest req;
  req.url = endpoint.url;
  req.method = "POST";
  req.body = body.dump();
  req.headers = endpoint.headers;
  req.headers.push_back("Content-Type: application/json");
  req.tls = endpoint.tls;
  auto r = util::http_request(req);
  if (!r) return r.error();
  if (r->status != 200) return Error{"POST " + endpoint.url + " answered HTTP " + std::to_string(r->status)};
  const auto j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{"POST " + endpoint.url + " did not answer JSON"};
  if (j.contains("count") && j["count"].is_number_integer()) return j["count"].get<int>();
  if (j.contains("tokens") && j["tokens"].is_array()) return static_cast<int>(j["tokens"].size());
  return Error{"POST " + endpoint.url + " answered without \"count\" or \"tokens\""};
}

Result<std::string> calibrated_text(const TokenizeEndpoint& endpoint, int target, const std::string& prefix,
                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int words = std::max(1, target - (prefix.empty() ? 0 : 0));
  std::string body = random_words(rng, words);
  int last = -1;
  for (int round = 0; round < 24; ++round) {
    auto n = count_tokens(endpoint, prefix + body);
    if (!n) return Error{n.error().message + "; text prompts need the server's /tokenize (or use token ids)"};
    last = *n;
    if (*n == target) return prefix + body;
    const int diff = target - *n;
    if (diff > 0) {
      body += ' ';
      body += random_words(rng, diff);
    } else {
      // Drop -diff words from the end (at least one).
      int drop = -diff;
      while (drop-- > 0 && body.find(' ') != std::string::npos) body.erase(body.rfind(' '));
      if (body.find(' ') == std::string::npos && *n > target)
        return Error{"cannot make a prompt as short as " + std::to_string(target) +
                     " tokens (the template alone is longer)"};
    }
  }
  return Error{"could not calibrate a prompt of " + std::to_string(target) + " tokens through " + endpoint.url +
               " (last try: " + std::to_string(last) + "); use token-id prompts on /v1/completions"};
}

Result<std::vector<Prompt>> make_prompts(const WorkloadSpec& spec, const TokenizeEndpoint& tokenize) {
  switch (spec.kind) {
    case DatasetKind::random:
      return random_prompts(spec, tokenize);
    case DatasetKind::sharegpt:
      return sharegpt_prompts(spec, tokenize);
    case DatasetKind::jsonl:
      return jsonl_prompts(spec);
  }
  return Error{"unknown dataset"};
}

}  // namespace dcukit::load
