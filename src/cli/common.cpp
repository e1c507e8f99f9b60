#include "cli/common.h"

#include "util/duration.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <cstdlib>

#include "core/units.h"
#include "util/files.h"
#include "util/text.h"

namespace dcukit::cli {

std::string self_path() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dcukit") : p.string();
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        auto v = core::parse_number(text);
        if (!v || std::isnan(*v)) return fmt::format("'{}' is not a number", text);
        if (*v < lo || *v > hi) return fmt::format("{} is outside {:g} to {:g}", text, lo, hi);
        return {};
      },
      fmt::format("NUMBER in [{:g}, {:g}]", lo, hi));
}

CLI::Validator seconds_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        auto d = util::parse_duration(text);
        if (!d) return d.error().message;
        const double s = util::seconds(*d);
        if (s < lo || s > hi)
          return fmt::format("{} is outside {} to {}", text,
                             util::format_duration(std::chrono::milliseconds(std::llround(lo * 1000))),
                             util::format_duration(std::chrono::milliseconds(std::llround(hi * 1000))));
        text = fmt::format("{}", s);  // the option holds seconds
        return {};
      },
      fmt::format("DURATION in [{}, {}]", util::format_duration(std::chrono::milliseconds(std::llround(lo * 1000))),
                  util::format_duration(std::chrono::milliseconds(std::llround(hi * 1000)))));
}

CLI::Validator whole_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const bool digits = !text.empty() &&
                            text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos &&
                            text != "-";
        if (!digits) return fmt::format("'{}' is not a whole number", text);
        errno = 0;
        const long long v = std::strtoll(text.c_str(), nullptr, 10);
        if (errno == ERANGE || v < lo || v > hi) return fmt::format("{} is outside {} to {}", text, lo, hi);
        return {};
      },
      fmt::format("INT in [{}, {}]", lo, hi));
}

CLI::Validator size_in(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        auto v = core::parse_size(text);
        if (!v) return v.error().message;
        if (*v < lo || *v > hi)
          return fmt::format("{} is outside {} to {}", text, core::format_bytes(lo), core::format_bytes(hi));
        return {};
      },
      "SIZE");
}

CLI::Validator root_folder() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::error_code ec;
        if (!std::filesystem::is_directory(text, ec))
          return fmt::format("{}: not a folder; pass the folder that stands for / (with sys/ and proc/ beneath)", text);
        return {};
      },
      "DIR");
}

Result<std::map<std::string, std::string>> parse_key_values(const std::string& text, const std::string& flag) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return Error{fmt::format("{} {}: '{}' is not KEY=VALUE", flag, text, item)};
    if (!out.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
      return Error{fmt::format("{} {}: '{}' is given twice", flag, text, item.substr(0, eq))};
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

Status check_outputs(const std::vector<OutputFile>& outputs) {
  for (const auto& o : outputs) {
    if (o.path.empty()) continue;
    if (Status s = util::check_writable(o.path); !s)
      return Error{fmt::format("{} {}: {}", o.flag, o.path, s.message())};
  }
  return {};
}

bool write_output(const std::string& command, const OutputFile& output, const std::string& content) {
  if (output.path.empty()) return true;
  if (Status s = util::write_file(output.path, content); !s) {
    print_error(command, fmt::format("{} {}: {}", output.flag, output.path, s.message()));
    return false;
  }
  return true;
}

void print_error(const std::string& command, const std::string& message) {
  fmt::print(stderr, "dcukit {}: {}\n", command, util::terminal_safe(message));
}

void print_text(std::string_view text) {
  fmt::print("{}", util::terminal_safe(text));
}

ExitCode fail(const std::string& command, ExitCode code, const std::string& message) {
  print_error(command, message);
  return code;
}

}  // namespace dcukit::cli
