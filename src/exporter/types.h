#pragma once
// `dcukit exporter`'s Request (where and how to serve, from the live host or a captured tool
// output) and Report (how a serving ended).
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "core/run_info.h"
#include "exporter/names.h"
#include "telemetry/types.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::exporter {

/// How to serve.
struct Request {
  std::string listen = "127.0.0.1:9402";     ///< ADDR:PORT; port 0 picks a free one
  bool listen_any = false;                   ///< allow an address other hosts can reach
  std::string from;                          ///< a captured tool output read on each scrape, instead of the host
  telemetry::CollectOptions collect;         ///< the live sources (collect.timeout: per source)
  std::chrono::milliseconds deadline{8000};  ///< the most a scrape waits for its reading
  NameSet names = NameSet::dcukit;           ///< --names: dcukit's, dcgm-exporter's or AMD's
  std::string cluster = "default";           ///< --cluster-name, for AMD's dashboards
  std::string job_mapping_dir;               ///< --job-mapping-dir: the Slurm job on each device
  /// A device's health (0 ok, 1 warning, 2 failing, -1 not judged); empty: no health series.
  std::function<int(const telemetry::DeviceState&)> health;
  /// Where the log lines go (what the labels leave out, once per change); empty: stderr.
  std::function<void(const std::string&)> log;
  bool log_scrapes = false;  ///< -v: also a line for every scrape
  const util::StopToken* stop = nullptr;  ///< serving ends when it is requested (null: never)
  /// Called once with the address bound ("127.0.0.1:9402"), e.g. to print it.
  std::function<void(const std::string&)> on_listening;
  std::string command;  ///< the command line as typed, for run_info
};

/// How a serving ended.
struct Report {
  core::RunInfo run_info;
  std::string address;              ///< where it served
  std::uint64_t scrapes = 0;        ///< scrapes answered
  std::uint64_t collect_errors = 0;  ///< readings that failed or missed the deadline
};

}  // namespace dcukit::exporter
