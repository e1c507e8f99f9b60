#include "telemetry/cli_source.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "telemetry/capture.h"
#include "telemetry/merge.h"

namespace dcukit::telemetry {
namespace {

std::optional<std::string> default_find(const std::string& tool) {
  if (auto p = util::find_program(tool)) return p;
  std::vector<std::string> dirs{"/opt/hyhal/bin"};
  for (const char* env : {"ROCM_PATH", "DTK_HOME"})
    if (const char* v = std::getenv(env); v && *v) dirs.push_back(std::string(v) + "/bin");
  dirs.push_back("/opt/rocm/bin");
  for (const auto& d : dirs) {
    const std::string p = d + "/" + tool;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

// hy-smi and rocm-smi take the same flags; these are the ones every version seen accepts.
std::vector<std::string> smi_json_args(const std::string& path) {
  return {path,          "--showid",   "--showproductname", "--showbus",    "--showmeminfo",  "vram",
          "--showpower", "--showtemp", "--showuse",         "--showserial", "--showuniqueid", "--json"};
}

bool covered(const Snapshot& s, Vendor v) {
  return std::any_of(s.devices.begin(), s.devices.end(), [&](const DeviceState& d) {
    if (d.vendor != v) return false;
    return std::any_of(d.sources.begin(), d.sources.end(),
                       [](auto& f) { return f.second == SourceKind::nvml || f.second == SourceKind::rocm_smi_lib; });
  });
}

// True when the host's GPUs are known (sysfs listed some) and none is this vendor's.
bool absent(const Snapshot& s, std::initializer_list<Vendor> vendors) {
  if (s.devices.empty()) return false;
  return std::none_of(s.devices.begin(), s.devices.end(), [&](const DeviceState& d) {
    return d.vendor && std::find(vendors.begin(), vendors.end(), *d.vendor) != vendors.end();
  });
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

CliSource::CliSource(std::chrono::milliseconds tool_timeout, Runner runner, Finder finder)
    : m_timeout(tool_timeout), m_run(std::move(runner)), m_find(std::move(finder)) {
  if (!m_run)
    m_run = [](const std::vector<std::string>& argv, std::chrono::milliseconds t) {
      return util::run_capture(argv, t);
    };
  if (!m_find) m_find = default_find;
}

bool CliSource::run_tool(const std::vector<std::string>& argv, SourceSample& out) {
  const std::string cmd = command_text(argv);
  out.detail += (out.detail.empty() ? "ran " : ", ") + cmd;
  auto r = m_run(argv, m_timeout);
  if (!r) {
    out.snapshot.warnings.push_back(fmt::format("{}: {}", cmd, r.error().message));
    return false;
  }
  if (r->status.timed_out)
    out.snapshot.warnings.push_back(
        fmt::format("{} did not finish within {} ms and was killed; what it printed is used", cmd, m_timeout.count()));
  else if (!r->status.success())
    out.snapshot.warnings.push_back(fmt::format("{} ended with {}", cmd, r->status.describe()));
  for (const auto& line : split(r->err, '\n'))
    if (!trim(line).empty()) out.snapshot.warnings.push_back(fmt::format("{} said: {}", argv[0], trim(line)));
  auto parsed = read_capture_text(r->out, cmd);
  if (!parsed) {
    out.snapshot.warnings.push_back(fmt::format("{}: its output could not be read ({})", cmd, parsed.error().message));
    return false;
  }
  merge_into(out.snapshot, *parsed, Pairing::index);  // one tool numbers its devices one way
  return true;
}

SourceSample CliSource::sample(const Snapshot& so_far) {
  SourceSample out;
  bool found = false, ran = false;
  const auto wanted = [&](std::initializer_list<Vendor> vendors) {
    for (auto v : vendors)
      if (covered(so_far, v)) return false;
    return !absent(so_far, vendors);
  };
  if (auto p = m_find("nvidia-smi")) {
    found = true;
    if (wanted({Vendor::nvidia})) ran = true, run_tool({*p, "-q"}, out);
  }
  if (auto hy = m_find("hy-smi")) {
    found = true;
    if (wanted({Vendor::hygon})) {
      ran = true;
      run_tool(smi_json_args(*hy), out);
      run_tool({*hy}, out);
    }
  } else if (auto p = m_find("rocm-smi")) {
    found = true;
    if (wanted({Vendor::amd, Vendor::hygon})) {
      ran = true;
      run_tool(smi_json_args(*p), out);
      run_tool({*p}, out);
    }
  } else if (auto a = m_find("amd-smi")) {
    found = true;
    if (wanted({Vendor::amd})) {
      ran = true;
      run_tool({*a, "static", "--json"}, out);
      run_tool({*a, "metric", "--json"}, out);
    }
  }
  if (!ran) {
    out.state = found ? SourceState::skipped : SourceState::unavailable;
    out.detail = found ? "not needed: a library already read the devices its tools would read"
                       : "none of nvidia-smi, hy-smi, rocm-smi, amd-smi is on PATH, in /opt/hyhal/bin or /opt/rocm/bin";
    return out;
  }
  if (out.snapshot.devices.empty()) out.state = SourceState::failed;
  return out;
}

}  // namespace dcukit::telemetry
