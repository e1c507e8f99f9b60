// `telemetry --from` reads files people paste into tickets: no captured output, however
// mangled, may throw or abort. Every sample in the fixtures is read again with each run of
// digits replaced by something a tool never prints (a number past any integer type, a lone
// dot, a huge exponent, NaN), once in the format detected for the original and once through
// detection.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "telemetry/capture.h"
#include "telemetry/render.h"
#include "util/json_text.h"
#include "test_telemetry_helpers.h"

using namespace dcukit::telemetry;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(TelemetryCapture, MangledNumbersInAnySampleNeverThrow) {
  const std::regex digits("[0-9]+");
  int samples = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testutil::telemetry_fixture("samples"))) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    const std::string text = slurp(entry.path());
    const auto format = detect_format(prepare_capture(text, entry.path().string()));
    if (!format) continue;
    ++samples;
    for (const char* odd : {"99999999999999999999", ".", "1e400", "nan", "-0"}) {
      const std::string mangled = std::regex_replace(text, digits, odd);
      const std::string what = entry.path().filename().string() + " with digits as '" + odd + "'";
      EXPECT_NO_THROW((void)parse_capture(prepare_capture(mangled, "mangled"), *format)) << what;
      EXPECT_NO_THROW((void)read_capture_text(mangled, "mangled")) << what;
    }
  }
  EXPECT_GT(samples, 20) << "the samples were not found";
}

TEST(TelemetryCapture, BytesThatAreNotUtf8InAnySampleNeverThrow) {
  // A paste through a terminal in another code page: each vowel becomes a lone byte that is not
  // UTF-8. Parsed, and the report rendered as JSON, which must not throw on such text.
  int samples = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testutil::telemetry_fixture("samples"))) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    std::string text = slurp(entry.path());
    const auto format = detect_format(prepare_capture(text, entry.path().string()));
    if (!format) continue;
    ++samples;
    for (char& c : text)
      if (c == 'a' || c == 'e' || c == 'o') c = static_cast<char>(0xA4);
    const std::string what = entry.path().filename().string();
    EXPECT_NO_THROW((void)parse_capture(prepare_capture(text, "mangled"), *format)) << what;
    EXPECT_NO_THROW({
      auto report = read_capture_text(text, "mangled");
      if (report) (void)dcukit::util::json_text(to_json(*report));
    }) << what;
  }
  EXPECT_GT(samples, 20) << "the samples were not found";
}

TEST(TelemetryCapture, IndicesPastAnIntAreNotDevices) {
  // Each of these threw std::out_of_range or std::invalid_argument out of std::stoi.
  const std::string topo =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU99999999999999999999\t X \tSYS\t0-31\t0\n"
      "GPU.\tSYS\t X \t0-31\t0\n";
  EXPECT_NO_THROW((void)parse_capture(prepare_capture(topo, "topo"), Format::nvidia_smi_topo));
  const std::string fields = "GPU[99999999999999999999] : Temperature (Sensor edge) (C): 40.0\n";
  EXPECT_NO_THROW((void)parse_capture(prepare_capture(fields, "fields"), Format::smi_fields));
  const std::string json = R"J({"card99999999999999999999": {"Temperature (Sensor edge) (C)": "40.0"}})J";
  EXPECT_NO_THROW((void)parse_capture(prepare_capture(json, "json"), Format::smi_json));
  const std::string list = "GPU 99999999999999999999: NVIDIA H100 (UUID: GPU-1)\n";
  EXPECT_NO_THROW((void)parse_capture(prepare_capture(list, "list"), Format::nvidia_smi_list));
}

TEST(TelemetryCapture, ADriverVersionLabelAtTheLineEndIsNoVersion) {
  // The fuzzer's crash (tests/fuzz/corpus/telemetry_capture/crash-driver-version-at-line-end): a cut
  // banner ending at "Driver Version:" read the first word of nothing.
  const std::string cut =
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 535.104.05   Driver Version:\n"
      "|===============================+======================+======================|\n";
  const auto snap = parse_capture(prepare_capture(cut, "cut"), Format::nvidia_smi_table);
  for (const auto& d : snap.devices) EXPECT_FALSE(d.driver_version) << "a version read from nothing";
}
