#pragma once
// guard's options as one table: each has a name (the flag is --NAME, the options-file key is
// NAME), a help line, a parser that sets the field of Options, and what a SIGHUP reload does
// with a change to it. The CLI declares its flags from this table and the options file is read
// through it, so that a name, its help and its parsing live in one place.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "guard/types.h"
#include "util/result.h"
#include "util/settings.h"

namespace dcukit::guard {

/// When a changed setting takes effect after a reload.
enum class Reload {
  live,           ///< at once (probe timing, back-off, limits)
  next_start,     ///< when the service is next started (never restarts a healthy service)
  guard_restart,  ///< only when guard itself is restarted (where it listens, where events go)
};

/// One option (util/settings.h); its tag is its Reload.
using Setting = util::Setting<Options>;

/// When a change to `s` takes effect after a reload.
inline Reload reload_of(const Setting& s) {
  return static_cast<Reload>(s.tag);
}

/// Every option, in the order help lists them.
const std::vector<Setting>& settings();

/// Sets `name` to `value` in `options`; the error names the setting and the value.
Status apply_setting(Options& options, std::string_view name, std::string_view value);


/// The options: defaults, then the options file (if `config_file` is set), then `overrides`
/// (the command line's), then the checks across fields (command given, listen on loopback
/// unless listen-any). The error names the setting at fault and what to do.
Result<Options> resolve_options(const std::vector<std::string>& command, const std::string& config_file,
                                const Pairs& overrides);

/// The names of the settings whose values differ between `a` and `b`.
std::vector<const Setting*> changed_settings(const Options& a, const Options& b);

}  // namespace dcukit::guard
