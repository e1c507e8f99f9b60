#pragma once
// One source file as the audit sees it: its text, tokens, and for every token whether a HIP
// build and a CUDA build compile it (from the #if/#ifdef structure, see preprocess.h).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "port/lexer.h"
#include "port/pp_expr.h"

namespace dcukit::port {

/// Where a token stands with respect to the HIP build.
enum class Reach {
  skipped,   ///< a HIP build never compiles it (a CUDA-only or other-platform branch)
  hip_only,  ///< only a HIP build compiles it (a HIP branch, or a header only HIP branches include)
  shared,    ///< both builds compile it, or we cannot tell
};

/// A run of code tokens the rules read as one sequence: the file's code outside preprocessor
/// lines, or the body of one #define (whose findings are reported at the definition).
struct Stream {
  std::vector<std::size_t> tokens;  ///< indices into SourceFile::lexed.tokens, comments dropped
  int define = -1;                  ///< directive index of the #define, or -1 for the file's code
  std::vector<int> scope;           ///< per entry: the function body it is in (-1: none)
  /// Per function body (scope >= 0): its [first, last + 1) positions; a body is contiguous.
  std::vector<std::pair<std::size_t, std::size_t>> bodies;
};

/// A file of the audit or translation.
struct SourceFile {
  std::string path;  ///< as given on the command line or found under a given folder
  std::string text;
  LexedFile lexed;
  std::vector<Tri> hip, cuda;  ///< per token: compiled by a HIP / CUDA build
  std::vector<Stream> streams;

  /// The reach of token i.
  Reach reach(std::size_t i) const {
    if (hip[i] == Tri::no) return Reach::skipped;
    if (cuda[i] == Tri::no) return Reach::hip_only;
    return Reach::shared;
  }
  const Token& tok(std::size_t i) const { return lexed.tokens[i]; }
};

/// The header an #include names, as written between its <> or "" ("cuda_runtime.h"), with its
/// token; nullptr when `d` is not an #include of a header name.
const Token* included_header(const SourceFile& f, const Directive& d, std::string& name);

/// Splits the file's tokens into streams and finds function bodies (fills `streams`).
void build_streams(SourceFile& file);

}  // namespace dcukit::port
