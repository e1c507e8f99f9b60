#pragma once
// Whole-file reads and writes with errors that name the path.
#include <string>

#include "util/result.h"

namespace dcukit::util {

/// Reads a whole file; the error names the path and the reason.
Result<std::string> read_file(const std::string& path);

/// Writes through a temporary file renamed into place, so a reader never sees half a file.
Status write_file(const std::string& path, const std::string& content);

} // namespace dcukit::util
