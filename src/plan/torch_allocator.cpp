#include "plan/torch_allocator.h"

namespace dcukit::plan {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;

std::uint64_t round_up(std::uint64_t n, std::uint64_t to) {
  return (n + to - 1) / to * to;
}

std::uint64_t segment_size(std::uint64_t n) {
  if (n <= kMiB) return 2 * kMiB;
  if (n < 10 * kMiB) return 20 * kMiB;
  return round_up(n, 2 * kMiB);
}

}  // namespace

CachingAllocator::Handle CachingAllocator::malloc(std::uint64_t bytes) {
  const std::uint64_t n = round_up(bytes == 0 ? 1 : bytes, 512);
  const bool small = n <= kMiB;
  std::size_t seg = m_segments.size(), index = 0;
  for (std::size_t s = 0; s < m_segments.size(); ++s) {
    if (m_segments[s].small != small) continue;
    for (std::size_t i = 0; i < m_segments[s].blocks.size(); ++i) {
      const Block& b = m_segments[s].blocks[i];
      if (!b.used && b.size >= n && (seg == m_segments.size() || b.size < m_segments[seg].blocks[index].size)) {
        seg = s;
        index = i;
      }
    }
  }
  if (seg == m_segments.size()) {
    const std::uint64_t size = segment_size(n);
    m_segments.push_back({small, {Block{0, size, false}}});
    m_reserved += size;
    index = 0;
  }
  auto& blocks = m_segments[seg].blocks;
  Block& b = blocks[index];
  b.used = true;
  if (b.size - n > (small ? 0 : kMiB)) {  // split: the rest stays cached
    const Block rest{b.offset + n, b.size - n, false};
    b.size = n;
    blocks.insert(blocks.begin() + static_cast<std::ptrdiff_t>(index) + 1, rest);
  }
  const Block& used = blocks[index];
  m_allocated += used.size;
  if (m_allocated > m_peak) m_peak = m_allocated;
  m_live[m_next] = {seg, used.offset};
  return m_next++;
}

void CachingAllocator::free(Handle h) {
  const auto it = m_live.find(h);
  if (it == m_live.end()) return;
  auto& blocks = m_segments[it->second.segment].blocks;
  std::size_t i = 0;
  while (i < blocks.size() && blocks[i].offset != it->second.offset) ++i;
  m_live.erase(it);
  if (i == blocks.size()) return;
  blocks[i].used = false;
  m_allocated -= blocks[i].size;
  if (i + 1 < blocks.size() && !blocks[i + 1].used) {
    blocks[i].size += blocks[i + 1].size;
    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
  if (i > 0 && !blocks[i - 1].used) {
    blocks[i - 1].size += blocks[i].size;
    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace dcukit::plan
