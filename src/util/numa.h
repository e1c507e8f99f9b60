#pragma once
// NUMA placement through libnuma: which nodes have memory, and host buffers placed on a node
// (seed 004: a buffer on the wrong node costs 20-40% of host-to-device bandwidth).
#include <cstddef>
#include <vector>

namespace dcukit::util {

/// Nodes that have memory; empty when libnuma reports NUMA unavailable.
std::vector<int> numa_memory_nodes();

/// Memory placed on one node, faulted in, freed on destruction (RAII).
class NumaBuffer {
public:
  NumaBuffer() = default;
  /// Allocates `bytes` bound to `node` and touches every page; get() is null on failure.
  NumaBuffer(std::size_t bytes, int node);
  ~NumaBuffer();
  NumaBuffer(NumaBuffer&& o) noexcept;
  NumaBuffer& operator=(NumaBuffer&& o) noexcept;
  NumaBuffer(const NumaBuffer&) = delete;
  NumaBuffer& operator=(const NumaBuffer&) = delete;
  void* get() const { return m_p; }
  std::size_t size() const { return m_bytes; }

private:
  void* m_p = nullptr;
  std::size_t m_bytes = 0;
};

} // namespace dcukit::util
