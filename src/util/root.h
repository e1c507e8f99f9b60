#pragma once
// A host's file tree seen from a root folder. "/" is this host; any other folder stands in for
// one (a test's fake host, an unpacked support bundle). Callers always name host paths
// ("/sys/class/drm", "/opt/dtk/.info/version"); Root resolves them inside its folder: symlinks
// are followed within the root, an absolute link target starts again at the root, and ".."
// never climbs above it (what openat2's RESOLVE_IN_ROOT does in the kernel). Optionally every
// path read is recorded, so that a caller can later copy exactly what it looked at.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::util {

/// What kind of thing a path is.
enum class FileType { regular, directory, symlink, char_device, block_device, fifo, socket, other };

/// lstat/stat facts about one path.
struct FileInfo {
  FileType type = FileType::other;
  unsigned mode = 0;  ///< permission bits (07777)
  uid_t uid = 0;
  gid_t gid = 0;
  std::uint64_t size = 0;
};

/// The paths a Root was asked about, for copying them elsewhere. Thread-safe.
class AccessLog {
public:
  /// How a path was used: read, listed, a symlink followed or read, or only looked at (stat).
  enum class Kind { file, directory, link, stat };
  /// One use: the host path, and for a link the target text it held.
  struct Entry {
    Kind kind = Kind::file;
    std::string path;
    std::string target;
  };
  void add(Kind kind, std::string path, std::string target = {});
  /// Every entry so far, once each, in the order first seen.
  std::vector<Entry> entries() const;

private:
  mutable std::mutex m_mutex;
  std::vector<Entry> m_entries;
};

/// A file tree under a root folder, addressed by host paths.
class Root {
public:
  /// `dir` is the folder that stands for "/"; "" or "/" is this host.
  explicit Root(std::string dir = "/");

  /// The root folder ("/" for this host), without a trailing slash otherwise.
  const std::string& dir() const { return m_dir; }
  /// True when the root is this host's "/".
  bool is_host() const { return m_prefix.empty(); }

  /// `host_path` with every symlink resolved inside the root, as a host path ("/opt/dtk/bin"
  /// -> "/opt/dtk-26.04/bin"). A part that does not exist is kept as written.
  std::string resolve(std::string_view host_path) const;
  /// Where `host_path` is on this machine (the root folder joined with the resolved path).
  std::string real(std::string_view host_path) const;

  /// The content of a file, at most `max_bytes`; nullopt when it cannot be read.
  std::optional<std::string> read(std::string_view host_path, std::size_t max_bytes = std::size_t{1} << 20) const;
  /// The first line, without its line end and trailing blanks; nullopt when unreadable.
  std::optional<std::string> first_line(std::string_view host_path) const;
  /// True when the path exists (after symlinks).
  bool exists(std::string_view host_path) const;
  /// True when the path is a folder (after symlinks).
  bool is_dir(std::string_view host_path) const;
  /// Facts about the path: of what it points to when `follow`, of the link itself otherwise.
  std::optional<FileInfo> stat(std::string_view host_path, bool follow = true) const;
  /// The names in a folder, sorted; empty when it is not a readable folder.
  std::vector<std::string> list(std::string_view host_dir) const;
  /// The names in a folder that match a shell pattern ("dtk*", "*.conf"), sorted.
  std::vector<std::string> glob(std::string_view host_dir, std::string_view pattern) const;
  /// The target text of a symlink (not followed), or nullopt when it is not one.
  std::optional<std::string> read_link(std::string_view host_path) const;

  /// Records every later read, listing and symlink into `log` (nullptr stops recording).
  /// Copies of this Root made afterwards record into the same log.
  void record_to(std::shared_ptr<AccessLog> log) { m_log = std::move(log); }
  /// The log being recorded into, or nullptr.
  const std::shared_ptr<AccessLog>& log() const { return m_log; }

private:
  /// resolve() where the root is not the host or paths are recorded; the path as given otherwise.
  std::string resolve_if_needed(std::string_view host_path) const;
  void note(AccessLog::Kind kind, const std::string& path, std::string target = {}) const;

  std::string m_dir;     ///< as given, "/" for the host
  std::string m_prefix;  ///< "" for the host, else the folder without a trailing slash
  std::shared_ptr<AccessLog> m_log;
};

/// A host path made of `base` and `name` with exactly one slash between them.
std::string join_path(std::string_view base, std::string_view name);

}  // namespace dcukit::util
