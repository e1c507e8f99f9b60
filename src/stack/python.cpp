#include "stack/python.h"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "util/process.h"
#include "util/json_text.h"
#include "util/names.h"

namespace dcukit::stack {
namespace {

using nlohmann::json;


// Every step in its own try: a stack that half works still says what it can. Python 3.6+.
constexpr std::string_view kScript = R"PY(import json, sys
def err(e):
    text = " ".join(("%s: %s" % (type(e).__name__, e)).split())
    return text[:500]
def dist(name):
    try:
        from importlib import metadata
    except BaseException:
        return None
    for n in (name, name.replace("_", "-")):
        try:
            return metadata.version(n)
        except BaseException:
            pass
    return None
def imp(name):
    try:
        m = __import__(name)
        r = {"version": str(getattr(m, "__version__", ""))}
    except BaseException as e:
        r = {"error": err(e)}
    d = dist(name)
    if d:
        r["dist_version"] = d
    return r
r = {"python": sys.version.split()[0], "torch": imp("torch")}
if "version" in r["torch"]:
    try:
        import torch
        r["torch_cuda"] = torch.version.cuda
        r["torch_hip"] = getattr(torch.version, "hip", None)
        r["cuda_available"] = bool(torch.cuda.is_available())
        devices = []
        if r["cuda_available"]:
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                arch = getattr(p, "gcnArchName", "") or "sm_%d%d" % (p.major, p.minor)
                devices.append({"index": i, "name": torch.cuda.get_device_name(i), "arch": arch})
            try:
                r["bf16"] = bool(torch.cuda.is_bf16_supported())
            except BaseException as e:
                r["bf16_error"] = err(e)
        r["devices"] = devices
    except BaseException as e:
        r["torch_error"] = err(e)
r["packages"] = [dict(name=n, **imp(n)) for n in sys.argv[1:]]
sys.stdout.write("\nDCUKIT_STACK_PROBE " + json.dumps(r) + "\n")
sys.stdout.flush()
)PY";

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

std::optional<bool> boolean(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

Package package(const json& j, std::string name) {
  Package p;
  p.name = std::move(name);
  if (!j.is_object()) {
    p.error = "the probe gave no answer for it";
    return p;
  }
  p.error = str(j, "error");
  p.imported = j.contains("version") && p.error.empty();
  p.dist_version = str(j, "dist_version");
  if (p.imported) p.version = str(j, "version");
  // Hygon's builds may print a plain __version__ ("2.4.1") while the distribution keeps its tag
  // ("2.4.1+das.opt1.dtk25041"): the tag comes from whichever has one.
  p.tag = build_tag(p.version);
  if (p.tag.empty() && !p.dist_version.empty()) p.tag = build_tag(p.dist_version);
  p.kind = build_kind(p.tag);
  return p;
}

/// The last line of `text` that is not blank, shortened: what a failing interpreter said last.
std::string last_line(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  const auto nl = text.rfind('\n');
  std::string line(nl == std::string_view::npos ? text : text.substr(nl + 1));
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

}  // namespace

constexpr util::Name<BuildKind> kBuildKindNames[] = {
    {BuildKind::none, "none"},
    {BuildKind::cuda, "cuda"},
    {BuildKind::rocm, "rocm"},
    {BuildKind::dtk, "dtk"},
    {BuildKind::cpu, "cpu"},
    {BuildKind::other, "other"},
};

std::string_view to_string(BuildKind kind) {
  return util::name_of(kBuildKindNames, kind, "other");
}

std::string build_tag(std::string_view version) {
  if (auto plus = version.find('+'); plus != std::string_view::npos) return std::string(version.substr(plus + 1));
  std::size_t i = 0;  // the release: digits and dots
  while (i < version.size() && (std::isdigit(static_cast<unsigned char>(version[i])) || version[i] == '.')) ++i;
  std::string_view rest = version.substr(i);
  for (std::string_view pre : {"a", "b", "rc", "post", "dev", "pre"}) {  // PEP 440 pre/post/dev releases
    if (rest.substr(0, pre.size()) != pre) continue;
    std::string_view digits = rest.substr(pre.size());
    bool all = true;
    for (char c : digits) all = all && std::isdigit(static_cast<unsigned char>(c));
    if (all) return {};
  }
  while (!rest.empty() && (rest.front() == '.' || rest.front() == '-' || rest.front() == '_')) rest.remove_prefix(1);
  return std::string(rest);
}

BuildKind build_kind(std::string_view tag) {
  if (tag.empty()) return BuildKind::none;
  auto starts = [&](std::string_view p) { return tag.substr(0, p.size()) == p; };
  if (starts("das") || starts("dtk") || tag.find("dtk") != std::string_view::npos) return BuildKind::dtk;
  if (starts("rocm")) return BuildKind::rocm;
  if (starts("cu")) return BuildKind::cuda;
  if (starts("cpu")) return BuildKind::cpu;
  return BuildKind::other;
}

const Package* PythonStack::find(std::string_view name) const {
  if (name == torch.name) return &torch;
  for (const auto& p : packages)
    if (p.name == name) return &p;
  return nullptr;
}

std::string_view probe_script() {
  return kScript;
}

Result<PythonStack> parse_probe_output(std::string_view out, std::string_view interpreter) {
  const auto at = out.rfind(kProbeMarker);
  if (at == std::string_view::npos || (at > 0 && out[at - 1] != '\n'))
    return Error{fmt::format("{} gave no probe answer; is it a Python 3 interpreter?", interpreter)};
  std::string_view line = out.substr(at + kProbeMarker.size());
  line = line.substr(0, line.find('\n'));
  const json j = util::parse_json(line);
  if (j.is_discarded() || !j.is_object())
    return Error{fmt::format("{} answered the probe with something that is not its JSON", interpreter)};
  PythonStack s;
  s.interpreter = std::string(interpreter);
  s.answer = std::string(line);
  s.python_version = str(j, "python");
  s.torch = package(j.contains("torch") ? j["torch"] : json(), "torch");
  if (const auto e = str(j, "torch_error"); !e.empty()) s.torch.error = e;
  s.torch_cuda = str(j, "torch_cuda");
  s.torch_hip = str(j, "torch_hip");
  s.cuda_available = boolean(j, "cuda_available");
  s.bf16_supported = boolean(j, "bf16");
  s.bf16_error = str(j, "bf16_error");
  if (auto it = j.find("devices"); it != j.end() && it->is_array())
    for (const auto& d : *it) {
      if (!d.is_object()) continue;
      TorchDevice dev;
      if (auto idx = d.find("index"); idx != d.end() && idx->is_number_integer()) {
        const auto v = idx->get<std::int64_t>();
        dev.index = v >= 0 && v < 1024 ? static_cast<int>(v) : -1;
      }
      dev.name = str(d, "name");
      dev.arch = str(d, "arch");
      s.devices.push_back(std::move(dev));
    }
  if (auto it = j.find("packages"); it != j.end() && it->is_array())
    for (const auto& p : *it)
      if (p.is_object()) s.packages.push_back(package(p, str(p, "name")));
  return s;
}

Result<PythonStack> probe_python(const ProbeOptions& o) {
  const auto found = o.interpreter.find('/') != std::string::npos ? std::optional<std::string>(o.interpreter)
                                                                  : util::find_program(o.interpreter, o.search_path);
  if (!found)
    return Error{
        fmt::format("{}: not found in {}; install Python 3 or name the interpreter of the serving "
                    "environment",
                    o.interpreter, o.search_path.empty() ? "PATH" : o.search_path)};
  std::vector<std::string> argv{*found, "-c", std::string(kScript)};
  argv.insert(argv.end(), o.packages.begin(), o.packages.end());
  auto run = util::run_capture(argv, o.timeout, o.env_add, 1u << 20);
  if (!run) return Error{fmt::format("{}: {}", *found, run.error().message)};
  const auto& c = *run;
  if (c.status.timed_out)
    return Error{
        fmt::format("{} did not answer the probe within {} s (an import or the device hung); it was "
                    "stopped",
                    *found, o.timeout.count() / 1000.0)};
  auto parsed = parse_probe_output(c.out, *found);
  if (!parsed && !c.status.success())
    return Error{fmt::format("{} failed the probe ({}): {}", *found, c.status.describe(),
                             c.err.empty() ? std::string("no message") : last_line(c.err))};
  return parsed;
}

}  // namespace dcukit::stack
