#pragma once
// The engine settings a plan is made with, as typed values, each with why it has its value.
// The tables and the launch script render their flag text from this one struct; nothing keeps a
// setting a second time as text.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::plan {

/// vLLM's --dtype: what the weights and activations are served in.
enum class Dtype { automatic, bfloat16, float16, float32 };

/// vLLM's spelling ("auto", "bfloat16", "float16", "float32").
std::string_view to_string(Dtype dtype);
/// vLLM's spellings and its aliases ("half", "float", and "bf16"/"fp16" as people type them);
/// nullopt for anything else.
std::optional<Dtype> parse_dtype(std::string_view text);

/// vLLM's --kv-cache-dtype: what the KV cache stores.
enum class KvCacheDtype { automatic, fp8, fp8_e4m3, fp8_e5m2 };

/// vLLM's spelling ("auto", "fp8", "fp8_e4m3", "fp8_e5m2").
std::string_view to_string(KvCacheDtype dtype);
/// The inverse of to_string; nullopt for anything else.
std::optional<KvCacheDtype> parse_kv_cache_dtype(std::string_view text);
/// vLLM's --limit-mm-per-prompt: the items of each modality a prompt may hold.
struct MmLimits {
  std::optional<std::int64_t> images, videos;  ///< unset: vLLM's default
  /// vLLM 0.11.1+ (PR #25631): a modality's options object sets the dummy items' sizes for the
  /// profile (`{"image": {"count": 1, "width": 512, "height": 512}}`); the object as JSON, or empty.
  std::string dummy_sizes;
  /// Nothing set: vLLM's defaults.
  bool empty() const { return !images && !videos && dummy_sizes.empty(); }
};
/// `{"image": 2, "video": 0}` (JSON, as vLLM takes it), `{"image": {"count": 2, "width": 512}}`
/// (0.11.1+'s options) or `image=2,video=0` (its older form); other modalities (audio) are
/// accepted and not used. The error names what it could not read.
Result<MmLimits> parse_mm_limits(std::string_view text);
/// The flag's value for these limits, which parse_mm_limits reads back: the options object as
/// given where it sets dummy sizes, else `{"image": N, "video": M}` of the modalities set; empty
/// where nothing is set.
std::string mm_limits_flag(const MmLimits& limits);

/// True for the fp8 kinds.
bool is_fp8(KvCacheDtype dtype);
/// Bytes a KV element takes: 1 for the fp8 kinds, else 2 (the 16-bit model dtype).
int kv_element_bytes(KvCacheDtype dtype);

/// Why each setting has its value, one sentence each; the same field names as Settings.
struct SettingsWhy {
  std::string gpu_memory_utilization, max_model_len, max_num_seqs, max_num_batched_tokens;
  std::string kv_cache_dtype, block_size, enforce_eager, dtype;
};

/// The engine settings one option is evaluated with (vLLM's flags of the same names).
struct Settings {
  double gpu_memory_utilization = 0.9;                    ///< fraction of the runtime-reported total vLLM may use
  std::int64_t max_model_len = 0;                         ///< tokens of the longest request
  int max_num_seqs = 256;                                 ///< sequences a step; sizes the sampler's profiling
  std::int64_t max_num_batched_tokens = 8192;             ///< tokens a step; sizes the activation peak
  KvCacheDtype kv_cache_dtype = KvCacheDtype::automatic;  ///< automatic: the model dtype
  int block_size = 16;                                    ///< tokens a KV block
  bool enforce_eager = false;                             ///< no graphs, so no graph memory
  Dtype dtype = Dtype::bfloat16;                          ///< bfloat16 or float16: activations and weights
  /// --limit-mm-per-prompt: the images and videos a prompt may hold (unset, vLLM's default: V0 1
  /// of each, V1 999); they size the vision encoder's run in the profile. Its dummy sizes are
  /// passed on as given and not followed by the encoder's term, which takes the processor's
  /// largest items.
  MmLimits limit_mm_per_prompt;
  SettingsWhy why;                                        ///< why each of the above has its value
};

}  // namespace dcukit::plan
