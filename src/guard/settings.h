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

namespace dcukit::guard {

/// When a changed setting takes effect after a reload.
enum class Reload {
  live,           ///< at once (probe timing, back-off, limits)
  next_start,     ///< when the service is next started (never restarts a healthy service)
  guard_restart,  ///< only when guard itself is restarted (where it listens, where events go)
};

/// One option.
struct Setting {
  std::string_view name;  ///< "probe-timeout": the flag --probe-timeout and the file key
  std::string_view kind;  ///< what the value is: "DURATION", "N", "PATH", "URL", "" for a flag
  std::string_view help;
  Reload reload;
  Status (*apply)(Options&, std::string_view value);  ///< parses and sets; the error names the value
  std::string (*show)(const Options&);                ///< the current value, as the file would write it
};

/// Every option, in the order help lists them.
const std::vector<Setting>& settings();

/// Sets `name` to `value` in `options`; the error names the setting and the value.
Status apply_setting(Options& options, std::string_view name, std::string_view value);


/// Reads an options file: a JSON object ({"probe-timeout": "5s", "failures": 3}) or lines of
/// NAME=VALUE with # comments. The error names the file, the line and the unknown key.
Result<Pairs> read_options_file(const std::string& path);

/// The options: defaults, then the options file (if `config_file` is set), then `overrides`
/// (the command line's), then the checks across fields (command given, listen on loopback
/// unless listen-any). The error names the setting at fault and what to do.
Result<Options> resolve_options(const std::vector<std::string>& command, const std::string& config_file,
                                const Pairs& overrides);

/// The names of the settings whose values differ between `a` and `b`.
std::vector<const Setting*> changed_settings(const Options& a, const Options& b);

}  // namespace dcukit::guard
