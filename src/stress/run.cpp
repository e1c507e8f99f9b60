#include "stress/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "stress/checks.h"
#include "stress/levels.h"
#include "util/duration.h"
#include "util/signals.h"
#include "util/watched.h"

namespace dcukit::stress {
namespace {

using Clock = Watcher::Clock;
using std::chrono::milliseconds;

/// One device's checks, owned by its thread (which may outlive run() when abandoned).
struct DeviceWork {
  std::mutex mutex;
  DeviceResult result;
  double gemm_from = -1, gemm_to = -1;  ///< when the GEMM step ran, for the power check
  bool done = false;
};

/// Runs `steps` on one device, appending each check as it ends.
void run_device(DeviceRun& r, const std::vector<Step>& steps, DeviceWork& work) {
  for (const auto& step : steps) {
    if (r.stopped()) break;
    if (step.kind == CheckKind::power) continue;  // judged afterwards from the GEMM step's telemetry
    if (r.watcher) r.watcher->set_phase(r.info.info.index, std::string(to_string(step.kind)));
    CheckResult c;
    const double from = r.now_s();
    switch (step.kind) {
      case CheckKind::health:
        c = check_health(r);
        break;
      case CheckKind::kernel:
        c = check_kernel(r);
        break;
      case CheckKind::gemm:
        c = check_gemm(r, step.time);
        break;
      case CheckKind::hbm:
        c = check_hbm(r, step.time);
        break;
      case CheckKind::memtest:
        c = check_memtest(r, step.time);
        break;
      case CheckKind::pcie:
        c = check_pcie(r, step.time);
        break;
      case CheckKind::power:
        break;
    }
    if (r.watcher) r.watcher->set_phase(r.info.info.index, "");
    r.progress(fmt::format("{}: {} - {}", to_string(c.kind), to_string(c.verdict), c.summary));
    std::lock_guard lock(work.mutex);
    if (step.kind == CheckKind::gemm) work.gemm_from = from, work.gemm_to = r.now_s();
    work.result.checks.push_back(std::move(c));
  }
  std::lock_guard lock(work.mutex);
  work.done = true;
}

void settle(DeviceResult& d) {
  d.verdict = Verdict::skip;
  for (const auto& c : d.checks) {
    d.verdict = worse(d.verdict, c.verdict);
    d.action = stronger(d.action, c.action);
  }
}

/// A device much slower than the median of its siblings at the same GEMM is named.
void compare_siblings(std::vector<DeviceResult>& devices) {
  std::vector<double> rates;
  for (const auto& d : devices)
    for (const auto& c : d.checks)
      if (c.kind == CheckKind::gemm && c.rate) rates.push_back(*c.rate);
  if (rates.size() < 2) return;
  std::sort(rates.begin(), rates.end());
  const double median = rates[rates.size() / 2];
  for (auto& d : devices)
    for (auto& c : d.checks)
      if (c.kind == CheckKind::gemm && c.rate && *c.rate < 0.9 * median) {
        c.verdict = worse(c.verdict, Verdict::warn);
        c.action = stronger(c.action, Action::investigate);
        c.evidence.push_back(fmt::format("{:.0f}% of the median of the {} devices: slower than its siblings",
                                         100 * *c.rate / median, rates.size()));
      }
}

}  // namespace

Result<Report> run(const Request& q) {
  auto steps = plan_level(q.level, q.duration, q.only);
  if (!steps) return steps.error();
  auto registry = q.registry ? q.registry : std::make_shared<device::Registry>(device::Registry::load());
  device::BackendSlot* slot = q.backend ? registry->find(*q.backend) : registry->default_slot();
  if (!slot || !slot->loaded())
    return Error{fmt::format("--backend {}: {}", q.backend ? to_string(*q.backend) : "auto",
                             slot ? slot->error : "not built into this dcukit")};
  device::Backend& backend = *slot->backend;
  std::vector<int> indices = q.devices;
  if (indices.empty())
    for (int i = 0; i < backend.device_count(); ++i) indices.push_back(i);
  for (int i : indices)
    if (i < 0 || i >= backend.device_count())
      return Error{fmt::format("--device {}: the {} backend has {} device(s)", i, to_string(slot->kind),
                               backend.device_count())};
  if (indices.empty()) return Error{fmt::format("the {} backend has no device", to_string(slot->kind))};

  Report report;
  report.run_info = core::collect_run_info("dcukit stress", q.command);
  report.level = q.level;
  report.backend = slot->kind;
  milliseconds planned{0};
  for (const auto& s : *steps) planned += s.time;
  report.planned_s = static_cast<double>(planned.count()) / 1e3;
  const auto start = Clock::now();

  // Open every device and learn what it is before anything runs.
  std::vector<std::unique_ptr<device::Device>> opened;
  std::vector<device::DetectedDevice> infos;
  std::map<int, std::string> buses;
  for (int i : indices) {
    auto dev = backend.open(i);
    if (!dev) return Error{fmt::format("device {}: {}", i, dev.error().message)};
    infos.push_back(device::describe_device(backend, i, dev->get()));
    buses[i] = infos.back().info.pci_bus_id;
    opened.push_back(std::move(*dev));
  }
  std::shared_ptr<Watcher> watcher;  // shared with the device threads, which may outlive run()
  if (q.sample_every.count() > 0) {
    watcher = std::make_shared<Watcher>(q.collect, q.sample_every, buses, start);
    watcher->start();
  } else {
    report.notes.push_back("telemetry is off: no clocks, power, temperature or ECC were watched");
  }

  std::vector<std::shared_ptr<DeviceWork>> works;
  std::vector<std::string> abandoned(indices.size());
  const milliseconds deadline = planned + 2 * q.call_timeout + milliseconds(60000);
  std::vector<std::thread> watchers;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    auto work = std::make_shared<DeviceWork>();
    const auto& info = infos[k];
    work->result.index = info.info.index;
    work->result.name = info.info.name;
    work->result.pci_id = info.pci_id;
    work->result.bus_id = info.info.pci_bus_id;
    const SkuThresholds* sku = find_sku(info.pci_id, info.spec ? info.spec->key : std::string());
    work->result.sku = sku ? sku->key : "";
    works.push_back(work);
    // The device, its stream and context go to the work: it may outlive this call.
    auto dev = std::shared_ptr<device::Device>(std::move(opened[k]));
    auto stream = dev->create_stream();
    if (!stream) {
      CheckResult c;
      c.kind = CheckKind::kernel;
      c.verdict = Verdict::fail;
      c.action = Action::investigate;
      c.summary = "create a stream: " + stream.error().message;
      work->result.checks.push_back(c);
      continue;
    }
    auto run_ctx =
        std::make_shared<DeviceRun>(DeviceRun{backend, *dev, *stream, info, sku, slot->kind == device::BackendKind::cpu,
                                              q.call_timeout, start, q.stop, watcher.get(), q.progress, q.precision});
    watchers.emplace_back([&, k, work, dev, run_ctx, steps = *steps] {
      const std::string why = util::run_watched(
          [work, dev, run_ctx, steps, registry, watcher] { run_device(*run_ctx, steps, *work); },
          [&, started = Clock::now()]() -> std::string {
            if (Clock::now() - started > deadline)
              return fmt::format("device {} did not finish its checks within {}: a call is stuck in the driver",
                                 indices[k], util::format_duration(deadline));
            return {};
          },
          milliseconds(100));
      abandoned[k] = why;
    });
  }
  for (auto& t : watchers) t.join();
  if (watcher) watcher->stop();
  report.interrupted = q.stop && q.stop->stop_requested();
  report.samples = watcher ? watcher->samples() : std::vector<Sample>{};
  report.kernel = watcher ? watcher->kernel() : std::vector<KernelNote>{};
  if (watcher && !watcher->kernel_missing().empty())
    report.notes.push_back(watcher->kernel_missing() + ": Xid and amdgpu faults were not watched");
  for (const auto& k : report.kernel)
    if (k.device < 0)
      report.notes.push_back(fmt::format("kernel, at {:.1f} s, about a device not under stress: {}", k.t_s, k.text));

  for (std::size_t k = 0; k < works.size(); ++k) {
    DeviceResult d;
    double gemm_from, gemm_to;
    {
      std::lock_guard lock(works[k]->mutex);
      d = works[k]->result;
      gemm_from = works[k]->gemm_from;
      gemm_to = works[k]->gemm_to;
    }
    if (!abandoned[k].empty()) {
      report.abandoned = true;
      CheckResult c;
      c.kind = d.checks.empty() ? CheckKind::kernel : d.checks.back().kind;
      c.verdict = Verdict::fail;
      c.action = Action::reset;
      c.summary = abandoned[k];
      c.evidence.push_back(abandoned[k]);
      d.checks.push_back(c);
    }
    std::vector<Sample> mine;
    for (const auto& s : report.samples)
      if (s.device == d.index) mine.push_back(s);
    std::vector<KernelNote> kernel;
    for (const auto& k : report.kernel)
      if (k.device == d.index) kernel.push_back(k);
    for (auto& c : d.checks)
      if (c.kind == CheckKind::health) judge_run(mine, kernel, c);
    const bool power_asked =
        std::any_of(steps->begin(), steps->end(), [](const Step& s) { return s.kind == CheckKind::power; });
    if (power_asked && gemm_to > gemm_from)
      d.checks.push_back(judge_power(slot->kind == device::BackendKind::cpu,
                                     find_sku(d.pci_id, infos[k].spec ? infos[k].spec->key : ""), mine, gemm_from,
                                     gemm_to));
    report.devices.push_back(std::move(d));
  }
  compare_siblings(report.devices);
  for (auto& d : report.devices) settle(d);
  report.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (report.interrupted) report.notes.push_back(std::string(q.stop->describe()) + ": the checks that ran are kept");
  return report;
}

}  // namespace dcukit::stress
