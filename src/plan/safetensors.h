#pragma once
// The sizes a model directory's files state without loading a weight: each *.safetensors file's
// header (an 8-byte little-endian length, then JSON with every tensor's dtype, shape and
// data_offsets) and model.safetensors.index.json's metadata.total_size. Every field is checked:
// a header from a broken download or a hostile one is an error naming the file, never a crash.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "util/result.h"

namespace dcukit::plan {

/// Bytes in the safetensors files of a directory, read from their headers only.
struct SafetensorsTotal {
  std::uint64_t bytes = 0;           ///< as served: 16/32-bit floats counted at 2 bytes, others as stored
  std::uint64_t stored_bytes = 0;    ///< as the files hold them
  std::uint64_t excluded_bytes = 0;  ///< multi-token-prediction layers vLLM does not load without speculation
  int files = 0, tensors = 0;
};

/// The largest header plan reads (real ones are well under a MiB a shard).
inline constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

/// Adds one file's header to `total`. `header` is the JSON after the length; `data_bytes` what
/// the file holds after the header, which every tensor's data_offsets must lie within. Tensors of
/// layers at index >= num_layers, or named mtp.*, count as excluded.
Status add_safetensors_header(std::string_view header, std::uint64_t data_bytes, std::int64_t num_layers,
                              std::string_view origin, SafetensorsTotal& total);

/// Reads every *.safetensors file in `dir` (headers only).
Result<SafetensorsTotal> read_safetensors(const std::filesystem::path& dir, std::int64_t num_layers);

/// metadata.total_size of an index file's text: a whole number of bytes from 1 to 1 PiB, or
/// nullopt when the index has none.
Result<std::optional<std::uint64_t>> parse_index_total_size(std::string_view json_text, std::string_view origin);

}  // namespace dcukit::plan
