#include "doctor/driver_info.h"

#include <fmt/format.h>

#include <cctype>

#include "doctor/text.h"

namespace dcukit::doctor {

ModuleState module_state(const util::Root& root, std::string_view name) {
  ModuleState m;
  const std::string n(name);
  bool listed = false;
  for (const auto& line : lines(root.read("/proc/modules").value_or("")))
    if (line.substr(0, line.find(' ')) == n) {
      listed = true;
      m.evidence.push_back("/proc/modules: " + line.substr(0, std::min<std::size_t>(line.size(), 120)));
    }
  const bool sys = root.is_dir("/sys/module/" + n);
  m.loaded = listed || sys;
  if (!listed)
    m.evidence.push_back(
        fmt::format("/proc/modules: no {}{}", n, sys ? " (built in: /sys/module/" + n + " exists)" : ""));
  if (auto v = root.first_line("/sys/module/" + n + "/version")) {
    m.version = std::string(trim(*v));
    m.evidence.push_back(fmt::format("/sys/module/{}/version: {}", n, m.version));
  }
  return m;
}

std::string nvrm_version(std::string_view banner) {
  for (const auto& word : split(banner.substr(0, banner.find('\n')), ' ', Empties::skip)) {
    std::size_t dots = 0;
    bool ok = !word.empty() && std::isdigit(static_cast<unsigned char>(word.front()));
    for (char ch : word) {
      dots += ch == '.';
      ok = ok && (std::isdigit(static_cast<unsigned char>(ch)) || ch == '.');
    }
    if (ok && dots >= 1) return word;
  }
  return {};
}

ModuleState nvidia_driver(const util::Root& root) {
  ModuleState m = module_state(root, "nvidia");
  if (auto text = root.read("/proc/driver/nvidia/version")) {
    const std::string first = lines(*text).empty() ? std::string() : lines(*text).front();
    m.evidence.push_back("/proc/driver/nvidia/version: " + first);
    m.loaded = true;
    if (auto v = nvrm_version(first); !v.empty()) m.version = v;
  } else {
    m.evidence.push_back("/proc/driver/nvidia/version: absent");
  }
  return m;
}

HygonDriver hygon_driver(const util::Root& root) {
  HygonDriver d;
  const auto hycu = module_state(root, "hycu"), hydcu = module_state(root, "hydcu");
  d.evidence = hycu.evidence;
  d.evidence.insert(d.evidence.end(), hydcu.evidence.begin(), hydcu.evidence.end());
  d.both = hycu.loaded && hydcu.loaded;
  if (hycu.loaded) {
    d.module = "hycu";
    d.version = hycu.version;
  } else if (hydcu.loaded) {
    d.module = "hydcu";
    d.version = hydcu.version;
  }
  if (root.is_dir("/opt/hyhal")) d.evidence.push_back("/opt/hyhal: present (HyHAL: hy-smi, librocm_smi64)");
  return d;
}

}  // namespace dcukit::doctor
