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

/// The most dcukit reads of one kind of input, and the name the refusal gives it ("larger than
/// 64 MiB, the limit for a captured tool output"), so that a user knows which input was too large.
struct InputLimit {
  std::size_t bytes;
  const char* what;
};
inline constexpr std::size_t kMiB = std::size_t{1} << 20;
inline constexpr InputLimit kCaptureInput{64 * kMiB, "a captured tool output"};
inline constexpr InputLimit kLogInput{64 * kMiB, "a vLLM log"};
inline constexpr InputLimit kSourceInput{64 * kMiB, "a source file"};
inline constexpr InputLimit kReportInput{64 * kMiB, "a result file"};
inline constexpr InputLimit kModelConfigInput{64 * kMiB, "a model's config file"};
inline constexpr InputLimit kWeightsIndexInput{64 * kMiB, "a weights index"};
inline constexpr InputLimit kCollectEnvInput{16 * kMiB, "a collect_env paste"};
inline constexpr InputLimit kBundleMetaInput{16 * kMiB, "a bundle's dcukit/ file"};
inline constexpr InputLimit kCertificateInput{16 * kMiB, "a certificate file"};
inline constexpr InputLimit kSettingsInput{1 * kMiB, "a settings file"};
inline constexpr InputLimit kKernelFileInput{1 * kMiB, "a sysfs or procfs file"};
inline constexpr InputLimit kPidFileInput{4096, "a PID file"};
inline constexpr InputLimit kBundleInput{1024 * kMiB, "a bundle"};
inline constexpr InputLimit kDatasetInput{1024 * kMiB, "a prompt dataset"};

/// Reads a whole regular file of at most `limit.bytes`; the error names the path and the reason
/// (missing, a folder, a FIFO or device, larger than the limit, naming the limit's kind).
Result<std::string> read_file(const std::string& path, InputLimit limit = kCaptureInput);

/// Checks that `path` names a regular file dcukit may read (not a FIFO, device, socket or
/// folder) within `limit`, without reading it: for paths handed to libraries.
Status check_readable(const std::string& path, InputLimit limit = kCaptureInput);

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
