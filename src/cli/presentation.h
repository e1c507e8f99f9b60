#pragma once
// What every command shares about how it speaks (docs/cli.md): -q and -v, --wide, and
// --progress auto|tty|plain|none. One command runs a process, so these are the process's.
#include <functional>
#include <string>

#include "util/progress.h"

namespace CLI {
class App;
}

namespace dcukit::cli {

struct Presentation {
  bool quiet = false;    ///< -q: only the results and the errors
  bool verbose = false;  ///< -v: what the command adds (evidence, one line per check), and its steps
  bool wide = false;     ///< --wide: never fit the text to the terminal
  std::string progress = "auto";
};

/// This process's flags, as parsed.
Presentation& presentation();

/// Adds -q, -v, --wide and --progress to `sub`; `verbose_help` says what -v shows there.
void add_presentation(CLI::App* sub, const std::string& verbose_help = "");

/// The command's progress on stderr: none with -q or --progress none.
util::Progress& progress();

/// "dcukit COMMAND: text" on stderr (a note, "wrote FILE"), through progress(); not with -q.
void print_note(const std::string& command, const std::string& text);
/// As print_note, only with -v: a step of the command.
void print_verbose(const std::string& command, const std::string& text);

/// Renders a report for stdout fitted to the output's width (core::TextWidth, then every line
/// longer wrapped), and prints it as print_text does. Files and bundles are rendered whole.
void print_report(const std::function<std::string()>& render);

/// The width print_report fits to: 0 with --wide or off a terminal without COLUMNS.
std::size_t report_width();

}  // namespace dcukit::cli
