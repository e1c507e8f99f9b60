#include "plan/run.h"

#include <fmt/format.h>

#include <chrono>

#include "device/registry.h"
#include "plan/model_config.h"
#include "plan/weights.h"
#include "stack/python.h"

namespace dcukit::plan {
namespace {

Result<Cards> find_cards(const Request& r) {
  Result<Cards> cards = Error{};
  if (!r.gpu.empty()) {
    cards = cards_from_name(r.gpu, r.count.value_or(8));
  } else {
    std::vector<device::DetectedDevice> devices;
    if (r.detect) {
      devices = r.detect();
    } else {
      auto registry = device::Registry::load();
      devices = device::detect_gpus(registry);
    }
    cards = cards_from_detected(devices, r.count.value_or(0));
    if (cards) {
      const auto probe = r.probe_stack ? r.probe_stack() : [&] {
        stack::ProbeOptions o;
        o.interpreter = r.python;
        o.timeout = std::chrono::seconds(60);
        return stack::probe_python(o);
      }();
      apply_host_stack(*cards, probe);
    }
  }
  if (!cards || !r.gpu_memory) return cards;
  if (*r.gpu_memory == 0)
    return Error{
        fmt::format("--gpu-memory {}: give the total a card's runtime reports, e.g. 63.98GiB", r.gpu_memory_text)};
  cards->total_bytes = *r.gpu_memory;
  cards->total_source = fmt::format("--gpu-memory {}", r.gpu_memory_text);
  return cards;
}

}  // namespace

Result<Report> run(const Request& r) {
  auto model = load_model_config(r.model);
  if (!model) return model.error();
  auto weights = count_weights(*model);
  if (!weights) return weights.error();
  auto cards = find_cards(r);
  if (!cards) return cards.error();
  auto plan = make_plan(*model, *weights, *cards, r.asked);
  if (!plan) return plan.error();
  return Report{core::collect_run_info("dcukit plan", r.command), std::move(*plan)};
}

}  // namespace dcukit::plan
