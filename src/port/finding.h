#pragma once
// One finding of the audit, as data: renderers (table, JSON, SARIF) and the translator's
// annotations all read this struct.
#include <string>
#include <vector>

#include "port/rules.h"

namespace dcukit::port {

/// A rule's hit at one place in one file.
struct Finding {
  RuleId rule = RuleId::wave64_full_mask;
  Severity severity = Severity::error;
  std::string file;
  int line = 0;
  int column = 0;    ///< 1-based, in code points
  std::string code;  ///< the source line, trimmed
  std::string why;   ///< why this place breaks, naming what was found
  std::string fix;   ///< what to write instead
  std::vector<int> also;  ///< the file's other lines where the same thing repeats (one finding a file, rule and thing)
  std::string same;       ///< what makes two findings of a rule the same thing; empty: the same `why`
};

}  // namespace dcukit::port
