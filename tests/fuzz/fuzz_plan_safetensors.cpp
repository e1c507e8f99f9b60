// libFuzzer target: one safetensors header (plan::add_safetensors_header). The first byte picks
// the model's layer count and the data size follows the input's; any header is a value or an
// error naming the file, and an accepted one never counts a tensor past the file's data.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plan/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::int64_t layers = data[0];
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(size) * 4096;
  const std::string_view header(reinterpret_cast<const char*>(data + 1), size - 1);
  dcukit::plan::SafetensorsTotal total;
  const auto status = dcukit::plan::add_safetensors_header(header, data_bytes, layers, "fuzz.safetensors", total);
  if (!status) return 0;
  if (total.files != 1 || total.bytes + total.excluded_bytes > total.stored_bytes ||
      total.stored_bytes > data_bytes * static_cast<std::uint64_t>(total.tensors))
    std::abort();  // a tensor counted beyond the data, or served bytes above stored
  return 0;
}
