#pragma once
// Benchmarks over several devices at once (nvbandwidth's peer testcases, nccl-tests): they run
// after the per-device benchmarks, over every chosen device opened together, and their results
// go to Report::group. Like Benchmark, each declares its key, description and table; one that
// does not apply is reported as skipped with the reason.
#include <memory>
#include <string>
#include <vector>

#include "bench/context.h"
#include "bench/table_spec.h"

namespace dcukit::bench {

/// One device of the group, opened, with two streams of its own.
struct Member {
  device::Device* device = nullptr;
  device::Stream stream, second;
  const DeviceReport* info = nullptr;
  const core::DeviceSpec* spec = nullptr;
};

/// What a group benchmark works with: the backend that opened every member, the members in the
/// order chosen, the options, a deadline and the stop token.
struct GroupContext {
  device::Backend& backend;
  device::BackendKind kind;
  std::vector<Member> members;
  const Options& options;
  Deadline deadline;
  std::function<void(const std::string&)> progress;
  const util::StopToken* stop = nullptr;
  /// Under MPI: this process's rank of the job (members then holds its one device). Else null.
  device::comm::Communicator* world = nullptr;

  /// A per-device Context for member `i` (for time_with_events and finish), sharing this deadline.
  Context of(std::size_t i);
  void say(const std::string& line) const {
    if (progress) progress(line);
  }
  bool stopped() const { return stop && stop->stop_requested(); }
  bool on_cpu() const { return kind == device::BackendKind::cpu; }
};

class GroupBenchmark {
public:
  virtual ~GroupBenchmark() = default;
  /// "p2p", "collectives": what --only takes and Measurement::benchmark holds.
  virtual std::string key() const = 0;
  virtual std::string description() const = 0;
  /// Empty when it can run over this group, else the reason it cannot.
  virtual std::string applies(const GroupContext&) const { return {}; }
  /// Runs every case, appending one Measurement per case, each checked before its time counts.
  virtual void run(GroupContext& ctx, std::vector<Measurement>& out) = 0;
  virtual TableSpec table() const = 0;
};

/// Every group benchmark, in the order they run.
std::vector<std::unique_ptr<GroupBenchmark>> all_group_benchmarks();

/// The keys --only accepts: every benchmark's and every group benchmark's.
std::vector<std::string> benchmark_keys();

}  // namespace dcukit::bench
