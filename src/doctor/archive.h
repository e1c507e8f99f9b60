#pragma once
// The support bundle's container: a POSIX tar archive (pax, ustar where a name fits) compressed
// with gzip, written and read in memory through libarchive. Reading is defensive: sizes are
// capped (a header's claim before any byte is held), and extraction refuses absolute paths, "..",
// and writing through a symlink the archive made.
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/root.h"

namespace dcukit::doctor {

/// One member of the archive.
struct ArchiveEntry {
  std::string path;                               ///< relative, '/'-separated: "host/sys/class/drm/card1/device/vendor"
  util::FileType type = util::FileType::regular;  ///< regular, directory, symlink or char_device
  unsigned mode = 0644;
  unsigned uid = 0, gid = 0;
  std::string content;  ///< a regular file's bytes
  std::string target;   ///< a symlink's target
  unsigned dev_major = 0, dev_minor = 0;
};

/// Limits on what reading accepts.
struct ArchiveLimits {
  std::uint64_t max_total = 128ull << 20;  ///< uncompressed bytes (held twice while parsing: 256 MiB at most)
  std::size_t max_entries = 200000;
};

/// The .tar.gz bytes of `entries`.
Result<std::string> tar_gz_bytes(const std::vector<ArchiveEntry>& entries);
/// Parses .tar.gz (or plain tar) bytes; errors name the entry and what is wrong.
Result<std::vector<ArchiveEntry>> parse_tar_gz(const std::string& bytes, const ArchiveLimits& limits = {});

/// Writes the entries as a .tar.gz at `path` (atomically).
Status write_tar_gz(const std::string& path, const std::vector<ArchiveEntry>& entries);
/// Reads a .tar.gz; errors name the path.
Result<std::vector<ArchiveEntry>> read_tar_gz(const std::string& path, const ArchiveLimits& limits = {});

/// Creates the entries under `dir` (which must exist): folders, regular files (mode 0644 or
/// 0755, never set-id), symlinks as they are, a device node as an empty file. Refuses a path
/// that is absolute, has "..", or passes through a symlink.
Status extract(const std::vector<ArchiveEntry>& entries, const std::string& dir);

}  // namespace dcukit::doctor
