// NVML and rocm_smi sources driven through fake function tables: every call the source makes, its
// units (mW, uW, millidegrees), NOT_SUPPORTED as a null figure, other errors as warnings, the
// process list's two calls, and a library that is not there.
#include <gtest/gtest.h>

#include <cstring>

#include "telemetry/nvml_source.h"
#include "telemetry/rsmi_source.h"
#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_warning;

// ---- a fake NVML with two H200s ------------------------------------------------------------
namespace fake_nvml {
int init_calls = 0, shutdown_calls = 0;
nvml::Device handle(unsigned i) {
  return reinterpret_cast<nvml::Device>(static_cast<std::uintptr_t>(i + 1));
}
unsigned index_of(nvml::Device d) {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(d)) - 1;
}
nvml::Return init() {
  return ++init_calls, nvml::kSuccess;
}
nvml::Return shutdown() {
  return ++shutdown_calls, nvml::kSuccess;
}
const char* error_string(nvml::Return rc) {
  return rc == 999 ? "Unknown Error" : "error";
}
nvml::Return count(unsigned* n) {
  return *n = 2, nvml::kSuccess;
}
nvml::Return by_index(unsigned i, nvml::Device* d) {
  return *d = handle(i), nvml::kSuccess;
}
nvml::Return name(nvml::Device, char* buf, unsigned len) {
  return std::snprintf(buf, len, "NVIDIA H200"), nvml::kSuccess;
}
nvml::Return uuid(nvml::Device d, char* buf, unsigned len) {
  return std::snprintf(buf, len, "GPU-%u", index_of(d)), nvml::kSuccess;
}
nvml::Return pci(nvml::Device d, nvml::PciInfo* p) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", 0x18 + index_of(d));
  p->pciDeviceId = 0x233510DE;
  return nvml::kSuccess;
}
nvml::Return temperature(nvml::Device, int sensor, unsigned* t) {
  return sensor == nvml::kTemperatureGpu ? (*t = 33, nvml::kSuccess) : 2;
}
nvml::Return power(nvml::Device, unsigned* mw) {
  return *mw = 123456, nvml::kSuccess;
}
nvml::Return limit(nvml::Device, unsigned* mw) {
  return *mw = 700000, nvml::kSuccess;
}
nvml::Return util(nvml::Device, nvml::Utilization* u) {
  return u->gpu = 87, u->memory = 40, nvml::kSuccess;
}
nvml::Return memory(nvml::Device, nvml::Memory* m) {
  m->total = 150ull << 30, m->used = 20ull << 30, m->free = 130ull << 30;
  return nvml::kSuccess;
}
/// v2 as a 580 driver answers: `used` without the 615 MiB the driver reserves; a wrong version is refused.
nvml::Return memory_v2(nvml::Device, nvml::MemoryV2* m) {
  if (m->version != nvml::kMemoryV2Version) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
  m->total = 150ull << 30, m->reserved = 615ull << 20, m->free = 130ull << 30;
  m->used = m->total - m->free - m->reserved;
  return nvml::kSuccess;
}
nvml::Return clock(nvml::Device, int type, unsigned* mhz) {
  return *mhz = type == nvml::kClockSm ? 1980 : 3201, nvml::kSuccess;
}
nvml::Return max_clock(nvml::Device, int type, unsigned* mhz) {
  return *mhz = type == nvml::kClockSm ? 1980 : 3201, nvml::kSuccess;
}
nvml::Return gen(nvml::Device, unsigned* g) {
  return *g = 5, nvml::kSuccess;
}
nvml::Return width(nvml::Device d, unsigned* w) {
  return *w = index_of(d) == 1 ? 8 : 16, nvml::kSuccess;
}
nvml::Return ecc(nvml::Device, int, int, unsigned long long*) {
  return nvml::kErrorNotSupported;
}
nvml::Return procs(nvml::Device d, unsigned* n, nvml::ProcessInfo* infos) {
  if (index_of(d) == 1) return 999;  // an unexpected error on GPU 1
  if (!infos || *n < 2) return *n = 2, nvml::kErrorInsufficientSize;
  infos[0] = {4242, 8ull << 30, 0xFFFFFFFF, 0xFFFFFFFF};
  infos[1] = {4343, nvml::kValueNotAvailable, 0xFFFFFFFF, 0xFFFFFFFF};
  *n = 2;
  return nvml::kSuccess;
}
nvml::Return cc(nvml::Device, int* major, int* minor) {
  return *major = 9, *minor = 0, nvml::kSuccess;
}
nvml::Return driver(char* buf, unsigned len) {
  return std::snprintf(buf, len, "590.48.01"), nvml::kSuccess;
}
nvml::Return process_name(unsigned pid, char* buf, unsigned len) {
  return std::snprintf(buf, len, pid == 4242 ? "vllm" : "python"), nvml::kSuccess;
}

nvml::Api api() {
  nvml::Api a;
  a.init = init, a.shutdown = shutdown, a.device_count = count, a.handle_by_index = by_index;
  a.error_string = error_string, a.name = name, a.uuid = uuid, a.pci_info = pci, a.temperature = temperature;
  a.power_usage = power, a.enforced_power_limit = limit, a.utilization = util, a.memory = memory;
  a.clock = clock, a.max_clock = max_clock, a.pcie_gen = gen, a.pcie_width = width, a.pcie_gen_max = gen;
  a.pcie_width_max = width, a.total_ecc = ecc, a.compute_processes = procs, a.compute_capability = cc;
  a.driver_version = driver, a.process_name = process_name;
  return a;
}
}  // namespace fake_nvml

TEST(TelemetryNvml, ReadsEveryFigureWithItsUnits) {
  fake_nvml::init_calls = fake_nvml::shutdown_calls = 0;
  {
    NvmlSource source(fake_nvml::api());
    const auto r = source.sample(Snapshot{});
    EXPECT_EQ(r.state, SourceState::ok);
    ASSERT_EQ(r.snapshot.devices.size(), 2u);
    const auto& d = r.snapshot.devices[0];
    EXPECT_EQ(d.name, "NVIDIA H200");
    EXPECT_EQ(d.uuid, "GPU-0");
    EXPECT_EQ(d.bus_id, "0000:18:00.0");
    EXPECT_EQ(d.device_id, "0x2335");
    EXPECT_EQ(d.temperature_c, 33.0);
    EXPECT_EQ(d.power_w, 123.456);  // milliwatts
    EXPECT_EQ(d.power_cap_w, 700.0);
    EXPECT_EQ(d.busy_percent, 87.0);
    EXPECT_EQ(d.memory_total_bytes, 150ull << 30);
    EXPECT_EQ(d.memory_used_bytes, 20ull << 30);
    EXPECT_EQ(d.memory_available_bytes, 130ull << 30);
    EXPECT_EQ(d.sclk_mhz, 1980);
    EXPECT_EQ(d.mclk_mhz, 3201);
    EXPECT_EQ(d.mclk_max_mhz, 3201);
    EXPECT_EQ(d.pcie_gen, 5);
    EXPECT_EQ(d.pcie_width_max, 16);
    EXPECT_FALSE(d.ecc_corrected);  // NOT_SUPPORTED: null, no warning
    EXPECT_EQ(d.arch, "sm_90");
    EXPECT_EQ(d.driver_version, "590.48.01");
    EXPECT_EQ(d.vendor, Vendor::nvidia);
    ASSERT_TRUE(d.processes);
    ASSERT_EQ(d.processes->size(), 2u);
    EXPECT_EQ((*d.processes)[0].pid, 4242);
    EXPECT_EQ((*d.processes)[0].name, "vllm");
    EXPECT_EQ((*d.processes)[0].memory_bytes, 8ull << 30);
    EXPECT_FALSE((*d.processes)[1].memory_bytes);  // NVML_VALUE_NOT_AVAILABLE
    EXPECT_EQ(d.sources.at(Field::power_w), SourceKind::nvml);
    EXPECT_EQ(r.snapshot.devices[1].pcie_width, 8);
    EXPECT_FALSE(r.snapshot.devices[1].processes);
    EXPECT_TRUE(has_warning(r.snapshot, "nvmlDeviceGetComputeRunningProcesses_v3 of GPU 1 failed: Unknown Error"));
    EXPECT_FALSE(has_warning(r.snapshot, "TotalEcc"));
    source.sample(Snapshot{});
    EXPECT_EQ(fake_nvml::init_calls, 1);  // initialised once for all readings
  }
  EXPECT_EQ(fake_nvml::shutdown_calls, 1);
}

TEST(TelemetryNvml, MemoryUsedLeavesOutTheDriversReservationAsNvidiaSmiDoes) {
  auto a = fake_nvml::api();
  a.memory_v2 = fake_nvml::memory_v2;
  NvmlSource source(a);
  const auto r = source.sample(Snapshot{});
  ASSERT_EQ(r.snapshot.devices.size(), 2u);
  EXPECT_EQ(r.snapshot.devices[0].memory_used_bytes, (20ull << 30) - (615ull << 20));
  EXPECT_EQ(r.snapshot.devices[0].memory_total_bytes, 150ull << 30);
}

TEST(TelemetryNvml, ClockReasonsReplaysAndRemappedRowsAreRead) {
  auto a = fake_nvml::api();
  a.clock_reasons = [](nvml::Device, unsigned long long* r) { return *r = 0x4 | 0x20 | 0x1, nvml::kSuccess; };
  a.pcie_replays = [](nvml::Device, unsigned* n) { return *n = 3, nvml::kSuccess; };
  a.remapped_rows = [](nvml::Device d, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failed) {
    *corr = 1, *unc = 2, *pending = fake_nvml::index_of(d) == 1, *failed = 0;
    return nvml::kSuccess;
  };
  NvmlSource source(a);
  const auto r = source.sample(Snapshot{});
  ASSERT_EQ(r.snapshot.devices.size(), 2u);
  const auto& d = r.snapshot.devices[0];
  EXPECT_EQ(d.throttle_reasons, "power cap, thermal (software)") << "idle (0x1) is no throttle";
  EXPECT_EQ(d.pcie_replays, 3);
  EXPECT_EQ(d.retired_pages, 3);
  EXPECT_EQ(d.retirement_pending, 0);
  EXPECT_EQ(r.snapshot.devices[1].retirement_pending, 1);
  EXPECT_EQ(d.retirement_failed, 0);
}

TEST(TelemetryNvml, RetiredPagesOfBothCausesWhereRowsAreNotRemapped) {
  auto a = fake_nvml::api();
  a.retired_pages = [](nvml::Device, int cause, unsigned* count, unsigned long long*) {
    *count = cause == 0 ? 2 : 1;  // asked with a count of 0: NVML says how many, and that it needs room
    return nvml::kErrorInsufficientSize;
  };
  a.retired_pending = [](nvml::Device, int* pending) { return *pending = 1, nvml::kSuccess; };
  NvmlSource source(a);
  const auto r = source.sample(Snapshot{});
  ASSERT_EQ(r.snapshot.devices.size(), 2u);
  EXPECT_EQ(r.snapshot.devices[0].retired_pages, 3);
  EXPECT_EQ(r.snapshot.devices[0].retirement_pending, 1);
  EXPECT_FALSE(r.snapshot.devices[0].retirement_failed);
}

TEST(TelemetryNvml, InitFailureIsUnavailableWithTheReason) {
  nvml::Api a = fake_nvml::api();
  a.init = [] { return nvml::Return{999}; };
  NvmlSource source(a);
  const auto r = source.sample(Snapshot{});
  EXPECT_EQ(r.state, SourceState::unavailable);
  EXPECT_EQ(r.detail, "nvmlInit_v2 failed: Unknown Error");
}

// ---- a fake rocm_smi with one DCU ------------------------------------------------------------
namespace fake_rsmi {
rsmi::Status init(std::uint64_t) {
  return rsmi::kSuccess;
}
rsmi::Status shut_down() {
  return rsmi::kSuccess;
}
rsmi::Status num(std::uint32_t* n) {
  return *n = 1, rsmi::kSuccess;
}
rsmi::Status name(std::uint32_t, char* b, std::size_t n) {
  return std::snprintf(b, n, "K100_AI"), rsmi::kSuccess;
}
rsmi::Status vendor(std::uint32_t, std::uint16_t* v) {
  return *v = 0x1d94, rsmi::kSuccess;
}
rsmi::Status id(std::uint32_t, std::uint16_t* v) {
  return *v = 0x6210, rsmi::kSuccess;
}
rsmi::Status pci(std::uint32_t, std::uint64_t* bdf) {
  return *bdf = (0x05u << 8), rsmi::kSuccess;
}
rsmi::Status numa(std::uint32_t, std::int32_t* n) {
  return *n = 1, rsmi::kSuccess;
}
rsmi::Status temp(std::uint32_t, std::uint32_t sensor, std::uint32_t, std::int64_t* t) {
  if (sensor == rsmi::kTempEdge) return rsmi::kNotSupported;  // as on MI300: junction only
  return *t = 51000, rsmi::kSuccess;
}
rsmi::Status power(std::uint32_t, std::uint32_t, std::uint64_t* p) {
  return *p = 104000000, rsmi::kSuccess;
}
rsmi::Status cap(std::uint32_t, std::uint32_t, std::uint64_t* p) {
  return *p = 400000000, rsmi::kSuccess;
}
rsmi::Status busy(std::uint32_t, std::uint32_t* b) {
  return *b = 37, rsmi::kSuccess;
}
rsmi::Status total(std::uint32_t, std::uint32_t, std::uint64_t* v) {
  return *v = 65520ull << 20, rsmi::kSuccess;
}
rsmi::Status used(std::uint32_t, std::uint32_t, std::uint64_t* v) {
  return *v = 2ull << 20, rsmi::kSuccess;
}
rsmi::Status ecc(std::uint32_t, std::uint64_t block, rsmi::ErrorCount* e) {
  if (block != rsmi::kBlockUmc) return rsmi::kNotSupported;
  *e = {3, 1};
  return rsmi::kSuccess;
}
rsmi::Status driver(std::uint32_t, char* b, std::uint32_t n) {
  return std::snprintf(b, n, "6.3.28-V1.3.0b"), rsmi::kSuccess;
}
rsmi::Status procs(rsmi::ProcessInfo* p, std::uint32_t* n) {
  if (!p) return *n = 1, rsmi::kSuccess;
  p[0] = {777, 1, 3ull << 30, 0, 0};
  *n = 1;
  return rsmi::kSuccess;
}
rsmi::Status gpus(std::uint32_t, std::uint32_t* d, std::uint32_t* n) {
  return d[0] = 0, *n = 1, rsmi::kSuccess;
}

rsmi::Api api() {
  rsmi::Api a;
  a.init = init, a.shut_down = shut_down, a.num_devices = num, a.name = name, a.vendor_id = vendor, a.id = id;
  a.pci_id = pci, a.numa_node = numa, a.temp = temp, a.power_ave = power, a.power_cap = cap, a.busy_percent = busy;
  a.memory_total = total, a.memory_usage = used, a.ecc_count = ecc, a.version_str = driver, a.process_info = procs;
  a.process_gpus = gpus;
  return a;
}
}  // namespace fake_rsmi

TEST(TelemetryRsmi, ReadsEveryFigureWithItsUnits) {
  RsmiSource source(fake_rsmi::api());
  const auto r = source.sample(Snapshot{});
  EXPECT_EQ(r.state, SourceState::ok);
  ASSERT_EQ(r.snapshot.devices.size(), 1u);
  const auto& d = r.snapshot.devices[0];
  EXPECT_EQ(d.name, "K100_AI");
  EXPECT_EQ(d.vendor, Vendor::hygon);
  EXPECT_EQ(d.device_id, "0x6210");
  EXPECT_EQ(d.bus_id, "0000:05:00.0");
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.temperature_c, 51.0);  // junction when edge is not supported
  EXPECT_EQ(d.power_w, 104.0);       // microwatts
  EXPECT_EQ(d.power_cap_w, 400.0);
  EXPECT_EQ(d.busy_percent, 37.0);
  EXPECT_EQ(d.memory_total_bytes, 65520ull << 20);
  EXPECT_EQ(d.memory_used_bytes, 2ull << 20);
  EXPECT_EQ(d.ecc_corrected, 3);
  EXPECT_EQ(d.ecc_uncorrected, 1);
  EXPECT_EQ(d.driver_version, "6.3.28-V1.3.0b");
  EXPECT_FALSE(d.sclk_mhz);  // clocks come from sysfs (rsmi_frequencies_t changed layout)
  ASSERT_TRUE(d.processes);
  ASSERT_EQ(d.processes->size(), 1u);
  EXPECT_EQ((*d.processes)[0].pid, 777);
  EXPECT_EQ((*d.processes)[0].memory_bytes, 3ull << 30);
  EXPECT_EQ(d.sources.at(Field::processes), SourceKind::rocm_smi_lib);
  EXPECT_TRUE(r.snapshot.warnings.empty());
}

TEST(TelemetryRsmi, UnderARootWithoutLibrariesOnlyTheLoadersSearchIsLeft) {
  const auto candidates = rsmi::library_candidates(dcukit::util::Root("/nonexistent-root"));
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), "librocm_smi64.so");  // only the loader's own search is left
}

}  // namespace
}  // namespace dcukit::telemetry
