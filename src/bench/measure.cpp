// The loop over devices and benchmarks, on the measuring thread. Each result is appended to
// the shared report as soon as its benchmark ends, so that a stop or a hang keeps it.
#include "bench/measure.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/benchmark.h"
#include "bench/context.h"
#include "bench/group.h"

namespace dcukit::bench {
namespace {

DeviceReport describe(device::Backend& b, int index, device::Device& opened, const Options& o) {
  const auto found = device::describe_device(b, index, &opened);
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
  } else if (!o.peak_overrides.empty()) {
    std::string given;
    for (const auto& [key, value] : o.peak_overrides) given += fmt::format("{}{}={:g}", given.empty() ? "" : ",", key, value);
    d.peak_note = fmt::format(
        "'{}' is not in the peak data: percentages are of the peaks given with --peak ({}); the others have none",
        d.info.name, given);
  } else {
    d.peak_note = fmt::format(
        "'{}' is not in the peak data, so results carry no percentage of peak; "
        "pass --peak fp16=...,hbm=... to compare with figures you know",
        d.info.name);
  }
  return d;
}

bool chosen(const Options& o, const std::string& key) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), key) != o.only.end();
}

// The group benchmarks, over every chosen device opened together, after the per-device ones.
void measure_group(device::Backend& backend, device::BackendKind kind, const Request& request, Shared& shared, const util::StopToken& stop) {
  const auto benchmarks = all_group_benchmarks();
  if (std::none_of(benchmarks.begin(), benchmarks.end(), [&](const auto& b) { return chosen(request.options, b->key()); }))
    return;
  std::vector<std::unique_ptr<device::Device>> opened;
  std::vector<DeviceReport> reports;
  std::vector<Member> members;
  {
    std::lock_guard lock(shared.mutex);
    reports = shared.report.devices;
  }
  for (const auto& r : reports) {
    auto d = backend.open(r.info.index);
    auto s1 = d ? (*d)->create_stream() : Result<device::Stream>(d.error());
    auto s2 = s1 ? (*d)->create_stream() : s1;
    if (!s2) {
      std::lock_guard lock(shared.mutex);
      shared.report.errors.push_back(fmt::format("device {} for the group benchmarks: {}", r.info.index, s2.error().message));
      return;
    }
    const auto* spec = r.spec_key.empty() ? nullptr : core::PeakTable::builtin().find(r.spec_key);
    opened.push_back(std::move(*d));
    members.push_back({opened.back().get(), *s1, *s2, &r, spec});
  }
  if (members.empty()) return;
  for (const auto& bench : benchmarks) {
    if (!chosen(request.options, bench->key())) continue;
    if (stop.stop_requested()) break;
    GroupContext ctx{backend,          kind,  members, request.options, Deadline(request.options.timeout),
                     request.progress, &stop, request.world.get()};
    std::vector<Measurement> out;
    if (auto why = bench->applies(ctx); !why.empty()) {
      out.push_back(failed_case(bench->key(), bench->key(), why, Outcome::skipped));
    } else {
      {
        std::lock_guard lock(shared.mutex);
        shared.current = fmt::format("{} on {} device(s) of {}", bench->key(), members.size(), device::to_string(kind));
      }
      shared.deadline_ns = (std::chrono::steady_clock::now() + request.options.timeout).time_since_epoch().count();
      bench->run(ctx, out);
      shared.deadline_ns = 0;
    }
    std::lock_guard lock(shared.mutex);
    shared.report.group.insert(shared.report.group.end(), out.begin(), out.end());
  }
}

}  // namespace

void measure(device::Registry& registry, const Request& request, Shared& shared, const util::StopToken& stop) {
  auto* slot = request.backend ? registry.find(*request.backend) : registry.default_slot();
  auto& backend = *slot->backend;
  const std::string name(device::to_string(slot->kind));
  {
    std::lock_guard lock(shared.mutex);
    shared.report.backend = slot->kind;
    shared.report.versions = backend.versions();
    if (slot->kind == device::BackendKind::cpu) {
      for (auto& s : registry.slots())
        if (s.kind != device::BackendKind::cpu)
          shared.report.notes.push_back(
              fmt::format("{} backend: {}", device::to_string(s.kind),
                          s.loaded() ? fmt::format("{} device(s)", s.device_count) : s.error));
      shared.report.notes.push_back(
          "ran the CPU backend: no GPU backend with a device was found (sizes reduced for the CPU)");
    }
  }
  std::vector<int> devices = request.devices;
  if (devices.empty())
    for (int i = 0; i < slot->device_count; ++i) devices.push_back(i);
  const auto benchmarks = all_benchmarks();
  for (int dev : devices) {
    if (stop.stop_requested()) break;
    auto opened = backend.open(dev);
    auto work = opened ? (*opened)->create_stream() : Result<device::Stream>(opened.error());
    auto second = work ? (*opened)->create_stream() : work;
    if (!second) {
      std::lock_guard lock(shared.mutex);
      shared.report.errors.push_back(fmt::format("device {}: {}", dev, second.error().message));
      continue;
    }
    device::Device& device = **opened;
    const DeviceReport snapshot = describe(backend, dev, device, request.options);
    std::size_t di;
    {
      std::lock_guard lock(shared.mutex);
      shared.report.devices.push_back(snapshot);
      di = shared.report.devices.size() - 1;
    }
    const auto* spec = snapshot.spec_key.empty() ? nullptr : core::PeakTable::builtin().find(snapshot.spec_key);
    for (const auto& bench : benchmarks) {
      if (!chosen(request.options, bench->key())) continue;
      if (stop.stop_requested()) break;
      Context ctx{device,           slot->kind, *work,           *second,
                  snapshot,         spec,       request.options, Deadline(request.options.timeout),
                  request.progress, &stop};
      std::vector<Measurement> out;
      if (auto why = bench->applies(ctx); !why.empty()) {
        out.push_back(failed_case(bench->key(), bench->key(), why, Outcome::skipped));
      } else {
        {
          std::lock_guard lock(shared.mutex);
          shared.current = fmt::format("{} on {} device {}", bench->key(), name, dev);
        }
        shared.deadline_ns = (std::chrono::steady_clock::now() + request.options.timeout).time_since_epoch().count();
        bench->run(ctx, out);
        shared.deadline_ns = 0;
      }
      std::lock_guard lock(shared.mutex);
      auto& results = shared.report.devices[di].results;
      results.insert(results.end(), out.begin(), out.end());
    }
  }
  if (!stop.stop_requested()) measure_group(backend, slot->kind, request, shared, stop);
  if (stop.stop_requested()) {
    std::lock_guard lock(shared.mutex);
    shared.report.interrupted = true;
    shared.report.errors.push_back(std::string(stop.describe()) + ": the results measured so far are kept");
  }
}

}  // namespace dcukit::bench
