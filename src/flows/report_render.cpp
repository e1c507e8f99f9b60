// `dcukit report`'s renderers: one self-contained HTML file and Markdown with the same tables.
#include <fmt/format.h>

#include <sstream>

#include "flows/report.h"

namespace dcukit::flows {
namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 40px;color:#222}
h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:36px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0 4px;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td.l,th.l{text-align:left}p.note,li.note{color:#555;font-size:12.5px;margin:2px 0}
.meta{color:#555;font-size:12.5px}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f6f6f6;padding:8px;overflow-x:auto}figure{margin:12px 0}svg.chart{max-width:100%;height:auto;background:#fff}
svg .ct{font-size:14px;font-weight:600}svg .ya{font-size:11px;text-anchor:end}svg .xa{font-size:10px;text-anchor:end}
svg .xt{font-size:11px;text-anchor:middle}svg .xl,svg .yl{font-size:12px;text-anchor:middle}svg .lg{font-size:11px}
svg .grid{stroke:#e5e5e5}svg .ref{stroke:#d62728;stroke-dasharray:5 4}svg .rl{font-size:11px;fill:#d62728;text-anchor:end}
svg .exp{stroke:#1a7f1a;stroke-width:2.5}svg .flo{stroke:#1a7f1a;stroke-width:1.5;stroke-dasharray:3 2}svg .mark{stroke:#ff7f0e;stroke-opacity:.6}svg rect.low{stroke:#d62728;stroke-width:2}
svg rect.high{stroke:#9467bd;stroke-width:2}svg .hv{font-size:11px;text-anchor:middle}.low{color:#b00;font-weight:600}
details{margin:10px 0}summary{cursor:pointer;color:#333}
)";

std::string table_html(const core::Table& t) {
  std::string out;
  if (!t.title.empty()) out += "<h3>" + html_escape(t.title) + "</h3>\n";
  out += "<table><thead><tr>";
  for (const auto& c : t.columns)
    out += fmt::format("<th{}>{}</th>", c.align == core::Align::left ? " class=\"l\"" : "", html_escape(c.header));
  out += "</tr></thead><tbody>\n";
  for (const auto& r : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i) {
      const bool left = i < t.columns.size() && t.columns[i].align == core::Align::left;
      const bool low = r[i] == "LOW" || r[i].ends_with(" LOW") || r[i].starts_with("LOW ");
      std::string cls = std::string(left ? "l" : "") + (low ? (left ? " low" : "low") : "");
      out += fmt::format("<td{}>{}</td>", cls.empty() ? "" : " class=\"" + cls + "\"", html_escape(r[i]));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  for (const auto& n : t.notes) out += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  return out;
}

std::string meta_line(const core::RunInfo& r) {
  return fmt::format("{} · dcukit {} · {} · host {}", r.command.empty() ? r.tool : r.command, r.version,
                     r.started_at, r.host.hostname);
}

/// Inline code spans (`x`) of one escaped line.
std::string inline_md(std::string_view line) {
  std::string esc = html_escape(line), out;
  bool open = false;
  for (char ch : esc) {
    if (ch == '`') {
      out += open ? "</code>" : "<code>";
      open = !open;
    } else {
      out += ch;
    }
  }
  if (open) out += "</code>";
  return out;
}

std::vector<std::string> cells_of(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool escaped = false;
  for (std::size_t i = 1; i < line.size(); ++i) {  // after the leading '|'
    const char ch = line[i];
    if (escaped) {
      cur += ch;
      escaped = false;
    } else if (ch == '\\') {
      escaped = true;
    } else if (ch == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty() && cur.find_first_not_of(' ') != std::string::npos) out.push_back(cur);
  for (auto& c : out) {
    const auto a = c.find_first_not_of(' '), b = c.find_last_not_of(' ');
    c = a == std::string::npos ? "" : c.substr(a, b - a + 1);
  }
  return out;
}

}  // namespace

std::string markdown_to_html(std::string_view markdown) {
  std::istringstream in{std::string(markdown)};
  std::string line, out;
  bool in_list = false, in_code = false;
  std::vector<std::string> table;
  const auto flush_table = [&] {
    if (table.empty()) return;
    out += "<table>";
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (i == 1 && table[i].find("---") != std::string::npos) continue;
      const char* tag = i == 0 ? "th" : "td";
      out += "<tr>";
      for (const auto& c : cells_of(table[i])) out += fmt::format("<{0}>{1}</{0}>", tag, inline_md(c));
      out += "</tr>";
    }
    out += "</table>\n";
    table.clear();
  };
  const auto close_list = [&] {
    if (in_list) out += "</ul>\n";
    in_list = false;
  };
  while (std::getline(in, line)) {
    if (line.starts_with("```")) {
      flush_table();
      close_list();
      out += in_code ? "</pre>\n" : "<pre>";
      in_code = !in_code;
      continue;
    }
    if (in_code) {
      out += html_escape(line) + "\n";
      continue;
    }
    if (line.starts_with("|")) {
      close_list();
      table.push_back(line);
      continue;
    }
    flush_table();
    if (line.starts_with("#")) {
      close_list();
      const auto level = std::min<std::size_t>(6, std::max<std::size_t>(3, line.find_first_not_of('#') + 2));
      const auto text = line.substr(std::min(line.size(), line.find_first_not_of('#')));
      out += fmt::format("<h{0}>{1}</h{0}>\n", level, inline_md(text.substr(std::min(text.size(), text.find_first_not_of(' ')))));
    } else if (line.starts_with("- ") || line.starts_with("* ")) {
      if (!in_list) out += "<ul>\n";
      in_list = true;
      out += "<li>" + inline_md(line.substr(2)) + "</li>\n";
    } else if (line.find_first_not_of(" \t") == std::string::npos) {
      close_list();
    } else {
      close_list();
      out += "<p>" + inline_md(line) + "</p>\n";
    }
  }
  flush_table();
  close_list();
  if (in_code) out += "</pre>\n";
  return out;
}

std::string render_html(const ReportDoc& doc) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>dcukit report</title>\n<style>";
  out += kStyle;
  out += "</style></head>\n<body>\n<h1>dcukit report</h1>\n";
  out += fmt::format("<p class=\"meta\">{} result(s), written by {} ({}). Self-contained: no script, no font, no "
                     "request; it opens offline.</p>\n",
                     doc.files.size(), html_escape(meta_line(doc.run_info)), html_escape(doc.run_info.started_at));
  out += "<nav><ol>\n";
  for (std::size_t i = 0; i < doc.sections.size(); ++i)
    out += fmt::format("<li><a href=\"#r{}\">{}</a></li>\n", i + 1, html_escape(doc.sections[i].title));
  out += "</ol></nav>\n";
  for (const auto& n : doc.notes) out += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  if (!doc.fleet.empty()) {
    out += "<section id=\"fleet\"><h2>Fleet</h2>\n";
    for (const auto& t : doc.fleet) out += table_html(t);
    for (const auto& c : doc.fleet_charts) out += "<figure>" + render_svg(c) + "</figure>\n";
    out += "</section>\n";
  }
  for (std::size_t i = 0; i < doc.sections.size(); ++i) {
    const auto& s = doc.sections[i];
    out += fmt::format("<section id=\"r{}\"><h2>{}</h2>\n<p class=\"meta\">{} · {}</p>\n", i + 1, html_escape(s.title),
                       html_escape(s.origin), html_escape(meta_line(s.run_info)));
    for (const auto& c : s.charts) out += "<figure>" + render_svg(c) + "</figure>\n";
    for (const auto& t : s.placed) out += table_html(t);
    if (!s.markdown.empty())
      out += fmt::format("<details{}><summary>{}'s own tables</summary>\n{}</details>\n", s.charts.empty() ? " open" : "",
                         html_escape(to_string(s.kind)), markdown_to_html(s.markdown));
    out += "</section>\n";
  }
  out += "</body></html>\n";
  return out;
}

std::string render_markdown(const ReportDoc& doc) {
  std::string out = fmt::format("# dcukit report\n\n{} result(s), written by {}.\n\n", doc.files.size(),
                                meta_line(doc.run_info));
  for (const auto& n : doc.notes) out += "- " + n + "\n";
  if (!doc.fleet.empty()) {
    out += "## Fleet\n\n";
    for (const auto& t : doc.fleet) out += core::render_markdown(t, 3) + "\n";
  }
  for (const auto& s : doc.sections) {
    out += fmt::format("## {}\n\n`{}` · {}\n\n", s.title, s.origin, meta_line(s.run_info));
    if (!s.charts.empty()) out += fmt::format("{} chart(s) in the HTML report.\n\n", s.charts.size());
    for (const auto& t : s.placed) out += core::render_markdown(t, 3) + "\n";
    out += s.markdown + "\n";
  }
  return out;
}

}  // namespace dcukit::flows
