#pragma once
// The engine flags of a plan, rendered from its one Settings struct and its recommended option:
// the flags table and the launch script both print these, so that a value is never kept twice.
#include <string>
#include <string_view>
#include <vector>

#include "plan/planner.h"

namespace dcukit::plan {

/// One vLLM flag as a plan sets it.
struct EngineFlag {
  std::string_view name;  ///< "--dtype"
  std::string value;      ///< "bfloat16"; empty for a switch
  bool on = true;         ///< false for a switch left off (--enforce-eager where graphs are kept)
  std::string why;        ///< the setting's why
  /// What seed 004's production template (DCU, DTK 26.04) has for it: a value, "on" for its
  /// switch, empty where the template does not set the flag.
  std::string_view seed004;
};

/// The flags in seed 004's template order (those it sets first), then the ones it leaves to
/// vLLM's defaults. Without a recommended option there is no --tensor-parallel-size.
std::vector<EngineFlag> engine_flags(const Plan& plan);

/// A fraction as vLLM takes it: 0.9, 0.85 (at most two decimals, no trailing zeros).
std::string format_fraction(double value);

}  // namespace dcukit::plan
