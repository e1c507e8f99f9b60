#pragma once
// PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, default settings), as far
// as plan needs it: sizes rounded to 512 bytes; requests up to 1 MiB and larger ones in separate
// pools; a request served from the smallest cached free block of its pool that holds it, split
// when more than 1 MiB is left (large pool) or any is left (small pool); otherwise a new segment (2 MiB for
// requests up to 1 MiB, 20 MiB below 10 MiB, else the request rounded up to 2 MiB); a freed
// block merged with free neighbours of its segment; segments never given back. vLLM before
// 0.6.4 measured the memory outside the KV cache as free memory before and after its profiling
// run, so it counted what this allocator keeps reserved, not only its allocated peak.
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace dcukit::plan {

class CachingAllocator {
public:
  using Handle = std::size_t;

  /// Allocates `bytes`; the handle frees it.
  Handle malloc(std::uint64_t bytes);
  /// Frees a block malloc returned (once).
  void free(Handle h);

  std::uint64_t allocated() const { return m_allocated; }
  std::uint64_t peak() const { return m_peak; }
  /// The segments taken from the device: what the device's free memory sees.
  std::uint64_t reserved() const { return m_reserved; }

private:
  struct Block {
    std::uint64_t offset = 0, size = 0;
    bool used = false;
  };
  struct Where {
    std::size_t segment = 0;
    std::uint64_t offset = 0;
  };
  struct Segment {
    bool small = false;         ///< the pool of requests up to 1 MiB
    std::vector<Block> blocks;  ///< by offset
  };
  std::vector<Segment> m_segments;
  std::map<Handle, Where> m_live;
  Handle m_next = 1;
  std::uint64_t m_allocated = 0, m_peak = 0, m_reserved = 0;
};

}  // namespace dcukit::plan
