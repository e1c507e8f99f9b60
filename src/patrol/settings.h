#pragma once
// patrol's options as one table over its Request (util/settings.h): the CLI declares its flags
// from it and an options file (--config) uses the same names, as guard's do.
#include <string>
#include <vector>

#include "patrol/types.h"
#include "util/result.h"
#include "util/settings.h"

namespace dcukit::patrol {

/// One option of patrol's table.
using Setting = util::Setting<Request>;

/// Every option, in the order help lists them.
const std::vector<Setting>& settings();

/// `defaults` (the source options already set), then the options file's settings (when
/// `config_file` is set), then the command line's `overrides`, then the checks across them
/// (something to inspect). The error names the setting or file at fault.
Result<Request> resolve_request(Request defaults, const std::string& config_file, const util::Pairs& overrides);

}  // namespace dcukit::patrol
