#include "doctor/smoke.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "device/buffer.h"
#include "device/checked_gemm.h"
#include "device/registry.h"
#include "doctor/context.h"
#include "util/watched.h"

namespace dcukit::doctor {
namespace {

using device::MemKind;
using device::Precision;

constexpr std::size_t kElements = 1u << 20;
constexpr int kGemm = 256;

Status kernel_check(device::Device& b, device::Stream st, std::chrono::milliseconds timeout) {
  auto a = device::allocate(b, MemKind::device, kElements * 4);
  if (!a) return a.error();
  auto x = device::allocate(b, MemKind::device, kElements * 4);
  if (!x) return x.error();
  auto c = device::allocate(b, MemKind::device, kElements * 4);
  if (!c) return c.error();
  if (Status s = b.launch_empty(st); !s) return s;
  if (Status s = b.fill(Precision::fp32, a->get(), 1.0, kElements, st); !s) return s;
  if (Status s = b.fill(Precision::fp32, x->get(), 2.0, kElements, st); !s) return s;
  if (Status s = b.stream_op(device::StreamOp::add, Precision::fp32, a->get(), x->get(), c->get(), 0, kElements, st);
      !s)
    return s;
  std::vector<float> host(kElements);
  if (Status s = b.copy(host.data(), c->get(), kElements * 4, st); !s) return s;
  if (Status s = b.synchronize(timeout); !s) return s;
  for (std::size_t i = 0; i < kElements; ++i)
    if (host[i] != 3.0f) return Error{fmt::format("add gave c[{}] = {} where 1 + 2 = 3 was expected", i, host[i])};
  return {};
}

// A 256×256 fp32 GEMM of generated inputs, sampled elements checked against a float64 reference.
Status gemm_check(device::Device& b, device::Stream st, std::chrono::milliseconds timeout) {
  auto g = device::CheckedGemm::make(b, st, Precision::fp32, kGemm, 11, 12, timeout);
  if (!g) return g.error();
  if (Status s = g->enqueue(); !s) return s;
  auto check = g->check(timeout);
  if (!check) return check.error();
  if (!check->passed) return Error{"GEMM gave a wrong result: " + check->summary};
  return {};
}

// Opens device `index`, runs both checks on a stream of its own; the Device is closed on return.
Status check_device(device::Backend& backend, int index, std::chrono::milliseconds timeout) {
  auto dev = backend.open(index);
  if (!dev) return dev.error();
  auto st = (*dev)->create_stream();
  if (!st) return st.error();
  if (Status s = kernel_check(**dev, *st, timeout); !s) return s;
  return gemm_check(**dev, *st, timeout);
}

}  // namespace

std::vector<Finding> smoke_backend(device::Backend& backend, const std::string& name,
                                   std::chrono::milliseconds timeout) {
  std::vector<Finding> out;
  const int count = backend.device_count();
  for (int i = 0; i < count; ++i) {
    std::string subject = fmt::format("{} device {}", name, i);
    if (auto info = backend.device_info(i); info && !info->pci_bus_id.empty()) subject += " (" + info->pci_bus_id + ")";
    const auto start = std::chrono::steady_clock::now();
    Status s = check_device(backend, i, timeout);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto& f = add(out, Category::smoke, "smoke.compute", s ? Verdict::ok : Verdict::fail,
                  s ? fmt::format("kernel and GEMM correct ({:.0f} ms)", ms) : "the device computed wrong or failed");
    f.subject = subject;
    f.evidence = {fmt::format("fill+add over {} floats, checked; fp32 GEMM {}^3, checked against a float64 reference",
                              kElements, kGemm)};
    if (!s) {
      f.evidence.push_back(s.message());
      f.why = "a device that fails a small checked kernel will fail or corrupt a model";
      f.fix = "dmesg | tail -50   # then reset the card when idle, and run dcukit bench on it";
    }
  }
  return out;
}

SmokeResult run_smoke(std::chrono::milliseconds timeout) {
  auto findings = std::make_shared<std::vector<Finding>>();  // owned by the work: it may outlive this call
  const std::string hung = util::run_watched(
      [findings, timeout] {
        std::vector<Finding> out;
        auto registry = device::Registry::load();
        bool any = false;
        std::vector<std::string> why;
        for (auto& slot : registry.slots()) {
          if (slot.kind == device::BackendKind::cpu) continue;
          const std::string name(device::to_string(slot.kind));
          if (!slot.loaded()) {
            why.push_back(name + ": " + slot.error);
            continue;
          }
          if (slot.device_count == 0) {
            why.push_back(name + ": no device");
            continue;
          }
          any = true;
          auto found = smoke_backend(*slot.backend, name, timeout);
          out.insert(out.end(), found.begin(), found.end());
        }
        if (!any)
          add(out, Category::smoke, "smoke.compute", Verdict::skip, "no GPU backend with a device").evidence = why;
        *findings = std::move(out);
      },
      util::give_up_after(timeout, fmt::format("the devices did not finish a small kernel and GEMM within {} s",
                                               timeout.count() / 1000.0)));
  SmokeResult r;
  if (hung.empty()) {
    r.findings = std::move(*findings);
    return r;
  }
  r.hung = true;
  auto& f = add(r.findings, Category::smoke, "smoke.compute", Verdict::fail, hung);
  f.why = "a device call that does not return is a hung GPU or driver; every job on it will hang the same way";
  f.fix = "dmesg | tail -50   # then reset the card (nvidia-smi -r / hy-smi --gpureset) or reboot";
  return r;
}

}  // namespace dcukit::doctor
