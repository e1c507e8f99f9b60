#pragma once
// A command's options as one table (guard's, patrol's, the exporter's): each entry has a name
// (the flag --NAME and the options-file key NAME), what its value is, a help line, and how it is
// parsed into the options struct and shown back. The CLI declares its flags from the table
// (cli/settings.h), an options file is read through it, and a reload compares through it, so
// that a name, its help and its parsing live in one place. The setters below serve the usual
// kinds of value; a table may add its own.
#include <charconv>
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/duration.h"
#include "util/result.h"

namespace dcukit::util {

/// name=value pairs, in the order given.
using Pairs = std::vector<std::pair<std::string, std::string>>;

/// One option of a table over the options struct O.
template <class O>
struct Setting {
  std::string_view name;  ///< "probe-timeout": the flag --probe-timeout and the file key
  std::string_view kind;  ///< what the value is: "DURATION", "N", "PATH", "URL", "" for a flag
  std::string_view help;
  Status (*apply)(O&, std::string_view value);  ///< parses and sets; the error names the value
  std::string (*show)(const O&);                ///< the current value, as the file would write it
  int tag = 0;              ///< the owner's own mark (guard: when a reload applies the setting)
  bool repeatable = false;  ///< each occurrence adds one more (a list: --limit, --header)
};

/// The entry named `name`, or null.
template <class O>
const Setting<O>* find_setting(const std::vector<Setting<O>>& table, std::string_view name) {
  for (const auto& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

/// Reads an options file: a JSON object ({"probe-timeout": "5s", "failures": 3}; an array value
/// gives a repeatable key several values) or lines of NAME=VALUE (a leading -- is allowed) with
/// # comments. `known` says which keys the command has; the error names the file, the line and
/// the key, and `command` ("guard") for its help.
Result<Pairs> read_options_file(const std::string& path, const std::vector<std::string_view>& known,
                                std::string_view command);

/// The names of `table`, for read_options_file.
template <class O>
std::vector<std::string_view> setting_names(const std::vector<Setting<O>>& table) {
  std::vector<std::string_view> out;
  for (const auto& s : table) out.push_back(s.name);
  return out;
}

/// Sets `name` to `value`; the error names the flag and the value ("--drain '5x': ...").
template <class O>
Status apply_setting(const std::vector<Setting<O>>& table, O& options, std::string_view name, std::string_view value,
                     std::string_view command) {
  const Setting<O>* s = find_setting(table, name);
  if (!s) return Error{"'" + std::string(name) + "' is not a " + std::string(command) + " option (see dcukit " +
                       std::string(command) + " --help)"};
  if (auto st = s->apply(options, value); !st)
    return Error{"--" + std::string(name) + " '" + std::string(value) + "': " + st.message()};
  return {};
}

/// `options` with the options file's settings (when `config_file` is set), then `overrides`
/// (the command line's) applied in order. An error names the file or the flag at fault.
template <class O>
Result<O> apply_settings(const std::vector<Setting<O>>& table, O options, const std::string& config_file,
                         const Pairs& overrides, std::string_view command) {
  if (!config_file.empty()) {
    auto pairs = read_options_file(config_file, setting_names(table), command);
    if (!pairs) return pairs.error();
    for (const auto& [k, v] : *pairs)
      if (auto st = apply_setting(table, options, k, v, command); !st) return Error{config_file + ": " + st.message()};
  }
  for (const auto& [k, v] : overrides)
    if (auto st = apply_setting(table, options, k, v, command); !st) return st.error();
  return options;
}

// Setters and shows for the usual kinds of value, over a member pointer of the options struct.

template <class T>
struct member_of;
template <class C, class M>
struct member_of<M C::*> {
  using owner = C;
};
template <auto Field>
using owner_of = typename member_of<decltype(Field)>::owner;

/// A whole number from `lo` to `hi`; the error says which rule the text broke.
Result<long long> parse_whole(std::string_view v, long long lo, long long hi);
/// true/false, yes/no, on/off, 1/0; an empty value (a bare key in a file) is true.
Result<bool> parse_switch(std::string_view v);

/// A duration (5, 5s, 500ms, 2m) of at least MinMs milliseconds.
template <auto Field, long long MinMs>
Status set_duration(owner_of<Field>& o, std::string_view v) {
  auto d = parse_duration(v);
  if (!d) return Error{d.error().message};
  if (d->count() < MinMs)
    return Error{"'" + std::string(v) + "' is shorter than " + format_duration(std::chrono::milliseconds(MinMs))};
  o.*Field = *d;
  return {};
}
template <auto Field>
std::string show_duration(const owner_of<Field>& o) {
  return format_duration(o.*Field);
}

/// A whole number from Lo to Hi into an int field.
template <auto Field, long long Lo, long long Hi>
Status set_int(owner_of<Field>& o, std::string_view v) {
  auto n = parse_whole(v, Lo, Hi);
  if (!n) return n.error();
  o.*Field = static_cast<std::remove_reference_t<decltype(o.*Field)>>(*n);
  return {};
}
template <auto Field>
std::string show_int(const owner_of<Field>& o) {
  return std::to_string(o.*Field);
}

/// Text as given.
template <auto Field>
Status set_text(owner_of<Field>& o, std::string_view v) {
  o.*Field = std::string(v);
  return {};
}
template <auto Field>
std::string show_text(const owner_of<Field>& o) {
  return o.*Field;
}

/// A switch (a flag on the command line).
template <auto Field>
Status set_switch(owner_of<Field>& o, std::string_view v) {
  auto b = parse_switch(v);
  if (!b) return b.error();
  o.*Field = *b;
  return {};
}
template <auto Field>
std::string show_switch(const owner_of<Field>& o) {
  return o.*Field ? "true" : "false";
}

/// One more item of a list field (a repeatable setting).
template <auto Field>
Status add_text(owner_of<Field>& o, std::string_view v) {
  (o.*Field).emplace_back(v);
  return {};
}
template <auto Field>
std::string show_list(const owner_of<Field>& o) {
  std::string out;
  for (const auto& item : o.*Field) out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

}  // namespace dcukit::util
