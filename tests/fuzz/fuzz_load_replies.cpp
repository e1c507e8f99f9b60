// libFuzzer target for what a server answers dcukit load outside the event stream: a whole
// response body and an error body (load/chunk.h), a /v1/models list (serving::parse_models) and
// Prometheus text (serving::parse_text). Whatever the bytes, each gives a value or an Error:
// never a crash, an exception, or a token count outside [0, kMaxTokenCount].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "load/chunk.h"
#include "serving/prometheus.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string generated;
  auto r = dcukit::load::parse_response(text, &generated);
  if (r) {  // a count the server gave is a whole number in range; one it left out is unknown
    for (const auto& n : {r->prompt_tokens, r->completion_tokens})
      if (n && (*n < 0 || *n > dcukit::load::kMaxTokenCount)) std::abort();
    if (r->has_usage != (r->prompt_tokens || r->completion_tokens)) std::abort();
  }
  if (r && r->content_bytes + r->reasoning_bytes != generated.size()) std::abort();  // the text is what was counted
  (void)dcukit::load::error_text(text);
  const auto samples = dcukit::serving::parse_text(text);
  (void)dcukit::serving::sum_by_name(samples);
  return 0;
}
