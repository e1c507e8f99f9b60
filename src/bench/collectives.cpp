// The collectives benchmark (nccl-tests, rccl-tests): every collective over a size sweep, out
// of place and in place, one rank a device, each driven by a thread of its own. Per case: the
// time of the slowest rank for each run, algbw = size / median, busbw = algbw x nccl-tests'
// factor, and #wrong from a seeded run checked element by element on every rank (-c). The
// average busbw closes the table; --min-busbw fails a run under it (NCCL_TESTS_MIN_BW).
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "bench/benchmark.h"
#include "bench/group.h"
#include "core/units.h"
#include "device/comm/comm.h"

namespace dcukit::bench {
namespace {

namespace comm = device::comm;
using device::MemKind;

constexpr const char* kKey = "collectives";

std::vector<std::uint64_t> default_sizes(const GroupContext& ctx) {
  std::vector<std::uint64_t> v;
  const std::uint64_t top = ctx.on_cpu() ? core::kMiB : core::kGiB;
  for (std::uint64_t s = 8; s <= top; s *= 2) v.push_back(s);
  return v;
}

/// A rank's pair of timing events, destroyed with it.
struct Events {
  device::Device& dev;
  device::Event start, end;
  Status make() {
    auto s = dev.create_event();
    if (!s) return s.error();
    start = *s;
    auto e = dev.create_event();
    if (!e) return e.error();
    end = *e;
    return {};
  }
  ~Events() {
    if (start.valid()) dev.destroy_event(start);
    if (end.valid()) dev.destroy_event(end);
  }
};

/// What one rank measured in one case.
struct RankResult {
  std::vector<double> samples_ms;
  std::int64_t wrong = 0;
  std::string error;
};

std::string placement(bool in_place) {
  return in_place ? "in place" : "out of place";
}

class CollectivesBenchmark final : public GroupBenchmark {
public:
  std::string key() const override { return kKey; }
  std::string description() const override {
    return "all-reduce, all-gather, reduce-scatter, broadcast, reduce, all-to-all, send/recv over a size sweep";
  }

  std::string applies(const GroupContext& ctx) const override {
    if (ctx.on_cpu()) return {};
    const auto lib = comm::load_collective_library(ctx.kind);
    return lib ? std::string() : fmt::format("collectives on the {} backend: {}", device::to_string(ctx.kind), lib.error().message);
  }

  void run(GroupContext& ctx, std::vector<Measurement>& out) override {
    std::vector<std::unique_ptr<comm::Communicator>> owned;
    if (!ctx.world || !ctx.on_cpu()) {  // under MPI on the CPU backend, MPI's own collectives
      auto made = make_group(ctx);
      if (!made) return out.push_back(failed_case(kKey, "communicator", made.error().message));
      owned = std::move(*made);
    }
    std::vector<comm::Communicator*> group;  // this process's ranks
    if (owned.empty()) group.push_back(ctx.world);
    for (auto& g : owned) group.push_back(g.get());
    const int ranks = group.front()->size();
    ctx.say(fmt::format("collectives over {} rank(s) through {}", ranks, group.front()->name()));
    const auto sizes = ctx.options.collective_sizes.empty() ? default_sizes(ctx) : ctx.options.collective_sizes;
    std::vector<comm::Collective> chosen;
    for (const auto& name : ctx.options.collectives)
      if (auto c = comm::parse_collective(name)) chosen.push_back(*c);
    if (chosen.empty()) chosen.assign(std::begin(comm::kAllCollectives), std::end(comm::kAllCollectives));
    double busbw_sum = 0;
    int counted = 0;
    for (comm::Collective c : chosen)
      for (std::uint64_t size : sizes)
        for (bool in_place : {false, true}) {
          if (ctx.stopped() || ctx.deadline.expired()) return;
          Measurement m = run_case(ctx, group, c, size, in_place);
          if (m.outcome == Outcome::failed && m.samples_ms.empty() && m.reason.starts_with("rank ")) {
            // A rank failed or never came: the group is unusable; abort it rather than wait on it again.
            for (auto* g : group) g->abort();
            m.reason += "; the communicator was aborted and the remaining cases not run";
            out.push_back(std::move(m));
            return;
          }
          if (m.outcome == Outcome::ok) {
            busbw_sum += *m.number("busbw");
            ++counted;
          }
          out.push_back(std::move(m));
        }
    if (ctx.options.min_busbw > 0 && counted > 0 && busbw_sum / counted < ctx.options.min_busbw)
      out.push_back(failed_case(kKey, "average busbw",
                                fmt::format("the average bus bandwidth, {:.3f} GB/s over {} cases, is under --min-busbw "
                                            "{:.3f} GB/s",
                                            busbw_sum / counted / 1e9, counted, ctx.options.min_busbw / 1e9)));
  }

  TableSpec table() const override {
    const ColumnSpec busbw{"busbw GB/s", core::Align::right, [](const Measurement& m) {
                             const auto v = m.number("busbw");
                             return m.outcome == Outcome::ok && v ? fmt::format("{:.2f}", *v / 1e9) : std::string("-");
                           }};
    TableSpec t{"Collectives (float, sum; root 0)",
                {text_column("collective", "collective", true), bytes_column("size", "bytes"),
                 integer_column("count", "count"), text_column("placement", "placement"), integer_column("ranks", "ranks"),
                 time_column("median us", &core::Summary::median, 1e3), rate_column("algbw GB/s", 1e9, 2), busbw,
                 integer_column("#wrong", "wrong"), status_column()},
                {"algbw = size / time of the slowest rank; busbw = algbw x 2(n-1)/n (all_reduce), (n-1)/n (all_gather, "
                 "reduce_scatter, all_to_all), 1 (broadcast, reduce, send_recv), as nccl-tests. size: the largest buffer "
                 "(all_gather's output, reduce_scatter's input)."}};
    t.summary = [](const std::vector<const Measurement*>& ms) {
      double sum = 0;
      int n = 0;
      for (const auto* m : ms)
        if (const auto v = m->number("busbw"); v && m->outcome == Outcome::ok) sum += *v, ++n;
      if (n == 0) return std::vector<std::string>{};
      return std::vector<std::string>{fmt::format("average bus bandwidth: {:.3f} GB/s over {} cases", sum / n / 1e9, n)};
    };
    return t;
  }

private:
  static Result<std::vector<std::unique_ptr<comm::Communicator>>> make_group(GroupContext& ctx) {
    if (ctx.on_cpu()) return comm::make_thread_group(static_cast<int>(ctx.members.size()));
    if (ctx.world) {  // one process a device: NCCL's id from rank 0 through MPI, the rank joined on its device
      device::Device& dev = *ctx.members.front().device;
      const auto budget = ctx.deadline.remaining();
      const auto bind = [&dev, budget] { return dev.synchronize(budget); };  // every Device call binds its device
      auto rank = comm::make_nccl_rank(ctx.kind, *ctx.world, bind, budget);
      if (!rank) return rank.error();
      std::vector<std::unique_ptr<comm::Communicator>> one;
      one.push_back(std::move(*rank));
      return one;
    }
    std::vector<int> indices;
    for (const auto& m : ctx.members) indices.push_back(m.device->index());
    return comm::make_nccl_group(ctx.kind, indices);
  }

  Measurement run_case(GroupContext& ctx, const std::vector<comm::Communicator*>& group, comm::Collective c,
                       std::uint64_t size, bool in_place) {
    const int ranks = group.front()->size();
    const comm::Shape shape = comm::shape_of(c, size, ranks);
    Measurement m = new_case(kKey, fmt::format("{} {} {}", comm::to_string(c), core::format_bytes(size), placement(in_place)));
    m.params = {{"collective", std::string(comm::to_string(c))},
                {"bytes", shape.size_bytes},
                {"count", shape.recv},
                {"placement", placement(in_place)},
                {"ranks", ranks}};
    if (shape.send == 0 || shape.recv == 0) {
      m.params[1] = {"bytes", size};
      m.outcome = Outcome::skipped;
      m.reason = fmt::format("{} is under one float for each of {} ranks", core::format_bytes(size), ranks);
      return m;
    }
    if (auto why = in_place ? group.front()->in_place_unsupported(c) : std::string(); !why.empty()) {
      m.outcome = Outcome::skipped;
      m.reason = fmt::format("in place is not run through {}: {}", group.front()->name(), why);
      return m;
    }
    ctx.say(fmt::format("{} ...", m.name));
    const std::size_t local = group.size();  // ranks in this process: all of them, or one under MPI
    std::vector<RankResult> results(local);
    {
      std::vector<std::jthread> threads;
      for (std::size_t i = 0; i < local; ++i)
        threads.emplace_back([&, i] { results[i] = run_rank(ctx, *group[i], i, c, shape, in_place); });
    }
    // The first rank's own failure, rather than another's "rank r gave up" that it caused.
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < local; ++i)
        if (const auto& e = results[i].error; !e.empty() && (pass == 1 || e.find("gave up") == std::string::npos))
          return mark_failed(std::move(m), fmt::format("rank {}: {}", group[i]->rank(), e));
    std::int64_t wrong = 0;
    for (const auto& res : results) wrong += res.wrong;
    // Each run's time is the slowest rank's.
    std::size_t runs = results[0].samples_ms.size();
    for (const auto& res : results) runs = std::min(runs, res.samples_ms.size());
    for (std::size_t i = 0; i < runs; ++i) {
      double slowest = 0;
      for (const auto& res : results) slowest = std::max(slowest, res.samples_ms[i]);
      m.samples_ms.push_back(slowest);
    }
    if (ctx.world) {  // across the processes of the job
      for (auto& s : m.samples_ms) {
        auto top = ctx.world->max_of(s, ctx.deadline.remaining());
        if (!top) return mark_failed(std::move(m), top.error().message);
        s = *top;
      }
      auto all = ctx.world->sum_of(static_cast<double>(wrong), ctx.deadline.remaining());
      if (!all) return mark_failed(std::move(m), all.error().message);
      wrong = static_cast<std::int64_t>(*all);
    }
    m.params.push_back({"wrong", wrong});
    m.work = static_cast<double>(shape.size_bytes);
    m.rate_unit = RateUnit::byte_per_s;
    m.time_ms = core::summarize(m.samples_ms);
    if (m.time_ms.median > 0) m.rate = m.work / (m.time_ms.median / 1e3);
    m.params.push_back({"busbw", m.rate * comm::busbw_factor(c, ranks)});
    m.check = fmt::format("{} wrong element(s) over {} ranks", wrong, ranks);
    if (wrong > 0) {
      const std::string why = m.check;
      return mark_failed(std::move(m), why);
    }
    return m;
  }

  // One rank's part of a case: its buffers, the timed runs, then a seeded run checked.
  // Rank `comm` of the group, driving ctx.members[member].
  static RankResult run_rank(GroupContext& ctx, comm::Communicator& comm, std::size_t member, comm::Collective c,
                             const comm::Shape& shape, bool in_place) {
    RankResult out;
    Member& me = ctx.members[member];
    device::Device& dev = *me.device;
    const int rank = comm.rank(), ranks = comm.size();
    const std::size_t whole = in_place ? std::max(shape.send, shape.recv) : shape.send;
    auto a = allocate(dev, MemKind::device, whole * sizeof(float));
    auto b = in_place ? Result<Buffer>(Buffer()) : allocate(dev, MemKind::device, shape.recv * sizeof(float));
    if (!a || !b) {
      out.error = (!a ? a.error() : b.error()).message;
      comm.abort();  // the others learn of it rather than wait
      return out;
    }
    float* base = a->as<float>();
    // In place as nccl-tests: all_gather's input is the rank's slice of the output,
    // reduce_scatter's output the rank's slice of the input.
    float* send = base + (in_place && c == comm::Collective::all_gather ? static_cast<std::size_t>(rank) * shape.send : 0);
    float* recv = !in_place ? b->as<float>()
                  : base + (c == comm::Collective::reduce_scatter ? static_cast<std::size_t>(rank) * shape.recv : 0);
    std::vector<float> input(shape.send);
    comm::seed_input(c, rank, ranks, input);
    auto seed = [&]() -> Status {
      if (auto st = dev.copy(send, input.data(), shape.send * sizeof(float), me.stream); !st) return st;
      if (!in_place)  // in place, the output overlaps the input
        if (auto st = dev.fill(device::Precision::fp32, recv, -1.0, shape.recv, me.stream); !st) return st;
      return dev.synchronize(ctx.deadline.remaining());
    };
    // As nccl-tests (-w 5 -n 20): warm-up calls, then each sample times a batch of calls enqueued
    // back to back, started together on every rank; a sample is a call's share. Device events
    // around the batch, so that the time is not the host's wait (which naps while it polls).
    const int samples = ctx.options.iterations > 0 ? ctx.options.iterations : 5;
    const int warmup = ctx.options.warmup > 0 ? ctx.options.warmup : 5;
    const int batch = ctx.on_cpu() ? 1 : 20;
    auto enqueue = [&]() -> Status { return comm.run(c, send, recv, shape, me.stream, ctx.deadline.remaining()); };
    Events ev{dev};
    Status st = ev.make();
    if (st) st = seed();
    for (int i = 0; i < warmup && st; ++i) st = enqueue();
    if (st) st = dev.synchronize(ctx.deadline.remaining());
    for (int i = 0; i < samples && st; ++i) {
      if (ctx.stopped()) st = Error{"interrupted"};
      if (st) st = comm.barrier(ctx.deadline.remaining());
      if (st) st = dev.record(ev.start, me.stream);
      for (int k = 0; k < batch && st; ++k) st = enqueue();
      if (st) st = dev.record(ev.end, me.stream);
      if (!st) break;
      auto ms = dev.elapsed_ms(ev.start, ev.end, ctx.deadline.remaining());
      if (!ms) st = ms.error();
      else out.samples_ms.push_back(*ms / batch);
    }
    if (st) st = seed();  // the checked run, on fresh data
    if (st) st = enqueue();
    if (st) st = dev.synchronize(ctx.deadline.remaining());
    std::vector<float> got(shape.recv), want;
    if (st) st = dev.copy(got.data(), recv, shape.recv * sizeof(float), me.stream);
    if (st) st = dev.synchronize(ctx.deadline.remaining());
    if (!st) {
      out.error = st.message();
      comm.abort();
      return out;
    }
    comm::expected_output(c, rank, ranks, shape.recv, want);
    if (!want.empty()) out.wrong = comm::count_wrong(got.data(), want);
    return out;
  }
};

}  // namespace

std::unique_ptr<GroupBenchmark> make_collectives_benchmark() {
  return std::make_unique<CollectivesBenchmark>();
}

}  // namespace dcukit::bench
