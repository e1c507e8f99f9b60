#include "doctor/collect_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "doctor/text.h"
#include "telemetry/text.h"

namespace dcukit::doctor {
namespace {

bool uncollected(std::string_view v) {
  for (std::string_view none : {"Could not collect", "N/A", "None", "No CUDA", "Not Set", "False (N/A)"})
    if (v == none) return true;
  return v.empty();
}

/// "Key: value" where the key reads like collect_env's (a few words, starting with a letter).
bool split_key(std::string_view line, std::string& key, std::string& value) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 48) return false;
  if (!std::isalpha(static_cast<unsigned char>(line[0]))) return false;
  if (colon + 1 < line.size() && line[colon + 1] != ' ') return false;  // "gfx942:sramecc+", URLs
  key = std::string(trim(line.substr(0, colon)));
  value = std::string(trim(line.substr(colon + 1)));
  return std::count(key.begin(), key.end(), ' ') <= 6;
}

/// "[pip3] torch==2.1.2", "[pip3] vllm-nccl-cu12==2.18.1.0.4.0", "[conda] torch  2.1.2  pypi_0  pypi".
void read_pip(std::string_view line, std::map<std::string, std::string>& pip) {
  const auto close = line.find("] ");
  if (close == std::string_view::npos) return;
  std::string_view rest = trim(line.substr(close + 2));
  std::string name, version;
  if (const auto eq = rest.find("=="); eq != std::string_view::npos) {
    name = std::string(trim(rest.substr(0, eq)));
    version = std::string(trim(rest.substr(eq + 2)));
  } else {
    const auto sp = rest.find_first_of(" \t");
    if (sp == std::string_view::npos) return;
    name = std::string(rest.substr(0, sp));
    version = std::string(trim(rest.substr(sp)));
    version = version.substr(0, version.find_first_of(" \t"));
  }
  std::replace(name.begin(), name.end(), '_', '-');
  if (!name.empty() && !version.empty()) pip.emplace(lower(name), version);  // pip3 before conda: the first wins
}

std::string pip_version(const CollectEnv& e, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto it = e.pip.find(n); it != e.pip.end()) return it->second;
  return "";
}

}  // namespace

std::string CollectEnv::get(const std::string& key) const {
  const auto it = keys.find(key);
  return it == keys.end() || uncollected(it->second) ? "" : it->second;
}

Result<CollectEnv> parse_collect_env(std::string_view text, std::string_view origin) {
  CollectEnv e;
  e.origin = std::string(origin);
  std::string section;
  // Cleaned as every pasted capture is: CR, ANSI escapes, a reply's quote marks, tab indents.
  auto all = telemetry::prepare_capture(text, std::string(origin)).lines;
  for (auto& l : all)  // a full-width colon ("GPU 0： Tesla P100") as pasted through a CJK input method
    for (auto at = l.find("\xef\xbc\x9a"); at != std::string::npos; at = l.find("\xef\xbc\x9a")) l.replace(at, 3, ": ");
  for (const std::string& raw : all) {
    std::string_view line = trim(raw);
    if (line.empty() || line.rfind("====", 0) == 0 || line.rfind("----", 0) == 0) continue;
    if (line.find("No module named") != std::string_view::npos || line.find("undefined symbol") != std::string_view::npos ||
        line.rfind("ImportError", 0) == 0)
      e.import_errors.emplace_back(line);
    if (line.front() == '[') {
      read_pip(line, e.pip);
      continue;
    }
    if (line.rfind("GPU ", 0) == 0 && line.size() > 4 && std::isdigit(static_cast<unsigned char>(line[4]))) {
      if (const auto colon = line.find(": "); colon != std::string_view::npos)
        e.gpus.emplace_back(trim(line.substr(colon + 2)));
      continue;
    }
    if (line.front() == '/' && section == "cuDNN version") {
      e.cudnn.emplace_back(line);
      continue;
    }
    std::string key, value;
    if (line.rfind("PyTorch version ", 0) == 0 && line.find(':') == std::string_view::npos) {  // torch 1.5's
      key = "PyTorch version";
      value = std::string(trim(line.substr(16)));
    } else if (!split_key(line, key, value)) {
      continue;
    }
    section = key;
    e.keys.emplace(key, value);
    if (key == "GPU models and configuration" && !uncollected(value)) {
      if (value.rfind("GPU ", 0) == 0 && value.find(": ") != std::string::npos)
        e.gpus.push_back(value.substr(value.find(": ") + 2));
      else
        e.gpus.push_back(value);
    }
    if (key == "cuDNN version" && !uncollected(value) && value.rfind("Probably", 0) != 0) e.cudnn.push_back(value);
  }
  e.vllm_tool = e.keys.count("vLLM Version") > 0;
  if (!e.keys.count("PyTorch version") && !e.keys.count("Is CUDA available"))
    return Error{fmt::format("--from {}: not a collect_env output (no 'PyTorch version:' or 'Is CUDA available:' "
                             "line); paste the whole output of `python -m torch.utils.collect_env` or vLLM's "
                             "`python collect_env.py`",
                             origin)};
  return e;
}

stack::PythonStack stack_of(const CollectEnv& e) {
  stack::PythonStack s;
  s.interpreter = "the Python of " + e.origin;
  const std::string python = e.get("Python version");  // "3.10.12 (main, ...) [GCC 11.4.0] (64-bit runtime)"
  s.python_version = python.substr(0, python.find(' '));
  auto& t = s.torch;
  t.name = "torch";
  t.version = e.get("PyTorch version");
  t.dist_version = pip_version(e, {"torch"});
  t.imported = !t.version.empty();
  if (!t.imported) t.error = "collect_env printed no PyTorch version";
  t.tag = stack::build_tag(t.version.empty() ? t.dist_version : t.version);
  t.kind = stack::build_kind(t.tag);
  s.torch_cuda = e.get("CUDA used to build PyTorch");
  s.torch_hip = e.get("ROCM used to build PyTorch");
  if (const auto a = e.get("Is CUDA available"); !a.empty())  // "True"/"False"; torch 1.5 printed "Yes"/"No"
    s.cuda_available = a.rfind("True", 0) == 0 || a.rfind("Yes", 0) == 0;
  if (s.cuda_available && *s.cuda_available)
    for (const auto& g : e.gpus) {
      stack::TorchDevice d;
      d.index = static_cast<int>(s.devices.size());
      const auto open = g.find(" (");
      d.name = g.substr(0, open);
      if (open != std::string::npos) d.arch = g.substr(open + 2, g.find(')', open) - open - 2);
      s.devices.push_back(d);
    }
  const auto flags = e.keys.count("CUDA Archs") ? e.keys.at("CUDA Archs") : std::string();
  struct Wanted {
    const char* name;
    std::initializer_list<const char*> pip;
  };
  for (const Wanted& w : {Wanted{"vllm", {"vllm"}}, Wanted{"flash_attn", {"flash-attn"}},
                          Wanted{"triton", {"triton", "pytorch-triton-rocm"}}, Wanted{"lmdeploy", {"lmdeploy"}}}) {
    stack::Package p;
    p.name = w.name;
    p.dist_version = pip_version(e, w.pip);
    p.version = p.name == "vllm" ? e.get("vLLM Version") : "";
    if (p.version.empty()) p.version = p.dist_version;
    p.imported = !p.version.empty();
    p.tag = stack::build_tag(p.version);
    if (p.tag.empty()) p.tag = stack::build_tag(p.dist_version);
    p.kind = stack::build_kind(p.tag);
    // vLLM's own build flags say what a plain version does not: "ROCm: Disabled" is a CUDA build.
    if (p.name == "vllm" && p.kind == stack::BuildKind::none && !flags.empty()) {
      if (flags.find("ROCm: Enabled") != std::string::npos)
        p.kind = stack::BuildKind::rocm;
      else if (flags.find("ROCm: Disabled") != std::string::npos && flags.find("Neuron: Enabled") == std::string::npos)
        p.kind = stack::BuildKind::cuda;
    }
    for (const auto& err : e.import_errors)
      if (err.find("'" + p.name) != std::string::npos) p.error = err;
    if (p.imported || !p.dist_version.empty()) s.packages.push_back(std::move(p));
  }
  return s;
}

}  // namespace dcukit::doctor
