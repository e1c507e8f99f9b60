// cli/output.h: how a bare --json or --csv is told from one with its FILE, and that nothing after
// "--" (guard's service command line) is rewritten.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/output.h"

namespace {

std::vector<std::string> normalized(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return dcukit::cli::normalize_outputs(static_cast<int>(argv.size()), argv.data());
}

using V = std::vector<std::string>;

TEST(CliOutput, ABareFlagBecomesStdout) {
  EXPECT_EQ(normalized({"dcukit", "doctor", "--json"}), (V{"dcukit", "doctor", "--json=-"}));
  EXPECT_EQ(normalized({"dcukit", "telemetry", "--csv", "--watch", "1"}),
            (V{"dcukit", "telemetry", "--csv=-", "--watch", "1"}));
  EXPECT_EQ(normalized({"dcukit", "port", "audit", "--json", "k.cu"}), (V{"dcukit", "port", "audit", "--json=-", "k.cu"}));
}

TEST(CliOutput, AFileOfItsKindOrADashStaysItsValue) {
  for (const char* file : {"-", "r.json", "dir/r.jsonl", "r.ndjson"})
    EXPECT_EQ(normalized({"dcukit", "bench", "--json", file}), (V{"dcukit", "bench", "--json", file})) << file;
  for (const char* file : {"-", "t.csv", "t.tsv"})
    EXPECT_EQ(normalized({"dcukit", "telemetry", "--csv", file}), (V{"dcukit", "telemetry", "--csv", file})) << file;
  // The kinds do not cross: a .csv is not --json's file.
  EXPECT_EQ(normalized({"dcukit", "load", "--json", "t.csv"}), (V{"dcukit", "load", "--json=-", "t.csv"}));
  // The = form is left as written.
  EXPECT_EQ(normalized({"dcukit", "plan", "--json=out.txt"}), (V{"dcukit", "plan", "--json=out.txt"}));
}

TEST(CliOutput, NothingAfterTheSeparatorIsTouched) {
  EXPECT_EQ(normalized({"dcukit", "guard", "--json", "--", "server", "--json", "--csv"}),
            (V{"dcukit", "guard", "--json=-", "--", "server", "--json", "--csv"}));
}

}  // namespace
