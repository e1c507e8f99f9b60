#include "doctor/compat.h"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "doctor/text.h"
#include "util/json_text.h"

namespace dcukit::generated {
extern const std::string_view kDcuCompatJson;
extern const std::string_view kCudaCompatJson;
}  // namespace dcukit::generated

namespace dcukit::doctor {
namespace {

using nlohmann::json;

Result<std::string> field(const json& row, const char* key, const char* table, std::size_t i) {
  if (!row.is_object() || !row.contains(key) || !row[key].is_string())
    return Error{fmt::format("{}: row {} has no string \"{}\"", table, i, key)};
  return row[key].get<std::string>();
}

std::vector<std::string> strings(const json& row, const char* key) {
  std::vector<std::string> out;
  if (row.contains(key) && row[key].is_array())
    for (const auto& v : row[key])
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

Result<std::vector<CudaPair>> cuda_rows(const json& j, const char* key) {
  std::vector<CudaPair> out;
  if (!j.contains(key) || !j[key].is_array()) return Error{fmt::format("cuda_compat.json: no \"{}\" list", key)};
  for (std::size_t i = 0; i < j[key].size(); ++i) {
    auto cuda = field(j[key][i], "cuda", "cuda_compat.json", i);
    auto driver = field(j[key][i], "min_driver", "cuda_compat.json", i);
    if (!cuda) return cuda.error();
    if (!driver) return driver.error();
    out.push_back({*cuda, *driver});
  }
  return out;
}

}  // namespace

std::vector<int> version_numbers(std::string_view v) {
  std::vector<int> out;
  std::size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    long n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && n < 1000000) n = n * 10 + (v[i++] - '0');
    out.push_back(static_cast<int>(n));
    if (i + 1 < v.size() && v[i] == '.' && std::isdigit(static_cast<unsigned char>(v[i + 1])))
      ++i;
    else
      break;
  }
  return out;
}

std::string major_minor(std::string_view v) {
  const auto n = version_numbers(v);
  return n.size() >= 2 ? fmt::format("{}.{}", n[0], n[1]) : std::string(v);
}

int compare_versions(std::string_view a, std::string_view b) {
  const auto x = version_numbers(a), y = version_numbers(b);
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const int p = i < x.size() ? x[i] : 0, q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

bool version_has_prefix(std::string_view v, std::string_view prefix) {
  const auto x = version_numbers(v), p = version_numbers(prefix);
  if (p.empty() || x.size() < p.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (x[i] != p[i]) return false;
  return true;
}

std::string dtk_of_tag(std::string_view tag) {
  const std::string t = lower(tag);
  const auto at = t.find("dtk");
  if (at == std::string::npos) return {};
  std::string digits;
  for (std::size_t i = at + 3; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) digits += t[i];
  if (digits.size() < 4) return {};
  std::string v = digits.substr(0, 2) + "." + digits.substr(2, 2);
  if (digits.size() > 4) v += "." + digits.substr(4);
  return v;
}

std::string torch_of_tag(std::string_view tag) {
  const std::string t = lower(tag);
  const auto at = t.find("torch");
  if (at == std::string::npos) return {};
  std::string digits;
  for (std::size_t i = at + 5; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) digits += t[i];
  if (digits.size() < 2) return {};
  // "torch290" -> 2.9.0, "torch2100" -> 2.10.0: the first digit is the major, the last the patch.
  return fmt::format("{}.{}.{}", digits.substr(0, 1), digits.substr(1, digits.size() - 2), digits.back());
}

Result<CompatData> parse_compat(std::string_view dcu_json, std::string_view cuda_json) {
  CompatData data;
  const json d = util::parse_json(dcu_json);
  if (d.is_discarded() || !d.is_object() || !d.contains("pairs") || !d["pairs"].is_array())
    return Error{"dcu_compat.json: not an object with a \"pairs\" list"};
  data.dcu_source = d.value("source", "");
  for (std::size_t i = 0; i < d["pairs"].size(); ++i) {
    const auto& row = d["pairs"][i];
    DcuPair p;
    for (auto [key, out] :
         {std::pair{"card", &p.card}, {"dtk", &p.dtk}, {"min_driver", &p.min_driver}, {"source", &p.source}}) {
      auto v = field(row, key, "dcu_compat.json", i);
      if (!v) return v.error();
      *out = *v;
    }
    if (version_numbers(p.dtk).empty() || version_numbers(p.min_driver).empty())
      return Error{
          fmt::format("dcu_compat.json: row {} ({}) has a dtk or min_driver that is not a version", i, p.card)};
    p.isa = strings(row, "isa");
    p.names = strings(row, "names");
    data.dcu.push_back(std::move(p));
  }
  const json c = util::parse_json(cuda_json);
  if (c.is_discarded() || !c.is_object()) return Error{"cuda_compat.json: not a JSON object"};
  data.cuda_source = c.value("source", "");
  auto pairs = cuda_rows(c, "pairs");
  if (!pairs) return pairs.error();
  auto minor = cuda_rows(c, "minor_version_compat");
  if (!minor) return minor.error();
  data.cuda = std::move(*pairs);
  data.cuda_minor_compat = std::move(*minor);
  return data;
}

const CompatData& compat_data() {
  static const CompatData data = [] {
    auto parsed = parse_compat(generated::kDcuCompatJson, generated::kCudaCompatJson);
    return parsed ? *parsed : CompatData{};  // the tests parse the built-in tables
  }();
  return data;
}

const DcuPair* dcu_rule(const CompatData& data, std::string_view dtk, std::string_view isa, std::string_view name) {
  const DcuPair* best = nullptr;
  for (const auto& p : data.dcu) {
    bool card = false;
    for (const auto& i : p.isa) card = card || (!isa.empty() && starts_with(isa, i));
    if (p.isa.empty() || isa.empty())
      for (const auto& n : p.names) card = card || contains(lower(name), lower(n));
    if (!card || compare_versions(p.dtk, dtk) > 0) continue;
    if (!best || compare_versions(p.dtk, best->dtk) > 0) best = &p;
  }
  return best;
}

std::string cuda_of_driver(const CompatData& data, std::string_view driver) {
  std::string best;
  for (const auto& p : data.cuda)
    if (compare_versions(driver, p.min_driver) >= 0 && (best.empty() || compare_versions(p.cuda, best) > 0))
      best = p.cuda;
  return best;
}

const CudaPair* cuda_rule(const CompatData& data, std::string_view cuda) {
  for (const auto& p : data.cuda)
    if (version_has_prefix(cuda, p.cuda)) return &p;
  return nullptr;
}

}  // namespace dcukit::doctor
