#include "device/checked_gemm.h"

#include <fmt/format.h>

#include <cstring>

#include "device/gemm_data.h"

namespace dcukit::device {

Result<CheckedGemm> CheckedGemm::make(Device& d, Stream stream, Precision p, int n, std::uint64_t seed_a,
                                      std::uint64_t seed_b, std::chrono::milliseconds timeout) {
  if (auto why = d.gemm_unsupported(p); !why.empty()) return Error{fmt::format("{} GEMM: {}", to_string(p), why)};
  CheckedGemm g;
  g.m_d = &d;
  g.m_stream = stream;
  g.m_p = p;
  g.m_n = n;
  g.m_seed_a = seed_a;
  g.m_seed_b = seed_b;
  const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t in_bytes = elems * input_size(p), out_bytes = elems * output_size(p);
  std::vector<char> host(std::max(in_bytes, out_bytes));
  for (auto [buf, seed] : {std::pair{&g.m_a, seed_a}, {&g.m_b, seed_b}}) {
    auto r = allocate(d, MemKind::device, in_bytes);
    if (!r) return r.error();
    *buf = std::move(*r);
    generate(p, seed, elems, host.data());
    if (Status s = d.copy(buf->get(), host.data(), in_bytes, stream); !s) return s.error();
    if (Status s = d.synchronize(timeout); !s) return s.error();  // `host` is reused for the next
  }
  auto c = allocate(d, MemKind::device, out_bytes);
  if (!c) return c.error();
  g.m_c = std::move(*c);
  std::memset(host.data(), 0xFF, out_bytes);  // poison: NaN in every float format, -1 in int32
  if (Status s = d.copy(g.m_c.get(), host.data(), out_bytes, stream); !s) return s.error();
  if (Status s = d.synchronize(timeout); !s) return s.error();
  return g;
}

Status CheckedGemm::enqueue() {
  return m_d->gemm({m_p, m_n, m_n, m_n, m_a.get(), m_b.get(), m_c.get()}, m_stream);
}

Result<std::vector<char>> CheckedGemm::read(std::chrono::milliseconds timeout) {
  std::vector<char> out(m_c.size());
  if (Status s = m_d->copy(out.data(), m_c.get(), out.size(), m_stream); !s) return s.error();
  if (Status s = m_d->synchronize(timeout); !s) return s.error();
  return out;
}

Result<GemmCheck> CheckedGemm::check(std::chrono::milliseconds timeout) {
  auto c = read(timeout);
  if (!c) return c.error();
  return check_gemm(m_p, m_n, m_seed_a, m_seed_b, c->data());
}

}  // namespace dcukit::device
