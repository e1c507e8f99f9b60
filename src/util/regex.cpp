#include "util/regex.h"

#include <re2/re2.h>

namespace dcukit::util {

const Group& Match::operator[](std::size_t i) const {
  static const Group kNone;
  return i < m_groups.size() ? m_groups[i] : kNone;
}

std::size_t Match::position(std::size_t i) const {
  const Group& g = (*this)[i];
  return g.matched ? static_cast<std::size_t>(g.text.data() - m_base) : 0;
}

Regex::Regex(const std::string& pattern, Case c) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(c == Case::sensitive);
  m_re = std::make_unique<re2::RE2>(pattern, options);
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

bool Regex::ok() const { return m_re->ok(); }
std::string Regex::error() const { return m_re->error(); }

bool Regex::search(std::string_view text, Match* m) const { return run(text, false, m); }
bool Regex::full_match(std::string_view text, Match* m) const { return run(text, true, m); }

std::string Regex::replace_all(std::string_view text, std::string_view rewrite) const {
  std::string out(text);
  if (m_re->ok()) RE2::GlobalReplace(&out, *m_re, re2::StringPiece(rewrite.data(), rewrite.size()));
  return out;
}

bool Regex::run(std::string_view text, bool whole, Match* m) const {
  if (!m_re->ok()) return false;
  const re2::StringPiece input(text.data(), text.size());
  const auto anchor = whole ? RE2::ANCHOR_BOTH : RE2::UNANCHORED;
  if (!m) return m_re->Match(input, 0, input.size(), anchor, nullptr, 0);
  const int n = m_re->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(n));
  if (!m_re->Match(input, 0, input.size(), anchor, pieces.data(), n)) return false;
  m->m_base = text.data();
  m->m_groups.clear();
  for (const auto& p : pieces) m->m_groups.push_back(Group{std::string_view(p.data(), p.size()), p.data() != nullptr});
  return true;
}

}  // namespace dcukit::util
