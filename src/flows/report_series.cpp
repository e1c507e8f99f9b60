// Time series for `dcukit report`: the CSV that `dcukit telemetry --watch --csv` and
// `dcukit stress --csv` write (one row a device a reading), read back as stress::Samples, and the
// clock, power and temperature charts of any series with its throttle events marked.
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "flows/report.h"
#include "util/files.h"

namespace dcukit::flows {
namespace {

/// One CSV record (RFC 4180 quoting, as core::render_csv writes it).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        out.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.emplace_back();
    } else if (ch != '\r') {
      out.back() += ch;
    }
  }
  return out;
}

/// Seconds since the epoch of "2026-07-14T08:12:38.696Z"; nullopt for other text.
std::optional<double> iso_seconds(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &s) != 6) return std::nullopt;
  // days from 1970-01-01 (Howard Hinnant's days_from_civil)
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = era * 146097.0 + doe - 719468.0;
  return days * 86400 + h * 3600 + mi * 60 + s;
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

Result<std::vector<stress::Sample>> read_series_csv(const std::string& path) {
  auto text = util::read_file(path, util::kReportInput);
  if (!text) return text.error();
  std::istringstream in(*text);
  std::string line;
  if (!std::getline(in, line)) return Error{fmt::format("{}: empty", path)};
  const auto header = csv_fields(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  const bool stress_csv = col.count("t_s") && col.count("device");
  const bool telemetry_csv = col.count("timestamp") && col.count("index");
  if (!stress_csv && !telemetry_csv)
    return Error{fmt::format("{}: not a dcukit telemetry or stress CSV (its header needs t_s and device, or timestamp "
                             "and index: the --csv output of `dcukit telemetry --watch` or `dcukit stress`)",
                             path)};
  std::vector<stress::Sample> out;
  std::optional<double> start;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const auto f = csv_fields(line);
    const auto at = [&](const char* name) -> std::string {
      const auto it = col.find(name);
      return it != col.end() && it->second < f.size() ? f[it->second] : std::string();
    };
    stress::Sample s;
    std::optional<double> t = stress_csv ? number(at("t_s")) : iso_seconds(at("timestamp"));
    const auto dev = number(at(stress_csv ? "device" : "index"));
    if (!t || !dev)
      return Error{fmt::format("{}:{}: no time or device in this row: the file is cut or not dcukit's", path, line_no)};
    if (!stress_csv) {
      if (!start) start = *t;
      *t -= *start;
    }
    s.t_s = *t;
    s.device = static_cast<int>(*dev);
    s.phase = at("phase");
    visit_figures(s, [&](const char* name, auto& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      const std::string cell = at(name);
      if constexpr (std::is_same_v<T, std::string>) {
        if (!cell.empty()) v = cell;
      } else if (const auto n = number(cell)) {
        v = static_cast<T>(*n);
      }
    });
    out.push_back(std::move(s));
  }
  if (out.empty()) return Error{fmt::format("{}: a header and no reading", path)};
  return out;
}

std::vector<Chart> sample_charts(const std::vector<stress::Sample>& samples) {
  std::vector<Chart> out;
  std::set<int> devices;
  for (const auto& s : samples) devices.insert(s.device);
  using Get = std::function<std::optional<double>(const stress::Sample&)>;
  const auto as_d = [](const std::optional<std::int64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  struct Figure {
    const char* title;
    const char* unit;
    Get get, ref;
    const char* ref_name;
  };
  const Figure figures[] = {
      {"clock", "MHz", [&](const stress::Sample& s) { return as_d(s.sclk_mhz); },
       [&](const stress::Sample& s) { return as_d(s.sclk_max_mhz); }, "max"},
      {"power", "W", [](const stress::Sample& s) { return s.power_w; }, [](const stress::Sample& s) { return s.power_cap_w; },
       "cap"},
      {"temperature", "C", [](const stress::Sample& s) { return s.temperature_c; }, nullptr, ""},
  };
  for (int dev : devices)
    for (const auto& f : figures) {
      Chart c;
      c.kind = ChartKind::lines;
      c.title = fmt::format("Device {} {} (throttle events marked)", dev, f.title);
      c.x_label = "seconds";
      c.y_label = f.unit;
      c.marks_label = "throttled";
      Series s{f.title, {}, {}, {}};
      std::optional<double> ref;
      bool was = false;
      for (const auto& sample : samples) {
        if (sample.device != dev) continue;
        if (const auto v = f.get(sample)) s.xy.emplace_back(sample.t_s, *v);
        if (f.ref)
          if (const auto v = f.ref(sample)) ref = *v;
        const bool now = sample.throttle_reasons && !sample.throttle_reasons->empty();
        if (now && !was) c.marks.push_back(sample.t_s);
        was = now;
      }
      if (s.xy.empty()) continue;
      c.series.push_back(std::move(s));
      if (ref) c.lines.push_back({f.ref_name, *ref});
      out.push_back(std::move(c));
    }
  return out;
}

}  // namespace dcukit::flows
