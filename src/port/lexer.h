#pragma once
// A C++/CUDA lexer for the port audit and translation: it tells code from comments, string and
// character literals (prefixes and raw strings included) and preprocessor lines (with their
// backslash continuations), so that a `32` in a comment or a string is never mistaken for code,
// and a translation can rewrite one identifier while copying every other byte unchanged.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::port {

enum class TokenKind {
  identifier,
  number,
  string,       ///< "..." with any prefix (L, u8, u, U), raw strings included
  character,    ///< '...' with any prefix
  header_name,  ///< <...> or "..." after #include
  punct,
  comment,  ///< // or /* */ comments, text included
};

/// One token. `text` is the token as the compiler sees it (backslash-newlines removed, except in
/// raw strings); `begin`/`end` are byte offsets in the original text, so that it can be replaced.
struct Token {
  TokenKind kind = TokenKind::punct;
  std::string text;
  std::size_t begin = 0, end = 0;
  int line = 1;        ///< 1-based line of the first byte
  int column = 1;      ///< 1-based column in code points
  int directive = -1;  ///< index into LexedFile::directives when on a preprocessor line
  bool raw = false;    ///< a raw string literal
};

/// A preprocessor line: `#name ...` up to its unescaped end of line.
struct Directive {
  std::string name;       ///< "if", "define", "include", ...; empty for a null directive
  std::size_t hash = 0;   ///< token index of the '#'
  std::size_t first = 0;  ///< token index after the name
  std::size_t end = 0;    ///< one past the last token of the line
  int line = 1;
  int last_line = 1;  ///< the line the directive ends on (continuations)
};

/// A lexed source file.
struct LexedFile {
  std::vector<Token> tokens;
  std::vector<Directive> directives;
  std::vector<std::size_t> line_starts;  ///< byte offset of each line's start
  int line_count = 0;
};

/// Lexes `text`. Never fails: unterminated comments and literals end at the end of the text.
LexedFile lex(std::string_view text);

/// The text of 1-based `line`, without its line break.
std::string_view line_text(std::string_view text, const LexedFile& f, int line);

/// True when `t` is one of the punctuators or identifiers in `s` exactly (a convenience).
inline bool is(const Token& t, std::string_view s) {
  return t.kind != TokenKind::comment && t.kind != TokenKind::string && t.text == s;
}

}  // namespace dcukit::port
