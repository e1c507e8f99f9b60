// The host/device transfer benchmark (a transfer is a copy between host and device memory): H2D and D2H from pageable
// and pinned memory, both directions at once, and, on a host with several NUMA nodes, pinned buffers on each node.
// Rates are compared with the PCIe link's theoretical rate per direction.
#include <fmt/format.h>

#include <cstring>

#include "bench/benchmark.h"
#include "bench/pattern.h"
#include "core/units.h"
#include "util/names.h"
#include "util/numa.h"

namespace dcukit::bench {
namespace {

using device::MemKind;

enum class Direction { h2d, d2h, both };

constexpr util::Name<Direction> kDirectionNames[] = {
    {Direction::h2d, "H2D"}, {Direction::d2h, "D2H"}, {Direction::both, "H2D+D2H"}};

std::string to_string(Direction d) {
  return std::string(util::name_of(kDirectionNames, d));
}

/// Host memory of a transfer: plain malloc, or page-locked for DMA.
enum class HostMemory { pageable, pinned };

constexpr util::Name<HostMemory> kHostMemoryNames[] = {{HostMemory::pageable, "pageable"},
                                                       {HostMemory::pinned, "pinned"}};

std::string to_string(HostMemory h) {
  return std::string(util::name_of(kHostMemoryNames, h));
}

std::vector<std::uint64_t> transfer_default_sizes(const Context& ctx) {
  if (ctx.on_cpu()) return {64 * core::kMiB};
  if (ctx.options.suite == Suite::full) return {64 * core::kMiB, 256 * core::kMiB, core::kGiB};
  return {64 * core::kMiB, core::kGiB};
}

// The link's rate per direction and, when it is not sysfs's, why.
double link_rate(const Context& ctx, std::string& note) {
  if (auto it = ctx.options.peak_overrides.find("pcie"); it != ctx.options.peak_overrides.end()) return it->second;
  const auto& d = ctx.info;
  if (d.pcie_gen > 0 && d.pcie_width > 0) return core::pcie_bytes_per_second(d.pcie_gen, d.pcie_width);
  if (ctx.spec && ctx.spec->pcie_gen > 0) {
    note = fmt::format("sysfs shows no PCIe link for this device: compared with the published Gen{} x{}",
                       ctx.spec->pcie_gen, ctx.spec->pcie_width);
    return core::pcie_bytes_per_second(ctx.spec->pcie_gen, ctx.spec->pcie_width);
  }
  note = "PCIe link unknown: pass --peak pcie=BYTES_PER_S for a percentage";
  return 0;
}

class TransferBenchmark final : public Benchmark {
public:
  std::string key() const override { return "transfer"; }
  std::string description() const override {
    return "host/device copies: pageable, pinned, per NUMA node, both directions";
  }

  void run(Context& ctx, std::vector<Measurement>& out) override {
    const auto sizes = ctx.options.transfer_sizes.empty() ? transfer_default_sizes(ctx) : ctx.options.transfer_sizes;
    const auto nodes = util::numa_memory_nodes();
    for (auto size : sizes) {
      if (ctx.stopped()) return;
      ctx.say(fmt::format("transfer {} ...", core::format_bytes(size)));
      if (auto mem = ctx.device.memory_info(); mem && 2 * size > mem->free) {
        out.push_back(failed_case(
            "transfer", core::format_bytes(size),
            fmt::format("--transfer-sizes {} needs {} of device memory; the device has {} free",
                        core::format_bytes(size), core::format_bytes(2 * size), core::format_bytes(mem->free))));
        continue;
      }
      run_size(ctx, size, nodes, out);
    }
  }

  TableSpec table() const override {
    const ColumnSpec node{"node", core::Align::right, [](const Measurement& m) {
                            const auto n = m.integer("numa_node");
                            return n && *n >= 0 ? std::to_string(*n) : std::string("-");
                          }};
    return {"Host/device transfers",
            {text_column("direction", "direction", true), text_column("memory", "memory"), node,
             bytes_column("size", "bytes"), time_column("median ms", &core::Summary::median), rate_column("GB/s", 1e9),
             percent_column("% link"), placement_column(), status_column()},
            {"H2D+D2H runs both directions at once and counts both; % link compares with the PCIe rate per direction "
             "(x2 for both)."}};
  }

private:
  struct Host {
    void* p = nullptr;
    HostMemory memory = HostMemory::pageable;
    int node = -1;
  };

  void run_size(Context& ctx, std::uint64_t size, const std::vector<int>& nodes, std::vector<Measurement>& out) {
    auto& b = ctx.device;
    auto d0 = allocate(b, MemKind::device, size), d1 = allocate(b, MemKind::device, size);
    if (!d0 || !d1) {
      out.push_back(failed_case("transfer", core::format_bytes(size), (!d0 ? d0.error() : d1.error()).message));
      return;
    }
    // Pageable and pinned buffers; on a multi-node host, one pinned pair per node.
    auto pageable_src = allocate(b, MemKind::pageable_host, size),
         pageable_dst = allocate(b, MemKind::pageable_host, size);
    if (pageable_src && pageable_dst)
      run_pair(ctx, size, {pageable_src->get(), HostMemory::pageable}, {pageable_dst->get(), HostMemory::pageable}, *d0,
               *d1, out);
    else
      out.push_back(failed_case("transfer", "pageable " + core::format_bytes(size),
                                (!pageable_src ? pageable_src.error() : pageable_dst.error()).message));
    if (nodes.size() > 1) {
      for (int node : nodes) run_numa(ctx, size, node, *d0, *d1, out);
    } else {
      auto src = allocate(b, MemKind::pinned_host, size), dst = allocate(b, MemKind::pinned_host, size);
      if (src && dst)
        run_pair(ctx, size, {src->get(), HostMemory::pinned}, {dst->get(), HostMemory::pinned}, *d0, *d1, out);
      else
        out.push_back(
            failed_case("transfer", "pinned " + core::format_bytes(size), (!src ? src.error() : dst.error()).message));
    }
  }

  void run_numa(Context& ctx, std::uint64_t size, int node, Buffer& d0, Buffer& d1, std::vector<Measurement>& out) {
    util::NumaBuffer src(size, node), dst(size, node);
    const std::string name = fmt::format("pinned node {} {}", node, core::format_bytes(size));
    if (!src.get() || !dst.get()) {
      out.push_back(failed_case("transfer", name,
                                fmt::format("could not place {} on NUMA node {}", core::format_bytes(size), node)));
      return;
    }
    auto& b = ctx.device;
    if (auto st = b.pin(src.get(), size); !st) return out.push_back(failed_case("transfer", name, st.message()));
    if (auto st = b.pin(dst.get(), size); !st) {
      (void)b.unpin(src.get());
      return out.push_back(failed_case("transfer", name, st.message()));
    }
    run_pair(ctx, size, {src.get(), HostMemory::pinned, node}, {dst.get(), HostMemory::pinned, node}, d0, d1, out);
    (void)b.unpin(src.get());
    (void)b.unpin(dst.get());
  }

  void run_pair(Context& ctx, std::uint64_t size, Host src, Host dst, Buffer& d0, Buffer& d1,
                std::vector<Measurement>& out) {
    fill_pattern(src.p, size, 7);
    std::memset(dst.p, 0, size);
    for (auto dir : {Direction::h2d, Direction::d2h, Direction::both}) {
      if (ctx.stopped()) return;
      out.push_back(run_case(ctx, size, dir, src, dst, d0, d1));
    }
  }

  Measurement run_case(Context& ctx, std::uint64_t size, Direction dir, const Host& src, const Host& dst, Buffer& d0,
                       Buffer& d1) {
    auto& b = ctx.device;
    const std::string node = src.node >= 0 ? fmt::format(" node {}", src.node) : "";
    Measurement m = new_case(
        "transfer", fmt::format("{} {}{} {}", to_string(dir), to_string(src.memory), node, core::format_bytes(size)));
    m.params = {{"direction", to_string(dir)},
                {"memory", to_string(src.memory)},
                {"bytes", size},
                {"numa_node", src.node},
                {"device_numa_node", ctx.info.numa_node}};
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 20;
    const int warmup = ctx.options.warmup > 0 ? ctx.options.warmup : 2;
    // d1 holds the pattern for D2H: load it once through a plain copy.
    if (auto st = b.copy(d1.get(), src.p, size, ctx.stream); !st) return mark_failed(m, st.message());
    std::function<Status()> enqueue;
    if (dir == Direction::h2d) enqueue = [&] { return b.copy(d0.get(), src.p, size, ctx.stream); };
    if (dir == Direction::d2h) enqueue = [&] { return b.copy(dst.p, d1.get(), size, ctx.stream); };
    if (dir == Direction::both)
      enqueue = [&]() -> Status {
        if (auto st = b.copy(d0.get(), src.p, size, ctx.stream); !st) return st;
        return b.copy(dst.p, d1.get(), size, ctx.second);
      };
    // Events bracket one stream's pinned copies; pageable copies and two streams need the host clock.
    const bool events = src.memory == HostMemory::pinned && dir != Direction::both;
    m.params.emplace_back("timer", events ? "device events" : "host clock");
    auto samples =
        events ? time_with_events(ctx, warmup, runs, enqueue) : time_with_host_clock(ctx, warmup, runs, enqueue);
    if (!samples) return mark_failed(m, samples.error().message);
    m.samples_ms = std::move(*samples);
    std::string check;
    bool ok = true;
    if (dir != Direction::d2h)
      ok = check_device_pattern(b, ctx.stream, d0.get(), size, 7, ctx.deadline.remaining(), check);
    if (ok && dir != Direction::h2d) ok = check_host_pattern(dst.p, size, 7, check);
    m.check = check;
    if (!ok) return mark_failed(m, "wrong result: " + check);
    m.work = static_cast<double>(size) * (dir == Direction::both ? 2 : 1);
    m.rate_unit = RateUnit::byte_per_s;
    std::string note;
    const double link = link_rate(ctx, note) * (dir == Direction::both ? 2 : 1);
    finish(m, ctx, "pcie", link);
    if (!note.empty()) m.peak_note = note;
    if (link <= 0) m.peak.reset();
    return m;
  }
};

}  // namespace

std::unique_ptr<Benchmark> make_transfer_benchmark() {
  return std::make_unique<TransferBenchmark>();
}

}  // namespace dcukit::bench
