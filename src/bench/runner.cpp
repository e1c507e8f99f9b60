#include "bench/runner.h"

#include <algorithm>
#include <fmt/format.h>

#include "bench/benchmark.h"
#include "bench/context.h"
#include "util/host.h"
#include "util/numa.h"

namespace dcukit::bench {
namespace {

device::BackendSlot* pick(device::Registry& registry, const std::string& name) {
  return name.empty() ? registry.default_slot() : registry.find(name);
}

HostInfo host_info() {
  HostInfo h;
  h.hostname = util::hostname();
  h.os = util::os_name();
  h.kernel = util::kernel_release();
  h.cpu = util::cpu_model();
  h.cpus = util::cpu_count();
  h.numa_nodes = static_cast<int>(util::numa_memory_nodes().size());
  h.memory_bytes = util::memory_total_bytes();
  return h;
}

DeviceReport describe(device::Backend& b, int index) {
  const auto found = device::describe_device(b, index);
  DeviceReport d;
  d.info = found.info;
  d.free_memory = found.memory.free;
  d.numa_node = found.numa_node;
  d.pcie_gen = found.pcie_gen;
  d.pcie_width = found.pcie_width;
  d.pci_id = found.pci_id;
  if (const auto* spec = found.spec) {
    d.spec_key = spec->key;
    d.spec_name = spec->display_name;
    d.spec_source = spec->source;
  } else {
    d.peak_note = fmt::format("'{}' is not in the peak data, so results carry no percentage of peak; "
                              "pass --peak fp16=...,hbm=... to compare with figures you know", d.info.name);
  }
  return d;
}

} // namespace

Status validate(device::Registry& registry, const RunRequest& request) {
  auto* slot = pick(registry, request.backend);
  if (!slot) return Error{fmt::format("--backend {}: unknown; choose cpu, cuda or hip", request.backend)};
  if (!slot->loaded())
    return Error{fmt::format("--backend {}: not available: {} (see dcukit bench --list-backends)", slot->name, slot->error)};
  for (int d : request.devices)
    if (d < 0 || d >= slot->device_count)
      return Error{fmt::format("--device {}: the {} backend has {} device(s), 0 to {}", d, slot->name, slot->device_count,
                               slot->device_count - 1)};
  std::vector<std::string> keys;
  for (const auto& b : all_benchmarks()) keys.push_back(b->key());
  for (const auto& k : request.options.only)
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      return Error{fmt::format("--only {}: unknown benchmark; choose from {}", k, fmt::join(keys, ", "))};
  return {};
}

void run(device::Registry& registry, const RunRequest& request, RunState& state) {
  auto* slot = pick(registry, request.backend);
  auto& backend = *slot->backend;
  {
    std::lock_guard lock(state.mutex);
    state.report.host = host_info();
    state.report.backend = slot->name;
    state.report.versions = backend.versions();
    if (slot->name == "cpu") {
      for (auto& s : registry.slots())
        if (s.name != "cpu")
          state.report.notes.push_back(fmt::format("{} backend: {}", s.name, s.loaded() ? fmt::format("{} device(s)", s.device_count) : s.error));
      state.report.notes.push_back("ran the CPU backend: no GPU backend with a device was found (sizes reduced for the CPU)");
    }
  }
  std::vector<int> devices = request.devices;
  if (devices.empty())
    for (int i = 0; i < slot->device_count; ++i) devices.push_back(i);
  const auto benchmarks = all_benchmarks();
  for (int dev : devices) {
    if (auto st = backend.select(dev); !st) {
      std::lock_guard lock(state.mutex);
      state.report.errors.push_back(fmt::format("device {}: {}", dev, st.message()));
      continue;
    }
    std::size_t di;
    {
      std::lock_guard lock(state.mutex);
      state.report.devices.push_back(describe(backend, dev));
      di = state.report.devices.size() - 1;
    }
    const DeviceReport snapshot = state.report.devices[di];
    const auto* spec = snapshot.spec_key.empty() ? nullptr : core::PeakTable::builtin().find(snapshot.spec_key);
    for (const auto& bench : benchmarks) {
      const auto& only = request.options.only;
      if (!only.empty() && std::find(only.begin(), only.end(), bench->key()) == only.end()) continue;
      Context ctx{backend, snapshot, spec, request.options, Deadline(request.options.timeout), request.progress};
      std::vector<Measurement> out;
      if (auto why = bench->applies(ctx); !why.empty()) {
        out.push_back(failed_case(bench->key(), bench->key(), why, Outcome::skipped));
      } else {
        state.deadline_ns = (std::chrono::steady_clock::now() + request.options.timeout).time_since_epoch().count();
        {
          std::lock_guard lock(state.mutex);
          state.current = fmt::format("{} on {} device {}", bench->key(), slot->name, dev);
        }
        bench->run(ctx, out);
        state.deadline_ns = 0;
      }
      std::lock_guard lock(state.mutex);
      auto& results = state.report.devices[di].results;
      results.insert(results.end(), out.begin(), out.end());
    }
  }
}

} // namespace dcukit::bench
