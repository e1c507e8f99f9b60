// libFuzzer target for `doctor --from`: any text, read as a pasted collect_env (PyTorch's or
// vLLM's, any era, quoted or not), gives the facts it found or an error saying it found none,
// never a crash or an exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "doctor/collect_env.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)dcukit::doctor::parse_collect_env(text, "fuzz");
  return 0;
}
