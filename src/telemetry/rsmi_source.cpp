#include "telemetry/rsmi_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "telemetry/sysfs_values.h"
#include "telemetry/text.h"
#include "util/sysfs.h"

namespace dcukit::telemetry {
namespace rsmi {

dcukit::Status load(util::DynLib& lib, Api& api) {
  const auto get = [&](auto& fn, const char* symbol, bool required) -> dcukit::Status {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(lib.symbol(symbol));
    if (!fn && required) return Error{fmt::format("librocm_smi64 has no {} ({})", symbol, lib.error())};
    return {};
  };
  for (auto st : {get(api.init, "rsmi_init", true), get(api.shut_down, "rsmi_shut_down", true),
                  get(api.num_devices, "rsmi_num_monitor_devices", true)})
    if (!st) return st;
  (void)get(api.status_string, "rsmi_status_string", false);
  (void)get(api.name, "rsmi_dev_name_get", false);
  (void)get(api.id, "rsmi_dev_id_get", false);
  (void)get(api.vendor_id, "rsmi_dev_vendor_id_get", false);
  (void)get(api.pci_id, "rsmi_dev_pci_id_get", false);
  (void)get(api.numa_node, "rsmi_topo_numa_affinity_get", false);
  (void)get(api.temp, "rsmi_dev_temp_metric_get", false);
  (void)get(api.power_ave, "rsmi_dev_power_ave_get", false);
  (void)get(api.power_cap, "rsmi_dev_power_cap_get", false);
  (void)get(api.busy_percent, "rsmi_dev_busy_percent_get", false);
  (void)get(api.memory_total, "rsmi_dev_memory_total_get", false);
  (void)get(api.memory_usage, "rsmi_dev_memory_usage_get", false);
  (void)get(api.ecc_count, "rsmi_dev_ecc_count_get", false);
  (void)get(api.serial, "rsmi_dev_serial_number_get", false);
  (void)get(api.unique_id, "rsmi_dev_unique_id_get", false);
  (void)get(api.version_str, "rsmi_version_str_get", false);
  (void)get(api.process_info, "rsmi_compute_process_info_get", false);
  (void)get(api.process_gpus, "rsmi_compute_process_gpus_get", false);
  return {};
}

std::vector<std::string> library_candidates(const util::Root& root) {
  std::vector<std::string> dirs{"/opt/hyhal/lib"};
  const auto env_dir = [&](const char* name) {
    if (const char* v = std::getenv(name); v && *v) dirs.push_back(std::string(v) + "/lib");
  };
  const auto globbed = [&](const std::string& prefix) {
    auto found = root.glob("/opt", prefix + "*");
    std::sort(found.rbegin(), found.rend());  // newest version first
    for (const auto& name : found) dirs.push_back("/opt/" + name + "/lib");
  };
  env_dir("DTK_HOME");
  globbed("dtk");
  env_dir("ROCM_PATH");
  globbed("rocm");
  std::vector<std::string> out;
  for (const auto& d : dirs)
    for (const char* suffix : {".so", ".so.1", ".so.2", ".so.5", ".so.6", ".so.7"}) {
      const std::string p = d + "/librocm_smi64" + suffix;
      if (root.exists(p)) out.push_back(root.real(p));
    }
  for (const char* suffix : {".so", ".so.1", ".so.2", ".so.5", ".so.6", ".so.7"})
    out.push_back(std::string("librocm_smi64") + suffix);
  return out;
}

}  // namespace rsmi

namespace {

std::string describe(const rsmi::Api& api, rsmi::Status rc) {
  const char* s = nullptr;
  if (api.status_string && api.status_string(rc, &s) == rsmi::kSuccess && s) return s;
  return fmt::format("rsmi status {}", rc);
}

template <class T, class Fn, class... Args>
std::optional<T> query(const rsmi::Api& api, Fn fn, const char* what, std::uint32_t i, std::vector<std::string>& w,
                       Args... args) {
  if (!fn) return std::nullopt;
  T out{};
  const rsmi::Status rc = fn(i, args..., &out);
  if (rc == rsmi::kSuccess) return out;
  if (rc != rsmi::kNotSupported)
    w.push_back(fmt::format("rocm_smi: {} of device {} failed: {}", what, i, describe(api, rc)));
  return std::nullopt;
}

}  // namespace

RsmiSource::RsmiSource(const rsmi::Api& api) : m_api(api), m_given(true) {}

RsmiSource::~RsmiSource() {
  if (m_initialized && m_api.shut_down) m_api.shut_down();
}

dcukit::Status RsmiSource::open() {
  if (m_unavailable) return Error{*m_unavailable};
  if (m_tried) return {};
  m_tried = true;
  if (!m_given) {
    std::string errors;
    for (const auto& path : rsmi::library_candidates(m_root)) {
      auto lib = std::make_unique<util::DynLib>();
      if (lib->open(path)) {
        m_lib = std::move(lib);
        m_path = path;
        break;
      }
      if (contains(path, "/")) errors += "; " + lib->error();
    }
    if (!m_lib) {
      m_unavailable =
          "librocm_smi64 not found in /opt/hyhal/lib, $DTK_HOME/lib, /opt/dtk*/lib, $ROCM_PATH/lib, "
          "/opt/rocm*/lib or the loader's path" +
          errors;
      return Error{*m_unavailable};
    }
    if (auto st = rsmi::load(*m_lib, m_api); !st) {
      m_unavailable = m_path + ": " + st.message();
      return Error{*m_unavailable};
    }
  }
  if (const rsmi::Status rc = m_api.init(0); rc != rsmi::kSuccess) {
    m_unavailable = fmt::format("rsmi_init failed: {}", describe(m_api, rc));
    return Error{*m_unavailable};
  }
  m_initialized = true;
  return {};
}

DeviceState RsmiSource::read_device(std::uint32_t i, std::vector<std::string>& w) {
  DeviceState d;
  d.index = static_cast<int>(i);
  const auto& a = m_api;
  if (a.name) {
    char buf[256] = {};
    if (a.name(i, buf, sizeof buf) == rsmi::kSuccess) d.name = text_value(buf);
  }
  if (auto v = query<std::uint16_t>(a, a.vendor_id, "rsmi_dev_vendor_id_get", i, w))
    d.vendor = vendor_from_pci_id(fmt::format("0x{:04x}", *v));
  if (auto v = query<std::uint16_t>(a, a.id, "rsmi_dev_id_get", i, w)) d.device_id = fmt::format("0x{:04x}", *v);
  if (auto v = query<std::uint64_t>(a, a.pci_id, "rsmi_dev_pci_id_get", i, w)) d.bus_id = bus_id_from_bdfid(*v);
  if (auto v = query<std::int32_t>(a, a.numa_node, "rsmi_topo_numa_affinity_get", i, w); v && *v >= 0) d.numa_node = *v;
  for (std::uint32_t sensor : {rsmi::kTempEdge, rsmi::kTempJunction}) {
    if (d.temperature_c || !a.temp) continue;
    std::int64_t milli = 0;
    if (a.temp(i, sensor, rsmi::kTempCurrent, &milli) == rsmi::kSuccess) d.temperature_c = milli / 1000.0;
  }
  if (auto v = query<std::uint64_t>(a, a.power_ave, "rsmi_dev_power_ave_get", i, w, 0u)) d.power_w = *v / 1e6;
  if (auto v = query<std::uint64_t>(a, a.power_cap, "rsmi_dev_power_cap_get", i, w, 0u)) d.power_cap_w = *v / 1e6;
  if (auto v = query<std::uint32_t>(a, a.busy_percent, "rsmi_dev_busy_percent_get", i, w)) d.busy_percent = *v;
  d.memory_total_bytes = query<std::uint64_t>(a, a.memory_total, "rsmi_dev_memory_total_get", i, w, rsmi::kMemVram);
  d.memory_used_bytes = query<std::uint64_t>(a, a.memory_usage, "rsmi_dev_memory_usage_get", i, w, rsmi::kMemVram);
  if (a.ecc_count) {
    std::optional<std::int64_t> corrected, uncorrected;
    for (std::uint64_t block : {rsmi::kBlockUmc, rsmi::kBlockSdma, rsmi::kBlockGfx}) {
      rsmi::ErrorCount ec{};
      if (a.ecc_count(i, block, &ec) != rsmi::kSuccess) continue;
      corrected = corrected.value_or(0) + static_cast<std::int64_t>(ec.correctable_err);
      uncorrected = uncorrected.value_or(0) + static_cast<std::int64_t>(ec.uncorrectable_err);
    }
    d.ecc_corrected = corrected;
    d.ecc_uncorrected = uncorrected;
  }
  if (a.serial) {
    char buf[64] = {};
    if (a.serial(i, buf, sizeof buf) == rsmi::kSuccess) d.serial = text_value(buf);
  }
  if (auto v = query<std::uint64_t>(a, a.unique_id, "rsmi_dev_unique_id_get", i, w))
    d.uuid = fmt::format("{:016x}", *v);
  if (a.version_str) {
    char buf[128] = {};
    if (a.version_str(rsmi::kSwDriver, buf, sizeof buf) == rsmi::kSuccess) d.driver_version = text_value(buf);
  }
  return d;
}

void RsmiSource::read_processes(std::vector<DeviceState>& devices) {
  if (!m_api.process_info) return;
  std::uint32_t n = 0;
  if (m_api.process_info(nullptr, &n) != rsmi::kSuccess) return;
  std::vector<rsmi::ProcessInfo> procs(n + 8);
  n = static_cast<std::uint32_t>(procs.size());
  if (m_api.process_info(procs.data(), &n) != rsmi::kSuccess) return;
  procs.resize(std::min<std::size_t>(n, procs.size()));
  for (auto& d : devices) d.processes.emplace();
  for (const auto& p : procs) {
    std::vector<std::uint32_t> gpus(devices.size() + 1);
    std::uint32_t count = static_cast<std::uint32_t>(gpus.size());
    if (!m_api.process_gpus || m_api.process_gpus(p.process_id, gpus.data(), &count) != rsmi::kSuccess) continue;
    for (std::uint32_t k = 0; k < count && k < gpus.size(); ++k) {
      if (gpus[k] >= devices.size()) continue;
      ProcessUse use;
      use.pid = p.process_id;
      use.name = m_root.first_line(fmt::format("/proc/{}/comm", p.process_id));
      if (count == 1) use.memory_bytes = p.vram_usage;  // the library sums VRAM over devices
      devices[gpus[k]].processes->push_back(std::move(use));
    }
  }
}

SourceSample RsmiSource::sample(const Snapshot&) {
  SourceSample out;
  if (auto st = open(); !st) {
    out.state = SourceState::unavailable;
    out.detail = st.message();
    return out;
  }
  std::uint32_t count = 0;
  if (const rsmi::Status rc = m_api.num_devices(&count); rc != rsmi::kSuccess) {
    out.state = SourceState::failed;
    out.detail = "rsmi_num_monitor_devices failed: " + describe(m_api, rc);
    return out;
  }
  for (std::uint32_t i = 0; i < count; ++i) out.snapshot.devices.push_back(read_device(i, out.snapshot.warnings));
  read_processes(out.snapshot.devices);
  for (auto& d : out.snapshot.devices) stamp_sources(d, SourceKind::rocm_smi_lib);
  out.detail = fmt::format("{} device{}{}", count, count == 1 ? "" : "s", m_path.empty() ? "" : " via " + m_path);
  return out;
}

}  // namespace dcukit::telemetry
