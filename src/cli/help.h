#pragma once
// --help that fits 80 columns (or a narrower terminal): CLI11's layout, each description wrapped
// in its column and every other long line (usage, a command's description) at its words.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace dcukit::cli {

class HelpFormatter : public CLI::Formatter {
public:
  /// `width` 0: 80 columns, or the terminal's when it is narrower (COLUMNS counts).
  explicit HelpFormatter(std::size_t width = 0);
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;

private:
  std::size_t m_width;
};

/// `text` (CLI11's help) with each line wider than `width` wrapped; an option's or a command's
/// description wraps under its column (`column`), other lines under their own indent.
std::string wrap_help(const std::string& text, std::size_t width, std::size_t column);

}  // namespace dcukit::cli
