#pragma once
// The exporter's options as one table over its Request (util/settings.h): the CLI declares its
// flags from it and an options file (--config) uses the same names, as guard's do.
#include <string>
#include <vector>

#include "exporter/types.h"
#include "util/result.h"
#include "util/settings.h"

namespace dcukit::exporter {

/// One option of the exporter's table.
using Setting = util::Setting<Request>;

/// Every option, in the order help lists them.
const std::vector<Setting>& settings();

/// `defaults` (the source options already set), then the options file's settings (when
/// `config_file` is set), then the command line's `overrides`; then validate(). The error names
/// the setting or file at fault and the fix.
Result<Request> resolve_request(Request defaults, const std::string& config_file, const util::Pairs& overrides);

}  // namespace dcukit::exporter
