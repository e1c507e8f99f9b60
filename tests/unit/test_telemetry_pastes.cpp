// Real captures as users paste them: without the banner, quoted by a mail or forum reply ("> "),
// with CRLF and tab indents, topology cells run together. Each case starts from a real sample of
// tests/fixtures/telemetry/samples (its source in the file's header), changes it the way a paste
// does, and requires the same reading as the unchanged capture, or a refusal that says why:
// never a different reading without a word.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "telemetry/capture.h"
#include "tempdir.h"
#include "test_telemetry_helpers.h"

using namespace dcukit::telemetry;
using testutil::has_warning;

namespace {

/// The verbatim part of a sample (below its collector's header), as lines.
std::vector<std::string> verbatim(const std::string& rel) {
  std::ifstream in(testutil::telemetry_fixture("samples/" + rel));
  std::vector<std::string> out;
  bool body = false;
  for (std::string l; std::getline(in, l);) {
    if (body) out.push_back(l);
    if (l.rfind("# ---- verbatim", 0) == 0) body = true;
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines, const std::string& prefix, const std::string& eol) {
  std::string out;
  for (const auto& l : lines) out += prefix + l + eol;
  return out;
}

dcukit::Result<Snapshot> read_text(const std::string& text) {
  return read_capture_text(text, "paste.txt");
}

}  // namespace

TEST(TelemetryPastes, NvidiaSmiQWithoutItsBannerQuotedWithCrlf) {
  const auto whole = testutil::read_sample("nvidia-smi/q-h100-80gb-idle.txt");
  ASSERT_EQ(whole.devices.size(), 1u);
  auto lines = verbatim("nvidia-smi/q-h100-80gb-idle.txt");
  // The excerpt people paste: from the GPU line on, no banner, no driver lines.
  while (!lines.empty() && lines.front().rfind("GPU ", 0) != 0) lines.erase(lines.begin());
  ASSERT_FALSE(lines.empty());
  auto s = read_text(joined(lines, "> ", "\r\n"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->format, "nvidia-smi -q");
  ASSERT_EQ(s->devices.size(), 1u);
  EXPECT_EQ(s->devices[0].name, whole.devices[0].name);
  EXPECT_EQ(s->devices[0].memory_total_bytes, whole.devices[0].memory_total_bytes);
  EXPECT_EQ(s->devices[0].temperature_c, whole.devices[0].temperature_c);
  EXPECT_EQ(s->devices[0].bus_id, whole.devices[0].bus_id);
  EXPECT_TRUE(has_warning(*s, "quote mark"));
  // Indented by tabs, as an editor re-indents it: the same.
  std::string tabbed;
  for (const auto& l : lines) {
    std::size_t n = l.find_first_not_of(' ');
    tabbed += (n == std::string::npos ? l : std::string(n / 4, '\t') + l.substr(n)) + "\n";
  }
  auto t = read_text(tabbed);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].memory_total_bytes, whole.devices[0].memory_total_bytes);
  // One section without the GPU line: one GPU, and the reading says it was an excerpt.
  std::vector<std::string> section;
  for (const auto& l : lines)
    if (l.rfind("    Product Name", 0) == 0 || l.rfind("    FB Memory Usage", 0) == 0 || l.rfind("        Total", 0) == 0)
      section.push_back(l);
  auto e = read_text(joined(section, "", "\n"));
  ASSERT_TRUE(e) << e.error().message;
  ASSERT_EQ(e->devices.size(), 1u);
  EXPECT_EQ(e->devices[0].name, whole.devices[0].name);
  EXPECT_TRUE(has_warning(*e, "excerpt"));
}

TEST(TelemetryPastes, ASectionNothingIsReadFromIsRefused) {
  // Only -q's temperature lines: they look like a rocm-smi header ("GPU ... Temp") and give no
  // device; that is an error naming the file, not an empty reading.
  auto s = read_text("    Temperature\n        GPU Current Temp                  : 31 C\n"
                     "        GPU T.Limit Temp                  : 56 C\n");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("paste.txt"), std::string::npos);
  EXPECT_NE(s.error().message.find("nothing was recognised"), std::string::npos) << s.error().message;
}

TEST(TelemetryPastes, TopologyCellsThatRanTogetherAreSplitOrTheRowIsRefused) {
  const auto whole = testutil::read_sample("nvidia-smi/topo-m-8x4090-pcie-sys-2nic-tabs.txt");
  ASSERT_EQ(whole.devices.size(), 8u);
  auto lines = verbatim("nvidia-smi/topo-m-8x4090-pcie-sys-2nic-tabs.txt");
  // A web page that dropped the tabs between link cells: "SYSSYS", "PHBPHB".
  std::vector<std::string> ran = lines;
  for (auto& l : ran)
    for (auto at = l.find("SYS\tSYS"); at != std::string::npos; at = l.find("SYS\tSYS")) l.erase(at + 3, 1);
  auto s = read_text(joined(ran, "", "\n"));
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->devices.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(s->devices[i].cpu_affinity, whole.devices[i].cpu_affinity) << i;
    EXPECT_EQ(s->devices[i].numa_node, whole.devices[i].numa_node) << i;
  }
  EXPECT_EQ(s->topology.links.size(), whole.topology.links.size());
  EXPECT_TRUE(has_warning(*s, "run together"));
  // A row that lost a cell no longer lines up: refused for that row, never shifted.
  std::vector<std::string> lost = lines;
  for (auto& l : lost)
    if (l.rfind("GPU5\t", 0) == 0) l.erase(l.find("SYS\t"), 4);
  auto r = read_text(joined(lost, "", "\n"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(has_warning(*r, "GPU5")) << "the misaligned row is named";
  for (const auto& d : r->devices) {
    if (d.index == 5) {
      EXPECT_FALSE(d.cpu_affinity) << "a shifted row's affinity must not be read";
    } else if (d.index < 8) {
      EXPECT_EQ(d.cpu_affinity, whole.devices[static_cast<std::size_t>(d.index)].cpu_affinity);
    }
  }
}
