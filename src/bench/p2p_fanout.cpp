// nvbandwidth's one_to_all and all_to_one copy-engine cases: one device writing to every other at
// once (a copy on each destination's stream), and every other device writing to one (a copy on
// each source's stream, into its own region of the destination). The total bytes over the time
// from the first enqueue to the last synchronize, each destination's data checked.
#include "bench/p2p_fanout.h"

#include <fmt/format.h>

#include "bench/benchmark.h"
#include "bench/pattern.h"
#include "core/units.h"

namespace dcukit::bench {
namespace {

using device::MemKind;

struct Copy {
  std::size_t from, to;  ///< members
  Buffer src, dst;
  std::uint64_t seed = 0;
};

/// One fan-out case: `copies` run together, each on the stream of `on(copy)`'s device.
Measurement fan_case(GroupContext& ctx, const char* method, std::size_t hub, std::vector<Copy>& copies,
                     std::uint64_t bytes, bool on_destination) {
  const int hub_index = ctx.members[hub].info->info.index;
  Measurement m = new_case("p2p", fmt::format("{} {}", method, hub_index));
  m.params = {{"method", std::string(method)},
              {on_destination ? "src" : "dst", static_cast<std::int64_t>(hub_index)},
              {"link", fmt::format("{} peers at once", copies.size())},
              {"bytes", static_cast<std::int64_t>(bytes)}};
  m.rate_unit = RateUnit::byte_per_s;
  m.work = static_cast<double>(bytes) * static_cast<double>(copies.size());
  const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 20;
  Context on_hub = ctx.of(hub);  // the host clock around every copy and every synchronize
  auto samples = time_with_host_clock(on_hub, 1, runs, [&]() -> Status {
    Status st;
    for (auto& c : copies) {
      Member& from = ctx.members[c.from];
      Member& to = ctx.members[c.to];
      const device::Stream stream = on_destination ? to.stream : from.stream;
      if (st) st = ctx.backend.copy_peer(*to.device, c.dst.get(), *from.device, c.src.get(), bytes, stream);
    }
    for (auto& c : copies)
      if (st) st = ctx.members[on_destination ? c.to : c.from].device->synchronize(ctx.deadline.remaining());
    return st;
  });
  if (!samples) return mark_failed(std::move(m), samples.error().message);
  m.samples_ms = *samples;
  for (auto& c : copies) {
    Member& to = ctx.members[c.to];
    std::string check;
    if (!check_device_pattern(*to.device, to.stream, c.dst.get(), bytes, c.seed, ctx.deadline.remaining(), check))
      return mark_failed(std::move(m), fmt::format("wrong data on device {} after the copy: {}",
                                                   to.info->info.index, check));
    m.check = check;
  }
  finish(m, on_hub, "");
  m.peak_note = "";
  return m;
}

/// The buffers and patterns of one fan-out: `hub` to every other member, or every other to it.
Result<std::vector<Copy>> prepare(GroupContext& ctx, std::size_t hub, std::uint64_t bytes, bool from_hub) {
  std::vector<Copy> copies;
  auto host = allocate(*ctx.members[hub].device, MemKind::pinned_host, bytes);
  if (!host) return host.error();
  for (std::size_t k = 0; k < ctx.members.size(); ++k) {
    if (k == hub) continue;
    Copy c{from_hub ? hub : k, from_hub ? k : hub, {}, {}, 0x243f6a8885a308d3ULL ^ (hub * 977 + k)};
    Member& from = ctx.members[c.from];
    auto src = allocate(*from.device, MemKind::device, bytes);
    auto dst = allocate(*ctx.members[c.to].device, MemKind::device, bytes);
    if (!src || !dst) return (!src ? src.error() : dst.error());
    c.src = std::move(*src);
    c.dst = std::move(*dst);
    fill_pattern(host->get(), bytes, c.seed);
    if (auto st = from.device->copy(c.src.get(), host->get(), bytes, from.stream); !st) return st.error();
    if (auto st = from.device->synchronize(ctx.deadline.remaining()); !st) return st.error();
    copies.push_back(std::move(c));
  }
  return copies;
}

}  // namespace

void run_fanout(GroupContext& ctx, std::uint64_t bytes, std::vector<Measurement>& out) {
  if (ctx.members.size() < 3) return;  // with two devices both are the pair's copies
  for (std::size_t hub = 0; hub < ctx.members.size(); ++hub)
    for (const bool from_hub : {true, false}) {
      if (ctx.stopped()) return;
      const char* method = from_hub ? "one to all" : "all to one";
      const int index = ctx.members[hub].info->info.index;
      ctx.say(fmt::format("p2p {} {} {} ...", method, index, core::format_bytes(bytes)));
      auto copies = prepare(ctx, hub, bytes, from_hub);
      if (!copies) {
        out.push_back(failed_case("p2p", fmt::format("{} {}", method, index), copies.error().message));
        continue;
      }
      out.push_back(fan_case(ctx, method, hub, *copies, bytes, from_hub));
    }
}

}  // namespace dcukit::bench
