// hbm: STREAM triads over three arrays (BabelStream's kernel), timed and read back; memtest: bit
// patterns and their complements written over most of the free memory and every word read back.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/units.h"
#include "device/buffer.h"
#include "stress/checks.h"
#include "stress/timing.h"

namespace dcukit::stress {
namespace {

using device::MemKind;
using device::Precision;

CheckResult failed_check(CheckKind kind, double seconds, const std::string& what, const std::string& why) {
  CheckResult c;
  c.kind = kind;
  c.verdict = Verdict::fail;
  c.action = Action::investigate;
  c.summary = what + ": " + why;
  c.evidence.push_back(c.summary);
  c.seconds = seconds;
  return c;
}

/// Two host buffers of `bytes` each, pinned where the device gives pinned memory.
struct HostSlices {
  std::size_t bytes = 0;
  device::Buffer pinned[2];
  std::vector<std::uint64_t> pageable[2];
  void* at(int k) { return pinned[k].get() ? pinned[k].get() : static_cast<void*>(pageable[k].data()); }
  static HostSlices make(device::Device& dev, std::size_t bytes) {
    HostSlices h;
    h.bytes = bytes;
    for (int k = 0; k < 2; ++k)
      if (auto b = device::allocate(dev, MemKind::pinned_host, bytes)) h.pinned[k] = std::move(*b);
    if (!h.pinned[0].get() || !h.pinned[1].get())
      for (int k = 0; k < 2; ++k) h.pinned[k] = {}, h.pageable[k].resize(bytes / 8);
    return h;
  }
};

/// Words of `slice` that are not `word` (a loop the compiler vectorises); `first` gets the
/// first bad one's offset, `base` added, where there is one and none was found before.
std::int64_t bad_in(const std::uint64_t* slice, std::size_t n, std::uint64_t word, std::size_t base,
                    std::optional<std::size_t>& first) {
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += slice[i] != word;
  if (bad > 0 && !first)
    first = base + 8 * static_cast<std::size_t>(
                           std::find_if(slice, slice + n, [&](std::uint64_t v) { return v != word; }) - slice);
  return bad;
}

/// Reads `bytes` of device memory at `src` back and counts the 8-byte words that are not
/// `word`; `first` gets the first bad word's byte offset. Two host slices take turns: the next
/// slice's copy runs while this one is counted (pinned host memory; pageable on a device
/// without it, where each copy completes before it returns).
Result<std::int64_t> count_bad_words(DeviceRun& r, const void* src, std::size_t bytes, std::uint64_t word,
                                     HostSlices& host, std::optional<std::size_t>& first) {
  std::int64_t bad = 0;
  const std::size_t slice = host.bytes;
  const auto enqueue = [&](std::size_t off, int k) -> Status {
    return r.dev.copy(host.at(k), static_cast<const char*>(src) + off, std::min(slice, bytes - off), r.stream);
  };
  if (Status s = enqueue(0, 0); !s) return s.error();
  int k = 0;
  for (std::size_t off = 0; off < bytes; off += slice, k ^= 1) {
    if (Status s = r.dev.synchronize(r.call_timeout); !s) return s.error();  // slice k has arrived
    if (off + slice < bytes)
      if (Status s = enqueue(off + slice, k ^ 1); !s) return s.error();
    const std::size_t n = std::min(slice, bytes - off) / 8;
    bad += bad_in(static_cast<const std::uint64_t*>(host.at(k)), n, word, off, first);
  }
  return bad;
}

double bits_as_double(std::uint64_t bits) {
  double d = 0;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace

CheckResult check_hbm(DeviceRun& r, std::chrono::milliseconds time) {
  const double t0 = r.now_s();
  std::size_t bytes = r.on_cpu ? (64u << 20) : (1u << 30);
  if (auto mem = r.dev.memory_info()) bytes = std::min<std::size_t>(bytes, mem->free / 8);
  const std::size_t n = bytes / 8;
  r.progress(fmt::format("hbm triad over 3 x {}", core::format_bytes(bytes)));
  device::Buffer arrays[3];
  for (auto& a : arrays) {
    auto got = device::allocate(r.dev, MemKind::device, bytes);
    if (!got) return failed_check(CheckKind::hbm, r.now_s() - t0, "allocate", got.error().message);
    a = std::move(*got);
  }
  constexpr double kScalar = 0.4;  // BabelStream's
  Status s = r.dev.fill(Precision::fp64, arrays[0].get(), 0.0, n, r.stream);
  if (s) s = r.dev.fill(Precision::fp64, arrays[1].get(), 1.0, n, r.stream);
  if (s) s = r.dev.fill(Precision::fp64, arrays[2].get(), 2.0, n, r.stream);
  if (!s) return failed_check(CheckKind::hbm, r.now_s() - t0, "filling the arrays", s.message());
  const auto triad = [&] {
    return r.dev.stream_op(device::StreamOp::triad, Precision::fp64, arrays[0].get(), arrays[1].get(), arrays[2].get(),
                           kScalar, n, r.stream);
  };
  CheckResult c;
  c.kind = CheckKind::hbm;
  c.unit = "B/s";
  Status error;
  const int batch = calibrate(r, triad, 250, error);
  if (batch == 0) return failed_check(CheckKind::hbm, r.now_s() - t0, "timing the triad", error.message());
  while (r.now_s() - t0 < time.count() / 1e3 && !r.stopped()) {
    auto ms = timed_ms(r, batch, triad);
    if (!ms) return failed_check(CheckKind::hbm, r.now_s() - t0, "a triad batch", ms.error().message);
    c.series.push_back({r.now_s(), batch * 3.0 * static_cast<double>(bytes) / (*ms / 1e3)});
  }
  // a = b + s·c with b = 1, c = 2 everywhere: every word of a is 1 + 0.4·2.
  const double want = 1.0 + kScalar * 2.0;
  std::uint64_t word = 0;
  std::memcpy(&word, &want, sizeof word);
  HostSlices host = HostSlices::make(r.dev, std::min<std::size_t>(n * 8, 32u << 20));
  std::optional<std::size_t> first;
  auto bad = count_bad_words(r, arrays[0].get(), bytes, word, host, first);
  if (!bad) return failed_check(CheckKind::hbm, r.now_s() - t0, "reading the result back", bad.error().message);
  c.errors = *bad;
  c.seconds = r.now_s() - t0;
  c.rate = sustained(c.series, std::min(2.0, c.seconds / 4));
  c.summary = fmt::format("triad fp64 over 3 x {}: {} sustained over {:.0f} s", core::format_bytes(bytes),
                          c.rate ? rate_text(*c.rate, c.unit) : "-", c.seconds);
  judge_rate(c, r.sku ? r.sku->hbm : std::nullopt, "sustained triad");
  if (c.errors > 0) {
    c.verdict = Verdict::fail;
    c.action = Action::drain_and_replace;
    c.evidence.push_back(
        fmt::format("{} of the result wrong, the first at byte {}", counted(c.errors, "word", "words"), *first));
    c.summary = fmt::format("{} after the triads: the device's memory or arithmetic is wrong",
                            counted(c.errors, "wrong word", "wrong words"));
  }
  return c;
}

CheckResult check_memtest(DeviceRun& r, std::chrono::milliseconds time) {
  const double t0 = r.now_s();
  const std::size_t chunk = r.on_cpu ? (16u << 20) : (256u << 20);
  std::size_t target = r.on_cpu ? (256u << 20) : 0;
  if (auto mem = r.dev.memory_info())
    target = r.on_cpu ? std::min<std::size_t>(target, mem->free / 4)
                      : static_cast<std::size_t>(0.9 * static_cast<double>(mem->free));
  std::vector<device::Buffer> chunks;
  while ((chunks.size() + 1) * chunk <= target) {
    auto got = device::allocate(r.dev, MemKind::device, chunk);
    if (!got) break;  // what the device would give is tested
    chunks.push_back(std::move(*got));
  }
  if (chunks.empty())
    return failed_check(CheckKind::memtest, r.now_s() - t0, "allocate", "no memory could be allocated");
  const std::size_t total = chunks.size() * chunk;
  r.progress(fmt::format("memtest over {}", core::format_bytes(total)));
  // Alternating bits, nibbles and bytes, each with its complement, so that every bit is written
  // 0 and 1 (none of them a NaN, which a copy could quieten).
  static constexpr std::uint64_t kPatterns[] = {0x0000000000000000ull, 0x5555555555555555ull, 0xAAAAAAAAAAAAAAAAull,
                                                0x3333333333333333ull, 0xCCCCCCCCCCCCCCCCull, 0x0F0F0F0F0F0F0F0Full,
                                                0xF0F0F0F0F0F0F0F0ull, 0x00FF00FF00FF00FFull, 0x7F00FF00FF00FF00ull};
  CheckResult c;
  c.kind = CheckKind::memtest;
  c.unit = "B/s";
  HostSlices host = HostSlices::make(r.dev, r.on_cpu ? (8u << 20) : (64u << 20));
  std::string first_bad;
  int passes = 0;
  std::size_t checked = 0;
  for (std::size_t k = 0; r.now_s() - t0 < time.count() / 1e3 && !r.stopped(); ++k) {
    const std::uint64_t word = kPatterns[k % std::size(kPatterns)];
    const double begun = r.now_s();
    for (auto& b : chunks)
      if (Status s = r.dev.fill(Precision::fp64, b.get(), bits_as_double(word), chunk / 8, r.stream); !s)
        return failed_check(CheckKind::memtest, r.now_s() - t0, "writing a pattern", s.message());
    for (std::size_t i = 0; i < chunks.size() && !r.stopped(); ++i) {
      std::optional<std::size_t> first;
      auto bad = count_bad_words(r, chunks[i].get(), chunk, word, host, first);
      if (!bad) return failed_check(CheckKind::memtest, r.now_s() - t0, "reading a pattern back", bad.error().message);
      if (*bad > 0 && first_bad.empty())
        first_bad = fmt::format("pattern {:016x}: {} in chunk {}, the first at byte {} of it", word,
                                counted(*bad, "bad word", "bad words"), i, *first);
      c.errors += *bad;
      checked += chunk;
    }
    c.series.push_back({r.now_s(), 2.0 * static_cast<double>(total) / std::max(1e-9, r.now_s() - begun)});
    ++passes;
  }
  c.seconds = r.now_s() - t0;
  c.rate = sustained(c.series, 0);
  c.reference = "every word read back";
  c.summary = fmt::format("{} patterns over {} ({} chunks), {} read back", passes, core::format_bytes(total),
                          chunks.size(), core::format_bytes(checked));
  if (c.errors > 0) {
    c.verdict = Verdict::fail;
    c.action = Action::drain_and_replace;
    c.evidence.push_back(first_bad);
    c.summary =
        fmt::format("{} back wrong: the device's memory is faulty", counted(c.errors, "word read", "words read"));
  }
  return c;
}

}  // namespace dcukit::stress
