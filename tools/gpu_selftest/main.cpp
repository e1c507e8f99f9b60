// dcukit_gpu_selftest: loads libdcukit_cuda.so / libdcukit_hip.so the way dcukit does (dlopen +
// dcukit_create_backend) and checks every Backend and Device method against host references on
// small sizes, two Devices driven from two threads, and copies between Devices; --perf adds
// bandwidth of each stream variant and GEMM throughput at N=8192.
// Exit: 0 all checks passed, 1 a check failed, 77 no backend with a device (ctest: skipped).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "device/backend.h"
#include "gpu_selftest/reference.h"

using namespace dcukit::device;
using Clock = std::chrono::steady_clock;

namespace {

int g_failures = 0;
constexpr std::chrono::milliseconds kTimeout{60000};

void report(bool ok, const std::string& what, const std::string& detail = "") {
  if (!ok) ++g_failures;
  std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
}

template <class R>
bool ok_or_report(const R& r, const std::string& what) {
  if (r.ok()) return true;
  report(false, what, r.error().message);
  return false;
}
bool ok_or_report(const dcukit::Status& s, const std::string& what) {
  if (s.ok()) return true;
  report(false, what, s.message());
  return false;
}

std::string exe_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, std::size_t(n));
  return p.substr(0, p.rfind('/'));
}

/// A backend library and the object its factory made; the object dies before the library.
struct Loaded {
  void* lib = nullptr;
  std::unique_ptr<Backend> backend;
  ~Loaded() {
    backend.reset();
    // The library stays mapped: the GPU runtimes register exit handlers that must find it.
  }
};

std::unique_ptr<Loaded> load(const std::string& path, std::string& error) {
  auto out = std::make_unique<Loaded>();
  out->lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!out->lib) {
    error = dlerror();
    return nullptr;
  }
  auto factory = reinterpret_cast<BackendFactory>(dlsym(out->lib, kBackendFactorySymbol));
  if (!factory) {
    error = std::string("no ") + kBackendFactorySymbol + " in " + path;
    return nullptr;
  }
  out->backend.reset(factory(kBackendAbiVersion, &error));
  if (!out->backend) return nullptr;
  return out;
}

/// An opened device and the two streams the checks use (s0 for work, s1 for read-backs).
struct Dev {
  Device& d;
  Stream s0, s1;
};

/// Device buffer of `bytes`, freed at scope end.
struct DevBuf {
  Device& be;
  void* p = nullptr;
  DevBuf(Dev& dev, std::size_t bytes) : be(dev.d) {
    auto r = be.allocate(MemKind::device, bytes);
    if (r.ok())
      p = *r;
    else
      report(false, "allocate " + std::to_string(bytes) + " bytes", r.error().message);
  }
  ~DevBuf() { be.release(MemKind::device, p); }
};

bool upload(Dev& be, void* dst, const void* src, std::size_t bytes) {
  return ok_or_report(be.d.copy(dst, src, bytes, be.s0), "copy H2D") &&
         ok_or_report(be.d.synchronize(kTimeout), "sync");
}
bool download(Dev& be, void* dst, const void* src, std::size_t bytes) {
  return ok_or_report(be.d.copy(dst, src, bytes, be.s1), "copy D2H") &&
         ok_or_report(be.d.synchronize(kTimeout), "sync");
}

// ---- STREAM kernels -------------------------------------------------------------------------

template <class T>
void check_stream(Dev& be, Precision type, std::size_t n, std::size_t offset, const char* variant) {
  const std::string label = std::string("stream ") + std::string(to_string(type)) + " n=" + std::to_string(n) +
                            (offset ? " unaligned" : "") + " variant=" + variant;
  setenv("DCUKIT_STREAM_VARIANT", variant, 1);
  const std::size_t bytes = (n + offset) * sizeof(T);
  DevBuf da(be, bytes), db(be, bytes), dc(be, bytes);
  if (!da.p || !db.p || !dc.p) return;
  T* a = static_cast<T*>(da.p) + offset;
  T* b = static_cast<T*>(db.p) + offset;
  T* c = static_cast<T*>(dc.p) + offset;
  std::vector<T> ha(n), hb(n), hc(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = T(0.1 + 0.01 * double(i % 17));
    hb[i] = T(0.2 - 0.003 * double(i % 29));
    hc[i] = T(0.0);
  }
  if (!upload(be, a, ha.data(), n * sizeof(T)) || !upload(be, b, hb.data(), n * sizeof(T)) ||
      !upload(be, c, hc.data(), n * sizeof(T)))
    return;
  const T s = T(0.4);
  // BabelStream's order: copy, mul, add, triad, then dot.
  for (std::size_t i = 0; i < n; ++i) hc[i] = ha[i];
  for (std::size_t i = 0; i < n; ++i) hb[i] = s * hc[i];
  for (std::size_t i = 0; i < n; ++i) hc[i] = ha[i] + hb[i];
  for (std::size_t i = 0; i < n; ++i) ha[i] = hb[i] + s * hc[i];
  double dot = 0;
  for (std::size_t i = 0; i < n; ++i) dot += double(ha[i]) * double(hb[i]);
  for (auto op : {StreamOp::copy, StreamOp::scale, StreamOp::add, StreamOp::triad, StreamOp::dot})
    if (!ok_or_report(be.d.stream_op(op, type, a, b, c, 0.4, n, be.s0), label + " " + std::string(to_string(op))))
      return;
  if (!ok_or_report(be.d.synchronize(kTimeout), label + " synchronize")) return;
  std::vector<T> ga(n), gb(n), gc(n);
  if (!download(be, ga.data(), a, n * sizeof(T)) || !download(be, gb.data(), b, n * sizeof(T)) ||
      !download(be, gc.data(), c, n * sizeof(T)))
    return;
  std::size_t bad = 0, first = n;
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-14;
  for (std::size_t i = 0; i < n; ++i) {
    const bool ok = std::fabs(double(ga[i]) - ha[i]) <= tol * std::fabs(double(ha[i])) &&
                    std::fabs(double(gb[i]) - hb[i]) <= tol * std::fabs(double(hb[i])) &&
                    std::fabs(double(gc[i]) - hc[i]) <= tol * std::fabs(double(hc[i]));
    if (!ok && bad++ == 0) first = i;
  }
  report(bad == 0, label + " copy/scale/add/triad",
         bad ? std::to_string(bad) + " wrong, first at " + std::to_string(first) : "");
  auto got = be.d.dot_result(be.s0, kTimeout);
  if (!ok_or_report(got, label + " dot_result")) return;
  const double rel = std::fabs(*got - dot) / std::max(std::fabs(dot), 1e-300);
  // Summation order differs from the host's: allow n·eps of double, the worst-case bound.
  report(rel < (sizeof(T) == 4 ? 1e-5 : std::max(1e-12, double(n) * 2.3e-16)), label + " dot",
         "got " + std::to_string(*got) + " want " + std::to_string(dot));
}

void check_fill(Dev& be, Precision type, std::size_t n, std::size_t offset) {
  const std::size_t es = type == Precision::fp32 ? 4 : 8;
  DevBuf d(be, (n + offset) * es);
  if (!d.p) return;
  void* p = static_cast<char*>(d.p) + offset * es;
  const std::string label =
      "fill " + std::string(to_string(type)) + " n=" + std::to_string(n) + (offset ? " unaligned" : "");
  if (!ok_or_report(be.d.fill(type, p, 0.375, n, be.s0), label) || !ok_or_report(be.d.synchronize(kTimeout), label))
    return;
  std::vector<unsigned char> h(n * es);
  if (!download(be, h.data(), p, n * es)) return;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double v;
    if (es == 4) {
      float f;
      std::memcpy(&f, &h[i * 4], 4);
      v = f;
    } else
      std::memcpy(&v, &h[i * 8], 8);
    bad += v != 0.375;
  }
  report(bad == 0, label, bad ? std::to_string(bad) + " wrong" : "");
}

// ---- GEMM -----------------------------------------------------------------------------------

void check_gemm(Dev& be, Precision p, int m, int n, int k) {
  const std::string label = "gemm " + std::string(to_string(p)) + " m=" + std::to_string(m) +
                            " n=" + std::to_string(n) + " k=" + std::to_string(k);
  const auto a = selftest::gemm_inputs(std::size_t(k) * m, p, 1u + m);
  const auto b = selftest::gemm_inputs(std::size_t(k) * n, p, 7u + n);
  const auto ea = selftest::encode_inputs(a, p), eb = selftest::encode_inputs(b, p);
  const std::size_t cbytes = std::size_t(m) * n * output_size(p);
  DevBuf da(be, ea.size()), db(be, eb.size()), dc(be, cbytes);
  if (!da.p || !db.p || !dc.p) return;
  if (!upload(be, da.p, ea.data(), ea.size()) || !upload(be, db.p, eb.data(), eb.size())) return;
  GemmArgs args{p, m, n, k, da.p, db.p, dc.p};
  if (!ok_or_report(be.d.gemm(args, be.s0), label) || !ok_or_report(be.d.synchronize(kTimeout), label)) return;
  std::vector<unsigned char> hc(cbytes);
  if (!download(be, hc.data(), dc.p, cbytes)) return;
  const auto got = selftest::decode_outputs(hc, std::size_t(m) * n, p);
  std::vector<double> scale;
  const auto want = selftest::gemm_reference(a, b, m, n, k, &scale);
  const double tol = selftest::gemm_tolerance(p);
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * scale[i] + 1e-9) && bad++ == 0) first = i;
  report(bad == 0, label,
         bad ? std::to_string(bad) + " wrong, first C[" + std::to_string(first) + "] = " + std::to_string(got[first]) +
                   " want " + std::to_string(want[first])
             : "");
}

// ---- Events, deadlines, latency -------------------------------------------------------------

void check_events(Dev& dev) {
  Device& be = dev.d;
  const Stream s = dev.s0;
  auto e0 = be.create_event(), e1 = be.create_event();
  if (!ok_or_report(e0, "create_event") || !ok_or_report(e1, "create_event")) return;
  const std::size_t bytes = 256ull << 20;
  DevBuf src(dev, bytes), dst(dev, bytes);
  if (!src.p || !dst.p) return;
  const auto t0 = Clock::now();
  if (!ok_or_report(be.record(*e0, s), "record") || !ok_or_report(be.copy(dst.p, src.p, bytes, s), "copy D2D") ||
      !ok_or_report(be.record(*e1, s), "record"))
    return;
  auto ms = be.elapsed_ms(*e0, *e1, kTimeout);
  const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (ok_or_report(ms, "elapsed_ms"))
    report(*ms > 0 && *ms <= wall + 1.0, "event timing of a 256 MiB D2D copy",
           std::to_string(*ms) + " ms by events, " + std::to_string(wall) + " ms by the host clock, " +
               std::to_string(2.0 * bytes / (*ms * 1e-3) / 1e12) + " TB/s");

  // Deadlines: queue ~0.5 s or more of copies, then wait 1 ms: must fail fast and say so.
  const std::size_t big = std::min<std::size_t>(bytes, 256ull << 20);
  if (!ok_or_report(be.record(*e0, s), "record")) return;
  for (int i = 0; i < 400; ++i)
    if (!ok_or_report(be.copy(dst.p, src.p, big, s), "copy D2D")) return;
  if (!ok_or_report(be.record(*e1, s), "record")) return;
  auto t1 = Clock::now();
  auto quick = be.elapsed_ms(*e0, *e1, std::chrono::milliseconds(1));
  double waited = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  report(!quick.ok() && waited < 200, "elapsed_ms gives up at its deadline",
         quick.ok() ? "it returned a time; the queue finished within 1 ms?" : quick.error().message);
  t1 = Clock::now();
  auto st = be.synchronize(std::chrono::milliseconds(1));
  waited = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  report(!st.ok() && waited < 200, "synchronize gives up at its deadline",
         st.ok() ? "it returned success" : st.message());
  report(be.synchronize(kTimeout).ok(), "synchronize waits for the queue");
  be.destroy_event(*e0);
  be.destroy_event(*e1);
}

void latency(Dev& be) {
  std::vector<double> us;
  for (int i = 0; i < 2000; ++i) {
    const auto t = Clock::now();
    if (!be.d.launch_empty(be.s0).ok() || !be.d.synchronize(kTimeout).ok()) {
      report(false, "launch_empty + synchronize");
      return;
    }
    if (i >= 100) us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  std::sort(us.begin(), us.end());
  report(true, "launch_empty + synchronize", "median " + std::to_string(us[us.size() / 2]) + " us");
}

// ---- Performance (--perf) -------------------------------------------------------------------

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Median ms of `reps` runs of `work`, timed with events around each run.
template <class Work>
double time_ms(Dev& dev, int reps, Work work) {
  Device& be = dev.d;
  auto e0 = be.create_event(), e1 = be.create_event();
  if (!e0.ok() || !e1.ok()) return 0;
  std::vector<double> ms;
  for (int r = 0; r < reps + 2; ++r) {
    (void)be.record(*e0, dev.s0);
    if (!work()) return 0;
    (void)be.record(*e1, dev.s0);
    auto t = be.elapsed_ms(*e0, *e1, kTimeout);
    if (!t.ok()) {
      report(false, "timing", t.error().message);
      return 0;
    }
    if (r >= 2) ms.push_back(*t);
  }
  be.destroy_event(*e0);
  be.destroy_event(*e1);
  return median(ms);
}

void perf_memory(Dev& be, std::size_t array_bytes) {
  std::printf("\n-- memory bandwidth, %zu MiB arrays, bytes read + written, median of 20 --\n", array_bytes >> 20);
  DevBuf a(be, array_bytes), b(be, array_bytes), c(be, array_bytes);
  if (!a.p || !b.p || !c.p) return;
  const double d2d = time_ms(be, 20, [&] { return be.d.copy(c.p, a.p, array_bytes, be.s0).ok(); });
  std::printf("%-8s %-5s %-8s %8.3f TB/s\n", "memcpy", "-", "D2D", 2.0 * array_bytes / (d2d * 1e-3) / 1e12);
  for (Precision type : {Precision::fp64, Precision::fp32}) {
    const std::size_t n = array_bytes / (type == Precision::fp32 ? 4 : 8);
    for (double v : {0.1, 0.2, 0.0}) (void)be.d.fill(type, v == 0.1 ? a.p : v == 0.2 ? b.p : c.p, v, n, be.s0);
    for (const char* variant : {"plain", "nt", "unroll4", "unroll4_plain", "l2pf", "flat"}) {
      setenv("DCUKIT_STREAM_VARIANT", variant, 1);
      for (auto op : kAllStreamOps) {
        const double ms = time_ms(be, 20, [&] { return be.d.stream_op(op, type, a.p, b.p, c.p, 0.4, n, be.s0).ok(); });
        const double tbs = double(arrays_touched(op)) * array_bytes / (ms * 1e-3) / 1e12;
        std::printf("%-8s %-5s %-8s %8.3f TB/s\n", std::string(to_string(op)).c_str(),
                    std::string(to_string(type)).c_str(), variant, tbs);
      }
    }
  }
  unsetenv("DCUKIT_STREAM_VARIANT");
}

/// Fills `bytes` of device memory with exact random inputs of `p` (a 1 Mi-element pattern, tiled).
bool fill_random(Dev& be, void* dst, std::size_t bytes, Precision p) {
  const auto pattern = selftest::encode_inputs(selftest::gemm_inputs(1u << 20, p, 42), p);
  for (std::size_t off = 0; off < bytes; off += pattern.size())
    if (!be.d.copy(static_cast<char*>(dst) + off, pattern.data(), std::min(pattern.size(), bytes - off), be.s0).ok())
      return false;
  return be.d.synchronize(kTimeout).ok();
}

void perf_gemm(Dev& be, int n, const std::vector<Precision>& precisions) {
  std::printf("\n-- GEMM N=%d, 2·N³/t, median of 20 (DCUKIT_GEMM_ALGOS=%s) --\n", n,
              std::getenv("DCUKIT_GEMM_ALGOS") ? std::getenv("DCUKIT_GEMM_ALGOS") : "1");
  for (Precision p : precisions) {
    if (auto why = be.d.gemm_unsupported(p); !why.empty()) {
      std::printf("%-5s skipped: %s\n", std::string(to_string(p)).c_str(), why.c_str());
      continue;
    }
    const std::size_t ab = std::size_t(n) * n * input_size(p), cb = std::size_t(n) * n * output_size(p);
    DevBuf a(be, ab), b(be, ab), c(be, cb);
    if (!a.p || !b.p || !c.p) return;
    if (!fill_random(be, a.p, ab, p) || !fill_random(be, b.p, ab, p)) {
      report(false, "fill GEMM inputs");
      return;
    }
    GemmArgs args{p, n, n, n, a.p, b.p, c.p};
    const double ms = time_ms(be, 20, [&] { return be.d.gemm(args, be.s0).ok(); });
    std::printf("%-5s %9.1f TFLOPS  (%.3f ms)\n", std::string(to_string(p)).c_str(),
                ms > 0 ? 2.0 * n * n * double(n) / (ms * 1e-3) / 1e12 : 0.0, ms);
  }
}

/// Opens `index` with two streams; null (reported) when it cannot.
std::unique_ptr<Device> open_device(Backend& be, int index, Stream& s0, Stream& s1) {
  auto d = be.open(index);
  if (!ok_or_report(d, "open device " + std::to_string(index))) return nullptr;
  auto a = (*d)->create_stream(), b = (*d)->create_stream();
  if (!ok_or_report(a, "create_stream") || !ok_or_report(b, "create_stream")) return nullptr;
  s0 = *a;
  s1 = *b;
  return std::move(*d);
}

/// BabelStream's round on one Device, `rounds` times, each dot checked against the host's;
/// "" when every round was right, else what went wrong. Touches no process-wide state, so two
/// threads may run it at once.
std::string babel_rounds(Dev& dev, std::size_t n, int rounds) {
  std::vector<double> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = 0.1 + 0.01 * double(i % 13);
  void* p[3] = {};
  for (auto& q : p) {
    auto r = dev.d.allocate(MemKind::device, n * sizeof(double));
    if (!r) return r.error().message;
    q = *r;
  }
  std::string error;
  for (int round = 0; round < rounds && error.empty(); ++round) {
    // a = h, b = 2, c = 0; copy c = a; scale b = 0.4·c; add c = a + b; triad a = b + 0.4·c; dot Σ a·b.
    dcukit::Status st = dev.d.copy(p[0], h.data(), n * sizeof(double), dev.s0);
    if (st) st = dev.d.fill(Precision::fp64, p[1], 2.0, n, dev.s0);
    if (st) st = dev.d.fill(Precision::fp64, p[2], 0.0, n, dev.s0);
    for (auto op : kAllStreamOps)
      if (st) st = dev.d.stream_op(op, Precision::fp64, p[0], p[1], p[2], 0.4, n, dev.s0);
    if (!st) {
      error = st.message();
      break;
    }
    auto got = dev.d.dot_result(dev.s0, kTimeout);
    if (!got) {
      error = got.error().message;
      break;
    }
    double want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double b = 0.4 * h[i], c = h[i] + b, a = b + 0.4 * c;
      want += a * b;
    }
    if (std::fabs(*got - want) > 1e-9 * std::fabs(want))
      error = "round " + std::to_string(round) + ": dot " + std::to_string(*got) + " want " + std::to_string(want);
  }
  for (auto q : p) dev.d.release(MemKind::device, q);
  return error;
}

/// Two Devices (two indices where the host has them, else two handles of one) driven from two
/// threads at once, and copies between them.
void check_two_devices(Backend& be, int first) {
  const int count = be.device_count();
  const int second = count > 1 ? (first + 1) % count : first;
  Stream a0, a1, b0, b1;
  auto da = open_device(be, first, a0, a1);
  auto db = open_device(be, second, b0, b1);
  if (!da || !db) return;
  Dev a{*da, a0, a1}, b{*db, b0, b1};
  const std::string pair = "devices " + std::to_string(first) + " and " + std::to_string(second);
  std::string error_a, error_b;
  std::thread ta([&] { error_a = babel_rounds(a, (1u << 20) + 5, 50); });
  std::thread tb([&] { error_b = babel_rounds(b, (1u << 19) + 3, 50); });
  ta.join();
  tb.join();
  report(error_a.empty() && error_b.empty(), "two threads, one Device each (" + pair + ")", error_a + error_b);

  // A stream belongs to its Device: another Device refuses it.
  {
    DevBuf x(b, 64);
    const dcukit::Status st = db->copy(x.p, x.p, 64, a0);
    report(!st.ok(), "a stream of another Device is refused", st.ok() ? "accepted" : st.message());
  }

  auto can = be.can_access_peer(*da, *db);
  if (!ok_or_report(can, "can_access_peer " + pair)) return;
  if (*can) {
    report(be.enable_peer_access(*da, *db).ok() && be.enable_peer_access(*db, *da).ok(), "enable_peer_access " + pair);
    report(be.enable_peer_access(*da, *db).ok(), "enable_peer_access again is not an error");
  }
  const std::size_t bytes = 64u << 20;
  DevBuf src(a, bytes), dst(b, bytes);
  if (!src.p || !dst.p) return;
  std::vector<unsigned char> h(bytes), back(bytes, 0);
  for (std::size_t i = 0; i < bytes; ++i) h[i] = static_cast<unsigned char>(i * 131 + 7);
  if (!upload(a, src.p, h.data(), bytes)) return;
  if (!ok_or_report(be.copy_peer(*db, dst.p, *da, src.p, bytes, b0), "copy_peer") ||
      !ok_or_report(db->synchronize(kTimeout), "copy_peer synchronize"))
    return;
  if (!download(b, back.data(), dst.p, bytes)) return;
  report(std::memcmp(h.data(), back.data(), bytes) == 0,
         "copy_peer 64 MiB " + pair + (*can ? " (peer access)" : " (through the host)"));
  const dcukit::Status neither = be.copy_peer(*db, dst.p, *da, src.p, 64, Stream{});
  report(!neither.ok(), "copy_peer refuses a stream of neither device", neither.ok() ? "accepted" : neither.message());
}

void run_backend(Backend& be, int device, bool perf) {
  std::printf("== backend %s\n", std::string(to_string(be.kind())).c_str());
  for (auto& [what, version] : be.versions()) std::printf("   %-24s %s\n", what.c_str(), version.c_str());
  const int count = be.device_count();
  report(count > 0, "device_count", std::to_string(count));
  for (int i = 0; i < count; ++i) {
    auto info = be.device_info(i);
    if (!ok_or_report(info, "device_info " + std::to_string(i))) continue;
    std::printf(
        "   device %d: %s arch=%s pci=%s mem=%.1f GiB units=%d warp=%d clock=%d MHz mem_clock=%d MHz bus=%d bit "
        "L2=%.1f MiB\n",
        i, info->name.c_str(), info->arch.c_str(), info->pci_bus_id.c_str(), info->total_memory / 1073741824.0,
        info->compute_units, info->warp_size, info->clock_mhz, info->memory_clock_mhz, info->memory_bus_width_bits,
        info->l2_cache_bytes / 1048576.0);
  }
  if (device >= count) return;
  Stream s0, s1;
  auto opened = open_device(be, device, s0, s1);
  if (!opened) return;
  Dev dev{*opened, s0, s1};
  auto mem = opened->memory_info();
  if (ok_or_report(mem, "memory_info"))
    report(mem->free > 0 && mem->free <= mem->total, "memory_info",
           std::to_string(mem->free >> 20) + " MiB free of " + std::to_string(mem->total >> 20));

  for (const char* variant : {"plain", "nt", "unroll4", "unroll4_plain", "l2pf", "flat"})
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t((1u << 20) + 3)}) {
      check_stream<float>(dev, Precision::fp32, n, 0, variant);
      check_stream<double>(dev, Precision::fp64, n, 0, variant);
    }
  check_stream<float>(dev, Precision::fp32, 100003, 1, "unroll4");
  check_stream<double>(dev, Precision::fp64, 100003, 1, "nt");
  unsetenv("DCUKIT_STREAM_VARIANT");
  setenv("DCUKIT_STREAM_VARIANT", "bogus", 1);
  {
    DevBuf x(dev, 1024);
    auto st = dev.d.stream_op(StreamOp::copy, Precision::fp32, x.p, x.p, x.p, 0.4, 16, dev.s0);
    report(!st.ok(), "a bad DCUKIT_STREAM_VARIANT is refused", st.ok() ? "accepted" : st.message());
  }
  unsetenv("DCUKIT_STREAM_VARIANT");
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(1 << 20) + 1}) {
    check_fill(dev, Precision::fp32, n, 0);
    check_fill(dev, Precision::fp64, n, 0);
  }
  check_fill(dev, Precision::fp32, 4099, 1);

  // Host buffers: pinned, pageable, and pin()/unpin() of caller memory, round-tripped.
  {
    const std::size_t bytes = 8u << 20;
    DevBuf d(dev, bytes);
    for (MemKind kind : {MemKind::pinned_host, MemKind::pageable_host}) {
      auto h = dev.d.allocate(kind, bytes);
      if (!ok_or_report(h, "allocate host")) continue;
      std::memset(*h, 0x5a, bytes);
      std::vector<unsigned char> back(bytes, 0);
      const bool moved = upload(dev, d.p, *h, bytes) && download(dev, back.data(), d.p, bytes);
      report(moved && back[0] == 0x5a && back[bytes - 1] == 0x5a,
             kind == MemKind::pinned_host ? "pinned host round trip" : "pageable host round trip");
      dev.d.release(kind, *h);
    }
    void* mine = std::aligned_alloc(4096, bytes);
    std::memset(mine, 0x33, bytes);
    if (ok_or_report(dev.d.pin(mine, bytes), "pin")) {
      std::vector<unsigned char> back(bytes, 0);
      const bool moved = upload(dev, d.p, mine, bytes) && download(dev, back.data(), d.p, bytes);
      report(moved && back[bytes / 2] == 0x33, "pinned caller memory round trip");
      report(dev.d.unpin(mine).ok(), "unpin");
    }
    std::free(mine);
  }

  for (Precision p : kAllPrecisions) {
    if (auto why = dev.d.gemm_unsupported(p); !why.empty()) {
      std::printf("SKIP  gemm %s: %s\n", std::string(to_string(p)).c_str(), why.c_str());
      continue;
    }
    check_gemm(dev, p, 64, 64, 64);
    check_gemm(dev, p, 96, 80, 128);
    check_gemm(dev, p, 256, 256, 256);
  }
  {
    GemmArgs bad{Precision::fp32, 0, 4, 4, nullptr, nullptr, nullptr};
    auto st = dev.d.gemm(bad, dev.s0);
    report(!st.ok(), "gemm refuses m=0", st.ok() ? "accepted" : st.message());
  }
  check_events(dev);
  latency(dev);
  check_two_devices(be, device);
  if (perf) {
    perf_memory(dev, 4ull << 30);
    perf_gemm(dev, 8192, std::vector<Precision>(kAllPrecisions.begin(), kAllPrecisions.end()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = exe_dir() + "/../lib/dcukit";
  if (const char* env = std::getenv("DCUKIT_BACKEND_PATH"); env && *env) dir = env;
  std::vector<std::string> names = {"cuda", "hip"};
  int device = 0;
  bool perf = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check-reference") {  // host-only: the formats and references this tool relies on
      const std::string bad = selftest::check_reference();
      std::printf("%s\n", bad.empty() ? "host references OK" : ("host references wrong: " + bad).c_str());
      return bad.empty() ? 0 : 1;
    }
    if (arg == "--perf")
      perf = true;
    else if (arg == "--backend" && i + 1 < argc)
      names = {argv[++i]};
    else if (arg == "--device" && i + 1 < argc)
      device = std::atoi(argv[++i]);
    else if (arg == "--lib-dir" && i + 1 < argc)
      dir = argv[++i];
    else {
      std::printf(
          "usage: %s [--backend cuda|hip] [--device N] [--lib-dir DIR] [--perf] [--check-reference]\n"
          "  checks every Backend and Device method of the GPU backends against host references;\n"
          "  --perf adds bandwidth per stream variant (4 GiB arrays) and GEMM at N=8192\n",
          argv[0]);
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  int tested = 0;
  for (const auto& name : names) {
    const std::string path = dir + "/libdcukit_" + name + ".so";
    std::string error;
    auto loaded = load(path, error);
    if (!loaded) {
      std::printf("--    %s backend not loaded (%s): %s\n", name.c_str(), path.c_str(), error.c_str());
      continue;
    }
    if (loaded->backend->device_count() == 0) {
      std::printf("--    %s backend loaded but sees no device\n", name.c_str());
      continue;
    }
    ++tested;
    run_backend(*loaded->backend, device, perf);
    if (perf && !std::getenv("DCUKIT_GEMM_ALGOS")) {
      // The same GEMMs again with cuBLASLt's first 8 candidates timed (a fresh instance: plans are cached).
      setenv("DCUKIT_GEMM_ALGOS", "8", 1);
      std::string err;
      Stream s0, s1;
      if (auto again = load(path, err))
        if (auto d = open_device(*again->backend, device, s0, s1)) {
          Dev dev{*d, s0, s1};
          perf_gemm(dev, 8192, {Precision::bf16, Precision::fp16, Precision::fp8, Precision::tf32});
        }
      unsetenv("DCUKIT_GEMM_ALGOS");
    }
  }
  if (tested == 0) {
    std::printf("no GPU backend with a device: nothing tested\n");
    return 77;
  }
  std::printf("\n%s: %d check(s) failed\n", g_failures ? "FAILED" : "OK", g_failures);
  return g_failures ? 1 : 0;
}
