#pragma once
// Whole-file reads and writes with errors that name the path. Every output dcukit writes goes
// through write_file: a temporary file in the same folder, flushed, then renamed into place, so
// that a full disk or a crash never leaves half a file or destroys the previous good one.
#include <cstddef>
#include <string>

#include "util/result.h"

namespace dcukit::util {

/// Reads a whole file of at most `max_bytes`; the error names the path and the reason.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = std::size_t{1} << 31);

/// Writes atomically (temporary file, fsync, rename); on failure the temporary file is removed
/// and an existing file at `path` is left as it was.
Status write_file(const std::string& path, const std::string& content);

/// Checks, before any work is done, that write_file(path) can succeed: the folder exists and is
/// writable, and path is not a folder. The error names the path and what to do.
Status check_writable(const std::string& path);

}  // namespace dcukit::util
