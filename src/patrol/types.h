#pragma once
// What one patrol inspection found, as plain data: a state per finding (the Nagios plugin
// states), the figures as perfdata, and the worst state overall. The renderers (render.h) turn
// it into the one line a monitoring system reads, or JSON.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::patrol {

/// Nagios plugin states; the value is the exit code.
enum class State { ok = 0, warning = 1, critical = 2, unknown = 3 };
/// "OK", "WARNING", "CRITICAL", "UNKNOWN".
std::string_view to_string(State s);
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

/// One inspection.
struct Report {
  std::string timestamp;  ///< UTC, ISO 8601
  std::string source;     ///< "live" or the --from path
  State state = State::ok;
  int devices = 0;
  std::vector<Finding> findings;  ///< every check made, OK ones included
  std::vector<Perf> perfdata;
};

/// Adds `f` to `r` and folds its state into r.state.
void add(Report& r, Finding f);

}  // namespace dcukit::patrol
