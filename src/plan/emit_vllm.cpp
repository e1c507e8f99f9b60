#include "plan/emit_vllm.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace dcukit::plan {
namespace {

/// Single-quoted for bash.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// One flag line of the args array, its comment aligned.
std::string flag_line(const std::string& flag, const std::string& value, const std::string& why) {
  std::string text = value.empty() ? flag : flag + " " + value;
  std::string comment = why;
  std::replace(comment.begin(), comment.end(), '\n', ' ');
  return fmt::format("  {:<36} # {}\n", text, comment);
}

std::string advice_value(const Plan& p, const std::string& flag, std::string* why) {
  for (const auto& a : p.advice)
    if (a.flag == flag) {
      if (why) *why = a.why;
      return a.value;
    }
  return {};
}

std::string numa_block(const Plan& p, const Option& o) {
  std::set<int> nodes;
  bool unknown = false;
  for (int i = 0; i < o.gpus() && i < static_cast<int>(p.cards.numa_nodes.size()); ++i) {
    const int n = p.cards.numa_nodes[static_cast<std::size_t>(i)];
    if (n < 0) unknown = true;
    else nodes.insert(n);
  }
  std::string out;
  if (unknown || nodes.empty()) {
    out += "# NUMA node of the cards: not detected (planned without them). Find it with `hy-smi --showtopo`,\n"
           "# `nvidia-smi topo -m` or /sys/bus/pci/devices/<bus id>/numa_node and set NUMA_NODE.\n"
           "NUMA_NODE=${NUMA_NODE:-0}\n";
  } else {
    out += fmt::format("# NUMA node of the cards, detected: {}.\n", fmt::join(nodes, ","));
    out += fmt::format("NUMA_NODE=${{NUMA_NODE:-{}}}\n", fmt::join(nodes, ","));
    if (nodes.size() > 1)
      out += "# The cards span NUMA nodes: binding to all of them; TP inside one node is faster where it fits.\n";
  }
  return out;
}

} // namespace

Result<std::string> emit_vllm(const Plan& p, const EmitOptions& opt) {
  const Option* o = p.chosen();
  if (o == nullptr) return Error{fmt::format("--emit vllm: nothing to launch. {}. Nearest that works: {}", p.reason, p.nearest)};
  const auto& c = p.cards;
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# Launches {} on {} x {} with vLLM. Written by `dcukit plan`.\n", p.model.name, o->gpus(), c.name);
  s += fmt::format("# Plan: {}, --max-model-len {}: {:.1f} full-length requests at once, {} tokens of KV cache.\n",
                   o->pp > 1 ? fmt::format("TP {} x PP {}", o->tp, o->pp) : fmt::format("TP {}", o->tp),
                   p.settings.max_model_len, o->budget.max_concurrency, o->budget.tokens);
  s += "# Each flag moves the memory budget: re-run `dcukit plan` after changing one.\n";
  s += "set -euo pipefail\n\n";

  std::string env = opt.toolkit_env;
  if (env.empty() && c.dcu()) env = "/opt/dtk/env.sh";
  if (!env.empty()) {
    s += "# The toolkit's environment, loaded explicitly so that the DTK/ROCm vLLM was built for is the one\n"
         "# it runs on (seed 004: a second DTK on the path gives \"starts but slow\" or operator errors).\n";
    s += fmt::format("source {}\n", quote(env));
    if (c.dcu()) {
      const auto root = std::filesystem::path(env).parent_path();
      s += "# Triton's HIP backend links kernels with the toolkit's lld (seed 004).\n";
      s += fmt::format("export TRITON_HIP_LLD_PATH={}\n", quote((root / "llvm/bin/ld.lld").string()));
    }
  } else {
    s += "# No toolkit environment to load: activate the Python environment that has vLLM before running this.\n";
  }
  std::vector<int> devices(c.indices.begin(), c.indices.begin() + std::min<std::size_t>(c.indices.size(), o->gpus()));
  s += fmt::format("\n# Only the planned cards: another process's leftover memory on a card would shrink the budget\n"
                   "# (seed 004: DCU memory of a crashed process is not freed at once; pick idle cards).\n"
                   "export {}={}\n\n", c.hip() ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES", fmt::join(devices, ","));
  s += numa_block(p, *o);

  s += fmt::format("\nMODEL={}\n", quote(p.model.path));
  s += "args=(\n";
  const std::string name = opt.served_model_name.empty() ? p.model.name : opt.served_model_name;
  s += flag_line("--served-model-name", quote(name), "the name clients send as \"model\"");
  s += flag_line("--tensor-parallel-size", std::to_string(o->tp), p.reason);
  if (o->pp > 1)
    s += flag_line("--pipeline-parallel-size", std::to_string(o->pp), "TP alone does not fit the weights and one request");
  for (const char* flag : {"--dtype", "--max-model-len", "--gpu-memory-utilization", "--max-num-seqs",
                           "--max-num-batched-tokens", "--block-size", "--kv-cache-dtype"}) {
    std::string why;
    const auto value = advice_value(p, flag, &why);
    s += flag_line(flag, value, why);
  }
  std::string why;
  if (advice_value(p, "--enforce-eager", &why) == "true") s += flag_line("--enforce-eager", "", why);
  else s += fmt::format("  # --enforce-eager left off: {}\n", why);
  s += flag_line("--host", opt.host, "listen address");
  s += flag_line("--port", std::to_string(opt.port), "OpenAI-compatible API port");
  s += ")\n\n";
  s += "# CPU threads and host memory on the cards' node: cross-node traffic costs 20-40% with multi-card TP\n"
       "# (seed 004).\n";
  s += "exec numactl --cpunodebind=\"$NUMA_NODE\" --membind=\"$NUMA_NODE\" \\\n  vllm serve \"$MODEL\" \"${args[@]}\"\n";
  return s;
}

} // namespace dcukit::plan
