#pragma once
// A log file that never grows without bound: appended to until it would pass max_bytes, then
// renamed to PATH.1 (PATH.1 to PATH.2, and so on, the oldest past `keep` removed) and started
// afresh, as logrotate's size rule does. Also keeps the last lines written in memory, so that a
// supervisor can show the tail of a crashed service's output without reading the files back.
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::util {

class RotatingFile {
public:
  /// path: the live file; max_bytes: its size limit (at least 1 KiB); keep: rotated files kept.
  RotatingFile(std::string path, std::uint64_t max_bytes, int keep, std::size_t tail_lines = 40);
  ~RotatingFile();
  RotatingFile(const RotatingFile&) = delete;
  RotatingFile& operator=(const RotatingFile&) = delete;

  /// Opens (appending to) the live file; the error names the path.
  Status open();
  /// Appends and flushes; rotates first when `data` would take the file past max_bytes.
  Status write(std::string_view data);
  /// Changes the limits; they apply from the next write.
  void set_limits(std::uint64_t max_bytes, int keep);
  /// The last lines written (the last, unfinished one included), oldest first.
  std::string tail() const;
  /// How many times the file has been rotated.
  std::uint64_t rotations() const { return m_rotations; }

private:
  Status rotate();
  void remember(std::string_view data);

  std::string m_path;
  std::uint64_t m_max;
  int m_keep;
  std::size_t m_tail_lines;
  std::FILE* m_file = nullptr;
  std::uint64_t m_size = 0;
  std::uint64_t m_rotations = 0;
  std::deque<std::string> m_tail;  ///< complete lines, then the one being written
};

}  // namespace dcukit::util
