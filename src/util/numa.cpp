#include "util/numa.h"

#include <cstring>
#include <numa.h>
#include <utility>

namespace dcukit::util {

std::vector<int> numa_memory_nodes() {
  std::vector<int> nodes;
  if (numa_available() < 0) return nodes;
  for (int n = 0; n <= numa_max_node(); ++n) {
    long long free_bytes = 0;
    if (numa_node_size64(n, &free_bytes) > 0) nodes.push_back(n);
  }
  return nodes;
}

NumaBuffer::NumaBuffer(std::size_t bytes, int node) : m_bytes(bytes) {
  if (numa_available() < 0) return;
  m_p = numa_alloc_onnode(bytes, node);
  if (m_p) std::memset(m_p, 0, bytes);  // fault the pages in on that node now, not while timing
}

NumaBuffer::~NumaBuffer() {
  if (m_p) numa_free(m_p, m_bytes);
}

NumaBuffer::NumaBuffer(NumaBuffer&& o) noexcept : m_p(std::exchange(o.m_p, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}

NumaBuffer& NumaBuffer::operator=(NumaBuffer&& o) noexcept {
  if (this != &o) {
    if (m_p) numa_free(m_p, m_bytes);
    m_p = std::exchange(o.m_p, nullptr);
    m_bytes = std::exchange(o.m_bytes, 0);
  }
  return *this;
}

} // namespace dcukit::util
