#pragma once
// A communicator: one rank of a group of devices that run collectives together (NCCL's
// ncclComm_t, an MPI communicator). Each rank's buffers are its Device's memory (host memory on
// the CPU backend) and each rank is driven by its own thread or process. Every call that waits
// for the other ranks has a deadline, and running out of it names the ranks that never came.
#include <chrono>
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
  /// shape_of() gives. Enqueues on `stream` where the library takes one (NCCL), else blocks.
  virtual Status run(Collective c, const void* send, void* recv, const Shape& shape, Stream stream) = 0;
  /// Waits until every rank has called barrier(), up to `timeout`; the error names the ranks
  /// that did not arrive. Blocks.
  virtual Status barrier(std::chrono::milliseconds timeout) = 0;
  /// The largest of every rank's `value` (for the slowest rank's time). Blocks.
  virtual Result<double> max_of(double value, std::chrono::milliseconds timeout) = 0;
};

/// `ranks` communicators over host memory in one process, one for each thread that drives a
/// CPU "device": a collective reads the other ranks' buffers directly. A collective waits for
/// the other ranks up to `wait`. DCUKIT_CPU_FAULTS="collective=N" (tests only) plants one
/// wrong element in the last rank's output from its Nth collective on.
std::vector<std::unique_ptr<Communicator>> make_thread_group(int ranks, std::chrono::milliseconds wait);

}  // namespace dcukit::device::comm
