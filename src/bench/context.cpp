#include "bench/context.h"

#include <fmt/format.h>

namespace dcukit::bench {

using namespace std::chrono;

milliseconds Deadline::remaining() const {
  const auto left = duration_cast<milliseconds>(m_end - steady_clock::now());
  return std::max(left, milliseconds(1));
}

double Context::peak(const std::string& key, std::string* why) const {
  if (auto it = options.peak_overrides.find(key); it != options.peak_overrides.end()) return it->second;
  if (!spec) return 0;  // the device header already says why there are no percentages
  const auto* f = spec->peak(key);
  if (!f) {
    if (why) *why = fmt::format("no published {} peak for {}: pass --peak {}=VALUE", key, spec->display_name, key);
    return 0;
  }
  if (f->low_confidence && why) *why = fmt::format("{} peak is a low-confidence third-party figure", key);
  return f->value;
}

std::string Context::stop_reason() const {
  return stop ? stop->describe() : "interrupted";
}

namespace {

// Two events that destroy themselves.
struct EventPair {
  device::Device& d;
  device::Event start, end;
  ~EventPair() {
    if (start.valid()) d.destroy_event(start);
    if (end.valid()) d.destroy_event(end);
  }
};

// Why the timed loop must end before run i of n, or "" to go on.
std::string cut_short(const Context& ctx, int i, int runs) {
  if (ctx.stopped()) return fmt::format("{} after {} of {} timed runs", ctx.stop_reason(), i, runs);
  if (ctx.deadline.expired()) return fmt::format("deadline passed after {} of {} timed runs (--timeout)", i, runs);
  return {};
}

}  // namespace

Result<std::vector<double>> time_with_events(Context& ctx, int warmup, int runs,
                                             const std::function<Status()>& enqueue) {
  auto& d = ctx.device;
  EventPair ev{d, {}, {}};
  auto s = d.create_event();
  if (!s) return s.error();
  ev.start = *s;
  auto e = d.create_event();
  if (!e) return e.error();
  ev.end = *e;
  for (int i = 0; i < warmup; ++i)
    if (auto st = enqueue(); !st) return st.error();
  if (auto st = d.synchronize(ctx.deadline.remaining()); !st) return st.error();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    if (auto why = cut_short(ctx, i, runs); !why.empty()) return Error{why};
    if (auto st = d.record(ev.start, ctx.stream); !st) return st.error();
    if (auto st = enqueue(); !st) return st.error();
    if (auto st = d.record(ev.end, ctx.stream); !st) return st.error();
    auto ms = d.elapsed_ms(ev.start, ev.end, ctx.deadline.remaining());
    if (!ms) return ms.error();
    samples.push_back(*ms);
  }
  return samples;
}

Result<std::vector<double>> time_with_host_clock(Context& ctx, int warmup, int runs,
                                                 const std::function<Status()>& enqueue) {
  auto& d = ctx.device;
  for (int i = 0; i < warmup; ++i)
    if (auto st = enqueue(); !st) return st.error();
  if (auto st = d.synchronize(ctx.deadline.remaining()); !st) return st.error();
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    if (auto why = cut_short(ctx, i, runs); !why.empty()) return Error{why};
    const auto t0 = steady_clock::now();
    if (auto st = enqueue(); !st) return st.error();
    if (auto st = d.synchronize(ctx.deadline.remaining()); !st) return st.error();
    samples.push_back(duration<double, std::milli>(steady_clock::now() - t0).count());
  }
  return samples;
}

void finish(Measurement& m, Context& ctx, const std::string& peak_key, double peak_value_override) {
  m.time_ms = core::summarize(m.samples_ms);
  if (m.time_ms.median > 0) m.rate = m.work / (m.time_ms.median / 1e3);
  m.peak_key = peak_key;
  std::string why;
  const double p = peak_value_override > 0 ? peak_value_override : ctx.peak(peak_key, &why);
  if (p > 0) m.peak = p;
  if (!why.empty()) m.peak_note = why;
}

}  // namespace dcukit::bench
