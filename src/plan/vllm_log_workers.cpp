#include "plan/vllm_log_workers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "plan/cards.h"
#include "plan/vllm_log_text.h"

namespace dcukit::plan::logworkers {
namespace {

using logtext::has;

/// The whole number at `at`, when a digit is there.
std::optional<int> rank_at(std::string_view line, std::size_t at) {
  if (at >= line.size() || !std::isdigit(static_cast<unsigned char>(line[at]))) return std::nullopt;
  return static_cast<int>(logtext::number_at(line, at).value_or(0));
}

void keep_max(std::optional<int>& field, std::optional<int> v) {
  if (v && *v >= 0 && *v < kMaxCards) field = std::max(field.value_or(0), *v + 1);
}

}  // namespace

void read_workers(std::string_view line, VllmLogSettings& s) {
  for (auto pid = line.find(" pid="); pid != std::string_view::npos; pid = line.find(" pid=", pid + 1)) {
    const auto open = line.find_last_of("([", pid);  // "[Worker_TP3 pid=..]" where a paste changed the brackets
    if (open == std::string_view::npos) break;
    const auto tag = line.substr(open, pid - open);
    for (std::size_t i = 1; i + 2 < tag.size(); ++i) {
      const auto rank = rank_at(tag, i + 2);
      if ((tag[i - 1] != ' ' && tag[i - 1] != '_') || !rank) continue;
      if (tag.compare(i, 2, "TP") == 0) {
        keep_max(s.worker_tp, rank);
        s.worker_tp_named = true;
      }
      if (tag.compare(i, 2, "PP") == 0) {
        keep_max(s.worker_pp, rank);
        s.worker_pp_named = true;
      }
    }
    if (auto r = tag.find(" rank="); r != std::string_view::npos) keep_max(s.world_size, rank_at(tag, r + 6));
  }
  if (auto at = line.find(" in world size "); at != std::string_view::npos) {  // parallel_state.py, 0.8+
    if (auto w = rank_at(line, at + 15)) keep_max(s.world_size, *w - 1);
    if (auto p = line.find("PP rank ", at); p != std::string_view::npos) keep_max(s.worker_pp, rank_at(line, p + 8));
    if (auto t = line.find("TP rank ", at); t != std::string_view::npos) keep_max(s.worker_tp, rank_at(line, t + 8));
  }
  if (auto at = line.find("world_size="); at != std::string_view::npos && has(line, "rank="))
    if (auto w = rank_at(line, at + 11)) keep_max(s.world_size, *w - 1);
  // NCCL/RCCL at NCCL_DEBUG=INFO: "comm 0x.. rank 0 nranks 2 cudaDev 0 ..", "Connected all rings comm 0x.. nRanks 02"
  for (std::string_view m : {" nranks ", " nRanks "})
    if (auto at = line.find(m); at != std::string_view::npos && has(line, "NCCL INFO"))
      if (auto n = rank_at(line, at + m.size())) keep_max(s.world_size, *n - 1);
  // V0's multiprocessing and Ray executors start a worker process for every GPU but the driver's
  if (has(line, "(VllmWorkerProcess pid=") || has(line, "(RayWorkerWrapper pid=")) s.worker_process = true;
}

bool worker_line(std::string_view line) {
  const auto pid = line.find(" pid=");
  if (pid == std::string_view::npos) return false;
  const auto open = line.find_last_of("([", pid);
  if (open == std::string_view::npos) return false;
  const auto tag = line.substr(open + 1, pid - open - 1);
  const bool worker = tag.find("Worker") != std::string_view::npos;
  const auto level = std::min({line.find("INFO"), line.find("WARNING"), line.find("DEBUG")});
  return worker && pid < level;
}

void settle_parallelism(VllmLogSettings& s) {
  if (s.tp && s.pp) return;
  std::vector<std::string> from;
  if (!s.pp && s.worker_pp && *s.worker_pp > 1) {
    s.pp = s.worker_pp;
    from.push_back(fmt::format("PP {} from the worker lines (PP0..PP{})", *s.pp, *s.pp - 1));
  }
  const int pp = s.pp.value_or(1);
  if (!s.tp && s.world_size && *s.world_size > 1 && *s.world_size % pp == 0 &&
      *s.world_size / pp >= s.worker_tp.value_or(1)) {
    s.tp = *s.world_size / pp;
    from.push_back(fmt::format("TP {} from the world size {} the workers print{}", *s.tp, *s.world_size,
                               s.pp ? "" : " (no pipeline parallelism assumed)"));
  } else if (!s.tp && s.worker_tp) {
    s.tp = s.worker_tp;
    from.push_back(fmt::format("TP {} from the worker lines (TP0..TP{})", *s.tp, *s.tp - 1));
  }
  if (!from.empty()) s.parallel_source = fmt::format("{}", fmt::join(from, "; "));
  // Rank 0 alone of a named axis: more than one rank, how many not shown (an excerpt of one worker).
  std::vector<std::string> unknown;
  if (!s.pp && s.worker_pp_named && s.worker_pp.value_or(0) < 2) unknown.push_back("pipeline-parallel (PP0)");
  if (!s.tp && s.worker_tp_named && s.worker_tp.value_or(0) < 2 && !(s.world_size && *s.world_size > 1))
    unknown.push_back("tensor-parallel (TP0)");
  if (unknown.empty() && !s.tp && !s.worker_tp_named && !s.worker_pp_named && s.worker_process &&
      !(s.world_size && *s.world_size > 1)) {
    s.parallel_unknown =
        "the log shows worker processes beside the driver (VllmWorkerProcess or RayWorkerWrapper lines), so the "
        "engine runs on more than one GPU, but it states no tensor- or pipeline-parallel size; pass a log with "
        "its engine-config or non-default-args line, or its NCCL INFO lines (nranks)";
    return;
  }
  if (!unknown.empty())
    s.parallel_unknown = fmt::format(
        "the worker names show {} ranks, which vLLM names only when there are two or more, but the log shows "
        "rank 0 alone and states no size; pass a log with its engine-config or non-default-args line, or the "
        "lines of every worker",
        fmt::join(unknown, " and "));
}

}  // namespace dcukit::plan::logworkers
