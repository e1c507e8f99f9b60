#pragma once
// The launch a process is part of, as mpirun or srun put it in the environment (before MPI is
// loaded): its rank, the job's size and the rank on this host. Recorded in every report's
// run_info and used to name one file a rank (`--json 'out/{host}-{rank}.json'`).
#include <optional>
#include <string>

namespace dcukit::core {

struct Launch {
  int rank = 0, size = 1, local_rank = 0;
  std::string launcher;  ///< "Open MPI", "MPICH (PMI)", "PMIx", "Slurm"
};

/// From the launchers' variables (OMPI_COMM_WORLD_*, PMI_*, PMIX_RANK, SLURM_PROCID/SLURM_NTASKS/
/// SLURM_LOCALID); nullopt when run alone (no launcher, or a job of one).
std::optional<Launch> launch_from_environment();

/// `pattern` with {host} (this host's short name), {rank}, {local_rank} and {size} replaced (a
/// process run alone is rank 0 of 1); other text as it is.
std::string expand_launch_pattern(const std::string& pattern);

}  // namespace dcukit::core
