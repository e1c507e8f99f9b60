#pragma once
// The vendor tools as a last resort: hy-smi (Hygon, in PATH or /opt/hyhal/bin), rocm-smi,
// amd-smi and nvidia-smi, each run with a deadline and parsed by the --from parsers. A tool is
// skipped when a library source already covered its vendor's devices (running nvidia-smi when
// NVML answered would only cost time).
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/source.h"
#include "util/process.h"
#include "util/result.h"

namespace dcukit::telemetry {

class CliSource : public Source {
public:
  /// Runs argv with a deadline (util::run_capture by default).
  using Runner = std::function<Result<util::Captured>(const std::vector<std::string>&, std::chrono::milliseconds)>;
  /// The path of a tool, or nullopt (PATH, then /opt/hyhal/bin, $ROCM_PATH/bin, /opt/rocm/bin).
  using Finder = std::function<std::optional<std::string>(const std::string&)>;

  /// `tool_timeout` bounds each tool run.
  explicit CliSource(std::chrono::milliseconds tool_timeout, Runner runner = {}, Finder finder = {});
  std::string name() const override { return "cli"; }
  SourceSample sample(const Snapshot& so_far) override;

private:
  /// Runs one command and parses what it printed as `tool` output; appends to `out`.
  bool run_tool(const std::vector<std::string>& argv, SourceSample& out);

  std::chrono::milliseconds m_timeout;
  Runner m_run;
  Finder m_find;
};

}  // namespace dcukit::telemetry
