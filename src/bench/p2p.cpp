// The peer benchmark (nvbandwidth's device-to-device testcases): for every ordered pair of the
// chosen devices, a copy-engine copy (the runtime's peer memcpy, enqueued on the source), the
// same both ways at once, and a kernel on the destination reading the source's memory (only
// where peer access is on). Each copy is checked against a pattern before its time counts.
// A pair without peer access says why; the diagonal is the device copying within itself.
#include <fmt/format.h>

#include <algorithm>

#include "bench/benchmark.h"
#include "bench/group.h"
#include "bench/p2p_fanout.h"
#include "bench/p2p_latency.h"
#include "bench/pattern.h"
#include "core/units.h"
#include "telemetry/links.h"

namespace dcukit::bench {
namespace {

using device::MemKind;

constexpr const char* kKey = "p2p";

std::uint64_t p2p_bytes(const GroupContext& ctx) {
  if (ctx.options.p2p_bytes > 0) return ctx.options.p2p_bytes;
  return ctx.on_cpu() ? 16 * core::kMiB : 256 * core::kMiB;
}

struct Pair {
  std::size_t src, dst;
  Buffer src_buf, dst_buf, back_buf;  ///< back_buf: on src, for the reverse copy of bidirectional runs
  bool peer = false;
  std::string link;  ///< "peer access", "no peer access: ...", "same device"
};

class P2pBenchmark final : public GroupBenchmark {
public:
  std::string key() const override { return kKey; }
  std::string description() const override {
    return "device-to-device copies for every ordered pair: copy engine one way and both ways, kernel reads";
  }

  std::string applies(const GroupContext& ctx) const override {
    if (ctx.world)
      return "peer copies need every device in one process: run p2p without mpirun (one process drives every "
             "device of a host)";
    return {};
  }

  void run(GroupContext& ctx, std::vector<Measurement>& out) override {
    const std::uint64_t bytes = p2p_bytes(ctx);
    const std::size_t n = ctx.members.size();
    std::vector<Readable> readable;  // pairs whose destination can read the source: latency cases
    if (ctx.options.links.empty() && n > 1) {  // no --topology: the links as NVML or KFD sees them now
      m_live = telemetry::live_links();
      for (const auto& w : m_live.warnings) ctx.say(w);
    }
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d) {
        if (ctx.stopped()) return;
        run_pair(ctx, s, d, bytes, out, readable);
      }
    run_fanout(ctx, bytes, out);
    run_latency(ctx, readable, out);
  }

  TableSpec table() const override {
    TableSpec t{"Device-to-device copies (peer)",
            {text_column("method", "method"), integer_column("src", "src"), integer_column("dst", "dst"),
             text_column("link", "link"), bytes_column("size", "bytes"),
             time_column("median ms", &core::Summary::median),
             {"GB/s (latency: us)", core::Align::right,
              [](const Measurement& m) {
                if (m.outcome != Outcome::ok) return std::string("-");
                return m.rate_unit == RateUnit::microseconds ? fmt::format("{:.3f} us", m.rate)
                                                             : fmt::format("{:.1f}", m.rate / 1e9);
              }},
             status_column()},
            {"ce: the runtime's peer copy, enqueued on the source; ce bidir: both directions at once, both counted; "
             "kernel read: a copy kernel on dst reading src's memory (needs peer access). src = dst: the device "
             "copying within its own memory. one to all / all to one (3 devices or more): one device's copies to "
             "every other at once, or every other's to it; GB/s is the total. latency: one thread of dst chasing "
             "pointers through src's memory, microseconds a step (lower is better)."}};
    t.more = matrices;
    return t;
  }

  /// nvbandwidth's layout: one matrix of GB/s a method, a row a source, a column a destination;
  /// "-" where the case did not run, "failed" where it did not pass.
  static std::vector<core::Table> matrices(const std::vector<const Measurement*>& ms) {
    std::vector<core::Table> out;
    std::vector<std::int64_t> ids;
    for (const auto* m : ms)
      for (const char* k : {"src", "dst"})
        if (const auto v = m->integer(k); v && std::find(ids.begin(), ids.end(), *v) == ids.end()) ids.push_back(*v);
    std::sort(ids.begin(), ids.end());
    for (const char* method : {"ce", "ce bidir", "kernel read", "latency"}) {
      const bool latency = std::string_view(method) == "latency";
      core::Table t;
      t.title = fmt::format("{} {} (row: src, column: dst)", method, latency ? "us a step" : "GB/s");
      t.columns.push_back({"src\\dst", core::Align::right});
      for (auto id : ids) t.columns.push_back({std::to_string(id), core::Align::right});
      bool any = false;
      for (auto src : ids) {
        std::vector<std::string> row{std::to_string(src)};
        for (auto dst : ids) {
          std::string cell = "-";
          for (const auto* m : ms)
            if (m->text("method") == method && m->integer("src") == src && m->integer("dst") == dst) {
              cell = m->outcome != Outcome::ok ? std::string(to_string(m->outcome))
                     : latency                 ? fmt::format("{:.3f}", m->rate)
                                               : fmt::format("{:.1f}", m->rate / 1e9);
              any = true;
            }
          row.push_back(cell);
        }
        t.add_row(std::move(row));
      }
      if (any) out.push_back(std::move(t));
    }
    return out;
  }

private:
  telemetry::LinkReading m_live;  ///< this host's links, read once a run

  static Measurement new_pair_case(const Pair& p, const GroupContext& ctx, const char* method, std::uint64_t bytes) {
    Measurement m = new_case(kKey, fmt::format("{} {}->{}", method, ctx.members[p.src].info->info.index,
                                               ctx.members[p.dst].info->info.index));
    m.params = {{"method", method},
                {"src", ctx.members[p.src].info->info.index},
                {"dst", ctx.members[p.dst].info->info.index},
                {"link", p.link},
                {"bytes", bytes}};
    m.rate_unit = RateUnit::byte_per_s;
    m.work = static_cast<double>(bytes);
    return m;
  }

  void run_pair(GroupContext& ctx, std::size_t s, std::size_t d, std::uint64_t bytes, std::vector<Measurement>& out,
                std::vector<Readable>& readable) {
    Member& src = ctx.members[s];
    Member& dst = ctx.members[d];
    Pair p{s, d, {}, {}, {}, false, "same device"};
    const std::string where = fmt::format("{}->{}", src.info->info.index, dst.info->info.index);
    if (s != d) {
      auto can = ctx.backend.can_access_peer(*dst.device, *src.device);
      if (!can) {
        p.link = "peer access unknown: " + can.error().message;
      } else if (!*can) {
        p.link = "no peer access (the runtime says the pair cannot reach each other's memory): copies go through the host";
      } else if (auto st = ctx.backend.enable_peer_access(*dst.device, *src.device); !st) {
        p.link = "peer access could not be enabled: " + st.message();
      } else {
        p.peer = true;
        p.link = "peer access";
        if (auto st = ctx.backend.enable_peer_access(*src.device, *dst.device); !st) p.peer = false;
      }
      const int a = std::min(src.info->info.index, dst.info->info.index), b = std::max(src.info->info.index, dst.info->info.index);
      if (auto it = ctx.options.links.find({a, b}); it != ctx.options.links.end())
        p.link += fmt::format("; {} (--topology)", it->second);
      else if (const auto* l = telemetry::find_link(m_live.topology, src.info->info.pci_bus_id, dst.info->info.pci_bus_id))
        p.link += "; " + telemetry::describe(*l);
    }
    if (p.peer || s == d) readable.push_back({s, d, p.link});
    auto a = allocate(*src.device, MemKind::device, bytes), b = allocate(*dst.device, MemKind::device, bytes),
         c = allocate(*src.device, MemKind::device, bytes);
    auto host = allocate(*src.device, MemKind::pinned_host, bytes);
    if (!a || !b || !c || !host) {
      const auto& e = !a ? a.error() : !b ? b.error() : !c ? c.error() : host.error();
      out.push_back(failed_case(kKey, where, fmt::format("{} buffers of {}: {}", where, core::format_bytes(bytes), e.message)));
      return;
    }
    p.src_buf = std::move(*a);
    p.dst_buf = std::move(*b);
    p.back_buf = std::move(*c);
    const std::uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (s * 131 + d);
    fill_pattern(host->get(), bytes, seed);
    if (auto st = src.device->copy(p.src_buf.get(), host->get(), bytes, src.stream); !st)
      return out.push_back(failed_case(kKey, where, st.message()));
    if (auto st = src.device->synchronize(ctx.deadline.remaining()); !st)
      return out.push_back(failed_case(kKey, where, st.message()));
    ctx.say(fmt::format("p2p {} {} ...", where, core::format_bytes(bytes)));
    out.push_back(copy_engine(ctx, p, bytes, seed));
    if (s != d) out.push_back(bidirectional(ctx, p, bytes, seed));
    if (p.peer || s == d) out.push_back(kernel_read(ctx, p, bytes, seed));
  }

  // A case's result once its samples are taken: member `on`'s copy read back against the pattern.
  Measurement checked(GroupContext& ctx, Measurement m, std::size_t on, const void* data, std::uint64_t bytes,
                      std::uint64_t seed, const Result<std::vector<double>>& samples) {
    if (!samples) return mark_failed(std::move(m), samples.error().message);
    m.samples_ms = *samples;
    Member& member = ctx.members[on];
    if (!check_device_pattern(*member.device, member.stream, data, bytes, seed, ctx.deadline.remaining(), m.check))
      return mark_failed(std::move(m), "wrong data after the copy: " + m.check);
    Context c = ctx.of(on);
    finish(m, c, "");
    m.peak_note = "";
    return m;
  }

  // Samples of `enqueue`, timed with events on member `on`'s stream.
  static Result<std::vector<double>> timed(GroupContext& ctx, std::size_t on, const std::function<Status()>& enqueue) {
    Context c = ctx.of(on);
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 20;
    const int warmup = ctx.options.warmup > 0 ? ctx.options.warmup : 2;
    return time_with_events(c, warmup, runs, enqueue);
  }

  Measurement copy_engine(GroupContext& ctx, Pair& p, std::uint64_t bytes, std::uint64_t seed) {
    Member& src = ctx.members[p.src];
    Member& dst = ctx.members[p.dst];
    Measurement m = new_pair_case(p, ctx, "ce", bytes);
    auto samples = timed(ctx, p.src, [&] {
      return ctx.backend.copy_peer(*dst.device, p.dst_buf.get(), *src.device, p.src_buf.get(), bytes, src.stream);
    });
    if (samples) (void)dst.device->synchronize(ctx.deadline.remaining());
    return checked(ctx, std::move(m), p.dst, p.dst_buf.get(), bytes, seed, samples);
  }

  Measurement bidirectional(GroupContext& ctx, Pair& p, std::uint64_t bytes, std::uint64_t seed) {
    Member& src = ctx.members[p.src];
    Member& dst = ctx.members[p.dst];
    Measurement m = new_pair_case(p, ctx, "ce bidir", bytes);
    m.work = 2.0 * static_cast<double>(bytes);
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 20;
    Context on_src = ctx.of(p.src);  // the host clock around both copies; src is synchronized after each
    auto samples = time_with_host_clock(on_src, 1, runs, [&]() -> Status {
      Status st = ctx.backend.copy_peer(*dst.device, p.dst_buf.get(), *src.device, p.src_buf.get(), bytes, src.stream);
      if (st) st = ctx.backend.copy_peer(*src.device, p.back_buf.get(), *dst.device, p.dst_buf.get(), bytes, dst.second);
      if (st) st = dst.device->synchronize(ctx.deadline.remaining());
      return st;
    });
    // The reverse copy read dst while the forward one wrote the same bytes: either way it holds the pattern.
    return checked(ctx, std::move(m), p.src, p.back_buf.get(), bytes, seed, samples);
  }

  Measurement kernel_read(GroupContext& ctx, Pair& p, std::uint64_t bytes, std::uint64_t seed) {
    Member& dst = ctx.members[p.dst];
    Measurement m = new_pair_case(p, ctx, "kernel read", bytes);
    auto samples = timed(ctx, p.dst, [&] {
      return dst.device->stream_op(device::StreamOp::copy, device::Precision::fp64, p.src_buf.get(), p.dst_buf.get(),
                                   p.dst_buf.get(), 1.0, bytes / 8, dst.stream);
    });
    return checked(ctx, std::move(m), p.dst, p.dst_buf.get(), bytes, seed, samples);
  }
};

}  // namespace

std::unique_ptr<GroupBenchmark> make_p2p_benchmark() {
  return std::make_unique<P2pBenchmark>();
}

}  // namespace dcukit::bench
