// `dcukit port` through its CLI: the flags reach the engine and the exit codes say what happened
// (0: no error finding, 1: error findings or names left untranslated, 2: bad input).
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli_run.h"
#include "tempdir.h"

using dcukit::cli::ExitCode;

namespace {

testutil::CliRun run(std::vector<std::string> args) {
  return testutil::cli_run(dcukit::cli::setup_port, "port", std::move(args));
}

const char* kBad =
    "#include <cuda_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x % 32] = __shfl_down(1, 1); }\n";
const char* kClean =
    "#include <cuda_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x % warpSize] = __shfl_down(1, 1); }\n";

}  // namespace

TEST(PortCli, AuditExitCodes) {
  testutil::TempDir dir("port_cli");
  EXPECT_EQ(run({"audit", dir.write("bad.cu", kBad)}).code, ExitCode::failed);
  EXPECT_EQ(run({"audit", dir.write("clean.cu", kClean)}).code, ExitCode::ok);
  EXPECT_EQ(run({"audit", dir.file("missing.cu")}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"audit", dir.file("bad.cu"), "--ignore", "no.such-rule"}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"audit"}).code, ExitCode::bad_input);
  // Ignoring the only rule that fires leaves nothing of error severity; a path after --ignore
  // stays a path.
  EXPECT_EQ(run({"audit", dir.file("bad.cu"), "--ignore", "wave64.warp-size-literal"}).code, ExitCode::ok);
  EXPECT_EQ(run({"audit", "--ignore", "wave64.warp-size-literal", dir.file("bad.cu")}).code, ExitCode::ok);
  EXPECT_EQ(
      run({"audit", "--ignore", "lib.*,wave64.warp-size-literal", "--ignore", "api.graph", dir.file("bad.cu")}).code,
      ExitCode::ok);
}

TEST(PortCli, RulesJsonAndSarif) {
  testutil::TempDir dir("port_cli");
  auto rules = run({"audit", "--rules"});
  EXPECT_EQ(rules.code, ExitCode::ok);
  EXPECT_NE(rules.out.find("wave64.full-mask (error)"), std::string::npos);
  EXPECT_NE(rules.out.find("lib.cutlass"), std::string::npos);
  const std::string bad = dir.write("bad.cu", kBad);
  auto json = run({"audit", bad, "--json", "--sarif", dir.file("out.sarif")});
  EXPECT_EQ(json.code, ExitCode::failed);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["findings"][0]["rule"], "wave64.warp-size-literal");
  const auto sarif = nlohmann::json::parse(dir.read("out.sarif"));
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_EQ(sarif["runs"][0]["results"].size(), 1u);
  auto only_sarif = run({"audit", bad, "--sarif", "-"});
  EXPECT_EQ(nlohmann::json::parse(only_sarif.out)["version"], "2.1.0");
}

TEST(PortCli, TranslateExitCodes) {
  testutil::TempDir dir("port_cli");
  const std::string in = dir.write("k.cu", "void f() { cudaDeviceSynchronize(); }\n");
  auto ok = run({"translate", in, "-o", dir.file("k.hip.cu")});
  EXPECT_EQ(ok.code, ExitCode::ok);
  EXPECT_NE(ok.out.find("cudaDeviceSynchronize => hipDeviceSynchronize: 1"), std::string::npos) << ok.out;
  EXPECT_EQ(dir.read("k.hip.cu"),
            "#include <hip/hip_runtime.h>  // dcukit-port: nvcc includes cuda_runtime.h itself\n"
            "void f() { hipDeviceSynchronize(); }\n");  // nvcc included cuda_runtime.h for it; hipcc does not
  EXPECT_NE(ok.out.find("#include <hip/hip_runtime.h> added"), std::string::npos) << ok.out;
  const std::string left = dir.write("left.cu", "void f() { cudaNotAThing(); }\n");
  auto partial = run({"translate", left, "--out-dir", dir.file("out")});
  EXPECT_EQ(partial.code, ExitCode::failed);
  EXPECT_NE(partial.out.find("cudaNotAThing (1x) not translated"), std::string::npos) << partial.out;
  EXPECT_EQ(run({"translate", in, "-o", dir.file("a"), "--out-dir", dir.file("b")}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"translate", in}).code, ExitCode::bad_input);
}

TEST(PortCli, AQuotedSourceLineCannotDriveTheTerminal) {
  testutil::TempDir dir("port_cli");
  const std::string source = "__global__ void k(int* p) { p[threadIdx.x % 32] = 0; /* \x1b]0;x\x07\x1b[2J */ }\n";
  auto r = run({"audit", dir.write("esc.cu", source)});
  EXPECT_EQ(r.code, ExitCode::failed);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1b[2J"), std::string::npos) << "the line is still quoted, escaped: " << r.out;
}
