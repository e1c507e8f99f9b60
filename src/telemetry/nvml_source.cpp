#include "telemetry/nvml_source.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

namespace dcukit::telemetry {
namespace nvml {

std::string clock_reason_names(unsigned long long reasons) {
  static constexpr std::pair<unsigned long long, const char*> kReasons[] = {
      {0x2, "application clocks"}, {0x4, "power cap"},           {0x8, "hardware slowdown"},
      {0x10, "sync boost"},        {0x20, "thermal (software)"}, {0x40, "thermal (hardware)"},
      {0x80, "power brake"},       {0x100, "display clocks"}};
  std::string out;
  for (const auto& [bit, name] : kReasons)
    if (reasons & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

Status load(util::DynLib& lib, Api& api) {
  const auto get = [&](auto& fn, const char* symbol, bool required) -> Status {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(lib.symbol(symbol));
    if (!fn && required)
      return Error{fmt::format("libnvidia-ml has no {} ({}); the driver is too old", symbol, lib.error())};
    return {};
  };
  for (auto st : {get(api.init, "nvmlInit_v2", true), get(api.shutdown, "nvmlShutdown", true),
                  get(api.device_count, "nvmlDeviceGetCount_v2", true),
                  get(api.handle_by_index, "nvmlDeviceGetHandleByIndex_v2", true)})
    if (!st) return st;
  (void)get(api.error_string, "nvmlErrorString", false);
  (void)get(api.name, "nvmlDeviceGetName", false);
  (void)get(api.pci_info, "nvmlDeviceGetPciInfo_v3", false);
  (void)get(api.uuid, "nvmlDeviceGetUUID", false);
  (void)get(api.serial, "nvmlDeviceGetSerial", false);
  (void)get(api.temperature, "nvmlDeviceGetTemperature", false);
  (void)get(api.power_usage, "nvmlDeviceGetPowerUsage", false);
  (void)get(api.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit", false);
  (void)get(api.utilization, "nvmlDeviceGetUtilizationRates", false);
  (void)get(api.memory, "nvmlDeviceGetMemoryInfo", false);
  (void)get(api.memory_v2, "nvmlDeviceGetMemoryInfo_v2", false);
  (void)get(api.clock, "nvmlDeviceGetClockInfo", false);
  (void)get(api.max_clock, "nvmlDeviceGetMaxClockInfo", false);
  (void)get(api.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", false);
  (void)get(api.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", false);
  (void)get(api.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", false);
  (void)get(api.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", false);
  (void)get(api.total_ecc, "nvmlDeviceGetTotalEccErrors", false);
  (void)get(api.compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3", false);
  (void)get(api.compute_capability, "nvmlDeviceGetCudaComputeCapability", false);
  (void)get(api.driver_version, "nvmlSystemGetDriverVersion", false);
  (void)get(api.process_name, "nvmlSystemGetProcessName", false);
  (void)get(api.clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons", false);
  if (!api.clock_reasons)  // drivers before 535
    (void)get(api.clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons", false);
  (void)get(api.pcie_replays, "nvmlDeviceGetPcieReplayCounter", false);
  (void)get(api.remapped_rows, "nvmlDeviceGetRemappedRows", false);
  (void)get(api.retired_pages, "nvmlDeviceGetRetiredPages", false);
  (void)get(api.retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus", false);
  (void)get(api.common_ancestor, "nvmlDeviceGetTopologyCommonAncestor", false);
  (void)get(api.p2p_status, "nvmlDeviceGetP2PStatus", false);
  (void)get(api.nvlink_state, "nvmlDeviceGetNvLinkState", false);
  (void)get(api.nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2", false);
  (void)get(api.nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType", false);
  return {};
}

}  // namespace nvml

namespace {

// Calls an optional NVML function; a value on success, nullopt otherwise. Errors other than
// NOT_SUPPORTED are reported once a device and call.
template <class T, class Fn, class... Args>
std::optional<T> query(const nvml::Api& api, Fn fn, const char* what, unsigned index,
                       std::vector<std::string>& warnings, Args... args) {
  if (!fn) return std::nullopt;
  T out{};
  const nvml::Return rc = fn(args..., &out);
  if (rc == nvml::kSuccess) return out;
  if (rc != nvml::kErrorNotSupported)
    warnings.push_back(fmt::format("nvml: {} of GPU {} failed: {}", what, index,
                                   api.error_string ? api.error_string(rc) : fmt::format("error {}", rc)));
  return std::nullopt;
}

std::optional<std::string> text(nvml::Return (*fn)(nvml::Device, char*, unsigned), nvml::Device dev, unsigned size) {
  if (!fn) return std::nullopt;
  std::vector<char> buf(size, '\0');
  if (fn(dev, buf.data(), size) != nvml::kSuccess) return std::nullopt;
  buf.back() = '\0';
  return std::string(buf.data());
}

template <class T>
std::optional<std::int64_t> as_int(const std::optional<T>& v) {
  return v ? std::optional<std::int64_t>(static_cast<std::int64_t>(*v)) : std::nullopt;
}

/// Memory taken out of use: remapped rows where the GPU has them (Ampere and later), else retired
/// pages of both causes (multiple single-bit and double-bit errors).
void read_retirement(const nvml::Api& a, nvml::Device dev, DeviceState& d) {
  unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
  if (a.remapped_rows && a.remapped_rows(dev, &corrected, &uncorrected, &pending, &failed) == nvml::kSuccess) {
    d.retired_pages = corrected + uncorrected;
    d.retirement_pending = pending ? 1 : 0;
    d.retirement_failed = failed ? 1 : 0;
    return;
  }
  if (!a.retired_pages) return;
  std::int64_t pages = 0;
  for (int cause : {0, 1}) {  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, _DOUBLE_BIT_
    unsigned count = 0;
    const nvml::Return rc = a.retired_pages(dev, cause, &count, nullptr);
    if (rc != nvml::kSuccess && rc != nvml::kErrorInsufficientSize) return;
    pages += count;
  }
  d.retired_pages = pages;
  int pending_state = 0;
  if (a.retired_pending && a.retired_pending(dev, &pending_state) == nvml::kSuccess)
    d.retirement_pending = pending_state ? 1 : 0;
}

}  // namespace

NvmlSource::NvmlSource(const nvml::Api& api) : m_api(api), m_given(true) {}

NvmlSource::~NvmlSource() {
  if (m_initialized && m_api.shutdown) m_api.shutdown();
}

Status NvmlSource::open() {
  if (m_unavailable) return Error{*m_unavailable};
  if (m_tried) return {};
  m_tried = true;
  if (!m_given) {
    m_lib = std::make_unique<util::DynLib>();
    if (!m_lib->open("libnvidia-ml.so.1")) {
      const std::string first = m_lib->error();  // the one a user can act on
      if (!m_lib->open("libnvidia-ml.so")) {
        m_unavailable = fmt::format("NVML not loaded: {}", first);
        return Error{*m_unavailable};
      }
    }
    if (auto st = nvml::load(*m_lib, m_api); !st) {
      m_unavailable = st.message();
      return st;
    }
  }
  const nvml::Return rc = m_api.init();
  if (rc != nvml::kSuccess) {
    m_unavailable =
        fmt::format("nvmlInit_v2 failed: {}", m_api.error_string ? m_api.error_string(rc) : std::to_string(rc));
    return Error{*m_unavailable};
  }
  m_initialized = true;
  if (m_api.driver_version) {
    char buf[nvml::kDriverVersionBufferSize] = {};
    if (m_api.driver_version(buf, sizeof buf) == nvml::kSuccess) m_driver_version = std::string(buf);
  }
  return {};
}

DeviceState NvmlSource::read_device(unsigned int i, std::vector<std::string>& w) {
  DeviceState d;
  d.index = static_cast<int>(i);
  d.vendor = Vendor::nvidia;
  nvml::Device dev = nullptr;
  if (m_api.handle_by_index(i, &dev) != nvml::kSuccess) {
    w.push_back(fmt::format("nvml: no handle for GPU {}", i));
    return d;
  }
  const auto& a = m_api;
  d.name = text(a.name, dev, nvml::kDeviceNameBufferSize);
  d.uuid = text(a.uuid, dev, nvml::kUuidBufferSize);
  d.serial = text(a.serial, dev, nvml::kSerialBufferSize);
  if (auto pci = query<nvml::PciInfo>(a, a.pci_info, "nvmlDeviceGetPciInfo_v3", i, w, dev)) {
    pci->busId[sizeof pci->busId - 1] = '\0';
    d.bus_id = normalize_bus_id(pci->busId);
    d.device_id = fmt::format("0x{:04x}", pci->pciDeviceId >> 16);
  }
  if (auto t = query<unsigned>(a, a.temperature, "nvmlDeviceGetTemperature", i, w, dev, nvml::kTemperatureGpu))
    d.temperature_c = static_cast<double>(*t);
  if (auto p = query<unsigned>(a, a.power_usage, "nvmlDeviceGetPowerUsage", i, w, dev)) d.power_w = *p / 1000.0;
  if (auto p = query<unsigned>(a, a.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit", i, w, dev))
    d.power_cap_w = *p / 1000.0;
  if (auto u = query<nvml::Utilization>(a, a.utilization, "nvmlDeviceGetUtilizationRates", i, w, dev))
    d.busy_percent = static_cast<double>(u->gpu);
  nvml::MemoryV2 m2{};
  m2.version = nvml::kMemoryV2Version;
  if (a.memory_v2 && a.memory_v2(dev, &m2) == nvml::kSuccess) {  // used as nvidia-smi shows it
    d.memory_total_bytes = m2.total;
    d.memory_used_bytes = m2.used;
    d.memory_available_bytes = m2.free;
  } else if (auto m = query<nvml::Memory>(a, a.memory, "nvmlDeviceGetMemoryInfo", i, w, dev)) {
    d.memory_total_bytes = m->total;
    d.memory_used_bytes = m->used;
    d.memory_available_bytes = m->free;
  }
  d.sclk_mhz = as_int(query<unsigned>(a, a.clock, "nvmlDeviceGetClockInfo(SM)", i, w, dev, nvml::kClockSm));
  d.mclk_mhz = as_int(query<unsigned>(a, a.clock, "nvmlDeviceGetClockInfo(MEM)", i, w, dev, nvml::kClockMem));
  d.sclk_max_mhz = as_int(query<unsigned>(a, a.max_clock, "nvmlDeviceGetMaxClockInfo(SM)", i, w, dev, nvml::kClockSm));
  d.mclk_max_mhz =
      as_int(query<unsigned>(a, a.max_clock, "nvmlDeviceGetMaxClockInfo(MEM)", i, w, dev, nvml::kClockMem));
  d.pcie_gen = as_int(query<unsigned>(a, a.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", i, w, dev));
  d.pcie_width = as_int(query<unsigned>(a, a.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", i, w, dev));
  d.pcie_gen_max = as_int(query<unsigned>(a, a.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", i, w, dev));
  d.pcie_width_max = as_int(query<unsigned>(a, a.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", i, w, dev));
  d.ecc_corrected = as_int(query<unsigned long long>(a, a.total_ecc, "nvmlDeviceGetTotalEccErrors", i, w, dev,
                                                     nvml::kErrorCorrected, nvml::kVolatileEcc));
  d.ecc_uncorrected = as_int(query<unsigned long long>(a, a.total_ecc, "nvmlDeviceGetTotalEccErrors", i, w, dev,
                                                       nvml::kErrorUncorrected, nvml::kVolatileEcc));
  if (a.compute_capability) {
    int major = 0, minor = 0;
    if (a.compute_capability(dev, &major, &minor) == nvml::kSuccess) d.arch = fmt::format("sm_{}{}", major, minor);
  }
  if (auto r = query<unsigned long long>(a, a.clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons", i, w, dev))
    d.throttle_reasons = nvml::clock_reason_names(*r);
  d.pcie_replays = as_int(query<unsigned>(a, a.pcie_replays, "nvmlDeviceGetPcieReplayCounter", i, w, dev));
  read_retirement(a, dev, d);
  d.driver_version = m_driver_version;
  if (a.compute_processes) {
    unsigned int count = 0;
    nvml::Return rc = a.compute_processes(dev, &count, nullptr);
    std::vector<nvml::ProcessInfo> infos;
    if (rc == nvml::kErrorInsufficientSize) {
      count += 8;  // room for processes that start between the two calls
      infos.resize(count);
      rc = a.compute_processes(dev, &count, infos.data());
      infos.resize(rc == nvml::kSuccess ? count : 0);
    }
    if (rc == nvml::kSuccess) {
      d.processes.emplace();
      for (const auto& p : infos) {
        ProcessUse use;
        use.pid = p.pid;
        if (p.usedGpuMemory != nvml::kValueNotAvailable) use.memory_bytes = p.usedGpuMemory;
        if (a.process_name) {
          char name[256] = {};
          if (a.process_name(p.pid, name, sizeof name) == nvml::kSuccess) use.name = std::string(name);
        }
        d.processes->push_back(std::move(use));
      }
    } else if (rc != nvml::kErrorNotSupported) {
      w.push_back(fmt::format("nvml: nvmlDeviceGetComputeRunningProcesses_v3 of GPU {} failed: {}", i,
                              a.error_string ? a.error_string(rc) : std::to_string(rc)));
    }
  }
  stamp_sources(d, SourceKind::nvml);
  return d;
}

const LinkReading& NvmlSource::links() {
  if (m_links) return *m_links;  // links do not change while the driver is loaded
  if (auto st = open(); !st) {
    m_links.emplace();
    if (m_given || (m_lib && m_lib->is_open())) m_links->warnings.push_back("nvml: " + st.message() + "; NVIDIA links not read");
    return *m_links;
  }
  m_links = nvml_links(m_api);
  return *m_links;
}

SourceSample NvmlSource::sample(const Snapshot&) {
  SourceSample out;
  if (auto st = open(); !st) {
    out.state = m_tried && m_initialized ? SourceState::failed : SourceState::unavailable;
    out.detail = st.message();
    return out;
  }
  unsigned int count = 0;
  if (const nvml::Return rc = m_api.device_count(&count); rc != nvml::kSuccess) {
    out.state = SourceState::failed;
    out.detail = fmt::format("nvmlDeviceGetCount_v2 failed: {}",
                             m_api.error_string ? m_api.error_string(rc) : std::to_string(rc));
    return out;
  }
  for (unsigned int i = 0; i < count; ++i) out.snapshot.devices.push_back(read_device(i, out.snapshot.warnings));
  const LinkReading& l = links();
  out.snapshot.topology = l.topology;
  for (const auto& w : l.warnings) out.snapshot.warnings.push_back(w);
  out.detail = fmt::format("{} device{}", count, count == 1 ? "" : "s");
  return out;
}

}  // namespace dcukit::telemetry
