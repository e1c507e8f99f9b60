#include "cli/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/launch.h"

namespace dcukit::cli {
namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

/// Whether `next` is the FILE of `flag` rather than the next argument.
bool is_file_of(std::string_view flag, std::string_view next) {
  if (next == "-") return true;
  if (flag == "--json") return ends_with(next, ".json") || ends_with(next, ".jsonl") || ends_with(next, ".ndjson");
  if (flag == "--markdown") return ends_with(next, ".md") || ends_with(next, ".markdown");
  return ends_with(next, ".csv") || ends_with(next, ".tsv");
}

}  // namespace

Status check_outputs(const std::vector<Output>& outputs) {
  const Output* on_stdout = nullptr;
  std::vector<OutputFile> files;
  for (const Output& o : outputs) {
    if (o.to_stdout() && on_stdout)
      return Error{fmt::format("{} and {} both write to stdout: give one a file", on_stdout->flag, o.flag)};
    if (o.to_stdout()) on_stdout = &o;
    files.push_back(o.file());
  }
  return check_outputs(files);
}

CLI::Option* add_output(CLI::App* sub, Output& out, const std::string& what) {
  // Under mpirun or srun each rank names its own file: {host}, {rank}, {local_rank}, {size}.
  return sub->add_option(out.flag, out.path, what + " (no FILE or -: stdout, in place of the text; {host} and {rank} in FILE name one file a rank under mpirun or srun)")
      ->type_name("[FILE]")
      ->transform([](std::string v) { return core::expand_launch_pattern(v); }, "", "launch pattern");
}

bool emit(const std::string& command, const Output& out, const std::string& content) {
  if (!out.asked()) return true;
  if (out.to_stdout()) {
    fmt::print("{}", content);
    std::fflush(stdout);
    return true;
  }
  return write_output(command, out.file(), content);
}

OutputStream::OutputStream(Output out) : m_out(std::move(out)) {
  if (m_out.asked() && !m_out.to_stdout()) m_file.open(m_out.path, std::ios::trunc);
}

bool OutputStream::put(const std::string& command, const std::string& text) {
  if (!m_out.asked()) return true;
  if (m_out.to_stdout()) {
    fmt::print("{}", text);
    return true;
  }
  m_file << text << std::flush;
  if (m_file) return true;
  print_error(command, fmt::format("{} {}: cannot write", m_out.flag, m_out.path));
  return false;
}

std::vector<std::string> normalize_outputs(int argc, char** argv) {
  std::vector<std::string> out;
  bool rest = false;  // after "--": not ours
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (!rest && a == "--") rest = true;
    if (!rest && i > 0 && (a == "--json" || a == "--csv" || a == "--markdown") && !(i + 1 < argc && is_file_of(a, argv[i + 1]))) {
      out.push_back(std::string(a) + "=-");
      continue;
    }
    out.emplace_back(a);
  }
  return out;
}

void parse_command_line(CLI::App& app, int argc, char** argv) {
  // CLI11 takes the words reversed, without the program's name.
  std::vector<std::string> words = normalize_outputs(argc, argv);
  words.erase(words.begin());
  std::reverse(words.begin(), words.end());
  try {
    app.parse(words);
  } catch (const CLI::ExtrasError& e) {
    // A word after a bare --json/--csv that was not taken as its FILE, and that the command does
    // not take either: say what the FILE rule is rather than "not expected".
    for (int i = 1; i + 1 < argc; ++i) {
      const std::string_view flag = argv[i], next = argv[i + 1];
      if ((flag == "--json" || flag == "--csv") && !is_file_of(flag, next) &&
          std::string_view(e.what()).find(next) != std::string_view::npos)
        throw CLI::ValidationError(fmt::format("{} {}: a FILE after {} ends in {} (or write {}={}); "
                                                                  "alone, {} writes to stdout",
                                                                  flag, next, flag,
                                                                  flag == "--json" ? ".json, .jsonl or .ndjson"
                                                                                   : ".csv or .tsv",
                                                                  flag, next, flag));
    }
    throw;
  }
}

}  // namespace dcukit::cli
