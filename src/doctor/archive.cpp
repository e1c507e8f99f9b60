#include "doctor/archive.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "doctor/text.h"
#include "util/files.h"

namespace dcukit::doctor {
namespace {

bool safe_relative(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (const auto& part : split(path, '/', Empties::skip))
    if (part == ".." || part == ".") return false;
  return path.find('\0') == std::string::npos;
}

struct ArchiveFree {
  void operator()(archive* a) const { archive_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

std::string message(archive* a) {
  const char* m = archive_error_string(a);
  return m ? m : "unknown error";
}

mode_t type_bits(util::FileType t) {
  switch (t) {
    case util::FileType::directory:
      return AE_IFDIR;
    case util::FileType::symlink:
      return AE_IFLNK;
    case util::FileType::char_device:
      return AE_IFCHR;
    default:
      return AE_IFREG;
  }
}

}  // namespace

Result<std::string> tar_gz_bytes(const std::vector<ArchiveEntry>& entries) {
  ArchivePtr a(archive_write_new());
  std::string out;
  // POSIX pax (ustar where a name fits), gzip; mtime 0: a bundle says when in doctor.json.
  if (!a || archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK)
    return Error{"libarchive: cannot set up a .tar.gz: " + message(a.get())};
  const auto write_cb = [](archive*, void* user, const void* buf, size_t n) -> la_ssize_t {
    static_cast<std::string*>(user)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  if (archive_write_open2(a.get(), &out, nullptr, write_cb, nullptr, nullptr) != ARCHIVE_OK)
    return Error{"libarchive: " + message(a.get())};
  for (const auto& e : entries) {
    std::unique_ptr<archive_entry, EntryFree> h(archive_entry_new());
    archive_entry_set_pathname(h.get(), e.path.c_str());
    archive_entry_set_filetype(h.get(), type_bits(e.type));
    archive_entry_set_perm(h.get(), e.mode & 07777);
    archive_entry_set_uid(h.get(), e.uid);
    archive_entry_set_gid(h.get(), e.gid);
    archive_entry_set_mtime(h.get(), 0, 0);
    if (e.type == util::FileType::symlink) archive_entry_set_symlink(h.get(), e.target.c_str());
    if (e.type == util::FileType::char_device) {
      archive_entry_set_rdevmajor(h.get(), e.dev_major);
      archive_entry_set_rdevminor(h.get(), e.dev_minor);
    }
    const bool regular = e.type == util::FileType::regular;
    archive_entry_set_size(h.get(), regular ? static_cast<la_int64_t>(e.content.size()) : 0);
    if (archive_write_header(a.get(), h.get()) < ARCHIVE_WARN)
      return Error{fmt::format("libarchive: {}: {}", e.path, message(a.get()))};
    if (regular && !e.content.empty() &&
        archive_write_data(a.get(), e.content.data(), e.content.size()) != static_cast<la_ssize_t>(e.content.size()))
      return Error{fmt::format("libarchive: {}: {}", e.path, message(a.get()))};
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return Error{"libarchive: " + message(a.get())};
  return out;
}

Result<std::vector<ArchiveEntry>> parse_tar_gz(const std::string& bytes, const ArchiveLimits& limits) {
  ArchivePtr a(archive_read_new());
  if (!a || archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
      archive_read_support_filter_gzip(a.get()) != ARCHIVE_OK)
    return Error{"libarchive: cannot set up reading"};
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
    return Error{"not a .tar.gz (gzip-compressed tar), or damaged: " + message(a.get())};
  std::vector<ArchiveEntry> out;
  std::uint64_t total = 0;
  const auto too_big = [&] {
    return Error{fmt::format("it unpacks to more than {} MiB; it is not a dcukit bundle", limits.max_total >> 20)};
  };
  for (;;) {
    archive_entry* h = nullptr;
    const int rc = archive_read_next_header(a.get(), &h);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) return Error{"the archive is damaged: " + message(a.get())};
    // The unpacked stream read so far, headers included (a bomb of empty entries counts too).
    if (static_cast<std::uint64_t>(archive_filter_bytes(a.get(), 0)) > limits.max_total) return too_big();
    ArchiveEntry e;
    e.path = archive_entry_pathname(h) ? archive_entry_pathname(h) : "";
    while (!e.path.empty() && e.path.back() == '/') e.path.pop_back();
    e.mode = archive_entry_perm(h);
    e.uid = static_cast<unsigned>(archive_entry_uid(h));
    e.gid = static_cast<unsigned>(archive_entry_gid(h));
    switch (archive_entry_filetype(h)) {
      case AE_IFREG:
        e.type = util::FileType::regular;
        break;
      case AE_IFDIR:
        e.type = util::FileType::directory;
        break;
      case AE_IFLNK:
        e.type = util::FileType::symlink;
        e.target = archive_entry_symlink(h) ? archive_entry_symlink(h) : "";
        break;
      case AE_IFCHR:
        e.type = util::FileType::char_device;
        e.dev_major = static_cast<unsigned>(archive_entry_rdevmajor(h));
        e.dev_minor = static_cast<unsigned>(archive_entry_rdevminor(h));
        break;
      default:
        continue;  // hard links, block devices, FIFOs: nothing a bundle needs
    }
    if (e.type == util::FileType::regular) {
      // The size a header claims is checked before anything is held; then what really comes.
      const la_int64_t claimed = archive_entry_size_is_set(h) ? archive_entry_size(h) : 0;
      if (claimed < 0 || total + static_cast<std::uint64_t>(claimed) > limits.max_total) return too_big();
      char buf[1 << 16];
      for (;;) {
        const la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) return Error{fmt::format("the archive is damaged at '{}': {}", e.path, message(a.get()))};
        total += static_cast<std::uint64_t>(n);
        if (total > limits.max_total || static_cast<std::uint64_t>(archive_filter_bytes(a.get(), 0)) > limits.max_total)
          return too_big();
        e.content.append(buf, static_cast<std::size_t>(n));
      }
    }
    out.push_back(std::move(e));
    if (out.size() > limits.max_entries)
      return Error{fmt::format("the archive has more than {} entries; it is not a dcukit bundle", limits.max_entries)};
  }
  return out;
}

Status write_tar_gz(const std::string& path, const std::vector<ArchiveEntry>& entries) {
  auto gz = tar_gz_bytes(entries);
  if (!gz) return Status(gz.error());
  return util::write_file(path, *gz, util::Privacy::secret);  // a bundle holds a host's logs
}

Result<std::vector<ArchiveEntry>> read_tar_gz(const std::string& path, const ArchiveLimits& limits) {
  auto bytes = util::read_file(path, util::kBundleInput);
  if (!bytes) return bytes.error();
  auto entries = parse_tar_gz(*bytes, limits);
  if (!entries) return Error{fmt::format("{}: {}", path, entries.error().message)};
  return entries;
}

Status extract(const std::vector<ArchiveEntry>& entries, const std::string& dir) {
  for (const auto& e : entries) {
    if (!safe_relative(e.path))
      return Error{fmt::format("refusing the archive member '{}': not a plain relative path", e.path)};
    // Every folder on the way is created here, and none may be a symlink (no writing through one).
    std::string at = dir;
    const auto parts = split(e.path, '/', Empties::skip);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      at += "/" + parts[i];
      struct stat st {};
      if (::lstat(at.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode))
          return Error{fmt::format("refusing the archive member '{}': it passes through a link or file", e.path)};
        continue;
      }
      if (::mkdir(at.c_str(), 0755) != 0) return Error{fmt::format("{}: {}", at, std::strerror(errno))};
    }
    const std::string target = at + "/" + parts.back();
    struct stat st {};
    const bool exists = ::lstat(target.c_str(), &st) == 0;
    if (e.type == util::FileType::directory) {
      if (exists && !S_ISDIR(st.st_mode))
        return Error{fmt::format("refusing the archive member '{}': a file is there", e.path)};
      if (!exists && ::mkdir(target.c_str(), 0755) != 0)
        return Error{fmt::format("{}: {}", target, std::strerror(errno))};
      continue;
    }
    if (exists) continue;  // the first member of a name wins
    if (e.type == util::FileType::symlink) {
      if (::symlink(e.target.c_str(), target.c_str()) != 0)
        return Error{fmt::format("{}: {}", target, std::strerror(errno))};
      continue;
    }
    const mode_t mode = e.type == util::FileType::regular && (e.mode & 0111) ? 0755 : 0644;
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return Error{fmt::format("{}: {}", target, std::strerror(errno))};
    static const std::string kEmpty;
    const std::string& body = e.type == util::FileType::regular ? e.content : kEmpty;
    std::size_t done = 0;
    while (done < body.size()) {
      const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
      if (n <= 0) {
        ::close(fd);
        return Error{fmt::format("{}: {}", target, std::strerror(errno))};
      }
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  return {};
}

}  // namespace dcukit::doctor
