#include "doctor/archive.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "doctor/text.h"
#include "util/files.h"

namespace dcukit::doctor {
namespace {

constexpr std::size_t kBlock = 512;

void put_octal(char* field, std::size_t width, std::uint64_t value) {
  // width-1 octal digits and a NUL, as ustar writes them.
  const std::string s = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, s.data(), std::min(s.size(), width - 1));
  field[width - 1] = '\0';
}

std::uint64_t get_octal(const char* field, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width && field[i] != '\0' && field[i] != ' '; ++i) {
    if (field[i] < '0' || field[i] > '7') break;
    v = v * 8 + static_cast<std::uint64_t>(field[i] - '0');
  }
  return v;
}

std::string get_string(const char* field, std::size_t width) {
  return std::string(field, strnlen(field, width));
}

char type_flag(util::FileType t) {
  switch (t) {
    case util::FileType::directory:
      return '5';
    case util::FileType::symlink:
      return '2';
    case util::FileType::char_device:
      return '3';
    default:
      return '0';
  }
}

std::string header(const ArchiveEntry& e, const std::string& name, const std::string& prefix, const std::string& link,
                   char flag, std::uint64_t size) {
  std::string h(kBlock, '\0');
  std::memcpy(&h[0], name.data(), std::min<std::size_t>(name.size(), 100));
  put_octal(&h[100], 8, e.mode & 07777);
  put_octal(&h[108], 8, e.uid);
  put_octal(&h[116], 8, e.gid);
  put_octal(&h[124], 12, size);
  put_octal(&h[136], 12, 0);  // mtime: a bundle says when in doctor.json
  h[156] = flag;
  std::memcpy(&h[157], link.data(), std::min<std::size_t>(link.size(), 100));
  std::memcpy(&h[257], "ustar", 6);
  std::memcpy(&h[263], "00", 2);
  put_octal(&h[329], 8, e.dev_major);
  put_octal(&h[337], 8, e.dev_minor);
  std::memcpy(&h[345], prefix.data(), std::min<std::size_t>(prefix.size(), 155));
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char ch : h) sum += ch;
  const std::string chk = fmt::format("{:06o}", sum);
  std::memcpy(&h[148], chk.data(), 6);
  h[154] = '\0';
  h[155] = ' ';
  return h;
}

void pad(std::string& out) {
  if (out.size() % kBlock) out.append(kBlock - out.size() % kBlock, '\0');
}

// A PAX record "LEN key=value\n", LEN counting itself.
std::string pax_record(const std::string& key, const std::string& value) {
  const std::size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  std::size_t len = body + 1;
  while (std::to_string(len).size() + body > len) ++len;
  return fmt::format("{} {}={}\n", len, key, value);
}

// Splits a path into ustar's prefix (<=155) and name (<=100) at a '/', if it can.
bool split_name(const std::string& path, std::string& prefix, std::string& name) {
  if (path.size() <= 100) {
    prefix.clear();
    name = path;
    return true;
  }
  for (std::size_t cut = path.find('/'); cut != std::string::npos; cut = path.find('/', cut + 1))
    if (cut <= 155 && path.size() - cut - 1 <= 100 && path.size() - cut - 1 > 0) {
      prefix = path.substr(0, cut);
      name = path.substr(cut + 1);
      return true;
    }
  return false;
}

std::map<std::string, std::string> parse_pax(const std::string& data) {
  std::map<std::string, std::string> out;
  std::size_t at = 0;
  while (at < data.size()) {
    const auto space = data.find(' ', at);
    if (space == std::string::npos) break;
    const auto len = parse_int(std::string_view(data).substr(at, space - at));
    if (!len || *len <= 0 || at + static_cast<std::size_t>(*len) > data.size()) break;
    const std::string rec = data.substr(space + 1, at + static_cast<std::size_t>(*len) - space - 2);
    const auto eq = rec.find('=');
    if (eq != std::string::npos) out[rec.substr(0, eq)] = rec.substr(eq + 1);
    at += static_cast<std::size_t>(*len);
  }
  return out;
}

bool safe_relative(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (const auto& part : split(path, '/'))
    if (part == ".." || part == ".") return false;
  return path.find('\0') == std::string::npos;
}

}  // namespace

std::string tar_bytes(const std::vector<ArchiveEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    std::string path = e.path;
    if (e.type == util::FileType::directory && !path.empty() && path.back() != '/') path += '/';
    std::string prefix, name;
    const bool fits = split_name(path, prefix, name) && e.target.size() <= 100;
    if (!fits) {
      std::string records = pax_record("path", path);
      if (e.target.size() > 100) records += pax_record("linkpath", e.target);
      ArchiveEntry x;
      x.mode = 0644;
      out += header(x, "PaxHeader", "", "", 'x', records.size());
      out += records;
      pad(out);
      name = path.substr(0, 100);
      prefix.clear();
    }
    const std::uint64_t size = e.type == util::FileType::regular ? e.content.size() : 0;
    out += header(e, name, prefix, e.target.substr(0, 100), type_flag(e.type), size);
    if (size) {
      out += e.content;
      pad(out);
    }
  }
  out.append(2 * kBlock, '\0');
  return out;
}

Result<std::vector<ArchiveEntry>> parse_tar(const std::string& bytes, const ArchiveLimits& limits) {
  std::vector<ArchiveEntry> out;
  std::map<std::string, std::string> pax;
  std::size_t at = 0;
  while (at + kBlock <= bytes.size()) {
    const char* h = bytes.data() + at;
    if (std::all_of(h, h + kBlock, [](char ch) { return ch == '\0'; })) break;  // the end
    unsigned sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    if (sum != get_octal(h + 148, 8))
      return Error{fmt::format("the archive is damaged: a header's checksum is wrong at byte {}", at)};
    const std::uint64_t size = get_octal(h + 124, 12);
    at += kBlock;
    if (size > bytes.size() - at) return Error{fmt::format("the archive is truncated at byte {}", at)};
    const std::string data = bytes.substr(at, size);
    at += (size + kBlock - 1) / kBlock * kBlock;
    const char flag = h[156];
    if (flag == 'x') {
      pax = parse_pax(data);
      continue;
    }
    if (flag == 'g') continue;
    if (flag == 'L') {  // GNU long name
      pax["path"] = data.substr(0, data.find('\0'));
      continue;
    }
    ArchiveEntry e;
    const std::string prefix = get_string(h + 345, 155), name = get_string(h, 100);
    e.path = prefix.empty() ? name : prefix + "/" + name;
    if (pax.count("path")) e.path = pax["path"];
    e.target = pax.count("linkpath") ? pax["linkpath"] : get_string(h + 157, 100);
    pax.clear();
    while (!e.path.empty() && e.path.back() == '/') e.path.pop_back();
    e.mode = static_cast<unsigned>(get_octal(h + 100, 8));
    e.uid = static_cast<unsigned>(get_octal(h + 108, 8));
    e.gid = static_cast<unsigned>(get_octal(h + 116, 8));
    e.dev_major = static_cast<unsigned>(get_octal(h + 329, 8));
    e.dev_minor = static_cast<unsigned>(get_octal(h + 337, 8));
    switch (flag) {
      case '0':
      case '\0':
      case '7':
        e.type = util::FileType::regular;
        e.content = data;
        break;
      case '5':
        e.type = util::FileType::directory;
        break;
      case '2':
        e.type = util::FileType::symlink;
        break;
      case '3':
        e.type = util::FileType::char_device;
        break;
      default:
        continue;  // hard links, block devices, FIFOs: nothing a bundle needs
    }
    out.push_back(std::move(e));
    if (out.size() > limits.max_entries)
      return Error{fmt::format("the archive has more than {} entries; it is not a dcukit bundle", limits.max_entries)};
  }
  return out;
}

Result<std::string> gzip(const std::string& data) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return Error{"zlib: deflateInit2 failed"};
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const auto n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Error{fmt::format("zlib: deflate failed ({})", rc)};
  out.resize(n);
  return out;
}

Result<std::string> gunzip(const std::string& data, std::uint64_t max_bytes) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Error{"zlib: inflateInit2 failed"};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return Error{fmt::format("not gzip data, or damaged ({})", zs.msg ? zs.msg : std::to_string(rc))};
    }
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&zs);
      return Error{fmt::format("it unpacks to more than {} MiB; it is not a dcukit bundle", max_bytes >> 20)};
    }
    if (rc != Z_STREAM_END && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return Error{"the gzip data is truncated"};
    }
  }
  inflateEnd(&zs);
  return out;
}

Status write_tar_gz(const std::string& path, const std::vector<ArchiveEntry>& entries) {
  auto gz = gzip(tar_bytes(entries));
  if (!gz) return Status(gz.error());
  return util::write_file(path, *gz, util::Privacy::secret);  // a bundle holds a host's logs
}

Result<std::vector<ArchiveEntry>> read_tar_gz(const std::string& path, const ArchiveLimits& limits) {
  auto bytes = util::read_file(path, util::kBundleInput);
  if (!bytes) return bytes.error();
  auto tar = gunzip(*bytes, limits.max_total);
  if (!tar) return Error{fmt::format("{}: {}", path, tar.error().message)};
  auto entries = parse_tar(*tar, limits);
  if (!entries) return Error{fmt::format("{}: {}", path, entries.error().message)};
  return entries;
}

Status extract(const std::vector<ArchiveEntry>& entries, const std::string& dir) {
  for (const auto& e : entries) {
    if (!safe_relative(e.path))
      return Error{fmt::format("refusing the archive member '{}': not a plain relative path", e.path)};
    // Every folder on the way is created here, and none may be a symlink (no writing through one).
    std::string at = dir;
    const auto parts = split(e.path, '/');
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
