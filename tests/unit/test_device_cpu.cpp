// The Device interface on the CPU backend: devices opened per index, streams and events that
// belong to one device, two devices driven from two threads, and copies between devices.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "core/vendor.h"
#include "device/cpu/cpu_backend.h"
#include "device/registry.h"

using namespace dcukit;
using namespace dcukit::device;

namespace {

constexpr std::chrono::milliseconds kTimeout{10000};

std::unique_ptr<Device> open(Backend& b, int index) {
  auto d = b.open(index);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message);
  return d.ok() ? std::move(*d) : nullptr;
}

// BabelStream's sequence on one device: fill, copy, scale, add, triad, dot; returns the dot.
Result<double> babel_round(Device& d, std::size_t n) {
  auto s = d.create_stream();
  if (!s) return s.error();
  std::vector<double> a(n), b(n), c(n);
  for (auto [p, v] : {std::pair{a.data(), 0.1}, {b.data(), 0.2}, {c.data(), 0.0}})
    if (auto st = d.fill(Precision::fp64, p, v, n, *s); !st) return st.error();
  for (auto op : kAllStreamOps)
    if (auto st = d.stream_op(op, Precision::fp64, a.data(), b.data(), c.data(), 0.4, n, *s); !st) return st.error();
  if (auto st = d.synchronize(kTimeout); !st) return st.error();
  return d.dot_result(*s, kTimeout);
}

}  // namespace

TEST(DeviceKinds, BackendKindAndVendorNamesRoundTrip) {
  for (const auto& [kind, name] : kBackendKindNames) {
    EXPECT_EQ(to_string(kind), name);
    EXPECT_EQ(parse_backend_kind(name), kind);
  }
  EXPECT_FALSE(parse_backend_kind("rocm").has_value());
  for (const auto& [vendor, name] : core::kVendorNames) {
    EXPECT_EQ(core::to_string(vendor), name);
    EXPECT_EQ(core::parse_vendor(name), vendor);
  }
  EXPECT_EQ(core::vendor_of_pci_id("1d94:6320"), core::Vendor::hygon);
  EXPECT_EQ(core::vendor_of_pci_id("10de:2335"), core::Vendor::nvidia);
  EXPECT_FALSE(core::vendor_of_pci_id("").has_value());
  EXPECT_TRUE(core::runs_hip(core::Vendor::hygon));
  EXPECT_FALSE(core::runs_hip(core::Vendor::nvidia));
}

TEST(DeviceCpu, OpensEachIndexAndRefusesOthers) {
  cpu::CpuBackend backend(2);
  EXPECT_EQ(backend.kind(), BackendKind::cpu);
  EXPECT_EQ(backend.device_count(), 2);
  auto d1 = open(backend, 1);
  ASSERT_TRUE(d1);
  EXPECT_EQ(d1->index(), 1);
  EXPECT_EQ(backend.device_info(1)->index, 1);
  auto bad = backend.open(2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--device 2"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("0 to 1"), std::string::npos) << bad.error().message;
}

TEST(DeviceCpu, AStreamOrEventOfAnotherDeviceIsRefused) {
  cpu::CpuBackend backend(2);
  auto d0 = open(backend, 0), d1 = open(backend, 1);
  ASSERT_TRUE(d0 && d1);
  auto s0 = d0->create_stream();
  ASSERT_TRUE(s0.ok());
  char a[64] = {}, b[64] = {};
  EXPECT_TRUE(d0->copy(a, b, sizeof a, *s0).ok());
  const Status wrong = d1->copy(a, b, sizeof a, *s0);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("another device"), std::string::npos) << wrong.message();
  EXPECT_FALSE(d0->copy(a, b, sizeof a, Stream{}).ok());  // an empty handle
  auto e = d0->create_event();
  ASSERT_TRUE(e.ok());
  auto s1 = d1->create_stream();
  ASSERT_TRUE(s1.ok());
  EXPECT_FALSE(d1->record(*e, *s1).ok());
  d0->destroy_event(*e);
}

TEST(DeviceCpu, TwoDevicesOnTwoThreadsDoNotRace) {
  cpu::CpuBackend backend(2);
  auto d0 = open(backend, 0), d1 = open(backend, 1);
  ASSERT_TRUE(d0 && d1);
  // Different sizes give different dots: a device that read the other's state would show it.
  const std::size_t n0 = 1000, n1 = 3000;
  const double want0 = *babel_round(*d0, n0), want1 = *babel_round(*d1, n1);
  ASSERT_NE(want0, want1);
  std::vector<double> got0, got1;
  std::string error0, error1;
  auto loop = [](Device& d, std::size_t n, std::vector<double>& got, std::string& error) {
    for (int i = 0; i < 200; ++i) {
      auto r = babel_round(d, n);
      if (!r) {
        error = r.error().message;
        return;
      }
      got.push_back(*r);
    }
  };
  std::thread t0(loop, std::ref(*d0), n0, std::ref(got0), std::ref(error0));
  std::thread t1(loop, std::ref(*d1), n1, std::ref(got1), std::ref(error1));
  t0.join();
  t1.join();
  EXPECT_EQ(error0, "");
  EXPECT_EQ(error1, "");
  ASSERT_EQ(got0.size(), 200u);
  ASSERT_EQ(got1.size(), 200u);
  for (double v : got0) EXPECT_DOUBLE_EQ(v, want0);
  for (double v : got1) EXPECT_DOUBLE_EQ(v, want1);
}

TEST(DeviceCpu, PeerCopyBetweenTwoDevices) {
  cpu::CpuBackend backend(2);
  auto d0 = open(backend, 0), d1 = open(backend, 1);
  ASSERT_TRUE(d0 && d1);
  auto can = backend.can_access_peer(*d0, *d1);
  ASSERT_TRUE(can.ok());
  EXPECT_TRUE(*can);
  ASSERT_TRUE(backend.enable_peer_access(*d0, *d1).ok());
  ASSERT_TRUE(backend.enable_peer_access(*d0, *d1).ok());  // again: not an error
  const std::size_t bytes = 3 << 20;
  auto src = d0->allocate(MemKind::device, bytes), dst = d1->allocate(MemKind::device, bytes);
  ASSERT_TRUE(src.ok() && dst.ok());
  auto* in = static_cast<unsigned char*>(*src);
  for (std::size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i * 7 + 3);
  std::memset(*dst, 0, bytes);
  auto s1 = d1->create_stream();
  ASSERT_TRUE(s1.ok());
  ASSERT_TRUE(backend.copy_peer(*d1, *dst, *d0, *src, bytes, *s1).ok());
  ASSERT_TRUE(d1->synchronize(kTimeout).ok());
  EXPECT_EQ(std::memcmp(*src, *dst, bytes), 0);

  // The stream must belong to one of the two devices.
  auto third = open(backend, 0);
  auto s3 = third->create_stream();
  const Status wrong = backend.copy_peer(*d1, *dst, *d0, *src, bytes, *s3);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("neither"), std::string::npos) << wrong.message();
  d0->release(MemKind::device, *src);
  d1->release(MemKind::device, *dst);
}

TEST(DeviceCpu, EventsTimeWhatRanBetweenThem) {
  cpu::CpuBackend backend;
  auto d = open(backend, 0);
  auto s = d->create_stream();
  auto e0 = d->create_event(), e1 = d->create_event();
  ASSERT_TRUE(s.ok() && e0.ok() && e1.ok());
  ASSERT_TRUE(d->record(*e0, *s).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(d->record(*e1, *s).ok());
  auto ms = d->elapsed_ms(*e0, *e1, kTimeout);
  ASSERT_TRUE(ms.ok());
  EXPECT_GE(*ms, 19.0);
  d->destroy_event(*e0);
  d->destroy_event(*e1);
}

TEST(DeviceRegistry, TheCpuSlotIsAlwaysThereAndDescribesItsDevice) {
  auto registry = Registry::load();
  auto* cpu = registry.find(BackendKind::cpu);
  ASSERT_NE(cpu, nullptr);
  ASSERT_TRUE(cpu->loaded());
  EXPECT_EQ(cpu->device_count, 1);
  bool gpu = false;
  for (auto& slot : registry.slots())
    gpu = gpu || (slot.kind != BackendKind::cpu && slot.loaded() && slot.device_count > 0);
  EXPECT_EQ(registry.default_slot()->kind == BackendKind::cpu, !gpu);
  auto d = cpu->backend->open(0);
  ASSERT_TRUE(d.ok());
  const auto found = describe_device(*cpu->backend, 0, d->get());
  EXPECT_EQ(found.backend, BackendKind::cpu);
  EXPECT_EQ(found.vendor, core::Vendor::cpu);
  EXPECT_GT(found.memory.total, 0u);
  for (auto kind : {BackendKind::cuda, BackendKind::hip}) {
    auto* slot = registry.find(kind);
    ASSERT_NE(slot, nullptr);
    if (!slot->loaded()) {
      EXPECT_FALSE(slot->error.empty()) << to_string(kind);
    }
  }
}

TEST(DeviceCpu, PciVendorIdsComeFromOneTableInEveryForm) {
  EXPECT_EQ(core::vendor_of_pci_id("0x1002"), core::Vendor::amd);
  EXPECT_EQ(core::vendor_of_pci_id("1D94"), core::Vendor::hygon);
  EXPECT_EQ(core::vendor_of_pci_id("0x10DE:0x2335"), core::Vendor::nvidia);
  EXPECT_FALSE(core::vendor_of_pci_id("8086:1234").has_value()) << "another maker";
  EXPECT_FALSE(core::vendor_of_pci_id("zz").has_value());
  EXPECT_FALSE(core::vendor_of_pci_id("0x").has_value());
  for (const auto& v : core::kPciVendors) EXPECT_EQ(core::vendor_of_pci_vendor(v.id), v.vendor);
}
