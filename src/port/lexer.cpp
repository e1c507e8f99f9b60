#include "port/lexer.h"

#include <algorithm>
#include <array>

namespace dcukit::port {
namespace {

bool ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
bool ident_char(unsigned char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(unsigned char c) {
  return c >= '0' && c <= '9';
}

// Longest first, so that the first match is the longest.
constexpr std::array<std::string_view, 27> kPuncts = {"<=>", "<<=", ">>=", "...", "->*", "::", "->", "++", "--",
                                                      "<<",  ">>",  "<=",  ">=",  "==",  "!=", "&&", "||", "+=",
                                                      "-=",  "*=",  "/=",  "%=",  "&=",  "|=", "^=", "##", ".*"};

class Lexer {
public:
  explicit Lexer(std::string_view text) : m_text(text) {}

  LexedFile run() {
    m_out.line_starts.push_back(0);
    for (std::size_t i = 0; i < m_text.size(); ++i)
      if (m_text[i] == '\n') m_out.line_starts.push_back(i + 1);
    m_out.line_count = static_cast<int>(m_out.line_starts.size());
    bool line_start = true;  // only whitespace and comments so far on this logical line
    std::size_t p = 0;
    while ((p = skip(p)) < m_text.size()) {
      const char c = m_text[p];
      if (c == '\n') {
        end_directive();
        line_start = true;
        ++p;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++p;
        continue;
      }
      const std::size_t before = m_out.tokens.size();
      p = token(p);
      Token& t = m_out.tokens[before];
      if (t.kind == TokenKind::comment) {
        // A block comment spanning lines ends the directive it started in only if a newline
        // follows it; the comment itself belongs to the line it starts on.
        continue;
      }
      if (line_start && t.kind == TokenKind::punct && (t.text == "#" || t.text == "%:") && m_dir < 0)
        begin_directive(before);
      line_start = false;
    }
    end_directive();
    return std::move(m_out);
  }

private:
  /// Skips backslash-newline splices starting at p.
  std::size_t skip(std::size_t p) const {
    while (p < m_text.size() && m_text[p] == '\\') {
      std::size_t q = p + 1;
      if (q < m_text.size() && m_text[q] == '\r') ++q;
      if (q < m_text.size() && m_text[q] == '\n')
        p = q + 1;
      else
        break;
    }
    return p;
  }
  /// The character at p after splices ('\0' at the end).
  char at(std::size_t p) const {
    p = skip(p);
    return p < m_text.size() ? m_text[p] : '\0';
  }
  /// The position after the character at p (splices skipped before it).
  std::size_t next(std::size_t p) const { return skip(p) + 1; }

  int line_of(std::size_t off) const {
    auto it = std::upper_bound(m_out.line_starts.begin(), m_out.line_starts.end(), off);
    return static_cast<int>(it - m_out.line_starts.begin());
  }
  /// Code points from the line's start to off; tokens come in order, so each call continues from
  /// the last one on the same line (a 1 MB initializer on one line stays linear).
  int column_of(std::size_t off, int line) {
    if (line != m_col_line || off < m_col_off) {
      m_col_line = line;
      m_col_off = m_out.line_starts[line - 1];
      m_col = 1;
    }
    for (; m_col_off < off; ++m_col_off)
      if ((static_cast<unsigned char>(m_text[m_col_off]) & 0xC0) != 0x80) ++m_col;
    return m_col;
  }

  std::size_t emit(TokenKind kind, std::size_t begin, std::size_t end, std::string text, bool raw = false) {
    Token t;
    t.kind = kind;
    t.begin = begin;
    t.end = end;
    t.text = std::move(text);
    t.line = line_of(begin);
    t.column = column_of(begin, t.line);
    t.directive = m_dir;
    t.raw = raw;
    m_out.tokens.push_back(std::move(t));
    return end;
  }

  /// Reads characters from p while pred holds, splices removed; returns the end position.
  template <class Pred>
  std::size_t read_while(std::size_t p, std::string& out, Pred pred) const {
    for (;;) {
      const std::size_t q = skip(p);
      if (q >= m_text.size() || !pred(static_cast<unsigned char>(m_text[q]))) return p;
      out += m_text[q];
      p = q + 1;
    }
  }

  std::size_t token(std::size_t p) {
    const char c = m_text[p];
    const char c1 = at(next(p));
    if (c == '/' && c1 == '/') return line_comment(p);
    if (c == '/' && c1 == '*') return block_comment(p);
    if (m_include && (c == '<' || c == '"')) return header_name(p);
    if (ident_start(static_cast<unsigned char>(c))) return identifier_or_literal(p);
    if (digit(static_cast<unsigned char>(c)) || (c == '.' && digit(static_cast<unsigned char>(c1)))) return number(p);
    if (c == '"' || c == '\'') return quoted(p, p, std::string());
    return punct(p);
  }

  std::size_t line_comment(std::size_t p) {
    std::string s;
    const std::size_t end = read_while(p, s, [](unsigned char ch) { return ch != '\n'; });
    while (!s.empty() && s.back() == '\r') s.pop_back();
    return emit(TokenKind::comment, p, end, std::move(s));
  }

  std::size_t block_comment(std::size_t p) {
    std::string s = "/*";
    std::size_t q = next(next(p));
    for (;;) {
      q = skip(q);
      if (q >= m_text.size()) break;
      s += m_text[q];
      if (m_text[q] == '*' && at(q + 1) == '/') {
        s += '/';
        q = next(q + 1);
        break;
      }
      ++q;
    }
    return emit(TokenKind::comment, p, q, std::move(s));
  }

  std::size_t header_name(std::size_t p) {
    const char close = m_text[p] == '<' ? '>' : '"';
    std::string s(1, m_text[p]);
    std::size_t q = read_while(p + 1, s, [close](unsigned char ch) { return ch != close && ch != '\n'; });
    if (at(q) == close) {
      s += close;
      q = next(q);
    }
    m_include = false;
    return emit(TokenKind::header_name, p, q, std::move(s));
  }

  std::size_t identifier_or_literal(std::size_t p) {
    std::string s;
    const std::size_t end = read_while(p, s, ident_char);
    const char c = at(end);
    const bool prefix = s == "L" || s == "u" || s == "U" || s == "u8";
    const bool raw_prefix = s == "R" || s == "LR" || s == "uR" || s == "UR" || s == "u8R";
    if (c == '"' && raw_prefix) return raw_string(p, end, s);
    if ((c == '"' || c == '\'') && prefix) return quoted(p, end, s);
    if (m_dir >= 0 && m_out.tokens.size() == m_out.directives[m_dir].hash + 1) {
      m_out.directives[m_dir].name = s;
      m_include = s == "include" || s == "include_next" || s == "import";
    }
    return emit(TokenKind::identifier, p, end, std::move(s));
  }

  std::size_t number(std::size_t p) {
    std::string s;
    std::size_t q = p;
    for (;;) {
      const std::size_t r = skip(q);
      if (r >= m_text.size()) break;
      const char ch = m_text[r];
      const char prev = s.empty() ? '\0' : s.back();
      if ((ch == '+' || ch == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P')) {
        // 1e+5 and 0x1p-3; but not 0xe+1 (a hex digit e followed by plus): good enough
      } else if (ch == '\'' && ident_char(static_cast<unsigned char>(at(r + 1)))) {
        // digit separator
      } else if (!ident_char(static_cast<unsigned char>(ch)) && ch != '.') {
        break;
      }
      s += ch;
      q = r + 1;
    }
    return emit(TokenKind::number, p, q, std::move(s));
  }

  /// A "..." or '...' literal whose quote is at `quote` (after the prefix, which starts at p).
  std::size_t quoted(std::size_t p, std::size_t quote, std::string prefix) {
    quote = skip(quote);
    const char close = m_text[quote];
    std::string s = std::move(prefix);
    s += close;
    std::size_t q = quote + 1;
    for (;;) {
      q = skip(q);
      if (q >= m_text.size() || m_text[q] == '\n') break;  // unterminated: ends at the line
      const char ch = m_text[q];
      s += ch;
      ++q;
      if (ch == '\\') {
        const std::size_t r = skip(q);
        if (r < m_text.size() && m_text[r] != '\n') {
          s += m_text[r];
          q = r + 1;
        }
      } else if (ch == close) {
        break;
      }
    }
    // A user-defined literal suffix belongs to the literal.
    q = read_while(q, s, ident_char);
    return emit(close == '"' ? TokenKind::string : TokenKind::character, p, q, std::move(s));
  }

  /// R"delim( ... )delim": no splices and no escapes inside.
  std::size_t raw_string(std::size_t p, std::size_t quote, std::string prefix) {
    quote = skip(quote);
    std::size_t q = quote + 1;
    std::string delim;
    while (q < m_text.size() && m_text[q] != '(' && m_text[q] != '\n' && delim.size() <= 16) delim += m_text[q++];
    const std::string close = ")" + delim + "\"";
    const std::size_t found = m_text.find(close, q);
    const std::size_t end = found == std::string_view::npos ? m_text.size() : found + close.size();
    std::string s = prefix;
    s.append(m_text.substr(quote, end - quote));
    std::size_t e = read_while(end, s, ident_char);
    return emit(TokenKind::string, p, e, std::move(s), true);
  }

  std::size_t punct(std::size_t p) {
    // Gather up to three spliced characters to match the longest punctuator.
    std::string s;
    std::array<std::size_t, 4> ends{};
    std::size_t q = p;
    for (int i = 0; i < 3; ++i) {
      const std::size_t r = skip(q);
      if (r >= m_text.size() || m_text[r] == '\n') break;
      s += m_text[r];
      q = r + 1;
      ends[i] = q;
    }
    // CUDA's launch brackets: <<< always; >>> only while a launch is open (it can close templates).
    if (s.rfind("<<<", 0) == 0) {
      ++m_launch_depth;
      return emit(TokenKind::punct, p, ends[2], "<<<");
    }
    if (s.rfind(">>>", 0) == 0 && m_launch_depth > 0) {
      --m_launch_depth;
      return emit(TokenKind::punct, p, ends[2], ">>>");
    }
    for (auto op : kPuncts)
      if (s.rfind(op, 0) == 0) return emit(TokenKind::punct, p, ends[op.size() - 1], std::string(op));
    if (s.rfind("%:", 0) == 0) return emit(TokenKind::punct, p, ends[1], "%:");
    return emit(TokenKind::punct, p, ends[0], s.substr(0, 1));
  }

  void begin_directive(std::size_t hash) {
    Directive d;
    d.hash = hash;
    d.line = m_out.tokens[hash].line;
    m_out.directives.push_back(d);
    m_dir = static_cast<int>(m_out.directives.size()) - 1;
    m_out.tokens[hash].directive = m_dir;
  }

  void end_directive() {
    if (m_dir < 0) return;
    Directive& d = m_out.directives[m_dir];
    d.end = m_out.tokens.size();
    d.first = d.hash + 1;
    if (d.first < d.end && !d.name.empty()) ++d.first;  // skip the name
    d.last_line = line_of(m_out.tokens[d.end - 1].end - 1);
    m_dir = -1;
    m_include = false;
  }

  std::string_view m_text;
  LexedFile m_out;
  int m_dir = -1;
  int m_col_line = 0, m_col = 1;  // column_of()'s place
  std::size_t m_col_off = 0;
  bool m_include = false;
  int m_launch_depth = 0;
};

}  // namespace

LexedFile lex(std::string_view text) {
  return Lexer(text).run();
}

std::string_view line_text(std::string_view text, const LexedFile& f, int line) {
  if (line < 1 || line > f.line_count) return {};
  const std::size_t b = f.line_starts[line - 1];
  std::size_t e = line < f.line_count ? f.line_starts[line] : text.size();
  while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r')) --e;
  return text.substr(b, e - b);
}

}  // namespace dcukit::port
