#pragma once
// A pasted `python -m torch.utils.collect_env` or vLLM's `collect_env.py` (what every vLLM and
// PyTorch bug report carries), read into the facts doctor's checks take: torch's build and what it
// sees, the GPUs and driver, nvcc's and the HIP runtime's versions, cuDNN, the pip packages, and
// vLLM's version and build flags. Both tools' eras: the flat "key: value" lines of PyTorch 1.x/2.x
// and vLLM's "=== System Info ===" blocks.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "stack/python.h"
#include "util/result.h"

namespace dcukit::doctor {

/// What a collect_env output states; "" where it does not (or says "Could not collect", "N/A").
struct CollectEnv {
  std::string origin;                       ///< the file's path, for messages
  bool vllm_tool = false;                   ///< vLLM's collect_env (it prints "vLLM Version")
  std::map<std::string, std::string> keys;  ///< every "Key: value" line, key as printed
  std::vector<std::string> gpus;            ///< "NVIDIA A100-SXM4-80GB", "AMD Instinct MI300X (gfx942:sramecc+:xnack-)"
  std::vector<std::string> cudnn;           ///< the cuDNN library files or versions listed
  std::map<std::string, std::string> pip;   ///< "[pip3] torch==2.1.2" -> torch: 2.1.2 (conda lines too)
  std::vector<std::string> import_errors;   ///< lines such as "No module named 'vllm._C'"

  /// The value of `key`, "" when absent or uncollected.
  std::string get(const std::string& key) const;
};

/// Parses the text, cleaned first as telemetry cleans a pasted capture (CR, ANSI escapes, a
/// reply's "> " quote marks, tab indents). A text with neither
/// "PyTorch version:" nor "Is CUDA available:" is an error that names `origin` and says what to paste.
Result<CollectEnv> parse_collect_env(std::string_view text, std::string_view origin);

/// The Python stack the output describes, in the probe's terms (torch's build, what it sees, vLLM
/// and the other serving packages from the pip list, vLLM's build flags where its tag says nothing).
stack::PythonStack stack_of(const CollectEnv& env);

}  // namespace dcukit::doctor
