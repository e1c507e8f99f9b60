#include "util/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/unique_fd.h"

namespace dcukit::util {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

Error too_large(const std::string& path, InputLimit limit) {
  return Error{fmt::format("cannot read {}: larger than {}, the limit for {}; pass a smaller file or an excerpt", path,
                           size_text(limit.bytes), limit.what)};
}

/// Opens `path` for reading without blocking on a FIFO and without taking a terminal, and
/// refuses anything but a regular file.
Result<UniqueFd> open_input(const std::string& path, InputLimit limit, struct stat& st) {
  UniqueFd f{open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (f.get() < 0) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  if (fstat(f.get(), &st) != 0) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  if (S_ISDIR(st.st_mode)) return Error{fmt::format("cannot read {}: it is a folder", path)};
  if (!S_ISREG(st.st_mode))
    return Error{fmt::format("cannot read {}: it is {}, not a regular file; save the text to a file first", path,
                             file_kind(st.st_mode))};
  if (static_cast<std::size_t>(st.st_size) > limit.bytes) return too_large(path, limit);
  return f;
}

}  // namespace

std::string file_kind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

Result<std::string> read_file(const std::string& path, InputLimit limit) {
  struct stat st {};
  auto f = open_input(path, limit, st);
  if (!f) return f.error();
  std::string out;
  // /proc and /sys report a size of 0 or 4096 whatever they hold: the limit is checked as read.
  out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = read(f->get(), buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
    }
    if (out.size() + static_cast<std::size_t>(n) > limit.bytes) return too_large(path, limit);
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

Status check_readable(const std::string& path, InputLimit limit) {
  struct stat st {};
  auto f = open_input(path, limit, st);
  if (!f) return f.error();
  return {};
}

Result<std::FILE*> open_append(const std::string& path, Privacy privacy) {
  const mode_t mode = privacy == Privacy::secret ? 0600 : 0644;
  UniqueFd f{open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode)};
  if (f.get() < 0) {
    if (errno == ELOOP)
      return Error{fmt::format("{} is a symbolic link; dcukit appends only to regular files, name the file it points to",
                               path)};
    return Error{fmt::format("cannot open {} for appending: {}", path, std::strerror(errno))};
  }
  struct stat st {};
  if (fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return Error{fmt::format("{} is {}; dcukit appends only to regular files, name a file instead", path,
                             file_kind(st.st_mode))};
  if (privacy == Privacy::secret && (st.st_mode & 077) != 0) (void)fchmod(f.get(), st.st_mode & 0700);
  // Back to blocking writes: O_NONBLOCK only kept the open from waiting on a FIFO.
  (void)fcntl(f.get(), F_SETFL, O_WRONLY | O_APPEND);
  std::FILE* out = fdopen(f.get(), "a");
  if (!out) return Error{fmt::format("cannot open {} for appending: {}", path, std::strerror(errno))};
  (void)f.release();
  return out;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Status check_writable(const std::string& path) {
  if (path.empty()) return Error{"an empty output path; name a file"};
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error{fmt::format("{} is a folder; name a file inside it", path)};
    if (S_ISLNK(st.st_mode))
      return Error{fmt::format("{} is a symbolic link; dcukit replaces only regular files, name the file it points to", path)};
    if (!S_ISREG(st.st_mode))
      return Error{fmt::format("{} is {}; dcukit writes only regular files, name a file instead", path,
                               file_kind(st.st_mode))};
  }
  const std::string dir = folder_of(path);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Error{fmt::format("cannot write {}: the folder {} does not exist; create it first", path, dir)};
  if (access(dir.c_str(), W_OK) != 0)
    return Error{fmt::format("cannot write {}: the folder {} is not writable ({})", path, dir, std::strerror(errno))};
  return {};
}

Status write_file(const std::string& path, const std::string& content, Privacy privacy) {
  if (Status s = check_writable(path); !s) return s;
  mode_t mode = privacy == Privacy::secret ? 0600 : 0644;
  struct stat old {};
  if (lstat(path.c_str(), &old) == 0) mode = old.st_mode & (privacy == Privacy::secret ? 0700 : 07777);
  std::string tmp = path + ".XXXXXX";
  UniqueFd f{mkostemp(tmp.data(), O_CLOEXEC)};
  if (f.get() < 0) return Error{fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  auto fail = [&](int err) {
    std::remove(tmp.c_str());
    return Error{fmt::format("cannot write {}: {}; the previous file, if any, is unchanged", path, std::strerror(err))};
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(f.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  if (fchmod(f.get(), mode) != 0 || fsync(f.get()) != 0) return fail(errno);
  const int fd = f.release();
  if (close(fd) != 0) return fail(errno);
  // The path may have changed since the check (a device or link put there meanwhile).
  if (Status s = check_writable(path); !s) {
    std::remove(tmp.c_str());
    return s;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno);
  return {};
}

}  // namespace dcukit::util
