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


}  // namespace

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  UniqueFd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.get() < 0) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  struct stat st {};
  if (fstat(f.get(), &st) == 0 && S_ISDIR(st.st_mode)) return Error{fmt::format("cannot read {}: it is a folder", path)};
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(f.get(), buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
    }
    if (out.size() + static_cast<std::size_t>(n) > max_bytes)
      return Error{fmt::format("cannot read {}: larger than {} bytes", path, max_bytes)};
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

Status check_writable(const std::string& path) {
  if (path.empty()) return Error{"an empty output path; name a file"};
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Error{fmt::format("{} is a folder; name a file inside it", path)};
  const std::string dir = folder_of(path);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Error{fmt::format("cannot write {}: the folder {} does not exist; create it first", path, dir)};
  if (access(dir.c_str(), W_OK) != 0)
    return Error{fmt::format("cannot write {}: the folder {} is not writable ({})", path, dir, std::strerror(errno))};
  return {};
}

Status write_file(const std::string& path, const std::string& content) {
  if (Status s = check_writable(path); !s) return s;
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
  // mkstemp makes 0600; a report is as readable as any file a user creates by default.
  if (fchmod(f.get(), 0644) != 0 || fsync(f.get()) != 0) return fail(errno);
  const int fd = f.release();
  if (close(fd) != 0) return fail(errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno);
  return {};
}

}  // namespace dcukit::util
