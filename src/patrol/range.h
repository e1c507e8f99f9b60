#pragma once
// A Nagios threshold range, exactly as the plugin guidelines define it
// (https://nagios-plugins.org/doc/guidelines.html#THRESHOLDFORMAT):
//   10       alert if x < 0 or x > 10      (outside 0 .. 10)
//   10:      alert if x < 10               (outside 10 .. +inf)
//   ~:10     alert if x > 10               (outside -inf .. 10)
//   10:20    alert if x < 10 or x > 20     (outside 10 .. 20)
//   @10:20   alert if 10 <= x <= 20        (inside 10 .. 20)
// The end points themselves never alert, except with '@', where they do.
#include <limits>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::patrol {

struct Range {
  double start = 0;
  double end = std::numeric_limits<double>::infinity();
  bool inside = false;  ///< '@': alert inside the range instead of outside
  std::string text;     ///< as written ("83", "~:99"), for perfdata and messages

  /// Whether `x` is a value this range alerts on.
  bool alerts(double x) const;
  /// Why `x` alerts, in words: "above 83 C", "below 10", "within 10..20" (with '@').
  std::string why(double x, std::string_view unit = "") const;
};

/// Parses a range; the error names the text and the forms.
Result<Range> parse_range(std::string_view text);

/// The range that alerts above `v` (and below 0), as Nagios writes it: "v".
Range above(double v);

}  // namespace dcukit::patrol
