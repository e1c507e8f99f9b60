#pragma once
// A communicator: one rank of a group of devices that run collectives together (NCCL's
// ncclComm_t, an MPI communicator). Each rank's buffers are its Device's memory (host memory on
// the CPU backend) and each rank is driven by its own thread or process. Every call that waits
// for the other ranks has a deadline, and running out of it names the ranks that never came.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/backend.h"
#include "device/comm/collective.h"
#include "util/result.h"

namespace dcukit::device::comm {

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// "threads", "mpi (Open MPI v4.1.4)", "nccl 2.21.5": what carries the data.
  virtual std::string name() const = 0;
  /// Runs `c` over this rank's `send` and `recv` (`recv` may be `send`: in place) of the shape
  /// shape_of() gives. Enqueues on `stream` where the library takes one (NCCL: the stream's
  /// synchronize holds the deadline), else blocks up to `timeout` for the other ranks.
  virtual Status run(Collective c, const void* send, void* recv, const Shape& shape, Stream stream,
                     std::chrono::milliseconds timeout) = 0;
  /// Waits until every rank has called barrier(), up to `timeout`; the error names the ranks
  /// that did not arrive. Blocks.
  virtual Status barrier(std::chrono::milliseconds timeout) = 0;
  /// The largest of every rank's `value` (for the slowest rank's time). Blocks.
  virtual Result<double> max_of(double value, std::chrono::milliseconds timeout) = 0;
  /// The sum of every rank's `value` (wrong elements over all ranks). Blocks.
  virtual Result<double> sum_of(double value, std::chrono::milliseconds timeout) = 0;
  /// Rank 0's `bytes` at `data` copied to every rank's `data` (a group id handed to a library).
  /// Blocks, up to `timeout`. Only a communicator between processes (MPI) has it.
  virtual Status broadcast_bytes(void* data, std::size_t bytes, std::chrono::milliseconds timeout) {
    (void)data, (void)bytes, (void)timeout;
    return Error{name() + " cannot broadcast a group id"};
  }
  /// Empty when `c` may run in place here, else why not. Does not block.
  virtual std::string in_place_unsupported(Collective) const { return {}; }
  /// Gives up on the group after a failure (a wait that ran out): the library's abort, so that
  /// no later call waits for a peer that is gone. Does not block for long.
  virtual void abort() noexcept {}
};

/// `ranks` communicators over host memory in one process, one for each thread that drives a
/// CPU "device": a collective reads the other ranks' buffers directly. DCUKIT_CPU_FAULTS=
/// "collective=N" (tests only) plants one wrong element in the last rank's output from its Nth
/// collective on.
std::vector<std::unique_ptr<Communicator>> make_thread_group(int ranks);

/// The library a GPU backend's collectives go through: $DCUKIT_NCCL_LIBRARY when set, else
/// libnccl.so.2 (cuda) or librccl.so.1 (hip), found by the loader.
std::string collective_library(BackendKind kind);

/// Opens that library once per process; the error names it, the loader's message and how to
/// point dcukit at it. Returns "nccl 2.21.5" / "rccl 2.18.3". Blocks.
Result<std::string> load_collective_library(BackendKind kind);

/// One communicator for each of `devices` (the backend's own indices), through NCCL or RCCL
/// loaded at run time (ncclCommInitAll: one process, a thread a device). Blocks.
Result<std::vector<std::unique_ptr<Communicator>>> make_nccl_group(BackendKind kind, const std::vector<int>& devices);

/// This process's rank of a job's group of devices, one process a device (under mpirun or srun),
/// through NCCL or RCCL: rank 0 makes the group's id (ncclGetUniqueId), `world` (MPI) hands it
/// to every rank, and each joins (ncclCommInitRank) on the device `bind` makes current on the
/// joining thread. A rank that does not join within `timeout` is an error, not a wait.
/// barrier(), max_of() and sum_of() go through `world`. Blocks.
Result<std::unique_ptr<Communicator>> make_nccl_rank(BackendKind kind, Communicator& world,
                                                     const std::function<Status()>& bind,
                                                     std::chrono::milliseconds timeout);

}  // namespace dcukit::device::comm
