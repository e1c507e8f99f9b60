#pragma once
// The translator over a loaded Project (translate() in port.h writes its output): names from
// the mapping table, full-mask *_sync calls made mask-free, and the audit's rules as comments.
#include <string>
#include <vector>

#include "port/finding.h"
#include "port/hip_map.h"
#include "port/port.h"
#include "port/project.h"

namespace dcukit::port {

/// The translated text of project file `index`. Only code identifiers and #include header names
/// change: comments, strings and <<<...>>> are copied as they are. `findings` (the audit's, for
/// this file) become a trailing `// dcukit-port audit: RULE` on their lines when `annotate`.
std::string translate_source(const Project& project, std::size_t index, const HipMap& map,
                             const std::vector<Finding>& findings, bool annotate, TranslatedFile& stats);

}  // namespace dcukit::port
