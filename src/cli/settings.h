#pragma once
// The flags of a settings table (util/settings.h): one option a setting (--NAME, its kind, its
// help with the default), a flag where it takes no value, a repeatable option where it is a
// list, and --config FILE for an options file of the same names. What the user gave goes back to
// the engine as name=value pairs, in the table's order, so that the file's values come first and
// the command line's override them.
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "util/settings.h"

namespace dcukit::cli {

/// What the flags of one table hold after parsing.
struct SettingFlags {
  std::string config;  ///< --config FILE
  std::map<std::string, std::string> values;
  std::map<std::string, std::vector<std::string>> lists;  ///< repeatable settings
  std::map<std::string, bool> flags;
  std::map<std::string, CLI::Option*> given;
};

/// Declares `table`'s flags on `sub` (each help ends with the default `defaults` shows) and
/// --config FILE, described by `config_help`.
template <class O>
void add_settings(CLI::App* sub, const std::vector<util::Setting<O>>& table, SettingFlags& f, const O& defaults,
                  const std::string& config_help) {
  sub->add_option("--config", f.config, config_help)->check(CLI::ExistingFile);
  for (const auto& s : table) {
    const std::string name(s.name);
    const std::string shown = s.show(defaults);
    const std::string help = std::string(s.help) + (shown.empty() ? "" : " (default " + shown + ")");
    if (s.kind.empty()) {
      f.given[name] = sub->add_flag("--" + name, f.flags[name], help);
    } else if (s.repeatable) {
      f.given[name] = sub->add_option("--" + name, f.lists[name], help)->type_name(std::string(s.kind))->allow_extra_args(false);
    } else {
      // The last of a repeated option wins, so that a wrapper can append to a base command line.
      f.given[name] = sub->add_option("--" + name, f.values[name], help)
                          ->type_name(std::string(s.kind))
                          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
}

/// The settings the command line gave, in the table's order (a repeatable one once a value).
template <class O>
util::Pairs given_settings(const std::vector<util::Setting<O>>& table, SettingFlags& f) {
  util::Pairs out;
  for (const auto& s : table) {
    const std::string name(s.name);
    if (f.given.at(name)->count() == 0) continue;
    if (s.kind.empty())
      out.emplace_back(name, f.flags[name] ? "true" : "false");
    else if (s.repeatable)
      for (const auto& v : f.lists[name]) out.emplace_back(name, v);
    else
      out.emplace_back(name, f.values[name]);
  }
  return out;
}

}  // namespace dcukit::cli
