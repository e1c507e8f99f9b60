#pragma once
// The parallel layout a vLLM log shows through its workers: the ranks in worker tags, world sizes
// and NCCL's rank counts, and what TP and PP follow from them where no setting states them.
#include <string_view>

#include "plan/vllm_log.h"

namespace dcukit::plan::logworkers {

/// The ranks a worker line names: its prefix "(VllmWorker TP3 pid=..)", "(Worker_PP1_TP0 pid=..)",
/// "(VllmWorker rank=3 pid=..)", and the lines that state them.
void read_workers(std::string_view line, VllmLogSettings& s);

/// A line a worker process printed: "(RayWorkerWrapper pid=626, ip=..)", "(VllmWorkerProcess pid=..)",
/// "(Worker_TP1 pid=..)", ANSI colour codes allowed, before the record's level.
bool worker_line(std::string_view line);

/// TP and PP from the worker lines where no setting stated them; parallel_unknown where the lines
/// show more than one GPU but not how many.
void settle_parallelism(VllmLogSettings& s);

}  // namespace dcukit::plan::logworkers
