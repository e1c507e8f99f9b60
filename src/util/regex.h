#pragma once
// Regular expressions for untrusted text: RE2, which runs in time linear in the text and does
// not recurse. libstdc++'s std::regex recurses once per character, so one 30 KB line of a
// pasted capture, a dmesg or a scrape was a stack overflow; no std::regex in dcukit.
// Patterns are RE2's (Perl-like without backreferences or look-around).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace dcukit::util {

/// One capture group of a match: a view into the searched text (which must outlive it).
struct Group {
  std::string_view text;
  bool matched = false;
  std::string str() const { return std::string(text); }
  bool operator==(std::string_view other) const { return matched && text == other; }
};

/// The groups of a match, [0] the whole match.
class Match {
public:
  const Group& operator[](std::size_t i) const;
  std::size_t size() const { return m_groups.size(); }
  /// Where group `i` starts in the searched text, and its length.
  std::size_t position(std::size_t i = 0) const;
  std::size_t length(std::size_t i = 0) const { return (*this)[i].text.size(); }

private:
  friend class Regex;
  std::vector<Group> m_groups;
  const char* m_base = nullptr;
};

class Regex {
public:
  enum class Case { sensitive, insensitive };
  explicit Regex(const std::string& pattern, Case c = Case::sensitive);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  /// False, with error(), for a pattern RE2 does not accept (user-supplied patterns).
  bool ok() const;
  std::string error() const;

  /// True when the pattern matches somewhere in `text`; fills `m` when given.
  bool search(std::string_view text, Match* m = nullptr) const;
  /// True when the pattern matches the whole of `text`.
  bool full_match(std::string_view text, Match* m = nullptr) const;
  /// `text` with every match replaced by `rewrite` (\1 .. \9 name the groups).
  std::string replace_all(std::string_view text, std::string_view rewrite) const;

private:
  bool run(std::string_view text, bool whole, Match* m) const;
  std::unique_ptr<re2::RE2> m_re;
};

}  // namespace dcukit::util
