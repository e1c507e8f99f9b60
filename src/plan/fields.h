#pragma once
// Checked reads of JSON fields for the files plan takes from a model directory (config.json,
// safetensors headers, the index): a wrong type or a number out of range becomes an error that
// names the file and the key, never an exception, a wrap-around or an allocation without bound.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::plan {

/// Reads fields of one file's JSON objects and keeps the first problem found.
class FieldReader {
public:
  /// `origin` names the file in errors ("/models/x/config.json").
  explicit FieldReader(std::string origin) : m_origin(std::move(origin)) {}

  /// An integer in [lo, hi]; `fallback` when absent or null. A float without a fraction counts
  /// (1e3 is 1000). `where` prefixes the key in errors ("rope_scaling.").
  std::int64_t integer(const nlohmann::json& object, std::string_view key, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi, std::string_view where = {});
  /// A finite number in [lo, hi]; `fallback` when absent or null.
  double number(const nlohmann::json& object, std::string_view key, double fallback, double lo, double hi,
                std::string_view where = {});
  /// A string; empty when absent, null or of another type (names are informative only).
  std::string text(const nlohmann::json& object, std::string_view key) const;
  /// A boolean; `fallback` when absent or of another type.
  bool boolean(const nlohmann::json& object, std::string_view key, bool fallback) const;

  /// Records a problem (the first one is kept), prefixed with the origin.
  void fail(const std::string& message);
  /// True while nothing has failed.
  bool ok() const { return m_error.empty(); }
  /// Success, or the first problem.
  Status status() const;
  const std::string& origin() const { return m_origin; }

private:
  std::string m_origin;
  std::string m_error;
};

/// A JSON value shortened for a message; never throws, whatever the value holds.
std::string show(const nlohmann::json& value);

}  // namespace dcukit::plan
