// libFuzzer target: config.json reading (plan::parse_model_config), then what plan computes
// from what it accepted. Any input is a value or an error: no exception, no sanitizer report,
// no allocation beyond the bounds, and an accepted config keeps its invariants.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/weights.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dcukit::plan;
  const auto m = parse_model_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz/config.json");
  if (!m) return 0;
  if (m->num_layers < 1 || m->num_layers > 10000 || m->layers.size() != static_cast<std::size_t>(m->num_layers) ||
      m->num_kv_heads < 1 || m->num_heads % m->num_kv_heads != 0 || m->head_dim < 1)
    std::abort();  // parse_model_config let through what it promises to refuse
  const auto w = compute_weights(*m);
  if (!(w.total() >= 0)) std::abort();
  Settings s;
  s.max_model_len = m->max_position_embeddings > 0 ? m->max_position_embeddings : 4096;
  for (int tp : {1, 2, 8}) {
    const auto kv = kv_footprint(*m, s, tp, 1);
    if (!std::isfinite(kv.per_token) || kv.per_token < 0) std::abort();
    (void)activation_bytes(*m, s, tp);
  }
  return 0;
}
