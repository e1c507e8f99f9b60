#include "plan/run.h"

#include <fmt/format.h>

#include <chrono>

#include "device/registry.h"
#include "plan/model_config.h"
#include "plan/vllm_plan.h"
#include "plan/weights.h"
#include "stack/python.h"

namespace dcukit::plan {
namespace {

/// What this host's stack says of its vLLM, from the probe's answer.
HostVllm host_vllm(const Result<stack::PythonStack>& probe) {
  if (!probe) return {std::nullopt, probe.error().message};
  const auto* vllm = probe->find("vllm");
  if (vllm && vllm->imported && !vllm->version.empty()) return {vllm->version, {}};
  return {std::nullopt, vllm && !vllm->error.empty() ? vllm->error : "vllm did not import"};
}

/// The cards, and where they were detected, what this host's vLLM is.
Result<Cards> find_cards(const Request& r, std::optional<HostVllm>& host) {
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
      host = host_vllm(probe);
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

/// --check-log: the log's own model, cards, settings and version, the request's fields first.
Result<Report> run_check(const Request& r) {
  CheckLogOptions o;
  if (!r.model.empty()) o.model = r.model;
  if (!r.gpu.empty()) o.gpu = r.gpu;
  if (r.gpu_memory && *r.gpu_memory == 0)
    return Error{
        fmt::format("--gpu-memory {}: give the total a card's runtime reports, e.g. 39.39GiB", r.gpu_memory_text)};
  o.gpu_memory = r.gpu_memory;
  o.gpu_memory_text = r.gpu_memory_text;
  o.vllm_version = r.vllm_version;
  o.weights_from_log = r.weights_from_log;
  o.asked = r.asked;
  auto check = check_log(r.check_log, o);
  if (!check) return check.error();
  return Report{core::collect_run_info("dcukit plan", r.command), Plan{}, std::move(*check)};
}

}  // namespace

Result<Report> run(const Request& r) {
  if (!r.check_log.empty()) return run_check(r);
  if (r.weights_from_log) return Error{"--weights-from-log: only with --check-log FILE, whose weights it takes"};
  if (r.model.empty())
    return Error{"--model is required: the model directory holding config.json (or --check-log FILE)"};
  if (r.vllm_version)  // before any work: a malformed version is refused at once
    if (auto asked = choose_vllm(r.vllm_version, std::nullopt); !asked) return asked.error();
  auto model = load_model_config(r.model);
  if (!model) return model.error();
  auto weights = count_weights(*model);
  if (!weights) return weights.error();
  std::optional<HostVllm> host;
  auto cards = find_cards(r, host);
  if (!cards) return cards.error();
  auto vllm = choose_vllm(r.vllm_version, host);
  if (!vllm) return vllm.error();
  auto plan = make_plan(*model, *weights, *cards, r.asked, vllm_budget_model(*vllm));
  if (!plan) return plan.error();
  return Report{core::collect_run_info("dcukit plan", r.command), std::move(*plan), std::nullopt};
}

}  // namespace dcukit::plan
