// p2p's latency cases (nvbandwidth's device_to_device_latency_sm): a pointer chase by one thread
// of the destination through a random cycle laid out in the source's memory, one entry every
// 256 bytes over 64 MiB (16 MiB on the CPU) so that no cache line or prefetch serves two steps.
// The time a step, with the index it ends on checked against the same walk on the host.
#include "bench/p2p_latency.h"

#include <fmt/format.h>

#include <numeric>
#include <random>

#include "bench/benchmark.h"
#include "core/units.h"

namespace dcukit::bench {
namespace {

using device::MemKind;

constexpr std::size_t kStride = 64;  // uint32 entries between two chain entries: 256 bytes

/// A single random cycle over `entries` slots (Sattolo's algorithm), slot k at index k * kStride.
std::vector<std::uint32_t> make_chain(std::size_t entries, std::uint64_t seed) {
  std::vector<std::uint32_t> order(entries);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(seed);
  for (std::size_t i = entries - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(rng)]);
  std::vector<std::uint32_t> chain(entries * kStride, 0);
  for (std::size_t k = 0; k < entries; ++k)  // slot k points to the next slot of the cycle
    chain[k * kStride] = static_cast<std::uint32_t>(order[k] * kStride);
  return chain;
}

std::uint32_t walk(const std::vector<std::uint32_t>& chain, std::uint64_t steps) {
  std::uint32_t i = 0;
  for (std::uint64_t s = 0; s < steps; ++s) i = chain[i];
  return i;
}

Measurement latency_case(GroupContext& ctx, std::size_t s, std::size_t d, const std::vector<std::uint32_t>& chain,
                         const std::string& link) {
  Member& src = ctx.members[s];
  Member& dst = ctx.members[d];
  const int si = src.info->info.index, di = dst.info->info.index;
  Measurement m = new_case("p2p", fmt::format("latency {}->{}", si, di));
  m.params = {{"method", std::string("latency")}, {"src", static_cast<std::int64_t>(si)},
              {"dst", static_cast<std::int64_t>(di)}, {"link", link},
              {"bytes", static_cast<std::int64_t>(chain.size() * sizeof(std::uint32_t))}};
  m.rate_unit = RateUnit::microseconds;
  const std::uint64_t steps = ctx.on_cpu() ? 200000 : 20000;
  const std::size_t bytes = chain.size() * sizeof(std::uint32_t);
  auto buf = allocate(*src.device, MemKind::device, bytes);
  auto out = allocate(*dst.device, MemKind::device, 256);
  if (!buf || !out) return mark_failed(std::move(m), (!buf ? buf.error() : out.error()).message);
  if (auto st = src.device->copy(buf->get(), chain.data(), bytes, src.stream); !st) return mark_failed(std::move(m), st.message());
  if (auto st = src.device->synchronize(ctx.deadline.remaining()); !st) return mark_failed(std::move(m), st.message());
  const auto* c = static_cast<const std::uint32_t*>(buf->get());
  auto* o = static_cast<std::uint32_t*>(out->get());
  Context on = ctx.of(d);
  auto samples = time_with_events(on, 1, ctx.options.iterations > 0 ? ctx.options.iterations : 5,
                                  [&] { return dst.device->chase(c, steps, o, dst.stream); });
  if (!samples) return mark_failed(std::move(m), samples.error().message);
  std::uint32_t got = 0;
  if (auto st = dst.device->copy(&got, o, sizeof(got), dst.stream); !st) return mark_failed(std::move(m), st.message());
  if (auto st = dst.device->synchronize(ctx.deadline.remaining()); !st) return mark_failed(std::move(m), st.message());
  const std::uint32_t want = walk(chain, steps);
  if (got != want)
    return mark_failed(std::move(m), fmt::format("the chase ended on index {}, the walk on the host on {}", got, want));
  m.check = fmt::format("ended on index {} after {} steps, as the walk on the host", got, steps);
  m.samples_ms = *samples;
  finish(m, on, "");
  m.rate = m.time_ms.median * 1e3 / static_cast<double>(steps);  // us a step
  m.peak_note = "";
  return m;
}

}  // namespace

void run_latency(GroupContext& ctx, const std::vector<Readable>& pairs, std::vector<Measurement>& out) {
  const std::size_t entries = (ctx.on_cpu() ? 16 : 64) * core::kMiB / (kStride * sizeof(std::uint32_t));
  const auto chain = make_chain(entries, 0x6a09e667f3bcc908ULL);
  for (const auto& p : pairs) {
    if (ctx.stopped()) return;
    ctx.say(fmt::format("p2p latency {}->{} ...", ctx.members[p.src].info->info.index,
                        ctx.members[p.dst].info->info.index));
    out.push_back(latency_case(ctx, p.src, p.dst, chain, p.link));
  }
}

}  // namespace dcukit::bench
