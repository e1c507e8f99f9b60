#pragma once
// Device or pinned memory that frees itself: what bench's cases and doctor's smoke test hold, so
// that an early return or an error never leaks a device allocation.
#include <cstddef>

#include "device/backend.h"
#include "util/result.h"

namespace dcukit::device {

/// A buffer that frees itself (RAII over Device::allocate and Device::release).
class Buffer {
public:
  Buffer() = default;
  Buffer(Device* d, MemKind kind, void* p, std::size_t bytes) : m_d(d), m_kind(kind), m_p(p), m_bytes(bytes) {}
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { reset(); }
  void reset() noexcept;
  void* get() const { return m_p; }
  std::size_t size() const { return m_bytes; }
  template <class T>
  T* as() const {
    return static_cast<T*>(m_p);
  }

private:
  Device* m_d = nullptr;
  MemKind m_kind = MemKind::device;
  void* m_p = nullptr;
  std::size_t m_bytes = 0;
};

/// Allocates `bytes` of `kind` on `d`, or the device's error naming the size.
Result<Buffer> allocate(Device& d, MemKind kind, std::size_t bytes);

}  // namespace dcukit::device
