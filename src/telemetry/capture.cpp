#include "telemetry/capture.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "telemetry/parsers.h"
#include "util/files.h"
#include "util/names.h"
#include "util/regex.h"

namespace dcukit::telemetry {
namespace {

constexpr util::Name<Format> kFormats[] = {
    {Format::hy_smi_table, "hy-smi table"},
    {Format::rocm_smi_table, "rocm-smi table"},
    {Format::smi_fields, "rocm-smi/hy-smi device lines"},
    {Format::smi_json, "rocm-smi/hy-smi --json"},
    {Format::smi_csv, "rocm-smi/hy-smi --csv"},
    {Format::amd_smi_json, "amd-smi --json"},
    {Format::amd_smi_text, "amd-smi static/metric"},
    {Format::amd_smi_monitor, "amd-smi monitor"},
    {Format::amd_smi_topology, "amd-smi topology"},
    {Format::nvidia_smi_q, "nvidia-smi -q"},
    {Format::nvidia_smi_xml, "nvidia-smi -q -x"},
    {Format::nvidia_smi_csv, "nvidia-smi --query-gpu csv"},
    {Format::nvidia_smi_table, "nvidia-smi table"},
    {Format::nvidia_smi_dmon, "nvidia-smi dmon"},
    {Format::nvidia_smi_list, "nvidia-smi -L"},
    {Format::nvidia_smi_topo, "nvidia-smi topo -m"},
    {Format::rocminfo, "rocminfo"},
    {Format::dcgmi_diag, "dcgmi diag"},
    {Format::rvs, "rvs"},
    {Format::rvs_docs, "rvs documentation"},
    {Format::gpustack_json, "gpustack-runtime json"},
    {Format::lspci_lsmod, "lspci/lsmod"},
    {Format::sysfs_transcript, "sysfs transcript"},
    {Format::pip_list, "pip list"},
    {Format::version_strings, "version strings"},
    {Format::notes, "notes"},
};

using Lines = std::vector<std::string>;

template <class Pred>
bool any_line(const Lines& lines, Pred p) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return p(std::string_view(trim(l))); });
}

bool any_regex(const Lines& lines, const util::Regex& re) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return re.search(l); });
}

bool header_with(const Lines& lines, std::initializer_list<const char*> first, const char* also) {
  return any_line(lines, [&](std::string_view l) {
    const auto t = split_ws(l);
    if (t.size() < 3) return false;
    const bool starts = std::any_of(first.begin(), first.end(), [&](const char* f) { return t[0] == f; });
    return starts && std::any_of(t.begin(), t.end(), [&](const std::string& x) { return starts_with(x, also); });
  });
}

std::optional<Format> detect_json(const Lines& lines) {
  if (!any_line(lines, [](std::string_view l) { return starts_with(l, "{") || starts_with(l, "["); }))
    return std::nullopt;
  const std::string text = join_lines(lines);
  if (contains(text, "\"manufacturer\"") && contains(text, "\"compute_capability\"")) return Format::gpustack_json;
  if (util::Regex(R"("gpu"\s*:)").search(text)) return Format::amd_smi_json;
  if (util::Regex(R"("card\d+"\s*:)").search(text)) return Format::smi_json;
  return std::nullopt;
}

bool looks_like_csv(const Capture& cap) {
  return any_line(cap.lines,
                  [&](std::string_view l) {
                    if (std::count(l.begin(), l.end(), ',') < 2) return false;
                    const std::string first = lower(trim(split(l, ',')[0]));
                    for (const char* f :
                         {"index", "name", "timestamp", "uuid", "pci.bus_id", "driver_version", "gpu_name", "gpu_uuid"})
                      if (starts_with(first, f)) return true;
                    return false;
                  }) ||
         (contains(cap.command, "--query-gpu=") && contains(cap.command, "nvidia-smi"));
}

std::optional<Format> detect_declared(const Capture& cap) {
  const Lines& L = cap.lines;
  if (any_line(L, [](std::string_view l) { return starts_with(l, "# ROCmValidationSuite Modules"); }))
    return Format::rvs_docs;
  if (any_line(L,
               [](std::string_view l) {
                 return l == "Package                           Version" || starts_with(l, "Package ");
               }) &&
      any_line(L, [](std::string_view l) { return starts_with(l, "-----"); }))
    return Format::pip_list;
  const auto versions = std::count_if(L.begin(), L.end(), [](const std::string& l) {
    return contains(l, "+das") || contains(l, ".whl") || util::Regex("dtk-?2[0-9]").search(l);
  });
  if (versions >= 2) return Format::version_strings;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Format f) {
  return util::name_of(kFormats, f);
}

const std::vector<Format>& known_formats() {
  static const std::vector<Format> all = [] {
    std::vector<Format> v;
    for (const auto& [f, name] : kFormats) v.push_back(f);
    return v;
  }();
  return all;
}

std::optional<Format> detect_format(const Capture& cap) {
  const Lines& L = cap.lines;
  if (cap.declared_not_output) return detect_declared(cap).value_or(Format::notes);
  if (any_line(L, [](std::string_view l) { return starts_with(l, "<nvidia_smi_log") || starts_with(l, "<!DOCTYPE nvidia_smi_log"); }))
    return Format::nvidia_smi_xml;
  if (any_line(L, [](std::string_view l) { return contains(l, "NVSMI LOG") || starts_with(l, "Attached GPUs"); }))
    return Format::nvidia_smi_q;
  // An excerpt of -q without its banner: a "GPU 00000000:3B:00.0" block line, or -q's own keys.
  if (any_regex(L, util::Regex(R"(^\s*GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]\s*$)")) ||
      (any_regex(L, util::Regex(R"(^\s*Product Name\s+: )")) &&
       any_regex(L, util::Regex(R"(^\s*(FB Memory Usage|GPU UUID\s+:|Product Brand\s+:|GPU Current Temp\s+:))"))))
    return Format::nvidia_smi_q;
  if (any_line(L, [](std::string_view l) { return starts_with(l, "| NVIDIA-SMI"); })) return Format::nvidia_smi_table;
  if (any_line(L, [](std::string_view l) {
        return contains(l, "| DCGM Version") || contains(l, "Successfully ran diagnostic");
      }))
    return Format::dcgmi_diag;
  if (any_line(L, [](std::string_view l) { return l == "HSA System Attributes" || l == "HSA Agents"; }))
    return Format::rocminfo;
  if (auto d = detect_declared(cap); d == Format::rvs_docs) return d;
  if (any_line(L, [](std::string_view l) {
        return contains(l, "ROCm Validation Suite (version") || starts_with(l, "[RESULT]") || contains(l, "\"srcgpu\"");
      }))
    return Format::rvs;
  if (any_regex(L, util::Regex(R"(^[A-Z][A-Z -]* TABLE:\s*$)"))) return Format::amd_smi_topology;
  if (any_line(L, [](std::string_view l) { return contains(l, "GPU0") && contains(l, "CPU Affinity"); }))
    return Format::nvidia_smi_topo;
  if (any_regex(L, util::Regex(R"(^#\s*gpu\s+\w+)"))) return Format::nvidia_smi_dmon;
  if (any_regex(L, util::Regex(R"(^GPU \d+: .*\(UUID: )"))) return Format::nvidia_smi_list;
  if (header_with(L, {"GPU", "TIMESTAMP"}, "POWER")) return Format::amd_smi_monitor;
  if (any_regex(L, util::Regex(R"(^GPU: \d+\s*$)"))) return Format::amd_smi_text;
  if (auto j = detect_json(L)) return j;
  if (any_line(L, [](std::string_view l) { return starts_with(lower(l), "device,"); }) &&
      any_regex(L, util::Regex(R"(^card\d+,)")))
    return Format::smi_csv;
  if (header_with(L, {"DCU", "HCU"}, "Temp")) return Format::hy_smi_table;
  if (header_with(L, {"Device", "GPU"}, "Temp")) return Format::rocm_smi_table;
  if (any_regex(L, util::Regex(R"(^\s*(GPU|DCU|HCU)\[\d+\]\s*:)"))) return Format::smi_fields;
  if (looks_like_csv(cap)) return Format::nvidia_smi_csv;
  if (any_regex(L, util::Regex(R"(^\$\s*cat\s+/sys/)"))) return Format::sysfs_transcript;
  if (any_regex(
          L,
          util::Regex(
              R"(^(([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] [^:]+: |(hydcu|hycu|amdgpu|nvidia)\s+\d+\s+\d+))")) ||
      any_regex(L, util::Regex(R"(\[[0-9a-fA-F]{2}\]----[0-9a-fA-F]{2}\.[0-7]\s)")))
    return Format::lspci_lsmod;
  return detect_declared(cap);
}

Snapshot parse_capture(const Capture& cap, Format format) {
  switch (format) {
    case Format::hy_smi_table:
    case Format::rocm_smi_table:
      return parse::smi_table(cap);
    case Format::smi_fields:
      return parse::smi_fields(cap);
    case Format::smi_json:
      return parse::smi_json(cap);
    case Format::smi_csv:
      return parse::smi_csv(cap);
    case Format::amd_smi_json:
      return parse::amd_smi_json(cap);
    case Format::amd_smi_text:
      return parse::amd_smi_text(cap);
    case Format::amd_smi_monitor:
      return parse::amd_smi_monitor(cap);
    case Format::amd_smi_topology:
      return parse::amd_smi_topology(cap);
    case Format::nvidia_smi_q:
      return parse::nvidia_smi_q(cap);
    case Format::nvidia_smi_xml:
      return parse::nvidia_smi_xml(cap);
    case Format::nvidia_smi_csv:
      return parse::nvidia_smi_csv(cap);
    case Format::nvidia_smi_table:
      return parse::nvidia_smi_table(cap);
    case Format::nvidia_smi_dmon:
      return parse::nvidia_smi_dmon(cap);
    case Format::nvidia_smi_list:
      return parse::nvidia_smi_list(cap);
    case Format::nvidia_smi_topo:
      return parse::nvidia_smi_topo(cap);
    case Format::rocminfo:
      return parse::rocminfo(cap);
    case Format::dcgmi_diag:
      return parse::dcgmi_diag(cap);
    case Format::rvs:
      return parse::rvs(cap);
    case Format::rvs_docs:
      return parse::no_device_state(cap, "it is ROCm Validation Suite documentation (the module catalogue)");
    case Format::gpustack_json:
      return parse::gpustack_json(cap);
    case Format::lspci_lsmod:
      return parse::lspci_lsmod(cap);
    case Format::sysfs_transcript:
      return parse::sysfs_transcript(cap);
    case Format::pip_list:
      return parse::pip_list(cap);
    case Format::version_strings:
      return parse::version_strings(cap);
    case Format::notes:
      return parse::no_device_state(cap, "its header says it is not tool output (" + cap.command + ")");
  }
  return {};
}

Result<Snapshot> read_capture_text(std::string_view text, const std::string& name) {
  const Capture cap = prepare_capture(text, name);
  if (cap.lines.empty())
    return Error{fmt::format("{}: the file is empty; pass a captured output of a vendor tool", name)};
  const auto format = detect_format(cap);
  if (!format) {
    std::string names;
    for (auto f : known_formats())
      if (f != Format::notes) names += (names.empty() ? "" : ", ") + std::string(to_string(f));
    return Error{
        fmt::format("{}: not an output dcukit telemetry can read. It reads: {}. Capture the tool's output "
                    "unchanged (e.g. `hy-smi > file`, `nvidia-smi -q > file`) and pass that file",
                    name, names)};
  }
  Snapshot s = parse_capture(cap, *format);
  for (const auto& c : cap.cleaned) s.warnings.insert(s.warnings.begin(), fmt::format("{}: {}", name, c));
  const bool says_no_state = *format == Format::notes || *format == Format::rvs_docs;
  if (s.devices.empty() && s.topology.links.empty() && s.facts.empty() && s.checks.empty() && !says_no_state)
    return Error{fmt::format("{}: read as {}, but nothing was recognised in it{}. Pass the tool's output "
                             "unchanged; if it is another format, this is a reader's fault worth reporting",
                             name, to_string(*format),
                             s.warnings.empty() ? "" : fmt::format(" ({})", fmt::join(s.warnings, "; ")))};
  s.source = "file";
  s.path = name;
  s.format = std::string(to_string(*format));
  s.timestamp = timestamp_now();
  s.sources.push_back(SourceReport{s.format, SourceState::ok, name});
  return s;
}

Result<Snapshot> read_capture_file(const std::string& path) {
  auto text = util::read_file(path, util::kCaptureInput);
  if (!text) return Error{fmt::format("--from {}: {}", path, text.error().message)};
  auto s = read_capture_text(*text, path);
  if (!s) return Error{"--from " + s.error().message};
  return s;
}

}  // namespace dcukit::telemetry
