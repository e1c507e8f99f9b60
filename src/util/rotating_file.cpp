#include "util/rotating_file.h"

#include "util/files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dcukit::util {

RotatingFile::RotatingFile(std::string path, std::uint64_t max_bytes, int keep, std::size_t tail_lines)
    : m_path(std::move(path)),
      m_max(std::max<std::uint64_t>(max_bytes, 1024)),
      m_keep(std::max(keep, 0)),
      m_tail_lines(std::max<std::size_t>(tail_lines, 1)) {}

RotatingFile::~RotatingFile() {
  if (m_file) std::fclose(m_file);
}

Status RotatingFile::open() {
  if (m_file) return {};
  auto f = open_append(m_path, Privacy::secret);
  if (!f) return Error{fmt::format("log file: {}", f.error().message)};
  m_file = *f;
  std::error_code ec;
  m_size = std::filesystem::file_size(m_path, ec);
  if (ec) m_size = 0;
  return {};
}

void RotatingFile::set_limits(std::uint64_t max_bytes, int keep) {
  m_max = std::max<std::uint64_t>(max_bytes, 1024);
  m_keep = std::max(keep, 0);
}

Status RotatingFile::rotate() {
  // Only regular files are renamed: a device or link put at the path is never moved away.
  if (!is_regular_file(m_path)) return Error{fmt::format("cannot rotate log file {}: it is not a regular file", m_path)};
  if (m_file) std::fclose(m_file);
  m_file = nullptr;
  std::error_code ec;
  namespace fs = std::filesystem;
  // Remove what falls past `keep`, then shift PATH.(n-1) -> PATH.n down to PATH -> PATH.1.
  for (int n = m_keep + 1; fs::exists(fmt::format("{}.{}", m_path, n), ec); ++n)
    fs::remove(fmt::format("{}.{}", m_path, n), ec);
  if (m_keep == 0) {
    fs::remove(m_path, ec);
  } else {
    fs::remove(fmt::format("{}.{}", m_path, m_keep), ec);
    for (int n = m_keep - 1; n >= 1; --n) {
      const std::string from = fmt::format("{}.{}", m_path, n);
      if (is_regular_file(from)) fs::rename(from, fmt::format("{}.{}", m_path, n + 1), ec);
    }
    fs::rename(m_path, m_path + ".1", ec);
    if (ec) return Error{fmt::format("cannot rotate log file {}: {}", m_path, ec.message())};
  }
  ++m_rotations;
  m_size = 0;
  return open();
}

void RotatingFile::remember(std::string_view data) {
  while (!data.empty()) {
    if (m_tail.empty() || (!m_tail.back().empty() && m_tail.back().back() == '\n')) m_tail.emplace_back();
    const auto nl = data.find('\n');
    const auto piece = data.substr(0, nl == std::string_view::npos ? data.size() : nl + 1);
    if (m_tail.back().size() < 4096) m_tail.back().append(piece.substr(0, 4096 - m_tail.back().size()));
    if (nl != std::string_view::npos && m_tail.back().back() != '\n') m_tail.back().push_back('\n');
    data.remove_prefix(piece.size());
    while (m_tail.size() > m_tail_lines) m_tail.pop_front();
  }
}

Status RotatingFile::write(std::string_view data) {
  remember(data);
  if (!m_file)
    if (auto st = open(); !st) return st;
  if (m_size > 0 && m_size + data.size() > m_max)
    if (auto st = rotate(); !st) return st;
  if (std::fwrite(data.data(), 1, data.size(), m_file) != data.size() || std::fflush(m_file) != 0)
    return Error{fmt::format("cannot write log file {}: {}", m_path, std::strerror(errno))};
  m_size += data.size();
  return {};
}

std::string RotatingFile::tail() const {
  std::string out;
  for (const auto& line : m_tail) out += line;
  return out;
}

}  // namespace dcukit::util
