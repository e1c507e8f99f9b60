#pragma once
// Where prompts come from: synthetic prompts of an exact token length (token ids, or text
// calibrated against the server's /tokenize), ShareGPT conversations, or a JSONL file.
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"
#include "load/types.h"
#include "util/http.h"

namespace dcukit::load {

/// Which dataset.
enum class DatasetKind { random, sharegpt, jsonl };

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

/// Reaches the server's /tokenize for text calibration and output lengths.
struct TokenizeEndpoint {
  std::string url;  ///< e.g. http://h:8000/tokenize
  std::string model;
  bool chat = false;  ///< count with the chat template (messages), as the server will
  std::vector<std::string> headers;
  util::Tls tls;
};

/// Makes the prompts. Errors name the file or the length that could not be reached.
Result<std::vector<Prompt>> make_prompts(const WorkloadSpec& spec, const TokenizeEndpoint& tokenize);

/// Counts text's tokens through /tokenize.
Result<int> count_tokens(const TokenizeEndpoint& endpoint, const std::string& text);

/// Text of exactly target tokens as the server counts them (prefix first, if given), found by
/// adjusting a word sequence over a few /tokenize calls.
Result<std::string> calibrated_text(const TokenizeEndpoint& endpoint, int target, const std::string& prefix,
                                    std::uint64_t seed);

}  // namespace dcukit::load
