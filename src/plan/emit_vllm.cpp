#include "plan/emit_vllm.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "plan/flags.h"

namespace dcukit::plan {
namespace {

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

bool control_char(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

/// "# text\n", one line whatever the text holds.
std::string comment(std::string_view text) {
  return "# " + comment_text(text) + "\n";
}

/// One argument line of the command, continued with a backslash unless it is the last.
std::string arg_line(std::string_view flag, const std::string& value, bool last) {
  return fmt::format("  {}{}{}\n", flag, value.empty() ? "" : " " + value, last ? "" : " \\");
}

std::string numa_nodes(const Plan& p, const Option& o, std::string& note) {
  std::set<int> nodes;
  bool unknown = false;
  for (int i = 0; i < o.gpus() && i < static_cast<int>(p.cards.numa_nodes.size()); ++i) {
    const int n = p.cards.numa_nodes[static_cast<std::size_t>(i)];
    if (n < 0)
      unknown = true;
    else
      nodes.insert(n);
  }
  const char* topo = p.cards.dcu()   ? "`hy-smi --showtopo`"
                     : p.cards.hip() ? "`rocm-smi --showtopo`"
                                     : "`nvidia-smi topo -m`";
  if (unknown || nodes.empty()) {
    note = fmt::format(
        "NUMA node of the cards: not detected, so node 0 as in seed 004's template. Find theirs with {} "
        "or /sys/bus/pci/devices/<bus id>/numa_node and change both numbers.",
        topo);
    return "0";
  }
  note = fmt::format("NUMA node of the cards, detected: {}.", fmt::join(nodes, ","));
  if (nodes.size() > 1)
    note += " The cards span nodes: bound to all of them; TP inside one node is faster where it fits.";
  return fmt::format("{}", fmt::join(nodes, ","));
}

/// "(as seed 004's template)", "(seed 004's template: fp8)", "(not in seed 004's template)".
std::string against_seed004(const EngineFlag& f) {
  if (f.seed004.empty()) return "not in seed 004's template";
  const std::string ours = f.value.empty() ? (f.on ? "on" : "off") : f.value;
  return ours == f.seed004 ? "as seed 004's template" : fmt::format("seed 004's template: {}", f.seed004);
}

}  // namespace

std::string shell_word(std::string_view text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), safe_char)) return std::string(text);
  // '$' and '`' single-quoted are text already; $'...' says so to shellcheck too (no SC2016).
  const auto expands = [](char c) { return c == '$' || c == '`'; };
  if (std::none_of(text.begin(), text.end(), control_char) && std::none_of(text.begin(), text.end(), expands)) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  std::string out = "$'";
  for (char c : text) {
    if (c == '\\' || c == '\'')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (control_char(c))
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out + "'";
}

std::string comment_text(std::string_view text) {
  std::string out(text);
  std::replace_if(out.begin(), out.end(), control_char, ' ');
  return out;
}

Result<std::string> emit_vllm(const Plan& p, const EmitOptions& opt) {
  const Option* o = p.chosen();
  if (o == nullptr)
    return Error{fmt::format("--emit vllm: nothing to launch. {}. Nearest that works: {}", p.reason, p.nearest)};
  if (opt.port < 1 || opt.port > 65535)
    return Error{fmt::format("--port {}: pass a port from 1 to 65535, e.g. 8000", opt.port)};
  if (opt.host.empty()) return Error{"--host is empty: pass an address, e.g. 0.0.0.0"};
  const auto& c = p.cards;
  const bool dcu = c.dcu();
  std::string s = "#!/bin/bash\n";
  s += comment(
      fmt::format("Launches {} on {} × {} with vLLM. Written by `dcukit plan`.", p.model.name, o->gpus(), c.name));
  s += comment(fmt::format("Plan: {}, --max-model-len {}: {:.1f} full-length requests at once, {} tokens of KV cache.",
                           label(*o), p.settings.max_model_len, o->budget.max_concurrency, o->budget.tokens));
  if (p.accounting)
    s += comment(fmt::format("Budgeted the way vLLM {} sizes its KV cache ({}).", p.accounting->version.upstream(),
                             p.accounting->from));
  if (dcu)
    s += "# The lines follow seed 004's production template (DCU, DTK 26.04) where this plan agrees with it;\n"
         "# each flag's comment below says where it differs and why.\n";
  s += "# Each flag moves the memory budget: re-run `dcukit plan` after changing one.\n";
  for (const auto& w : p.warnings) s += comment("Warning: " + w);
  s += dcu ? "# Stop at the first failing line (not in seed 004's template; not -u: a toolkit's env.sh reads unset\n"
             "# variables).\n"
           : "# Stop at the first failing line (not -u: a toolkit's env.sh reads unset variables).\n";
  s += "set -e\n\n";

  std::string env = opt.toolkit_env;
  if (env.empty() && dcu) env = "/opt/dtk/env.sh";
  if (!env.empty()) {
    s += "# The toolkit's environment, loaded explicitly so that the DTK/ROCm vLLM was built for is the one\n"
         "# it runs on (seed 004: a second DTK on the path gives \"starts but slow\" or operator errors).\n";
    if (dcu && opt.toolkit_env.empty())
      s += "# Seed 004's template has /opt/dtk-26.04/env.sh: pass --toolkit-env with your DTK's.\n";
    s += "# shellcheck source=/dev/null\n";
    s += fmt::format("source {}\n", shell_word(env));
    if (dcu) {
      const auto root = std::filesystem::path(env).parent_path();
      s += fmt::format("export TRITON_HIP_LLD_PATH={}\n", shell_word((root / "llvm/bin/ld.lld").string()));
    }
  } else {
    s += "# No toolkit environment to load: activate the Python environment that has vLLM before running this.\n";
  }
  std::vector<int> devices(c.indices.begin(), c.indices.begin() + std::min<std::size_t>(c.indices.size(), o->gpus()));
  s += dcu ? "# Only the planned cards (not in seed 004's template; its text advises it): another process's leftover\n"
             "# memory would shrink the budget, and DCU memory of a crashed process is not freed at once.\n"
           : "# Only the planned cards: another process's leftover memory would shrink the budget.\n";
  s += fmt::format("export {}={}\n\n", c.hip() ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES",
                   fmt::join(devices, ","));

  const std::string name = opt.served_model_name.empty() ? p.model.name : opt.served_model_name;
  struct Line {
    std::string flag, value, why;
  };
  std::vector<Line> lines{{"--served-model-name", shell_word(name), "the name clients send as \"model\""}};
  std::vector<Line> extra;
  for (const auto& f : engine_flags(p)) {
    if (!f.on) {
      s += comment(fmt::format("{} left off{}: {}", f.name, dcu ? " (" + against_seed004(f) + ")" : "", f.why));
      continue;
    }
    const std::string why = dcu ? fmt::format("({}) {}", against_seed004(f), f.why) : f.why;
    (f.seed004.empty() ? extra : lines)
        .push_back({std::string(f.name), f.value.empty() ? "" : shell_word(f.value), why});
  }
  lines.push_back({"--host", shell_word(opt.host), "the address vLLM listens on"});
  lines.push_back({"--port", std::to_string(opt.port), "the OpenAI-compatible API's port"});
  lines.insert(lines.end(), extra.begin(), extra.end());

  s += "# Why each flag has its value:\n";
  for (const auto& l : lines)
    s += comment(fmt::format("  {}{}: {}", l.flag, l.value.empty() ? "" : " " + l.value, l.why));
  std::string note;
  const std::string nodes = numa_nodes(p, *o, note);
  s += comment(note);
  s += "# CPU threads and host memory on the cards' node: cross-node traffic costs 20-40% with multi-card TP\n"
       "# (seed 004). exec (not in the template) gives vLLM this script's PID, so that a supervisor's SIGTERM\n"
       "# reaches it.\n";
  s += fmt::format("exec numactl --cpunodebind={0} --membind={0} \\\n", nodes);
  s += fmt::format("  vllm serve {} \\\n", shell_word(p.model.path));
  for (std::size_t i = 0; i < lines.size(); ++i) s += arg_line(lines[i].flag, lines[i].value, i + 1 == lines.size());
  return s;
}

}  // namespace dcukit::plan
