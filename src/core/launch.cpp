#include "core/launch.h"

#include <cstdlib>

#include "util/host.h"

namespace dcukit::core {
namespace {

int env_number(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

}  // namespace

std::optional<Launch> launch_from_environment() {
  struct Kind {
    const char *rank, *size, *local, *name;
  };
  constexpr Kind kinds[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPICH (PMI)"},
      {"PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", "PMIx"},
      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm"},
  };
  for (const auto& k : kinds)
    if (std::getenv(k.rank) && std::getenv(k.size)) {
      Launch l{env_number(k.rank, 0), env_number(k.size, 1), env_number(k.local, 0), k.name};
      if (l.size > 1) return l;
    }
  return std::nullopt;
}

std::string expand_launch_pattern(const std::string& pattern) {
  if (pattern.find('{') == std::string::npos) return pattern;
  const auto l = launch_from_environment().value_or(Launch{});
  const std::pair<const char*, std::string> names[] = {{"{host}", util::short_hostname()},
                                                       {"{rank}", std::to_string(l.rank)},
                                                       {"{local_rank}", std::to_string(l.local_rank)},
                                                       {"{size}", std::to_string(l.size)}};
  std::string out = pattern;
  for (const auto& [name, value] : names)
    for (auto at = out.find(name); at != std::string::npos; at = out.find(name, at + value.size()))
      out.replace(at, std::string(name).size(), value);
  return out;
}

}  // namespace dcukit::core
