#pragma once
// What every subcommand's parsing shares: validators for numbers and sizes (CLI11's own
// Range lets NaN through), key=value lists, and output files that are checked before any work
// is done and written atomically after, so that a bad path never throws a run away.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "cli/command.h"
#include "util/result.h"

namespace dcukit::cli {

/// This binary's path (/proc/self/exe), for commands that run dcukit's other commands as
/// children (up, tune); "dcukit" (from PATH) where it cannot be read.
std::string self_path();

/// A number in [lo, hi]; NaN and text that is not a number are refused with the range.
CLI::Validator number_in(double lo, double hi);

/// A whole number in [lo, hi] for counts and lengths: "2.9", "inf", "nan" and "1e3" are
/// refused with the range (CLI11 would truncate or wrap them).
CLI::Validator whole_in(long long lo, long long hi);

/// A duration in [lo, hi] seconds as users type it, "30", "1.5", "500ms", "5s", "2m", "1h"
/// (util::parse_duration), handed on as plain seconds: every time flag reads both ways.
CLI::Validator seconds_in(double lo, double hi);

/// A size as users type it ("256MiB", "4GiB", "65536") in [lo, hi] bytes.
CLI::Validator size_in(std::uint64_t lo, std::uint64_t hi);

/// A --root: an existing folder that stands for / (a test tree, an unpacked bundle).
CLI::Validator root_folder();

/// "a=1,b=2" as a map; every item needs a key, an '=' and a value, keys appear once.
/// The error names the flag and the item.
Result<std::map<std::string, std::string>> parse_key_values(const std::string& text, const std::string& flag);

/// An output file named by a flag ("--json", "-o").
struct OutputFile {
  std::string flag;
  std::string path;  ///< empty: not asked for
};

/// Checks every named output can be written, before anything runs; the error names the flag.
Status check_outputs(const std::vector<OutputFile>& outputs);

/// Writes one output atomically; on failure prints "dcukit <command>: --flag PATH: why" and
/// returns false (the caller still writes its other outputs).
bool write_output(const std::string& command, const OutputFile& output, const std::string& content);

/// Prints "dcukit <command>: message" on stderr.
void print_error(const std::string& command, const std::string& message);
/// Writes a rendered report to stdout through util::terminal_safe: what a server, a capture or a
/// source put in it (a model id, a quoted line) cannot drive the terminal. JSON needs none.
void print_text(std::string_view text);
/// print_error, then `code`: `return fail("telemetry", ExitCode::bad_input, why);`.
ExitCode fail(const std::string& command, ExitCode code, const std::string& message);

}  // namespace dcukit::cli
