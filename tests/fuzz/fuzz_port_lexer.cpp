// libFuzzer target for `port audit`'s first step: any bytes, read as a CUDA source, must lex
// into tokens and directives whose lines all exist, never a crash, a hang or quadratic time
// (a 100,000-entry initializer on one line once took 52 s).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "port/lexer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dcukit::port;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const LexedFile f = lex(text);
  for (const auto& t : f.tokens) {
    if (t.line < 1 || t.line > f.line_count) std::abort();
    (void)line_text(text, f, t.line);
  }
  return 0;
}
