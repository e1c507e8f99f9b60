#include "load/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "util/files.h"
#include "util/json_text.h"

namespace dcukit::load {
namespace {

// Common short English words: most tokenizers give each one token with its leading space.
constexpr const char* kWords[] = {"the",   "of",    "and",  "to",    "in",    "is",   "that", "for",  "it",    "as",
                                  "was",   "with",  "be",   "by",    "on",    "not",  "he",   "this", "are",   "or",
                                  "his",   "from",  "at",   "which", "but",   "have", "an",   "had",  "they",  "you",
                                  "were",  "their", "one",  "all",   "we",    "can",  "her",  "has",  "there", "been",
                                  "if",    "more",  "when", "will",  "would", "who",  "so",   "no",   "time",  "day",
                                  "water", "light", "city", "house", "world", "river"};

constexpr std::pair<DatasetKind, std::string_view> kDatasetNames[] = {
    {DatasetKind::random, "random"}, {DatasetKind::sharegpt, "sharegpt"}, {DatasetKind::jsonl, "jsonl"}};

// vLLM's ShareGPT filter (benchmarks' is_valid_sequence): at least 4 tokens of prompt and of
// answer; without a known context length, at most 1024 prompt and 2048 total tokens.
constexpr int kMinLen = 4, kMaxPromptLen = 1024, kMaxTotalLen = 2048;
// Conversations sampled when neither -n nor a count bounds them (a --duration run).
constexpr std::size_t kDefaultSampled = 1000;

Workload bad_input(std::string message) {
  Workload w;
  w.problem = Problem{ProblemKind::bad_input, std::move(message)};
  return w;
}

Workload failed(std::string message) {
  Workload w;
  w.problem = Problem{ProblemKind::failed, std::move(message)};
  return w;
}

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
  if (spec.output_len_max > spec.output_len)
    return std::uniform_int_distribution<int>(spec.output_len, spec.output_len_max)(rng);
  return spec.output_len;
}

Workload random_prompts(const WorkloadSpec& spec, TokenCounter* counter) {
  if (spec.input_len < 1) return bad_input(fmt::format("--input-len {} must be at least 1", spec.input_len));
  if (spec.prefix_len < 0 || spec.prefix_len > spec.input_len)
    return bad_input(fmt::format("--prefix-len {} must be between 0 and --input-len", spec.prefix_len));
  std::mt19937_64 rng(spec.seed);
  Workload w;
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
      w.prompts.push_back(std::move(p));
    }
    return w;
  }
  if (!counter) return failed("text prompts need a way to count tokens");
  std::string prefix;
  if (spec.prefix_len > 0) {
    auto pre = calibrated_text(*counter, spec.prefix_len, "", spec.seed ^ 0x9e3779b97f4a7c15ULL);
    if (!pre) return failed(pre.error().message);
    prefix = *pre + " ";
  }
  for (std::size_t i = 0; i < n; ++i) {
    auto text = calibrated_text(*counter, spec.input_len, prefix, spec.seed + i + 1);
    if (!text) {
      const bool too_short = text.error().message.find("as short as") != std::string::npos;
      return too_short ? bad_input(text.error().message) : failed(text.error().message);
    }
    Prompt p;
    p.text = std::move(*text);
    p.input_tokens = spec.input_len;
    p.max_tokens = pick_output(spec, rng);
    w.prompts.push_back(std::move(p));
  }
  return w;
}

Workload sharegpt_prompts(const WorkloadSpec& spec, TokenCounter* counter) {
  auto text = util::read_file(spec.path, util::kDatasetInput);
  if (!text) return bad_input(text.error().message + "; check --dataset-path");
  const auto j = util::parse_json(*text);
  if (j.is_discarded() || !j.is_array())
    return bad_input(spec.path + " is not a ShareGPT JSON array (of {\"conversations\": [...]})");
  std::vector<std::pair<std::string, std::string>> convs;
  for (const auto& item : j) {
    if (!item.is_object()) continue;
    const auto c = item.find("conversations");
    if (c == item.end() || !c->is_array() || c->size() < 2) continue;
    const auto& q = (*c)[0];
    const auto& a = (*c)[1];
    if (!q.is_object() || !a.is_object() || !q.contains("value") || !a.contains("value") || !q["value"].is_string() ||
        !a["value"].is_string())
      continue;
    convs.emplace_back(q["value"].get<std::string>(), a["value"].get<std::string>());
  }
  if (convs.empty()) return bad_input(spec.path + " has no conversation with two turns");
  if (!counter) return failed("ShareGPT prompts need a way to count tokens");
  std::mt19937_64 rng(spec.seed);
  std::shuffle(convs.begin(), convs.end(), rng);
  const bool fixed_output = spec.output_len > 0;
  const std::size_t wanted = spec.count > 0 ? spec.count : kDefaultSampled;
  const std::optional<int> context = counter->max_model_len();
  Workload w;
  std::size_t short_prompt = 0, short_answer = 0, too_long = 0, seen = 0;
  for (auto& [q, a] : convs) {
    if (w.prompts.size() >= wanted) break;
    ++seen;
    if (q.empty() || (!fixed_output && a.empty())) {
      ++(q.empty() ? short_prompt : short_answer);
      continue;
    }
    auto prompt_len = counter->count(q);
    if (!prompt_len) return failed("counting the tokens of " + spec.path + "'s prompts: " + prompt_len.error().message);
    int output_len = spec.output_len;
    if (!fixed_output) {
      if (!counter->counts_plain_text())
        return bad_input(fmt::format(
            "--dataset sharegpt takes each request's max_tokens from the length of the dataset's answer, and this "
            "server can count only whole chat prompts ({}); pass --output-len N",
            to_string(*counter->kind())));
      auto n = counter->count(a);
      if (!n) return failed("counting the tokens of " + spec.path + "'s answers: " + n.error().message);
      output_len = *n;
    }
    if (*prompt_len < kMinLen) {
      ++short_prompt;
      continue;
    }
    if (!fixed_output && output_len < kMinLen) {
      ++short_answer;
      continue;
    }
    if (context ? *prompt_len + output_len > *context
                : (*prompt_len > kMaxPromptLen || *prompt_len + output_len > kMaxTotalLen)) {
      ++too_long;
      continue;
    }
    Prompt p;
    p.text = std::move(q);
    p.input_tokens = *prompt_len;
    p.max_tokens = output_len;
    w.prompts.push_back(std::move(p));
  }
  const std::string limit = context ? fmt::format("over the model's context of {} tokens", *context)
                                    : fmt::format("over {} prompt or {} total tokens", kMaxPromptLen, kMaxTotalLen);
  if (w.prompts.empty())
    return bad_input(
        fmt::format("{}: none of the {} conversations read passes vLLM's filter ({} with a prompt and {} "
                    "with an answer under {} tokens, {} {})",
                    spec.path, seen, short_prompt, short_answer, kMinLen, too_long, limit));
  if (short_prompt + short_answer + too_long > 0)
    w.notes.push_back(fmt::format(
        "ShareGPT: {} of {} conversations read were left out as vLLM leaves them out: {} with a prompt and {} with "
        "an answer under {} tokens, {} {}",
        short_prompt + short_answer + too_long, seen, short_prompt, short_answer, kMinLen, too_long, limit));
  if (w.prompts.size() < wanted && spec.count > 0)
    w.notes.push_back(fmt::format("ShareGPT: only {} conversations of {} pass the filter; they are sent in turn",
                                  w.prompts.size(), convs.size()));
  return w;
}

Workload jsonl_prompts(const WorkloadSpec& spec) {
  auto text = util::read_file(spec.path, util::kDatasetInput);
  if (!text) return bad_input(text.error().message + "; check --dataset-path");
  std::istringstream in(*text);
  Workload w;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line) && (spec.count == 0 || w.prompts.size() < spec.count)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto j = util::parse_json(line);
    const std::string where = fmt::format("{}:{}", spec.path, line_no);
    if (j.is_discarded() || !j.is_object()) return bad_input(where + " is not a JSON object");
    Prompt p;
    for (const char* key : {"prompt", "text"}) {
      if (j.contains(key) && j[key].is_string()) p.text = j[key].get<std::string>();
    }
    if (p.text.empty()) return bad_input(where + " has no \"prompt\" string");
    for (const char* key : {"output_len", "max_tokens", "output_tokens"}) {
      if (!j.contains(key)) continue;
      const auto& v = j[key];
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 10'000'000)
        return bad_input(fmt::format("{}: \"{}\" is {}, not a token count from 1 to 10000000", where, key,
                                     util::json_text(v).substr(0, 40)));
      p.max_tokens = static_cast<int>(v.get<long long>());
    }
    if (spec.output_len > 0) p.max_tokens = spec.output_len;
    w.prompts.push_back(std::move(p));
  }
  if (w.prompts.empty()) return bad_input(spec.path + " has no prompts");
  return w;
}

}  // namespace

std::string_view to_string(DatasetKind k) {
  for (const auto& [d, name] : kDatasetNames)
    if (d == k) return name;
  return "?";
}

std::optional<DatasetKind> parse_dataset(std::string_view name) {
  for (const auto& [d, n] : kDatasetNames)
    if (n == name) return d;
  return std::nullopt;
}

Result<std::string> calibrated_text(TokenCounter& counter, int target, const std::string& prefix, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string body = random_words(rng, std::max(1, target));
  int last = -1;
  for (int round = 0; round < 24; ++round) {
    auto n = counter.count(prefix + body);
    if (!n) return n.error();
    last = *n;
    if (*n == target) return prefix + body;
    const int diff = target - *n;
    if (diff > 0) {
      body += ' ';
      body += random_words(rng, diff);
      continue;
    }
    if (body.find(' ') == std::string::npos)
      return Error{
          fmt::format("cannot make a prompt as short as {} tokens: one word already counts {} (the chat "
                      "template and start token included); raise --input-len to at least {}",
                      target, *n, *n)};
    // Drop -diff words from the end (at least one, never the last one).
    for (int drop = -diff; drop > 0 && body.find(' ') != std::string::npos; --drop) body.erase(body.rfind(' '));
  }
  return Error{fmt::format("could not make a prompt of exactly {} tokens in 24 tries (the last had {})", target, last)};
}

Workload make_prompts(const WorkloadSpec& spec, TokenCounter* counter) {
  switch (spec.kind) {
    case DatasetKind::random:
      return random_prompts(spec, counter);
    case DatasetKind::sharegpt:
      return sharegpt_prompts(spec, counter);
    case DatasetKind::jsonl:
      return jsonl_prompts(spec);
  }
  return bad_input("unknown dataset");
}

}  // namespace dcukit::load
