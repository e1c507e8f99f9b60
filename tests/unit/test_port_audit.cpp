// The audit as a whole: inline suppression, --ignore, the hipify-like statistics, and the
// renderers (text, JSON, SARIF 2.1.0).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "port/render.h"
#include "tempdir.h"
#include "test_port_helpers.h"
#include "util/json_text.h"

using dcukit::port::RuleId;
using dcukit::port::Severity;
using porttest::audit;
using porttest::hits;
using Strings = std::vector<std::string>;

namespace {

const char* kMixed = R"(#include <cuda_runtime.h>
#include <cublas_v2.h>
__global__ void k(float* p) {
  const int tid = threadIdx.x;
  float v = p[tid];
  v += __shfl_xor_sync(0xffffffff, v, 1, 64);
  p[tid / 32] = v;
}
void host(float* d, cudaStream_t s) {
  k<<<1, 64, 0, s>>>(d);
  cudaStreamSynchronize(s);
  cublasHandle_t h;
  cublasCreate(&h);
}
)";

}  // namespace

TEST(PortSuppress, InlineCommentsOnTheLineOrTheLineAbove) {
  const auto r = audit(R"(__global__ void k(float* p) {
  float v = p[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 1, 64);  // dcukit-port: ignore wave64.full-mask
  // dcukit-port: ignore wave64.full-mask, wave64.warp-size-literal
  v += __shfl_xor_sync(0xffffffff, v, 1, 32);
  /* dcukit-port: ignore wave64.warp-size-literal */
  p[threadIdx.x / 32] = v;
  p[threadIdx.x % 32] = v;  // dcukit-port: ignore wave64.full-mask (the wrong rule: still reported)
})");
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:8"}));
  EXPECT_EQ(r.suppressed, 4);
  EXPECT_TRUE(r.notes.empty());
}

TEST(PortSuppress, UnknownRulesInACommentAreNoted) {
  const auto r = audit(
      "__global__ void k(int* p) {\n  p[threadIdx.x % 32] = __shfl_down(1, 1);  // dcukit-port: ignore "
      "wave64.typo\n}\n");
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:2"}));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("t.cu:2"), std::string::npos) << r.notes[0];
  EXPECT_NE(r.notes[0].find("wave64.typo"), std::string::npos);
}

TEST(PortIgnore, RuleIdsAndFamilies) {
  const auto p = porttest::project({{"t.cu", kMixed}});
  auto ids = dcukit::port::parse_rule_names({"lib.*", "wave64.full-mask"});
  ASSERT_TRUE(ids) << ids.error().message;
  const auto r = dcukit::port::audit_project(p, *ids);
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:7"}));
  EXPECT_EQ(r.ignored.size(), 17u);  // the 16 lib.* rules and wave64.full-mask
}

TEST(PortIgnore, UnknownRuleIsBadInput) {
  auto ids = dcukit::port::parse_rule_names({"wave64.nope"});
  ASSERT_FALSE(ids);
  EXPECT_NE(ids.error().message.find("wave64.nope"), std::string::npos);
  dcukit::port::AuditRequest o;
  o.paths = {"/nonexistent"};
  o.ignore = {"nope"};
  auto r = dcukit::port::run(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--ignore"), std::string::npos);
}

TEST(PortAudit, StatisticsLikeHipifys) {
  const auto r = audit(kMixed);
  ASSERT_EQ(r.files.size(), 1u);
  const auto& s = r.files[0];
  EXPECT_EQ(s.kernels, 1);
  EXPECT_EQ(s.launches, 1);
  EXPECT_EQ(s.cuda_api_refs, 2);  // cudaStream_t, cudaStreamSynchronize
  EXPECT_EQ(s.cuda_api_names, 2);
  EXPECT_EQ(s.library_refs.at(RuleId::lib_cublas), 3);
  EXPECT_EQ(s.findings.at(RuleId::wave64_full_mask), 1);
  EXPECT_EQ(r.count(Severity::error), 2);
  EXPECT_EQ(r.count(Severity::note), 1);
}

TEST(PortAudit, MissingPathsAndEmptyFoldersAreBadInput) {
  testutil::TempDir dir("port_audit");
  dcukit::port::AuditRequest o;
  o.paths = {dir.file("missing.cu")};
  auto r = dcukit::port::run(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("missing.cu: no such file"), std::string::npos);
  dir.write("docs/readme.txt", "not a source");
  o.paths = {dir.file("docs")};
  r = dcukit::port::run(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("holds no .cu"), std::string::npos);
  // A file named on the command line is read whatever its suffix.
  o.paths = {dir.write("kernel.txt", "__global__ void k(int* p) { p[threadIdx.x >> 5] = __shfl_down(1, 1); }\n")};
  r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->findings.size(), 1u);
}

TEST(PortRender, TextHasCompilerStyleLinesAndTables) {
  const auto r = audit(kMixed);
  const std::string t = dcukit::port::render_text(r);
  EXPECT_NE(t.find("t.cu:6:24: error: [wave64.full-mask]"), std::string::npos) << t;
  EXPECT_NE(t.find("    fix: "), std::string::npos);
  EXPECT_NE(t.find("Findings by rule"), std::string::npos);
  EXPECT_NE(t.find("cublas 3"), std::string::npos);
  EXPECT_NE(t.find("2 errors, 0 warnings, 1 notes"), std::string::npos);
  const std::string rules = dcukit::port::render_rules_text();
  for (const auto& info : dcukit::port::all_rules()) EXPECT_NE(rules.find(info.name), std::string::npos);
}

TEST(PortRender, JsonCarriesFindingsStatisticsAndTotals) {
  const auto j = nlohmann::json::parse(dcukit::util::json_document(dcukit::port::to_json(audit(kMixed))));
  ASSERT_EQ(j["findings"].size(), 3u);
  EXPECT_EQ(j["findings"][0]["rule"], "lib.cublas");
  EXPECT_EQ(j["findings"][1]["rule"], "wave64.full-mask");
  EXPECT_EQ(j["findings"][1]["line"], 6);
  EXPECT_EQ(j["findings"][1]["column"], 24);
  EXPECT_EQ(j["findings"][1]["severity"], "error");
  EXPECT_FALSE(j["findings"][1]["fix"].get<std::string>().empty());
  EXPECT_EQ(j["files"][0]["library_refs"]["cublas"], 3);
  EXPECT_EQ(j["files"][0]["kernels"], 1);
  EXPECT_EQ(j["totals"]["errors"], 2);
}

TEST(PortRender, SarifIsAValid210Log) {
  const auto r =
      audit({{"src/k.cu", kMixed}, {"my dir/b.cu", "__global__ void b(int* p) { p[threadIdx.x % 32] = 0; }\n"}});
  const auto log = nlohmann::json::parse(dcukit::port::render_audit_sarif(r));
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_EQ(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  ASSERT_EQ(log["runs"].size(), 1u);
  const auto& run = log["runs"][0];
  const auto& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "dcukit-port");
  // Every rule's metadata, in the catalogue's order; results point into it by ruleIndex.
  ASSERT_EQ(driver["rules"].size(), dcukit::port::all_rules().size());
  for (std::size_t i = 0; i < driver["rules"].size(); ++i) {
    const auto& rule = driver["rules"][i];
    EXPECT_EQ(rule["id"], std::string(dcukit::port::all_rules()[i].name));
    EXPECT_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
    EXPECT_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
    EXPECT_FALSE(rule["help"]["text"].get<std::string>().empty());
    const std::string level = rule["defaultConfiguration"]["level"];
    EXPECT_TRUE(level == "error" || level == "warning" || level == "note") << level;
  }
  ASSERT_EQ(run["results"].size(), r.findings.size());
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    const auto& res = run["results"][i];
    EXPECT_EQ(res["ruleId"], std::string(dcukit::port::to_string(r.findings[i].rule)));
    EXPECT_EQ(driver["rules"][res["ruleIndex"].get<std::size_t>()]["id"], res["ruleId"]);
    EXPECT_EQ(res["level"], std::string(dcukit::port::to_string(r.findings[i].severity)));
    EXPECT_FALSE(res["message"]["text"].get<std::string>().empty());
    ASSERT_EQ(res["locations"].size(), 1u);
    const auto& loc = res["locations"][0]["physicalLocation"];
    EXPECT_EQ(loc["region"]["startLine"], r.findings[i].line);
    EXPECT_EQ(loc["region"]["startColumn"], r.findings[i].column);
    EXPECT_FALSE(loc["artifactLocation"]["uri"].get<std::string>().empty());
  }
  EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "src/k.cu");
  EXPECT_EQ(run["results"].back()["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "my%20dir/b.cu");
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
}

namespace {
/// `dcukit port audit PATHS`, findings as "file:line:rule" with the folder taken off.
std::vector<std::string> audited(const std::vector<std::string>& paths, const std::string& root) {
  dcukit::port::AuditRequest o;
  o.paths = paths;
  auto r = dcukit::port::run(o);
  EXPECT_TRUE(r) << r.error().message;
  std::vector<std::string> out;
  if (r)
    for (const auto& f : r->findings)
      out.push_back(fmt::format("{}:{}:{}", f.file.substr(root.size() + 1), f.line, dcukit::port::to_string(f.rule)));
  return out;
}
}  // namespace

TEST(PortUnits, AFilesAnswerDoesNotDependOnWhatElseIsAudited) {
  // One project fixes WARP_SIZE at 32 beside full-wave reductions; another defines WARP_SIZE from
  // the hardware. Audited together, the second's macro must not hide the first's hazards.
  testutil::TempDir dir("port_units");
  dir.write("a/k.cu", R"(#define WARP_SIZE 32
__device__ float warp_sum(float v) {
  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__global__ void k(float* p) {
  __shared__ float s[WARP_SIZE];
  float v = warp_sum(p[threadIdx.x]);
  if (threadIdx.x % WARP_SIZE == 0) s[threadIdx.x / WARP_SIZE] = v;
}
)");
  dir.write("b/m.cu", "#define WARP_SIZE (warpSize)\n__global__ void m(float* p) { p[threadIdx.x % WARP_SIZE] = 0; }\n");
  // A header is read with the file that includes it: its constant is that file's.
  dir.write("b/w.cuh", "#define FULL 0xffffffff\n");
  dir.write("b/n.cu", "#include \"w.cuh\"\n__device__ int f(int v) { return __shfl_sync(FULL, v, 0); }\n");
  const std::string root = dir.file("");
  const auto alone = audited({dir.file("a")}, root.substr(0, root.size() - 1));
  const auto together = audited({dir.file("a"), dir.file("b")}, root.substr(0, root.size() - 1));
  ASSERT_GE(alone.size(), 2u);
  std::vector<std::string> a_part;
  for (const auto& f : together)
    if (f.rfind("a/", 0) == 0) a_part.push_back(f);
  EXPECT_EQ(a_part, alone);
  EXPECT_NE(std::find(together.begin(), together.end(), "b/w.cuh:1:wave64.full-mask"), together.end())
      << "the included header's FULL is a full mask, reported at its definition for its use in n.cu";
}

TEST(PortUnits, AMaskVariableDeclared32BitsWide) {
  // cuda-samples' reduction: `warpReduceSum(unsigned int mask, T)` passes its 32-bit mask on.
  const auto r = audit(R"(template <class T> __device__ T warpReduceSum(unsigned int mask, T mySum) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(mask, mySum, offset);
  return mySum;
}
__device__ unsigned long long wide(unsigned long long m, int v) { return __shfl_sync(m, v, 0); }
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].line, 1) << "at the declaration, where the fix goes";
  EXPECT_EQ(r.findings[0].rule, dcukit::port::RuleId::wave64_full_mask);
  EXPECT_NE(r.findings[0].why.find("is declared `unsigned int`"), std::string::npos) << r.findings[0].why;
  EXPECT_NE(r.findings[0].why.find("(line 2)"), std::string::npos) << r.findings[0].why;
}

TEST(PortImplicitRuntime, ATranslationUnitWithoutTheRuntimeHeaderIsReportedOnItsCu) {
  // SlabAlloc's slab_alloc.cu includes only its header, whose kernels nvcc compiles with
  // cuda_runtime.h included for them.
  const porttest::Sources lib = {
      {"src/alloc.cu", "#include \"alloc.cuh\"\n"},
      {"src/alloc.cuh", "#include <stdint.h>\n__global__ void k(uint32_t* p) { p[threadIdx.x] = 0; }\n"}};
  const auto r = porttest::audit(lib);
  ASSERT_EQ(porttest::hits(r), (std::vector<std::string>{"api.implicit-runtime:1"}));
  EXPECT_EQ(r.findings[0].file, "src/alloc.cu");
  // A runtime header anywhere in the unit, or a project header not given (it may hold one): nothing.
  const auto with = porttest::audit({{"a.cu", "#include \"h.cuh\"\n__global__ void k() {}\n"},
                                     {"h.cuh", "#include <cuda_runtime.h>\n"}});
  EXPECT_TRUE(with.findings.empty()) << with.findings[0].why;
  const auto unknown = porttest::audit({{"a.cu", "#include \"not_given.cuh\"\n__global__ void k() {}\n"}});
  EXPECT_TRUE(unknown.findings.empty()) << unknown.findings[0].why;
  // Only api names declared by cuda_runtime_api.h are not enough for kernels after hipify.
  const auto api = porttest::audit({{"b.cu", "#include <cuda_runtime_api.h>\n__global__ void k() {}\n"}});
  EXPECT_EQ(porttest::hits(api), (std::vector<std::string>{"api.implicit-runtime:1"}));
}
