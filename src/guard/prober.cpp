#include "guard/prober.h"

#include <fmt/format.h>

#include <thread>

#include "serving/canary.h"

namespace dcukit::guard {

ProbeOutcome run_probe(Probe probe, const ProbeTarget& t, std::chrono::milliseconds timeout) {
  ProbeOutcome out{.probe = probe};
  const auto start = Clock::now();
  switch (probe) {
    case Probe::tcp: {
      auto st = util::tcp_accepts(t.address, timeout);
      out.ok = st.ok();
      out.detail = st.message();
      break;
    }
    case Probe::health: {
      auto r = serving::get(t.endpoint, "/health", timeout);
      out.ok = r && r->status == 200;
      if (!r)
        out.detail = r.error().message;
      else if (!out.ok)
        out.detail = fmt::format("{}/health answered HTTP {}", t.endpoint.base_url, r->status);
      break;
    }
    case Probe::models: {
      auto m = serving::served_model(t.endpoint, t.model, timeout);
      out.ok = m.ok();
      if (m)
        out.model = *m;
      else
        out.detail = m.error().message;
      break;
    }
    case Probe::canary: {
      auto c = serving::send_canary(
          t.endpoint,
          {.model = t.model, .prompt = t.canary_prompt, .max_tokens = t.canary_max_tokens, .timeout = timeout});
      out.ok = c.ok();
      if (!c) out.detail = c.error().message;
      break;
    }
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

void AsyncProbe::launch(Probe probe, ProbeTarget target, std::chrono::milliseconds timeout, std::uint64_t tag) {
  auto slot = std::make_shared<Slot>();
  m_slot = slot;
  std::thread([slot, probe, target = std::move(target), timeout, tag] {
    slot->outcome = run_probe(probe, target, timeout);
    slot->outcome.tag = tag;
    slot->done.store(true);
  }).detach();
}

std::optional<ProbeOutcome> AsyncProbe::poll() {
  if (!m_slot || !m_slot->done.load()) return std::nullopt;
  ProbeOutcome out = std::move(m_slot->outcome);
  m_slot.reset();
  return out;
}

}  // namespace dcukit::guard
