#include "cli/sources.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>

#include "cli/common.h"
#include "util/duration.h"

namespace dcukit::cli {

void add_source_options(CLI::App* sub, SourceFlags& f, const std::string& from_help) {
  if (!from_help.empty()) sub->add_option("--from", f.from, from_help);
  sub->add_option("--source", f.source, "Ask one source only: auto (all, in order), nvml, rocm-smi-lib, sysfs, cli")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return telemetry::parse_source_choice(text)
                       ? std::string()
                       : fmt::format("{}: choose auto, nvml, rocm-smi-lib, sysfs or cli", text);
          },
          "SOURCE"))
      ->capture_default_str();
  sub->add_option("--root", f.root, "Read /sys and /proc under DIR instead of / (a bundle, a test tree)")
      ->check(root_folder());
  sub->add_option("--timeout", f.timeout_s,
                  fmt::format("The most one source may take for one reading (default {})",
                              util::format_duration(std::chrono::milliseconds(std::llround(f.timeout_s * 1000)))))
      ->transform(seconds_in(0.001, 3600));
}

Result<telemetry::CollectOptions> collect_options(const SourceFlags& f) {
  if (!f.from.empty() && f.source != "auto")
    return Error{fmt::format("--from {} reads a file; --source {} is for the live host: give one of them", f.from,
                             f.source)};
  telemetry::CollectOptions o;
  o.choice = telemetry::parse_source_choice(f.source).value_or(telemetry::SourceChoice::all);  // CLI11 checked it
  o.root = util::Root(f.root);
  o.timeout = std::chrono::milliseconds(std::llround(f.timeout_s * 1000));
  return o;
}

}  // namespace dcukit::cli
