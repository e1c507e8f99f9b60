// libFuzzer target for the SSE reader and the chunk parser behind it. The first input byte picks
// how the rest is cut into reads, so that splits land everywhere; the invariant checked is that
// the events do not depend on how the bytes were cut.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "load/chunk.h"
#include "load/sse.h"

namespace {

std::vector<std::string> read_all(std::string_view text, std::size_t step, bool* failed) {
  std::vector<std::string> events;
  dcukit::load::SseReader reader(
      [&](const dcukit::load::SseEvent& e) {
        events.emplace_back(e.data);
        (void)dcukit::load::parse_chunk(e.data);
      },
      4096);
  *failed = false;
  for (std::size_t i = 0; i < text.size(); i += step) {
    if (!reader.feed(text.substr(i, step)).ok()) {
      *failed = true;
      return events;
    }
  }
  reader.finish();
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t step = 1 + data[0] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  bool failed_whole = false, failed_cut = false;
  const auto whole = read_all(text, text.size() + 1, &failed_whole);
  const auto cut = read_all(text, step, &failed_cut);
  if (!failed_whole && !failed_cut && whole != cut) std::abort();  // splitting must not change events
  return 0;
}
