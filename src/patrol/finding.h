#pragma once
// The words of a patrol inspection: the Nagios plugin states, one judged finding, and one
// perfdata figure. types.h's Report is made of them.
#include <optional>
#include <string>
#include <string_view>

namespace dcukit::patrol {

/// Nagios plugin states; the value is the exit code.
enum class State { ok = 0, warning = 1, critical = 2, unknown = 3 };
/// "OK", "WARNING", "CRITICAL", "UNKNOWN".
std::string_view to_string(State s);
/// The state spelled `text` ("OK", ...), or nullopt.
std::optional<State> parse_state(std::string_view text);
/// The worse of two states: CRITICAL > WARNING > UNKNOWN > OK (a check that could not judge
/// never hides a problem another check found).
State worse(State a, State b);

/// One thing patrol judged: "gpu1 temperature 97 C (critical at 95)".
struct Finding {
  std::string subject;  ///< "gpu1", "service", "residue", "devices"
  std::string check;    ///< "temperature", "health", "canary", "holders", ...
  State state = State::ok;
  std::string message;  ///< what was seen, and the limit it crossed
};

/// One Nagios perfdata item: 'label'=value[uom];[warn];[crit];[min];[max].
struct Perf {
  std::string label;  ///< "gpu0_temperature"
  double value = 0;
  std::string uom;  ///< "", "%", "B", "s" (the units Nagios knows)
  std::string warn, crit;  ///< Nagios ranges ("83", "~:99"); empty: none
  std::optional<double> min, max;
};

}  // namespace dcukit::patrol
