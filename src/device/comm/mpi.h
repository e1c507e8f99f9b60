#pragma once
// MPI, the distributed engine across hosts: loaded at run time (Open MPI's libmpi.so.40 or
// MPICH's libmpi.so.12, or $DCUKIT_MPI_LIBRARY), never linked, so that dcukit runs where MPI is
// absent. Under `mpirun` or `srun` each process is one rank driving one device; this gives the
// rank, the size and the local rank, the collectives over host memory (the CPU backend), a
// barrier that names the ranks that did not come, and the gathering of every rank's report.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/launch.h"
#include "device/comm/comm.h"

namespace dcukit::device::comm {

/// What the launcher put in the environment of this process, before MPI is loaded.
using Launch = core::Launch;

/// The launch this process is part of (core::launch_from_environment), or nullopt when run alone.
inline std::optional<Launch> launch_from_environment() { return core::launch_from_environment(); }

/// This process's rank of MPI_COMM_WORLD; the collectives run over host memory.
class MpiComm : public Communicator {
public:
  /// Every rank's `text` at rank 0, in rank order (empty elsewhere). Blocks, up to `timeout`.
  virtual Result<std::vector<std::string>> gather(const std::string& text, std::chrono::milliseconds timeout) = 0;
  /// This host's name as MPI gives it.
  virtual std::string host() const = 0;
  /// Ends every rank of the job (MPI_Abort), after a failure that leaves a rank stuck.
  [[noreturn]] virtual void abort_job(int code) = 0;
};

/// DCUKIT_CPU_FAULTS (tests only): "collective=N" plants one wrong element in the last rank's
/// output from its Nth collective on; "stall=R" makes rank R never reach a barrier.
/// Loads MPI and initializes it (MPI_Init_thread, serialized: the measuring runs on a thread of
/// its own). The error names the library and what to do. Finalizes when destroyed.
Result<std::unique_ptr<MpiComm>> mpi_world();

}  // namespace dcukit::device::comm
