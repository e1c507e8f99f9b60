#include "util/root.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <set>

namespace dcukit::util {
namespace {

constexpr int kMaxSymlinkHops = 40;  // the kernel's own limit (MAXSYMLINKS)

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (end > start) out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

FileType type_of(mode_t m) {
  if (S_ISREG(m)) return FileType::regular;
  if (S_ISDIR(m)) return FileType::directory;
  if (S_ISLNK(m)) return FileType::symlink;
  if (S_ISCHR(m)) return FileType::char_device;
  if (S_ISBLK(m)) return FileType::block_device;
  if (S_ISFIFO(m)) return FileType::fifo;
  if (S_ISSOCK(m)) return FileType::socket;
  return FileType::other;
}

std::optional<std::string> readlink_text(const std::string& path) {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size());
  if (n < 0) return std::nullopt;
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

}  // namespace

void AccessLog::add(Kind kind, std::string path, std::string target) {
  std::lock_guard lock(m_mutex);
  for (const auto& e : m_entries)
    if (e.kind == kind && e.path == path) return;
  m_entries.push_back({kind, std::move(path), std::move(target)});
}

std::vector<AccessLog::Entry> AccessLog::entries() const {
  std::lock_guard lock(m_mutex);
  return m_entries;
}

std::string join_path(std::string_view base, std::string_view name) {
  std::string out(base);
  while (!out.empty() && out.back() == '/') out.pop_back();
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  return out + "/" + std::string(name);
}

Root::Root(std::string dir) : m_dir(dir.empty() ? "/" : std::move(dir)) {
  while (m_dir.size() > 1 && m_dir.back() == '/') m_dir.pop_back();
  m_prefix = m_dir == "/" ? "" : m_dir;
}

void Root::note(AccessLog::Kind kind, const std::string& path, std::string target) const {
  if (m_log) m_log->add(kind, path, std::move(target));
}

std::string Root::resolve(std::string_view host_path) const {
  std::deque<std::string> todo;
  for (auto& c : components(host_path)) todo.push_back(std::move(c));
  std::vector<std::string> done;
  int hops = 0;
  bool missing = false;  // past a part that does not exist: the rest is kept as written
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(std::move(c));
    if (missing) continue;
    const std::string here = joined(done);
    struct stat st {};
    if (::lstat((m_prefix + here).c_str(), &st) != 0) {
      missing = true;
      continue;
    }
    if (!S_ISLNK(st.st_mode)) continue;
    auto target = readlink_text(m_prefix + here);
    if (!target || ++hops > kMaxSymlinkHops) {
      missing = true;
      continue;
    }
    note(AccessLog::Kind::link, here, *target);
    done.pop_back();
    if (!target->empty() && target->front() == '/') done.clear();
    const auto parts = components(*target);
    todo.insert(todo.begin(), parts.begin(), parts.end());
  }
  return joined(done);
}

std::string Root::real(std::string_view host_path) const {
  return m_prefix + resolve_if_needed(host_path);
}

std::optional<std::string> Root::read(std::string_view host_path, std::size_t max_bytes) const {
  const std::string resolved = resolve_if_needed(host_path);
  const int fd = ::open((m_prefix + resolved).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode))) {
    ::close(fd);
    return std::nullopt;
  }
  std::string out;
  char buf[8192];
  while (out.size() < max_bytes) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, max_bytes - out.size()));
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  note(AccessLog::Kind::file, resolved);
  return out;
}

std::optional<std::string> Root::first_line(std::string_view host_path) const {
  auto text = read(host_path, 64 * 1024);
  if (!text) return std::nullopt;
  std::string line = text->substr(0, text->find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
  return line;
}

bool Root::exists(std::string_view host_path) const {
  return stat(host_path, true).has_value();
}

bool Root::is_dir(std::string_view host_path) const {
  auto s = stat(host_path, true);
  return s && s->type == FileType::directory;
}

std::optional<FileInfo> Root::stat(std::string_view host_path, bool follow) const {
  std::string path;
  if (follow) {
    path = m_prefix + resolve_if_needed(host_path);
  } else {
    const auto slash = host_path.rfind('/');
    const std::string parent =
        slash == std::string_view::npos || slash == 0 ? "/" : std::string(host_path.substr(0, slash));
    const std::string_view name = slash == std::string_view::npos ? host_path : host_path.substr(slash + 1);
    path = m_prefix + join_path(resolve_if_needed(parent), name);
  }
  struct stat st {};
  const int rc = follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st);
  if (rc != 0) return std::nullopt;
  if (follow) note(AccessLog::Kind::stat, path.substr(m_prefix.size()));
  FileInfo info;
  info.type = type_of(st.st_mode);
  info.mode = static_cast<unsigned>(st.st_mode & 07777);
  info.uid = st.st_uid;
  info.gid = st.st_gid;
  info.size = static_cast<std::uint64_t>(st.st_size);
  return info;
}

std::vector<std::string> Root::list(std::string_view host_dir) const {
  const std::string resolved = resolve_if_needed(host_dir);
  std::vector<std::string> out;
  DIR* d = ::opendir((m_prefix + resolved).c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  note(AccessLog::Kind::directory, resolved);
  return out;
}

std::vector<std::string> Root::glob(std::string_view host_dir, std::string_view pattern) const {
  std::vector<std::string> out;
  const std::string pat(pattern);
  for (auto& name : list(host_dir))
    if (::fnmatch(pat.c_str(), name.c_str(), FNM_PERIOD) == 0) out.push_back(std::move(name));
  return out;
}

std::optional<std::string> Root::read_link(std::string_view host_path) const {
  const auto slash = host_path.rfind('/');
  const std::string parent =
      slash == std::string_view::npos || slash == 0 ? "/" : std::string(host_path.substr(0, slash));
  const std::string_view name = slash == std::string_view::npos ? host_path : host_path.substr(slash + 1);
  const std::string link = join_path(resolve_if_needed(parent), name);
  auto target = readlink_text(m_prefix + link);
  if (target) note(AccessLog::Kind::link, link, *target);
  return target;
}

std::string Root::resolve_if_needed(std::string_view host_path) const {
  if (is_host() && !m_log) return host_path.empty() ? std::string("/") : std::string(host_path);
  return resolve(host_path);
}

}  // namespace dcukit::util
