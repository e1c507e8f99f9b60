#pragma once
// The one grammar of machine-readable outputs (docs/cli.md): `--json [FILE]` and `--csv [FILE]`,
// the same in every command. No value or "-" writes to stdout, in place of the text report; a
// FILE is written (atomically) and the text report still goes to stdout. A bare `--json` is
// told apart from `--json FILE` by the next word: "-" or a name ending in .json/.jsonl/.ndjson
// (.csv/.tsv for --csv) is its FILE; anything else is left to the command (`--json=FILE` takes
// any name).
#include <CLI/CLI.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "cli/common.h"

namespace dcukit::cli {

/// One `--json [FILE]` or `--csv [FILE]`.
struct Output {
  std::string flag;  ///< "--json"
  std::string path;  ///< "": not asked; "-": stdout; else the file
  bool asked() const { return !path.empty(); }
  bool to_stdout() const { return path == "-"; }
  /// The file to check and write; an empty path (nothing to write) for stdout.
  OutputFile file() const { return {flag, to_stdout() ? "" : path}; }
};

/// Checks the outputs before anything runs: at most one takes stdout ("--json and --csv both
/// write to stdout: give one a file"), and each file can be written (check_outputs of the files).
Status check_outputs(const std::vector<Output>& outputs);

/// Adds `out.flag [FILE]` to `sub`.
CLI::Option* add_output(CLI::App* sub, Output& out, const std::string& what);

/// Writes `content` where `out` says: stdout, or the file (false, with the error printed, when
/// it cannot be written).
bool emit(const std::string& command, const Output& out, const std::string& content);

/// An output written a piece at a time (--watch): each put() goes to stdout, or is appended to
/// the file, which opening created empty. One reading's JSON line or CSV rows a put().
class OutputStream {
public:
  explicit OutputStream(Output out);
  /// False, with "dcukit COMMAND: --json FILE: cannot write" printed, when the file took it not.
  bool put(const std::string& command, const std::string& text);

private:
  Output m_out;
  std::ofstream m_file;
};

/// argv as CLI11 parses it, with every bare --json/--csv written --json=-; nothing after "--"
/// (guard's service command line) is touched.
std::vector<std::string> normalize_outputs(int argc, char** argv);

/// Parses argv into `app` as the CLI does (normalize_outputs, then CLI11); throws CLI::ParseError.
void parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace dcukit::cli
