#include "stress/levels.h"

#include <fmt/format.h>

#include <algorithm>

namespace dcukit::stress {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::vector<Step> steps_of(int level) {
  using K = CheckKind;
  switch (level) {
    case 1:
      return {{K::health, {}}, {K::kernel, {}}};
    case 2:
      return {{K::health, {}}, {K::kernel, {}}, {K::pcie, seconds(20)}, {K::hbm, seconds(30)}, {K::gemm, seconds(60)}};
    case 3:
      return {{K::health, {}},
              {K::kernel, {}},
              {K::pcie, seconds(30)},
              {K::hbm, seconds(120)},
              {K::memtest, seconds(240)},
              {K::gemm, seconds(480)},
              {K::power, {}}};
    case 4:
      return {{K::health, {}},
              {K::kernel, {}},
              {K::pcie, seconds(60)},
              {K::hbm, seconds(600)},
              {K::memtest, seconds(1800)},
              {K::gemm, seconds(4 * 3600 - 2460)},
              {K::power, {}}};
    default:
      return {};
  }
}

}  // namespace

std::chrono::seconds level_duration(int level) {
  milliseconds total{0};
  for (const auto& s : steps_of(level)) total += s.time;
  return std::chrono::duration_cast<seconds>(total);
}

Result<std::vector<Step>> plan_level(int level, const std::optional<seconds>& duration,
                                     const std::vector<CheckKind>& only) {
  auto steps = steps_of(level);
  if (steps.empty()) return Error{fmt::format("--level {}: choose 1, 2, 3 or 4", level)};
  if (!only.empty()) {
    // power is judged under the GEMM's load: asking for it keeps the GEMM step (and vice versa
    // a level without a power step gets none).
    const bool power = std::find(only.begin(), only.end(), CheckKind::power) != only.end();
    std::vector<Step> kept;
    for (const auto& s : steps) {
      const bool wanted = std::find(only.begin(), only.end(), s.kind) != only.end();
      if (wanted || (s.kind == CheckKind::gemm && power)) kept.push_back(s);
    }
    for (CheckKind k : only)
      if (std::none_of(kept.begin(), kept.end(), [k](const Step& s) { return s.kind == k; })) {
        // A check the level does not hold runs for the level's GEMM share (or a few seconds).
        const auto gemm =
            std::find_if(steps.begin(), steps.end(), [](const Step& s) { return s.kind == CheckKind::gemm; });
        const milliseconds share = gemm != steps.end() ? gemm->time : milliseconds(std::chrono::seconds(10));
        kept.push_back({k, k == CheckKind::health || k == CheckKind::kernel ? milliseconds(0) : share});
        if (k == CheckKind::power &&
            std::none_of(kept.begin(), kept.end(), [](const Step& s) { return s.kind == CheckKind::gemm; }))
          kept.insert(kept.end() - 1, Step{CheckKind::gemm, share});
      }
    steps = std::move(kept);
  }
  milliseconds timed{0};
  for (const auto& s : steps) timed += s.time;
  if (duration && timed.count() > 0) {
    const double scale = static_cast<double>(milliseconds(*duration).count()) / static_cast<double>(timed.count());
    for (auto& s : steps) s.time = milliseconds(static_cast<long long>(static_cast<double>(s.time.count()) * scale));
  }
  return steps;
}

}  // namespace dcukit::stress
