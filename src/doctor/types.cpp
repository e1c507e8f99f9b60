#include "doctor/types.h"

namespace dcukit::doctor {

std::string_view to_string(Verdict s) {
  return util::name_of(kVerdictNames, s);
}
std::optional<Verdict> parse_status(std::string_view s) {
  return util::value_of(kVerdictNames, s);
}
std::string_view to_string(Category c) {
  return util::name_of(kCategoryNames, c);
}
std::optional<Category> parse_category(std::string_view s) {
  return util::value_of(kCategoryNames, s);
}

Summary Report::summary() const {
  Summary s;
  for (const auto& f : findings) {
    switch (f.status) {
      case Verdict::ok:
        ++s.ok;
        break;
      case Verdict::warn:
        ++s.warn;
        break;
      case Verdict::fail:
        ++s.fail;
        break;
      case Verdict::skip:
        ++s.skip;
        break;
    }
  }
  return s;
}

bool Report::has_problems() const {
  const auto s = summary();
  return s.warn > 0 || s.fail > 0 || (bundle && !bundle->error.empty());
}

}  // namespace dcukit::doctor
