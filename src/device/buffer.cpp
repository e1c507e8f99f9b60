#include "device/buffer.h"

#include <utility>

namespace dcukit::device {

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    reset();
    m_d = std::exchange(o.m_d, nullptr);
    m_kind = o.m_kind;
    m_p = std::exchange(o.m_p, nullptr);
    m_bytes = std::exchange(o.m_bytes, 0);
  }
  return *this;
}

void Buffer::reset() noexcept {
  if (m_d && m_p) m_d->release(m_kind, m_p);
  m_p = nullptr;
}

Result<Buffer> allocate(Device& d, MemKind kind, std::size_t bytes) {
  auto p = d.allocate(kind, bytes);
  if (!p) return p.error();
  return Buffer(&d, kind, *p, bytes);
}

}  // namespace dcukit::device
