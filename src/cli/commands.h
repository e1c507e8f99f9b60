#pragma once
// Every command dcukit has, in the order `dcukit --help` lists them. A new command is a folder
// of its own under src/ (its engine; src/CMakeLists.txt takes every folder), a
// src/cli/<command>.cpp defining setup_<command>, and one line in DCUKIT_COMMANDS below.
#include "cli/command.h"

// clang-format off
#define DCUKIT_COMMANDS(X) \
  X(bench)                 \
  X(plan)                  \
  X(load)                  \
  X(port)                  \
  X(telemetry)             \
  X(guard)                 \
  X(doctor)                \
  X(exporter)              \
  X(patrol)                \
  X(stress)                \
  X(compare)               \
  X(report)                \
  X(up)                    \
  X(tune)                  \
  X(slurm_check)
// clang-format on

namespace dcukit::cli {

/// setup_<command>(app, runner) registers its subcommand on `app`; when the user picks it, its
/// run is put in `runner`.
#define DCUKIT_DECLARE_SETUP(name) void setup_##name(CLI::App& app, Runner& runner);
DCUKIT_COMMANDS(DCUKIT_DECLARE_SETUP)
#undef DCUKIT_DECLARE_SETUP

using Setup = void (*)(CLI::App&, Runner&);

/// The setups, in DCUKIT_COMMANDS' order.
#define DCUKIT_SETUP_ENTRY(name) setup_##name,
inline constexpr Setup kCommands[] = {DCUKIT_COMMANDS(DCUKIT_SETUP_ENTRY)};
#undef DCUKIT_SETUP_ENTRY

}  // namespace dcukit::cli
