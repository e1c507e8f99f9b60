#include "doctor/smoke.h"

#include <fmt/format.h>

#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "device/registry.h"
#include "doctor/context.h"

namespace dcukit::doctor {
namespace {

using device::MemKind;
using device::Precision;

constexpr std::size_t kElements = 1u << 20;
constexpr int kGemm = 256;

/// Device buffers freed on every path.
class Buffers {
public:
  explicit Buffers(device::Device& b) : m_b(b) {}
  ~Buffers() {
    for (auto* p : m_ptrs) m_b.release(MemKind::device, p);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  Result<void*> get(std::size_t bytes) {
    auto p = m_b.allocate(MemKind::device, bytes);
    if (p) m_ptrs.push_back(*p);
    return p;
  }

private:
  device::Device& m_b;
  std::vector<void*> m_ptrs;
};

Status kernel_check(device::Device& b, device::Stream st, std::chrono::milliseconds timeout) {
  Buffers buf(b);
  auto a = buf.get(kElements * 4), x = buf.get(kElements * 4), c = buf.get(kElements * 4);
  if (!a) return a.error();
  if (!x) return x.error();
  if (!c) return c.error();
  if (Status s = b.launch_empty(st); !s) return s;
  if (Status s = b.fill(Precision::fp32, *a, 1.0, kElements, st); !s) return s;
  if (Status s = b.fill(Precision::fp32, *x, 2.0, kElements, st); !s) return s;
  if (Status s = b.stream_op(device::StreamOp::add, Precision::fp32, *a, *x, *c, 0, kElements, st); !s) return s;
  std::vector<float> host(kElements);
  if (Status s = b.copy(host.data(), *c, kElements * 4, st); !s) return s;
  if (Status s = b.synchronize(timeout); !s) return s;
  for (std::size_t i = 0; i < kElements; ++i)
    if (host[i] != 3.0f) return Error{fmt::format("add gave c[{}] = {} where 1 + 2 = 3 was expected", i, host[i])};
  return {};
}

Status gemm_check(device::Device& b, device::Stream st, std::chrono::milliseconds timeout) {
  if (auto why = b.gemm_unsupported(Precision::fp32); !why.empty()) return Error{"fp32 GEMM: " + why};
  const std::size_t n = kGemm, bytes = n * n * 4;
  std::vector<float> A(n * n), B(n * n), C(n * n, -1.0f);
  for (std::size_t i = 0; i < n * n; ++i) {  // small integers: every product and sum is exact in fp32 and tf32
    A[i] = static_cast<float>(static_cast<int>((i * 7) % 5) - 2);
    B[i] = static_cast<float>(static_cast<int>((i * 3) % 5) - 2);
  }
  Buffers buf(b);
  auto da = buf.get(bytes), db = buf.get(bytes), dc = buf.get(bytes);
  if (!da) return da.error();
  if (!db) return db.error();
  if (!dc) return dc.error();
  if (Status s = b.copy(*da, A.data(), bytes, st); !s) return s;
  if (Status s = b.copy(*db, B.data(), bytes, st); !s) return s;
  device::GemmArgs g;
  g.precision = Precision::fp32;
  g.m = g.n = g.k = kGemm;
  g.a = *da;
  g.b = *db;
  g.c = *dc;
  if (Status s = b.gemm(g, st); !s) return s;
  if (Status s = b.copy(C.data(), *dc, bytes, st); !s) return s;
  if (Status s = b.synchronize(timeout); !s) return s;
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i) {
      double want = 0;  // C[i + j*m] = sum_k A[k + i*k_dim] * B[k + j*k_dim]
      for (std::size_t k = 0; k < n; ++k) want += static_cast<double>(A[k + i * n]) * B[k + j * n];
      if (std::fabs(C[i + j * n] - want) > 1e-3)
        return Error{fmt::format("GEMM gave C[{},{}] = {} where {} was expected", i, j, C[i + j * n], want)};
    }
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
  struct Shared {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::vector<Finding> findings;
  };
  auto shared = std::make_shared<Shared>();
  std::thread worker([shared, timeout] {
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
    if (!any) add(out, Category::smoke, "smoke.compute", Verdict::skip, "no GPU backend with a device").evidence = why;
    std::lock_guard lock(shared->m);
    shared->findings = std::move(out);
    shared->done = true;
    shared->cv.notify_all();
  });
  SmokeResult r;
  std::unique_lock lock(shared->m);
  if (!shared->cv.wait_for(lock, timeout, [&] { return shared->done; })) {
    worker.detach();  // stuck in the driver: it cannot be stopped, only left behind
    r.hung = true;
    auto& f =
        add(r.findings, Category::smoke, "smoke.compute", Verdict::fail,
            fmt::format("the devices did not finish a small kernel and GEMM within {} s", timeout.count() / 1000.0));
    f.why = "a device call that does not return is a hung GPU or driver; every job on it will hang the same way";
    f.fix = "dmesg | tail -50   # then reset the card (nvidia-smi -r / hy-smi --gpureset) or reboot";
    return r;
  }
  lock.unlock();
  worker.join();
  r.findings = std::move(shared->findings);
  return r;
}

}  // namespace dcukit::doctor
