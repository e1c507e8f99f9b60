#pragma once
// The limits patrol judges device figures against: a warning and a critical level per figure,
// with defaults per vendor (an H100 slows down near 87 C, an MI300X's junction runs to about
// 100 C) that `--limit KEY=WARN,CRIT` overrides for every device, each level a Nagios range
// (range.h): `temperature=80,90` warns above 80 C and is critical above 90 C.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "patrol/range.h"
#include "patrol/finding.h"
#include "telemetry/types.h"
#include "util/result.h"

namespace dcukit::patrol {

struct Report;

/// The figures with limits.
enum class Metric {
  temperature,      ///< degrees C
  power,            ///< draw as % of the power cap
  memory,           ///< memory used, % of total
  busy,             ///< busy %
  ecc_corrected,    ///< volatile corrected ECC errors
  ecc_uncorrected,  ///< volatile uncorrected ECC errors
  residue_memory,   ///< MiB in use on a device no process holds (residue.h)
};
/// "temperature", "power", "memory", "busy", "ecc-corrected", "ecc-uncorrected", "residue-memory".
std::string_view to_string(Metric m);
std::optional<Metric> parse_metric(std::string_view s);
/// Every metric, in the order the docs and --help list them.
const std::vector<Metric>& all_metrics();

/// A figure `crit` alerts on is CRITICAL, else one `warn` alerts on WARNING; an unset level is
/// not checked.
struct Limit {
  std::optional<Range> warn, crit;
};
/// The state of `value` against `limit`.
State judge(double value, const Limit& limit);

/// The defaults and the user's overrides.
class Thresholds {
public:
  /// The limit for `m` on a device of `vendor` (nullopt: not known): the override, else the default.
  Limit limit(Metric m, std::optional<telemetry::Vendor> vendor) const;
  /// The vendor's default, before overrides.
  static Limit default_limit(Metric m, std::optional<telemetry::Vendor> vendor);
  /// Parses one --limit KEY=WARN[,CRIT], each a Nagios range: "temperature=85,95", "busy=90"
  /// (warning only), "power=,120" (critical only), "memory=@0:5,~:99", "ecc-corrected=off".
  /// The error names the text and the forms.
  Status set(std::string_view text);
  /// Whether a link below its maximum is judged (--limit pcie=off turns it off).
  bool pcie() const { return m_pcie; }

private:
  std::vector<std::pair<Metric, Limit>> m_overrides;
  bool m_pcie = true;
};

/// Judges every figure of `d` that is present, adding a finding for each and its perfdata.
void check_device(const telemetry::DeviceState& d, const Thresholds& t, Report& r);

}  // namespace dcukit::patrol
