#pragma once
// `dcukit tune`: the engine settings that serve the most requests a second within an SLO. Each
// setting of the grid is started under guard (up's serve step: a complete stop between settings,
// never pkill), then a bracketing search with `dcukit load` finds the highest request rate whose
// requests meet the SLO often enough; a setting the engine refuses (never ready, out of memory)
// is rejected with why. The table, the best setting and its launch script are written; the
// budget stops the search with the best so far; a run resumes from OUT/tune.jsonl.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "flows/up.h"

namespace dcukit::flows {

struct TuneRequest {
  UpRequest base;  ///< self, model, engine, command, host, port, listen, start-up budget, out, stop, say
  /// Flag name (without dashes) and its values; empty: the engine's default grid.
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  std::string slo;        ///< load's --slo, required
  double attain = 0.95;   ///< the share of requests that must meet the SLO
  std::chrono::milliseconds budget{30 * 60 * 1000};
  int requests = 16;      ///< requests a probe sends (at least twice the rate)
  double max_rate = 64;   ///< requests a second the search does not go past
  /// A card's share of memory that rejects a setting under load before it runs out (0: not watched).
  double memory_limit = 0.98;
  std::string memory_from;  ///< a file holding a vendor tool's latest reading, instead of the live sources
  /// vLLM's --gpu-memory-utilization probed downward from here, 0.05 a step, until the engine
  /// starts; the value found goes with every setting (0: no probe).
  double utilization_from = 0;
};

/// One start of the utilization probe.
struct UtilizationTry {
  double value = 0;
  bool started = false;
  std::string why;  ///< for a start that failed: the engine's reason
};

/// One probe of the search: the rate asked and the share of requests that met the SLO.
struct TuneProbe {
  double rate = 0, attained = 0;
};

struct TuneRow {
  std::vector<std::string> flags;  ///< what the setting adds to the engine's command line
  std::string outcome;             ///< "served", "rejected", "not reached" (the budget ran out first)
  std::string why;                 ///< for rejected: the engine's reason
  double best_rate = 0;            ///< the highest rate that met the SLO (0: not even the first)
  double memory_peak = 0;          ///< the fullest card's share of memory under load (0: not read)
  std::vector<TuneProbe> probes;
  bool resumed = false;  ///< read from an earlier run's tune.jsonl
};

struct TuneReport {
  core::RunInfo run_info;
  std::vector<UtilizationTry> utilization_probe;
  double utilization = 0;  ///< what the probe found (0: no probe, or none started)
  std::vector<TuneRow> rows;
  int best = -1;  ///< the row with the highest best_rate
  bool interrupted = false, over_budget = false;
  std::string script;  ///< the best setting's launch script
};

/// The grid's settings, each a list of flags ("--parallel", "4"), in order.
std::vector<std::vector<std::string>> expand_grid(const std::vector<std::pair<std::string, std::vector<std::string>>>& grid);

/// The engine's default grid.
std::vector<std::pair<std::string, std::vector<std::string>>> default_grid(Engine e);

/// Checks the request (an SLO, a grid, the engine) before anything starts.
Status check_tune(const TuneRequest& r);

TuneReport run_tune(const TuneRequest& r);

std::string render_text(const TuneReport& r);
std::string render_json(const TuneReport& r);

}  // namespace dcukit::flows
