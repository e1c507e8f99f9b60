#include "exporter/metrics.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>
#include <vector>

#include "exporter/series.h"
#include "serving/process_metrics.h"
#include "serving/prometheus.h"

namespace dcukit::exporter {
namespace {

using serving::Labels;
using serving::MetricType;
using telemetry::DeviceState;

/// A device's identity labels: gpu, then uuid and bus_id where known, model, vendor, hostname,
/// and hpc_job where the job-mapping folder names a job.
Labels identity_labels(const DeviceState& d, const Identity& id) {
  const std::string& hostname = id.hostname;
  Labels l{{"gpu", std::to_string(d.index)}};
  if (d.uuid) l.emplace_back("uuid", *d.uuid);
  if (d.bus_id) l.emplace_back("bus_id", *d.bus_id);
  l.emplace_back("model", d.name.value_or(""));
  l.emplace_back("vendor", d.vendor ? std::string(telemetry::to_string(*d.vendor)) : "");
  l.emplace_back("hostname", hostname);
  if (const auto job = id.job_of(d.index); !job.empty()) l.emplace_back("hpc_job", job);
  return l;
}

/// "power cap, thermal (software)" -> {"power_cap", "thermal_software"}: bounded label values.
std::vector<std::string> throttle_reasons(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  const auto flush = [&] {
    while (!cur.empty() && cur.back() == '_') cur.pop_back();
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : text) {
    if (c == ',') flush();
    else if (std::isalnum(static_cast<unsigned char>(c))) cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!cur.empty() && cur.back() != '_') cur += '_';
  }
  flush();
  return out;
}

const std::vector<Series>& device_families() {
  using D = DeviceState;
  static const std::vector<Series> kFamilies = {
      {"dcukit_gpu_temperature_celsius", MetricType::gauge,
       "Device temperature in degrees Celsius (the sensor the vendor tool shows: edge, else junction)",
       [](const D& d) { return scaled(d.temperature_c); }},
      {"dcukit_gpu_power_watts", MetricType::gauge, "Device power draw in watts",
       [](const D& d) { return scaled(d.power_w); }},
      {"dcukit_gpu_power_cap_watts", MetricType::gauge, "Device power cap (enforced limit) in watts",
       [](const D& d) { return scaled(d.power_cap_w); }},
      {"dcukit_gpu_busy_ratio", MetricType::gauge, "Fraction of time the device was busy, 0 to 1",
       [](const D& d) { return scaled(d.busy_percent, 0.01); }},
      {"dcukit_gpu_memory_used_bytes", MetricType::gauge, "Device memory in use in bytes",
       [](const D& d) { return scaled(d.memory_used_bytes); }},
      {"dcukit_gpu_memory_total_bytes", MetricType::gauge, "Device memory in total in bytes",
       [](const D& d) { return scaled(d.memory_total_bytes); }},
      {"dcukit_gpu_sclk_hz", MetricType::gauge, "Shader (SM) clock in hertz",
       [](const D& d) { return scaled(d.sclk_mhz, 1e6); }},
      {"dcukit_gpu_mclk_hz", MetricType::gauge, "Memory clock in hertz",
       [](const D& d) { return scaled(d.mclk_mhz, 1e6); }},
      {"dcukit_gpu_pcie_link_width", MetricType::gauge, "PCIe link width now, in lanes",
       [](const D& d) { return scaled(d.pcie_width); }},
      {"dcukit_gpu_pcie_link_width_max", MetricType::gauge, "PCIe link width the device and slot allow, in lanes",
       [](const D& d) { return scaled(d.pcie_width_max); }},
      {"dcukit_gpu_pcie_link_gen", MetricType::gauge, "PCIe link generation now (idle devices may train down)",
       [](const D& d) { return scaled(d.pcie_gen); }},
      {"dcukit_gpu_pcie_link_gen_max", MetricType::gauge, "PCIe link generation the device and slot allow",
       [](const D& d) { return scaled(d.pcie_gen_max); }},
      {"dcukit_gpu_processes", MetricType::gauge, "Processes the driver lists on the device",
       [](const D& d) -> std::optional<double> {
         if (!d.processes) return std::nullopt;
         return static_cast<double>(d.processes->size());
       }},
  };
  return kFamilies;
}

void write_devices(serving::TextWriter& w, const std::vector<DeviceState>& devices, const RenderOptions& o) {
  const auto device_labels = [&o](const DeviceState& d) { return identity_labels(d, o.identity); };
  if (devices.empty()) return;
  w.family("dcukit_gpu_info", MetricType::gauge,
           "Always 1: a device and what it is (arch, driver version) in the labels");
  for (const auto& d : devices) {
    Labels l = device_labels(d);
    if (d.arch) l.emplace_back("arch", *d.arch);
    if (d.driver_version) l.emplace_back("driver_version", *d.driver_version);
    w.sample("dcukit_gpu_info", l, 1);
  }
  write_series(w, device_families(), devices, device_labels);
  bool ecc = false;
  for (const auto& d : devices) {
    const std::pair<const char*, const std::optional<std::int64_t>*> kinds[] = {{"corrected", &d.ecc_corrected},
                                                                                {"uncorrected", &d.ecc_uncorrected}};
    for (const auto& [type, value] : kinds) {
      if (!*value) continue;
      if (!ecc)
        w.family("dcukit_gpu_ecc_errors_total", MetricType::counter,
                 "ECC errors since the driver loaded (volatile), by type: corrected or uncorrected");
      ecc = true;
      Labels l = device_labels(d);
      l.emplace_back("type", type);
      w.sample("dcukit_gpu_ecc_errors_total", l, static_cast<double>(**value));
    }
  }
  bool throttle = false;
  for (const auto& d : devices) {
    if (!d.throttle_reasons) continue;
    if (!throttle) {
      w.family("dcukit_gpu_throttled", MetricType::gauge,
               "1 when the driver holds the clocks below their maximum, 0 when nothing does");
      throttle = true;
    }
    w.sample("dcukit_gpu_throttled", device_labels(d), d.throttle_reasons->empty() ? 0 : 1);
  }
  bool reasons = false;
  for (const auto& d : devices)
    for (const auto& reason : throttle_reasons(d.throttle_reasons.value_or(""))) {
      if (!reasons) {
        w.family("dcukit_gpu_throttle_reason", MetricType::gauge,
                 "1 for each reason the driver gives for holding the clocks down (power_cap, thermal_software, ...)");
        reasons = true;
      }
      Labels l = device_labels(d);
      l.emplace_back("reason", reason);
      w.sample("dcukit_gpu_throttle_reason", l, 1);
    }
  if (o.health) {
    bool health = false;
    for (const auto& d : devices) {
      const int h = o.health(d);
      if (h < 0) continue;
      if (!health) {
        w.family("dcukit_gpu_health", MetricType::gauge,
                 "The device's health from patrol's limits on its figures (temperature, power, memory, ECC, PCIe "
                 "link): 0 ok, 1 warning, 2 failing");
        health = true;
      }
      w.sample("dcukit_gpu_health", device_labels(d), h);
    }
  }
}

void write_exporter(serving::TextWriter& w, const Scrape& s) {
  w.family("dcukit_exporter_build_info", MetricType::gauge, "Always 1: the exporter's version and figure source");
  w.sample("dcukit_exporter_build_info", {{"version", DCUKIT_VERSION}, {"source", s.source}}, 1);
  w.family("dcukit_exporter_scrapes_total", MetricType::counter, "Scrapes answered since the exporter started");
  w.sample("dcukit_exporter_scrapes_total", {}, static_cast<double>(s.scrapes_total));
  w.family("dcukit_exporter_collect_errors_total", MetricType::counter,
           "Device readings that failed or missed the scrape deadline (a stuck driver call)");
  w.sample("dcukit_exporter_collect_errors_total", {}, static_cast<double>(s.collect_errors_total));
  w.family("dcukit_exporter_collect_success", MetricType::gauge,
           "1 when this scrape got a device reading in time, 0 when it did not");
  w.sample("dcukit_exporter_collect_success", {}, s.snapshot ? 1 : 0);
  w.family("dcukit_exporter_collect_duration_seconds", MetricType::gauge,
           "Seconds this scrape waited for its device reading");
  w.sample("dcukit_exporter_collect_duration_seconds", {}, s.collect_seconds);
  const std::size_t devices = s.snapshot ? s.snapshot->devices.size() : 0;
  w.family("dcukit_exporter_devices", MetricType::gauge, "Devices in this scrape's reading");
  w.sample("dcukit_exporter_devices", {}, static_cast<double>(devices));
  if (s.snapshot && !s.snapshot->sources.empty()) {
    w.family("dcukit_exporter_source_up", MetricType::gauge,
             "1 when a telemetry source read in this reading, 0 when not; the state label (ok, unavailable, "
             "failed, skipped) says why, the exporter's log the detail");
    // No free text in labels: the detail goes to the exporter's log (diagnostics()).
    for (const auto& r : s.snapshot->sources)
      w.sample("dcukit_exporter_source_up", {{"source", r.name}, {"state", std::string(telemetry::to_string(r.state))}},
               r.state == telemetry::SourceState::ok ? 1 : 0);
  }
  if (devices == 0) {
    w.family("dcukit_exporter_no_devices", MetricType::gauge,
             "1 when this scrape has no device figures; the reason label (deadline_missed, read_failed, "
             "no_source_found, empty_reading) says why, the exporter's log the detail");
    w.sample("dcukit_exporter_no_devices", {{"reason", std::string(no_device_reason(s))}}, 1);
  }
}

}  // namespace

std::string_view no_device_reason(const Scrape& s) {
  if (s.snapshot && !s.snapshot->devices.empty()) return "";
  if (s.deadline_missed) return "deadline_missed";
  if (!s.snapshot) return "read_failed";
  return s.snapshot->sources.empty() ? "empty_reading" : "no_source_found";
}

std::string diagnostics(const Scrape& s) {
  if (!s.error.empty()) return s.error;
  if (!s.snapshot) return "no reading was made";
  std::string out;
  bool all_ok = true;
  for (const auto& r : s.snapshot->sources) {
    all_ok = all_ok && r.state == telemetry::SourceState::ok;
    if (!out.empty()) out += "; ";
    out += r.name + " " + std::string(telemetry::to_string(r.state));
    if (!r.detail.empty()) out += ": " + r.detail;
  }
  if (all_ok && !s.snapshot->devices.empty()) return "";
  if (s.snapshot->devices.empty()) return out.empty() ? "the reading lists no devices" : "no source found a device: " + out;
  return out;
}

std::map<int, std::string> read_job_mapping(const std::string& dir) {
  std::map<int, std::string> out;
  if (dir.empty()) return out;
  std::error_code ec;
  int files = 0;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.size() > 4 || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (++files > 256 || !it->is_regular_file(ec)) continue;
    std::ifstream in(it->path());
    std::string text(4096, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    std::string jobs, line;
    std::istringstream lines(text);
    while (std::getline(lines, line)) {
      std::string job;
      for (char c : line)
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') job += c;
      if (!job.empty()) jobs += (jobs.empty() ? "" : ",") + job;
    }
    if (!jobs.empty()) out[std::stoi(name)] = jobs;
  }
  return out;
}

std::string render_metrics(const Scrape& s, const RenderOptions& o) {
  serving::TextWriter w;
  if (s.snapshot) {
    switch (o.names) {
      case NameSet::dcukit:
        write_devices(w, s.snapshot->devices, o);
        break;
      case NameSet::dcgm:
        write_dcgm(w, s.snapshot->devices, o.identity);
        break;
      case NameSet::amd:
        write_amd(w, s.snapshot->devices, o.identity);
        break;
    }
  }
  write_exporter(w, s);
  serving::write_process_metrics(w);
  return w.str();
}

}  // namespace dcukit::exporter
