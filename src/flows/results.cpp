#include "flows/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "util/files.h"
#include "util/json_text.h"
#include "util/names.h"

namespace dcukit::flows {
namespace {

/// The tool each kind writes in run_info, which is also how a file names its kind.
constexpr util::Name<ResultKind> kTools[] = {
    {ResultKind::bench, "dcukit bench"},
    {ResultKind::plan, "dcukit plan"},
    {ResultKind::load, "dcukit load"},
    {ResultKind::doctor, "dcukit doctor"},
    {ResultKind::port_audit, "dcukit port audit"},
    {ResultKind::port_translate, "dcukit port translate"},
    {ResultKind::telemetry, "dcukit telemetry"},
    {ResultKind::patrol, "dcukit patrol"},
    {ResultKind::guard, "dcukit guard"},
    {ResultKind::exporter, "dcukit exporter"},
    {ResultKind::stress, "dcukit stress"},
};

/// The capability's reader for `kind`.
Result<AnyReport> read_as(ResultKind kind, std::string_view text) {
  const auto wrap = [](auto read) -> Result<AnyReport> {
    if (!read) return read.error();
    return AnyReport(std::move(*read));
  };
  switch (kind) {
    case ResultKind::bench:
      return wrap(bench::from_json(text));
    case ResultKind::plan:
      return wrap(plan::from_json(text));
    case ResultKind::load:
      return wrap(load::from_json(text));
    case ResultKind::doctor:
      return wrap(doctor::from_json(text));
    case ResultKind::port_audit:
      return wrap(port::audit_from_json(text));
    case ResultKind::port_translate:
      return wrap(port::translate_from_json(text));
    case ResultKind::telemetry:
      return wrap(telemetry::from_json(text));
    case ResultKind::patrol:
      return wrap(patrol::from_json(text));
    case ResultKind::guard:
      return wrap(guard::from_json(text));
    case ResultKind::exporter:
      return wrap(exporter::from_json(text));
    case ResultKind::stress:
      return wrap(stress::from_json(text));
  }
  return Error{"unknown kind"};
}

}  // namespace

std::string_view to_string(ResultKind kind) {
  return util::name_of(kTools, kind).substr(7);  // after "dcukit "
}

Result<ResultFile> parse_result(std::string_view text, const std::string& origin) {
  nlohmann::json j = util::parse_json(text);
  if (j.is_discarded()) {  // a JSON Lines file (telemetry or patrol --watch) holds a reading a line: the first
    const auto start = text.find_first_not_of(" \t\r\n");
    const auto end = start == std::string_view::npos ? start : text.find('\n', start);
    if (end != std::string_view::npos) {
      j = util::parse_json(text.substr(start, end - start));
      if (!j.is_discarded()) text = text.substr(start, end - start);
    }
  }
  if (j.is_discarded() || !j.is_object())
    return Error{fmt::format("{}: not JSON (a dcukit result file is a command's --json output)", origin)};
  if (!j.contains("run_info") || !j["run_info"].is_object())
    return Error{fmt::format("{}: no run_info: not a dcukit result file (each --json output starts with run_info)",
                             origin)};
  ResultFile out;
  out.path = origin;
  out.run_info = core::run_info_from_json(j["run_info"]);
  const auto kind = util::value_of(kTools, out.run_info.tool);
  if (!kind)
    return Error{fmt::format("{}: written by '{}', whose results dcukit does not read back", origin,
                             out.run_info.tool)};
  out.kind = *kind;
  auto report = read_as(*kind, text);
  if (!report) return Error{fmt::format("{}: {}", origin, report.error().message)};
  out.report = std::move(*report);
  out.document = std::move(j);
  return out;
}

Result<ResultFile> read_result(const std::string& path) {
  auto text = util::read_file(path, util::kReportInput);
  if (!text) return text.error();
  return parse_result(*text, path);
}

Result<std::vector<ResultFile>> read_results(const std::string& dir, std::vector<std::string>* skipped) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error{fmt::format("{}: not a folder", dir)};
  std::vector<std::string> paths;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json") paths.push_back(it->path().string());
  if (ec) return Error{fmt::format("{}: cannot be listed: {}", dir, ec.message())};
  std::sort(paths.begin(), paths.end());
  std::vector<ResultFile> out;
  for (const auto& p : paths) {
    auto r = read_result(p);
    if (!r && skipped) {
      skipped->push_back("left out " + r.error().message);
      continue;
    }
    if (!r) return r.error();
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace dcukit::flows
