#pragma once
// Whole-file reads and writes with errors that name the path: the one place that decides what
// dcukit opens and what it replaces. Outputs go through write_file: a temporary file in the same
// folder, flushed, then renamed into place, so that a full disk or a crash never leaves half a
// file or destroys the previous good one; only regular files are replaced (a device, FIFO,
// socket or symbolic link named as an output is refused), and the replaced file keeps its mode.
// Inputs go through read_file: opened without blocking, regular files only (a FIFO given as a
// capture would otherwise wait forever), and the size checked against the input's limit before
// anything is read.
#include <cstddef>
#include <cstdio>
#include <string>

#include "util/result.h"

namespace dcukit::util {

/// Limits per kind of input, named in the refusal so that a user knows what was too large.
inline constexpr std::size_t kMaxCaptureBytes = std::size_t{64} << 20;   ///< tool output, logs, reports
inline constexpr std::size_t kMaxSourceBytes = std::size_t{16} << 20;    ///< one source file
inline constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;     ///< a settings file
inline constexpr std::size_t kMaxDatasetBytes = std::size_t{1} << 30;    ///< a prompt dataset

/// Reads a whole regular file of at most `max_bytes`; the error names the path and the reason
/// (missing, a folder, a FIFO or device, larger than the limit).
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = kMaxCaptureBytes);

/// Checks that `path` names a regular file dcukit may read (not a FIFO, device, socket or
/// folder) and is at most `max_bytes`, without reading it: for paths handed to libraries.
Status check_readable(const std::string& path, std::size_t max_bytes = kMaxCaptureBytes);

/// Who may read what write_file writes. `report`: a new file is 0644; `secret` (bundles,
/// events, logs that may hold tokens): 0600, and an existing file's mode loses group and other.
enum class Privacy { report, secret };

/// Writes atomically (temporary file, fsync, rename); on failure the temporary file is removed
/// and an existing file at `path` is left as it was. An existing file keeps its mode.
Status write_file(const std::string& path, const std::string& content, Privacy privacy = Privacy::report);

/// Checks, before any work is done, that write_file(path) can succeed: the folder exists and is
/// writable, and path is absent or a regular file (not a folder, device, FIFO, socket or
/// symbolic link). The error names the path and what to do.
Status check_writable(const std::string& path);

/// Opens `path` to append to (a log, an event stream), created with the mode `privacy` gives;
/// a symbolic link, FIFO, device or socket at `path` is refused, never written through.
Result<std::FILE*> open_append(const std::string& path, Privacy privacy);

/// True when `path` is a regular file (not following a link): what rotation may rename.
bool is_regular_file(const std::string& path);

/// "a FIFO", "a character device", ... for a stat mode; "a regular file" for one.
std::string file_kind(unsigned mode);

}  // namespace dcukit::util
