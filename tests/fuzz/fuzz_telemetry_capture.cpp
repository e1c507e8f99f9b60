// libFuzzer target for `telemetry --from`: any text, read as a captured tool output (every
// format's parser through detection, and the detected format's parser directly), must give a
// Snapshot or an error, never a crash or an exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "telemetry/capture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dcukit::telemetry;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)read_capture_text(text, "fuzz");
  const Capture cap = prepare_capture(text, "fuzz");
  // Every parser, whatever the detection says: a file can be mistaken for any format.
  for (const Format f : known_formats()) (void)parse_capture(cap, f);
  return 0;
}
