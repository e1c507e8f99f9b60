// libFuzzer target: model.safetensors.index.json's metadata.total_size
// (plan::parse_index_total_size). Any text is a value or an error; an accepted size is a whole
// positive number of bytes no larger than 1 PiB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plan/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto total = dcukit::plan::parse_index_total_size(std::string_view(reinterpret_cast<const char*>(data), size),
                                                          "fuzz/model.safetensors.index.json");
  if (total && *total && (**total < 1 || **total > (1ull << 50))) std::abort();
  return 0;
}
