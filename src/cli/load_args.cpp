#include "cli/load_args.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/common.h"
#include "core/run_info.h"
#include "load/validate.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/redact.h"

namespace dcukit::cli {
namespace {

Result<load::Slo> parse_slo(const std::string& text) {
  auto kv = parse_key_values(text, "--slo");
  if (!kv) return kv.error();
  load::Slo slo;
  for (const auto& [key, value] : *kv) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 1e9)
      return Error{fmt::format("--slo {}: '{}' needs a positive number of ms, e.g. --slo ttft=500,tpot=50", text, key)};
    if (key == "ttft")
      slo.ttft_ms = v;
    else if (key == "tpot")
      slo.tpot_ms = v;
    else if (key == "e2e" || key == "e2el")
      slo.e2e_ms = v;
    else
      return Error{fmt::format("--slo {}: unknown '{}'; the keys are ttft, tpot and e2e", text, key)};
  }
  return slo;
}

}  // namespace

Result<load::Request> to_request(const LoadArgs& a) {
  load::Request q = a.request;
  if (const char* key = std::getenv(a.api_key_env.c_str()); key && *key) {
    if (std::string_view(key).find_first_of("\r\n") != std::string_view::npos)
      return Error{
          fmt::format("the API key in ${} holds a line break (it would add headers to every request); "
                      "remove it",
                      a.api_key_env)};
    q.api_key = key;
  }
  if (!q.tls.ca_file.empty()) {
    auto pem = util::read_file(q.tls.ca_file, util::kCertificateInput);
    if (!pem) return Error{fmt::format("--cacert: {}", pem.error().message)};
    if (pem->find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return Error{fmt::format("--cacert {}: holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's "
                               "certificate in PEM form",
                               q.tls.ca_file)};
  }
  q.timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(a.timeout_s * 1000)));
  q.body.stream = !a.no_stream;
  q.body.include_usage = !a.no_usage;
  q.body.ignore_eos = !a.no_ignore_eos;
  if (!a.extra_body.empty()) {
    auto j = util::parse_json(a.extra_body);
    if (j.is_discarded() || !j.is_object()) return Error{"--extra-body must be a JSON object, e.g. '{\"top_k\": 1}'"};
    q.body.extra_body = std::move(j);
  }
  auto& w = q.workload;
  w.kind = *load::parse_dataset(a.dataset == "custom" ? "jsonl" : a.dataset);  // CLI11 checked the name
  w.output_len = a.output_len >= 0 ? a.output_len : (w.kind == load::DatasetKind::random ? 128 : 0);
  w.seed = q.seed;
  q.prompts = a.prompt_mode == "ids"    ? load::PromptMode::ids
              : a.prompt_mode == "text" ? load::PromptMode::text
                                        : load::PromptMode::automatic;
  q.trial = !a.no_trial;
  // vLLM's --goodput ttft:500 tpot:50 e2el:10000 is --slo ttft=500,tpot=50,e2e=10000.
  std::string slo_text = a.slo;
  for (const auto& item : a.goodput) {
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      return Error{fmt::format("--goodput {}: write KEY:VALUE in ms, e.g. --goodput ttft:500 tpot:50", item)};
    slo_text += (slo_text.empty() ? "" : ",") + item.substr(0, colon) + "=" + item.substr(colon + 1);
  }
  if (!slo_text.empty()) {
    auto s = parse_slo(slo_text);
    if (!s) return s.error();
    q.slo = *s;
  }
  for (const auto& item : a.metadata) {
    auto kv = parse_key_values(item, "--metadata");
    if (!kv) return kv.error();
    for (const auto& [k, v] : *kv) q.metadata.emplace_back(k, v);
  }
  if (!a.result_filename.empty() && !a.save_result)
    return Error{"--result-filename names --save-result's file: add --save-result"};
  if (!a.result_dir.empty() && !a.save_result) return Error{"--result-dir is where --save-result writes: add --save-result"};
  const std::size_t levels = std::max<std::size_t>({q.concurrencies.size(), q.rates.size(), 1});
  if (!a.result_filename.empty() && levels > 1)
    return Error{fmt::format("--result-filename names one file, and this run has {} levels; leave it out (each level "
                             "gets vLLM's name) or run one level",
                             levels)};
  if (Status st = load::validate(q); !st) return st.error();
  q.run_info = core::collect_run_info("dcukit load", util::redact(command_line()));
  return q;
}

}  // namespace dcukit::cli
