#pragma once
// Where prompts come from: synthetic prompts of an exact token length (token ids, or text
// calibrated against the server's own token count), ShareGPT conversations (filtered as vLLM
// filters them), or a JSONL file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "load/tokenizer.h"
#include "load/records.h"

namespace dcukit::load {

/// Which dataset.
enum class DatasetKind { random, sharegpt, jsonl };

/// "random", "sharegpt", "jsonl" (one table both ways).
std::string_view to_string(DatasetKind k);
/// The dataset named `name`, or nullopt.
std::optional<DatasetKind> parse_dataset(std::string_view name);

/// How to build the prompts of a run.
struct WorkloadSpec {
  DatasetKind kind = DatasetKind::random;
  std::string path;        ///< sharegpt / jsonl file
  std::size_t count = 0;   ///< prompts to make (files: at most this many; 0 = all)
  int input_len = 1024;    ///< random: prompt tokens, the shared prefix included
  int prefix_len = 0;      ///< random: tokens shared by every prompt
  int output_len = 128;    ///< max_tokens (files: overrides the file's lengths when > 0)
  int output_len_max = 0;  ///< random: when > output_len, max_tokens is uniform in the range
  bool token_ids = true;   ///< random: token-id prompts (completions only) or calibrated text
  std::uint64_t seed = 0;
};

/// The prompts, what the user should know about how they were made, or why they could not be.
struct Workload {
  std::vector<Prompt> prompts;
  std::vector<std::string> notes;
  std::optional<Problem> problem;  ///< set when no prompts could be made
};

/// Makes the prompts. `counter` counts text prompts (random text, ShareGPT); it may be null
/// for token ids and JSONL. A missing or malformed file, or a length that cannot be made, is a
/// bad-input problem; a server that cannot count tokens is a failure.
Workload make_prompts(const WorkloadSpec& spec, TokenCounter* counter);

/// Text of exactly `target` tokens as the counter counts it (prefix first, if given), found by
/// adjusting a word sequence over a few counts.
Result<std::string> calibrated_text(TokenCounter& counter, int target, const std::string& prefix, std::uint64_t seed);

}  // namespace dcukit::load
