#include "doctor/bundle.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "doctor/archive.h"
#include "doctor/context.h"
#include "doctor/gpus.h"
#include "doctor/render.h"
#include "doctor/run.h"
#include "doctor/text.h"
#include "telemetry/render.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/process.h"
#include "util/progress.h"
#include "util/regex.h"
#include "util/redact.h"

namespace dcukit::doctor {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxFile = 1u << 20;        // one /proc or /sys file
constexpr std::size_t kMaxToolOutput = 8u << 20;  // one tool's output
constexpr std::size_t kMaxDmesgLines = 4000;

// The sysfs files of a GPU that doctor and telemetry read, so that both work on the bundle.
constexpr const char* kDeviceFiles[] = {"vendor",
                                        "device",
                                        "class",
                                        "numa_node",
                                        "uevent",
                                        "current_link_speed",
                                        "current_link_width",
                                        "max_link_speed",
                                        "max_link_width",
                                        "product_name",
                                        "product_number",
                                        "serial_number",
                                        "unique_id",
                                        "vbios_version",
                                        "gpu_busy_percent",
                                        "mem_busy_percent",
                                        "mem_info_vram_total",
                                        "mem_info_vram_used",
                                        "mem_info_vis_vram_total",
                                        "mem_info_vis_vram_used",
                                        "pp_dpm_sclk",
                                        "pp_dpm_mclk",
                                        "power_dpm_force_performance_level",
                                        "chip_power_average",
                                        "ras/umc_err_count",
                                        "iommu_group/type"};
constexpr const char* kHwmonPatterns[] = {"name", "temp*_input", "temp*_label", "power1_*", "fan1_input"};

// The drivers' and the PCI/IOMMU subsystems' kernel messages.
const util::Regex kDmesgLines(
    R"(hycu|hydcu|hykcl|amdgpu|kfd|nvidia|NVRM|nouveau|drm|iommu|AMD-Vi|DMAR|AER|pcieport|Xid)", util::Regex::Case::insensitive);

struct Tool {
  std::string name;  ///< the file under dcukit/tools/
  std::vector<std::string> argv;
};

std::string tool_path(const std::string& program, const std::map<std::string, std::string>& env) {
  std::string path = env.count("PATH") ? env.at("PATH") : "";
  for (const char* var : {"ROCM_PATH", "DTK_HOME"})
    if (env.count(var)) path += ":" + env.at(var) + "/bin";
  path += ":/opt/hyhal/bin:/opt/rocm/bin:/opt/dtk/bin:/usr/bin:/usr/sbin:/bin:/sbin";
  return util::find_program(program, path).value_or("");
}

ArchiveEntry file_entry(std::string path, std::string content, unsigned mode = 0644) {
  ArchiveEntry e;
  e.path = std::move(path);
  e.content = std::move(content);
  e.mode = mode;
  return e;
}

// Reads the extra device files through the recording root, so that they are logged like the rest.
void touch_device_files(const util::Root& root, const GpuScan& scan) {
  for (const auto& g : scan.gpus) {
    const std::string dir = "/sys/bus/pci/devices/" + g.bus_id;
    for (const char* f : kDeviceFiles) root.read(dir + "/" + f, kMaxFile);
    for (const auto& hw : root.list(dir + "/hwmon"))
      for (const char* pattern : kHwmonPatterns)
        for (const auto& name : root.glob(dir + "/hwmon/" + hw, pattern))
          root.read(dir + "/hwmon/" + hw + "/" + name, kMaxFile);
    root.list(dir + "/drm");
    root.read(fmt::format("/proc/driver/nvidia/gpus/{}/information", g.bus_id));
  }
  for (const auto& n : root.list("/sys/class/kfd/kfd/topology/nodes"))
    root.read("/sys/class/kfd/kfd/topology/nodes/" + n + "/properties");
}

std::vector<ArchiveEntry> host_entries(const util::AccessLog& log) {
  std::vector<ArchiveEntry> out;
  const util::Root plain("/");
  std::set<std::string> seen;
  auto entries = log.entries();
  // What was only looked at comes last, so that a file read keeps its content.
  std::stable_partition(entries.begin(), entries.end(),
                        [](const auto& e) { return e.kind != util::AccessLog::Kind::stat; });
  for (const auto& e : entries) {
    if (e.path.empty() || e.path == "/" || !seen.insert(e.path).second) continue;
    ArchiveEntry a;
    a.path = std::string(kBundleHostDir) + e.path;
    if (e.kind == util::AccessLog::Kind::stat) {
      const auto st = plain.stat(e.path);  // an empty stand-in with the mode: existence and exec bits
      if (!st || (st->type != util::FileType::regular && st->type != util::FileType::directory)) continue;
      a.type = st->type;
      a.mode = st->mode & 0755;
    } else if (e.kind == util::AccessLog::Kind::link) {
      a.type = util::FileType::symlink;
      a.target = e.target;
      a.mode = 0777;
    } else if (e.kind == util::AccessLog::Kind::directory) {
      a.type = util::FileType::directory;
      a.mode = 0755;
    } else {
      auto content = plain.read(e.path, kMaxFile);
      if (!content) continue;
      a.content = std::move(*content);
    }
    out.push_back(std::move(a));
  }
  // The GPU device nodes with their owners and modes (they are empty files once unpacked).
  for (const auto& [dir, pattern] : {std::pair{"/dev", "kfd"}, {"/dev", "nvidia*"}, {"/dev/dri", "*"}})
    for (const auto& name : plain.glob(dir, pattern)) {
      const std::string path = std::string(dir) + "/" + name;
      auto st = plain.stat(path, false);
      if (!st || st->type != util::FileType::char_device || !seen.insert(path).second) continue;
      ArchiveEntry a;
      a.path = std::string(kBundleHostDir) + path;
      a.type = util::FileType::char_device;
      a.mode = st->mode;
      a.uid = st->uid;
      a.gid = st->gid;
      out.push_back(std::move(a));
    }
  return out;
}

json run_tool(const Tool& t, const std::map<std::string, std::string>& env, std::chrono::milliseconds timeout,
              std::vector<ArchiveEntry>& out) {
  json j = {{"name", t.name}, {"argv", t.argv}};
  const std::string path = tool_path(t.argv.front(), env);
  if (path.empty()) {
    j["status"] = "not found";
    return j;
  }
  std::vector<std::string> argv = t.argv;
  argv.front() = path;
  auto r = util::run_capture(argv, timeout, {}, kMaxToolOutput);
  if (!r) {
    j["status"] = r.error().message;
    return j;
  }
  j["status"] = r->status.describe();
  std::string text = r->out;
  if (!r->err.empty()) text += "\n" + r->err;
  out.push_back(file_entry(std::string(kBundleMetaDir) + "/tools/" + t.name + ".txt", util::redact(text)));
  j["file"] = std::string(kBundleMetaDir) + "/tools/" + t.name + ".txt";
  return j;
}

std::vector<ArchiveEntry> tool_entries(const Request& o, const Report& report, const GpuScan& scan, json& index) {
  std::vector<ArchiveEntry> out;
  const auto& env = o.env;
  std::optional<util::Ticker> running;  // the tools' time, on stderr
  if (o.progress) running.emplace(*o.progress, "support bundle: the vendor tools");
  const std::vector<Tool> tools = {{"hy-smi", {"hy-smi"}},
                                   {"hy-smi-showtopo", {"hy-smi", "--showtopo"}},
                                   {"rocm-smi", {"rocm-smi"}},
                                   {"rocm-smi-showtopo", {"rocm-smi", "--showtopo"}},
                                   {"rocminfo", {"rocminfo"}},
                                   {"nvidia-smi-q", {"nvidia-smi", "-q"}},
                                   {"nvidia-smi-topo-m", {"nvidia-smi", "topo", "-m"}}};
  for (const auto& t : tools) index.push_back(run_tool(t, env, o.tool_timeout, out));
  for (const auto& g : scan.gpus)
    index.push_back(run_tool({"lspci-vvv-" + g.bus_id, {"lspci", "-vvv", "-s", g.bus_id}}, env, o.tool_timeout, out));
  // dmesg: only the drivers' lines (it may need root; the status says so).
  std::vector<ArchiveEntry> raw;
  json d = run_tool({"dmesg", {"dmesg"}}, env, o.tool_timeout, raw);
  if (!raw.empty()) {
    std::string kept;
    std::size_t n = 0;
    for (const auto& line : lines(raw.front().content))
      if (kDmesgLines.search(line) && n++ < kMaxDmesgLines) kept += line + "\n";
    out.push_back(file_entry(std::string(kBundleMetaDir) + "/tools/dmesg.txt", kept));
    d["kept"] = "the lines of the GPU drivers, PCIe and the IOMMU";
  }
  index.push_back(d);
  if (!report.python.answer.empty())
    index.push_back(run_tool({"pip-list", {report.python.interpreter, "-m", "pip", "list"}}, env, o.tool_timeout, out));
  return out;
}

std::vector<ArchiveEntry> meta_entries(const Request& o, const Report& report) {
  std::vector<ArchiveEntry> out;
  const std::string m = kBundleMetaDir;
  out.push_back(file_entry(m + "/doctor.json", util::json_document(to_json(report))));
  out.push_back(file_entry(m + "/doctor.txt", render_text(report, true)));
  out.push_back(file_entry(m + "/telemetry.json", util::json_text(telemetry::to_json(report.telemetry), 2) + "\n"));
  out.push_back(file_entry(m + "/environment.json", util::json_text(json(util::redact_environment(o.env)), 2) + "\n"));
  const util::Root host("/");
  const Identity id = o.identity ? *o.identity : live_identity(host);
  const auto policy = o.mem_policy ? o.mem_policy : live_mem_policy();
  json ident = {{"uid", id.uid}, {"gids", id.gids}, {"user", id.user}, {"mem_policy", nullptr}};
  if (policy) ident["mem_policy"] = {{"mode", policy->mode}, {"nodes", policy->nodes}};
  out.push_back(file_entry(m + "/identity.json", util::json_text(ident, 2) + "\n"));
  json py = {{"interpreter", report.python.interpreter}};
  if (!report.python.answer.empty()) py["answer"] = report.python.answer;
  if (!report.python.error.empty()) py["error"] = report.python.error;
  out.push_back(file_entry(m + "/python.json", util::json_text(py, 2) + "\n"));
  out.push_back(
      file_entry(m + "/README.txt",
                 "A dcukit doctor support bundle.\n"
                 "  dcukit/doctor.txt, doctor.json   the findings on the host, with evidence, why and fix\n"
                 "  dcukit/telemetry.json            every device's figures, each with the source that gave it\n"
                 "  dcukit/tools/                    the vendor tools' own outputs (hy-smi, rocm-smi, rocminfo,\n"
                 "                                   nvidia-smi -q, nvidia-smi topo -m, lspci -vvv, dmesg, pip list)\n"
                 "  dcukit/tools.json                how each tool ran (exit status, not found)\n"
                 "  dcukit/environment.json          the environment, secrets removed\n"
                 "  dcukit/identity.json, python.json  the user, memory policy, and the Python probe's answer\n"
                 "  host/                            the /proc, /sys, /etc, /opt and /dev entries the checks read\n"
                 "Read it again: dcukit doctor --from-bundle THIS.tar.gz\n"));
  return out;
}

/// A fresh folder under $TMPDIR, removed when this goes out of scope.
class TempTree {
public:
  TempTree() {
    const char* t = ::getenv("TMPDIR");
    std::string pattern = std::string(t && *t ? t : "/tmp") + "/dcukit-bundle-XXXXXX";
    if (::mkdtemp(pattern.data())) m_path = pattern;
  }
  ~TempTree() {
    std::error_code ec;
    if (!m_path.empty()) std::filesystem::remove_all(m_path, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
};

}  // namespace

Report write_bundle(const Request& o) {
  Request r = o;
  r.root = "/";
  r.bundle.clear();
  r.record = std::make_shared<util::AccessLog>();
  Report report = examine(r);
  BundleWritten& written = report.bundle.emplace();
  written.path = o.bundle;
  if (Status s = util::check_writable(o.bundle); !s) {
    written.error = s.message();
    return report;
  }
  util::Root recording("/");
  recording.record_to(r.record);
  const GpuScan scan = gpus_from(report.telemetry, recording);
  touch_device_files(recording, scan);

  std::vector<ArchiveEntry> entries = meta_entries(o, report);
  json index = json::array();
  auto tools = tool_entries(o, report, scan, index);
  for (const auto& t : index)
    written.tools.push_back(fmt::format("{}: {}", t.value("name", "?"), t.value("status", "?")));
  entries.insert(entries.end(), tools.begin(), tools.end());
  entries.push_back(file_entry(std::string(kBundleMetaDir) + "/tools.json", util::json_text(index, 2) + "\n"));
  auto host = host_entries(*r.record);
  entries.insert(entries.end(), host.begin(), host.end());
  written.files = entries.size();
  if (Status s = write_tar_gz(o.bundle, entries); !s)
    written.error = fmt::format("--bundle {}: {}", o.bundle, s.message());
  return report;
}

Result<Report> run_from_bundle(const std::string& path, const Request& base) {
  auto entries = read_tar_gz(path);
  if (!entries) return Error{fmt::format("--from-bundle {}", entries.error().message)};
  // Links inside host/ are followed within the unpacked tree (util::Root), but host/ itself or a
  // file of dcukit/ that is a link would be read on the analyst's own host.
  const std::string host_prefix = std::string(kBundleHostDir) + "/";
  for (const auto& e : *entries)
    if (e.type == util::FileType::symlink && (e.path.rfind(host_prefix, 0) != 0 || e.path.size() == host_prefix.size()))
      return Error{fmt::format("--from-bundle {}: refusing the member '{}': a link outside {} (to '{}') would read "
                               "this host instead of the bundle's",
                               path, e.path, host_prefix, e.target)};
  TempTree tmp;
  if (tmp.path().empty()) return Error{"--from-bundle: cannot make a folder under $TMPDIR to unpack into"};
  if (Status s = extract(*entries, tmp.path()); !s)
    return Error{fmt::format("--from-bundle {}: {}", path, s.message())};
  const std::string meta = tmp.path() + "/" + kBundleMetaDir;
  if (!std::filesystem::is_directory(tmp.path() + "/" + kBundleHostDir) || !std::filesystem::is_directory(meta))
    return Error{
        fmt::format("--from-bundle {}: not a dcukit bundle (no host/ and dcukit/ folders); make one with "
                    "dcukit doctor --bundle FILE.tar.gz",
                    path)};
  Request r = base;
  r.root = tmp.path() + "/" + kBundleHostDir;
  r.offline = true;
  r.record.reset();
  auto read_json = [&](const char* name) {
    auto text = util::read_file(meta + "/" + name, util::kBundleMetaInput);
    return text ? util::parse_json(*text) : json();
  };
  r.env.clear();
  if (const json env = read_json("environment.json"); env.is_object())
    for (const auto& [k, v] : env.items())
      if (v.is_string()) r.env[k] = v.get<std::string>();
  if (const json id = read_json("identity.json"); id.is_object()) {
    Identity ident;
    ident.uid = id.value("uid", 0u);
    if (id.contains("gids") && id["gids"].is_array())
      for (const auto& g : id["gids"])
        if (g.is_number_unsigned()) ident.gids.push_back(g.get<unsigned>());
    ident.user = id.value("user", std::string("uid ") + std::to_string(ident.uid));
    r.identity = ident;
    if (id.contains("mem_policy") && id["mem_policy"].is_object()) {
      MemPolicy p;
      p.mode = id["mem_policy"].value("mode", "");
      if (id["mem_policy"].contains("nodes") && id["mem_policy"]["nodes"].is_array())
        for (const auto& n : id["mem_policy"]["nodes"])
          if (n.is_number_integer()) p.nodes.push_back(n.get<int>());
      r.mem_policy = p;
    }
  }
  r.python_output.reset();
  r.python_error.reset();
  if (const json py = read_json("python.json"); py.is_object()) {
    r.python = py.value("interpreter", "");
    if (py.contains("answer") && py["answer"].is_string())
      r.python_output = std::string(stack::kProbeMarker) + py["answer"].get<std::string>() + "\n";
    else if (py.contains("error") && py["error"].is_string())
      r.python_error = py["error"].get<std::string>();
  }
  if (!r.python_output && !r.python_error) r.python_probe = false;
  r.recorded_stats.clear();
  for (const auto& e : *entries)
    if (e.type == util::FileType::char_device && starts_with(e.path, host_prefix)) {
      util::FileInfo st;
      st.type = e.type;
      st.mode = e.mode;
      st.uid = e.uid;
      st.gid = e.gid;
      r.recorded_stats["/" + e.path.substr(host_prefix.size())] = st;
    }
  r.from_bundle.clear();
  r.captures.clear();
  for (const char* tool : {"nvidia-smi-q", "hy-smi", "rocm-smi"})  // device figures sysfs lacks (NVIDIA's)
    if (const std::string p = meta + "/tools/" + tool + ".txt"; std::filesystem::is_regular_file(p))
      r.captures.push_back(p);
  Report report = examine(r);
  report.root = path;
  return report;
}

}  // namespace dcukit::doctor
