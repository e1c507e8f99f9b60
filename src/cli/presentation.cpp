#include "cli/presentation.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <mutex>

#include "cli/common.h"
#include "core/table.h"
#include "util/terminal.h"
#include "util/text.h"

namespace dcukit::cli {

namespace {

/// The progress of the command parsed last; made on first use, from the flags.
std::unique_ptr<util::Progress>& progress_slot() {
  static std::unique_ptr<util::Progress> slot;
  return slot;
}

}  // namespace

Presentation& presentation() {
  static Presentation p;
  return p;
}

void add_presentation(CLI::App* sub, const std::string& verbose_help) {
  // Setting up a command line starts from the defaults (the tests parse many in one process).
  auto& p = presentation();
  p = Presentation{};
  progress_slot().reset();
  sub->add_flag("-q,--quiet", p.quiet, "Only the results and the errors: no progress, notes or warnings");
  sub->add_flag("-v,--verbose", p.verbose,
                verbose_help.empty() ? "Also say each step on stderr" : verbose_help + "; each step on stderr");
  sub->add_flag("--wide", p.wide, "Never fit the text to the terminal's width (COLUMNS or the terminal's)");
  sub->add_option("--progress", p.progress,
                  "auto (a line redrawn on a terminal, plain lines elsewhere), tty, plain or none")
      ->check(CLI::IsMember({"auto", "tty", "plain", "none"}))
      ->default_str("auto");
}

util::Progress& progress() {
  static std::mutex made;  // the exporter's and guard's threads may be the first to ask
  const std::lock_guard<std::mutex> lock(made);
  auto& slot = progress_slot();
  if (!slot) {
    const auto& pr = presentation();
    const auto mode = pr.quiet ? util::ProgressMode::none
                               : util::parse_progress_mode(pr.progress, STDERR_FILENO).value_or(util::ProgressMode::none);
    slot = std::make_unique<util::Progress>(mode);
  }
  return *slot;
}

void print_note(const std::string& command, const std::string& text) {
  if (presentation().quiet) return;
  const std::string line = fmt::format("dcukit {}: {}", command, text);
  if (progress().shown())
    progress().line(line);
  else
    fmt::print(stderr, "{}\n", util::terminal_safe(line));
}

void print_verbose(const std::string& command, const std::string& text) {
  if (presentation().verbose) print_note(command, text);
}

std::size_t report_width() {
  return util::output_width(STDOUT_FILENO, presentation().wide);
}

void print_report(const std::function<std::string()>& render) {
  const std::size_t width = report_width();
  std::string text;
  {
    const core::TextWidth fit(width);
    text = render();
  }
  progress().close();
  print_text(util::fit_lines(text, width));
}

}  // namespace dcukit::cli
