// translate(): the inputs, where each output goes, the audit for the annotations, the writes.
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "core/run_info.h"
#include "port/audit.h"
#include "port/translate.h"
#include "util/files.h"

namespace dcukit::port {
namespace {

namespace fs = std::filesystem;

/// The deepest folder holding every file.
fs::path common_folder(const std::vector<std::string>& files) {
  fs::path common;
  for (const auto& f : files) {
    const fs::path dir = fs::absolute(f).lexically_normal().parent_path();
    if (common.empty()) {
      common = dir;
      continue;
    }
    fs::path shared;
    for (auto a = common.begin(), b = dir.begin(); a != common.end() && b != dir.end() && *a == *b; ++a, ++b)
      shared /= *a;
    common = shared;
  }
  return common;
}

Result<std::vector<std::string>> outputs_for(const TranslateRequest& o, const std::vector<std::string>& files) {
  if (o.output.empty() == o.out_dir.empty()) return Error{"pass exactly one of -o FILE and --out-dir DIR"};
  if (!o.output.empty()) {
    if (files.size() != 1 || fs::is_directory(o.inputs.front()))
      return Error{fmt::format("-o {} takes one input file, and {} were given; use --out-dir for several", o.output,
                               files.size())};
    return std::vector<std::string>{o.output};
  }
  const fs::path base = common_folder(files);
  std::vector<std::string> out;
  for (const auto& f : files)
    out.push_back((fs::path(o.out_dir) / fs::absolute(f).lexically_normal().lexically_relative(base)).string());
  return out;
}

}  // namespace

Result<TranslateReport> run(const TranslateRequest& o) {
  auto ignored = parse_rule_names(o.ignore);
  if (!ignored) return Error{"--ignore " + ignored.error().message + "; `dcukit port audit --rules` lists the rules"};
  if (o.inputs.empty()) return Error{"pass one or more CUDA sources or folders to translate"};
  auto files = expand_paths(o.inputs);
  if (!files) return files.error();
  auto outputs = outputs_for(o, *files);
  if (!outputs) return outputs.error();
  for (std::size_t i = 0; i < files->size(); ++i) {
    std::error_code ec;
    if (fs::equivalent((*files)[i], (*outputs)[i], ec))
      return Error{
          fmt::format("{}: the output would overwrite the input; choose another -o or --out-dir", (*outputs)[i])};
  }
  auto project = load_project(*files, hip_switches_with(o.hip_switches));
  if (!project) return project.error();
  const AuditReport audit = audit_project(*project, *ignored);
  std::map<std::string, std::vector<Finding>> by_file;
  for (const Finding& f : audit.findings) by_file[f.file].push_back(f);

  TranslateReport report;
  report.run_info = core::collect_run_info("dcukit port translate", o.command);
  for (std::size_t i = 0; i < project->files.size(); ++i) {
    TranslatedFile t;
    t.input = (*files)[i];
    t.output = (*outputs)[i];
    const std::string text = translate_source(*project, i, hip_map(), by_file[t.input], o.annotate, t);
    std::error_code ec;
    const fs::path parent = fs::path(t.output).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec) return Error{fmt::format("{}: cannot create the folder: {}", parent.string(), ec.message())};
    if (auto st = util::write_file(t.output, text); !st) return st.error();
    report.files.push_back(std::move(t));
  }
  return report;
}

}  // namespace dcukit::port
