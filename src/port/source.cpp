#include "port/source.h"

namespace dcukit::port {
namespace {

enum class ParenFrame { transparent, other };

/// What a '{' at stream position k opens: a namespace, extern "C" or class body (transparent:
/// the functions inside are scopes of their own) or anything else.
ParenFrame frame_kind(const SourceFile& f, const std::vector<std::size_t>& s, std::size_t k) {
  for (std::size_t j = k; j-- > 0;) {
    const Token& t = f.tok(s[j]);
    if (t.kind == TokenKind::identifier &&
        (t.text == "namespace" || t.text == "struct" || t.text == "class" || t.text == "union" || t.text == "enum"))
      return ParenFrame::transparent;
    if (t.kind == TokenKind::string && j > 0 && f.tok(s[j - 1]).text == "extern") return ParenFrame::transparent;
    if (t.kind == TokenKind::punct &&
        (t.text == ";" || t.text == "{" || t.text == "}" || t.text == ")" || t.text == "=" || t.text == "("))
      return ParenFrame::other;
    if (k - j > 64) return ParenFrame::other;
  }
  return ParenFrame::other;
}

}  // namespace

void build_streams(SourceFile& file) {
  file.streams.clear();
  const auto& toks = file.lexed.tokens;
  Stream code;
  for (std::size_t i = 0; i < toks.size(); ++i)
    if (toks[i].directive < 0 && toks[i].kind != TokenKind::comment) code.tokens.push_back(i);

  std::vector<ParenFrame> frames;
  int scope = -1, next_scope = 0;
  std::size_t scope_depth = 0;
  code.scope.resize(code.tokens.size(), -1);
  for (std::size_t k = 0; k < code.tokens.size(); ++k) {
    const Token& t = toks[code.tokens[k]];
    if (t.kind == TokenKind::punct && t.text == "{") {
      const ParenFrame kind = frame_kind(file, code.tokens, k);
      frames.push_back(kind);
      if (kind == ParenFrame::other && scope < 0) {
        scope = next_scope++;
        scope_depth = frames.size();
      }
    }
    code.scope[k] = scope;
    if (scope >= 0) {
      if (code.bodies.size() <= static_cast<std::size_t>(scope)) code.bodies.emplace_back(k, k);
      code.bodies[scope].second = k + 1;
    }
    if (t.kind == TokenKind::punct && t.text == "}" && !frames.empty()) {
      if (scope >= 0 && frames.size() == scope_depth) scope = -1;
      frames.pop_back();
    }
  }
  file.streams.push_back(std::move(code));

  for (std::size_t d = 0; d < file.lexed.directives.size(); ++d) {
    const Directive& dir = file.lexed.directives[d];
    if (dir.name != "define" || dir.first >= dir.end) continue;
    Stream body;
    body.define = static_cast<int>(d);
    std::size_t i = dir.first;
    const Token& name = toks[i];
    ++i;  // the macro's name
    if (i < dir.end && toks[i].text == "(" && toks[i].begin == name.end) {
      while (i < dir.end && toks[i].text != ")") ++i;  // parameters
      ++i;
    }
    for (; i < dir.end; ++i)
      if (toks[i].kind != TokenKind::comment) body.tokens.push_back(i);
    body.scope.assign(body.tokens.size(), -2 - static_cast<int>(d));
    file.streams.push_back(std::move(body));
  }
}

const Token* included_header(const SourceFile& f, const Directive& d, std::string& name) {
  if (d.name != "include") return nullptr;
  for (std::size_t i = d.first; i < d.end; ++i) {
    const Token& t = f.tok(i);
    if (t.kind != TokenKind::header_name) continue;
    name = t.text.substr(1, t.text.size() - 2);
    return &t;
  }
  return nullptr;
}

}  // namespace dcukit::port
