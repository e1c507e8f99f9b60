// Issue 9: the launch script runs what it should and nothing else. Each emitted script is run
// by bash with a fake `numactl` and a fake `vllm` first on PATH (both write their argv to the
// test's folder); a value that tries to run a command, or a model folder whose name holds a
// newline, must reach vLLM as text; and shellcheck passes on every script plan emits.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "plan/emit_vllm.h"
#include "plan/run.h"
#include "tempdir.h"
#include "util/process.h"

using namespace dcukit::plan;

namespace {

std::string fixture(const char* name) {
  return std::string(DCUKIT_FIXTURES) + "/models/" + name;
}

void executable(const testutil::TempDir& dir, const std::string& name, const std::string& body) {
  ::chmod(dir.write(name, "#!/bin/bash\n" + body).c_str(), 0755);
}

std::vector<std::string> split_nul(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\0') out.push_back(s.substr(start, i - start)), start = i + 1;
  return out;
}

struct Ran {
  dcukit::util::ExitStatus status;
  std::string err;
  std::vector<std::string> numactl, vllm;
};

/// Runs `script` with the fakes first on PATH; what each was called with.
Ran run_script(const testutil::TempDir& dir, const std::string& script) {
  executable(dir, "bin/numactl", R"(printf '%s\0' "$@" > "$DCUKIT_TEST_DIR/numactl.argv"
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
exec "$@"
)");
  executable(dir, "bin/vllm", R"(printf '%s\0' "$@" > "$DCUKIT_TEST_DIR/vllm.argv"
printf '%s' "${FAKE_TOOLKIT:-}" > "$DCUKIT_TEST_DIR/toolkit"
printf '%s' "${HIP_VISIBLE_DEVICES:-}${CUDA_VISIBLE_DEVICES:-}" > "$DCUKIT_TEST_DIR/devices"
)");
  const auto path = dir.write("serve.sh", script);
  auto run = dcukit::util::run_capture({"/bin/bash", path}, std::chrono::seconds(20),
                                       {"PATH=" + dir.file("bin") + ":/usr/bin:/bin", "DCUKIT_TEST_DIR=" + dir.path()});
  EXPECT_TRUE(run.ok());
  Ran r;
  if (!run.ok()) return r;
  r.status = run->status;
  r.err = run->err;
  r.numactl = split_nul(dir.read("numactl.argv"));
  r.vllm = split_nul(dir.read("vllm.argv"));
  return r;
}

Plan plan_of(Request r) {
  auto report = run(r);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
  return report.ok() ? report->plan : Plan{};
}

Request named(const std::string& model, const char* gpu, int count, std::int64_t len) {
  Request r;
  r.model = model;
  r.gpu = gpu;
  r.count = count;
  r.asked.max_model_len = len;
  return r;
}

std::string emit(const Plan& p, const EmitOptions& e) {
  auto s = emit_vllm(p, e);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : std::string{};
}

}  // namespace

TEST(PlanScript, RunsExactlyTheVllmCommandThePlanSays) {
  testutil::TempDir dir("plan_script");
  // A toolkit env.sh as DTK's are: it reads variables that may be unset (the script has no -u).
  dir.write("dtk/env.sh", "export FAKE_TOOLKIT=loaded\nexport LD_LIBRARY_PATH=/opt/dtk/lib:$LD_LIBRARY_PATH\n");
  const auto p = plan_of(named(fixture("qwen3-32b"), "BW1000", 4, 32768));
  EmitOptions e;
  e.toolkit_env = dir.file("dtk/env.sh");
  e.port = 9000;
  const auto r = run_script(dir, emit(p, e));
  EXPECT_TRUE(r.status.success()) << r.status.describe() << " " << r.err;
  const std::vector<std::string> numactl_args = {"--cpunodebind=0", "--membind=0", "vllm", "serve", p.model.path};
  ASSERT_GE(r.numactl.size(), numactl_args.size());
  EXPECT_EQ(std::vector<std::string>(r.numactl.begin(), r.numactl.begin() + 5), numactl_args);
  const std::vector<std::string> vllm_args = {"serve",
                                              p.model.path,
                                              "--served-model-name",
                                              "qwen3-32b",
                                              "--tensor-parallel-size",
                                              "2",
                                              "--dtype",
                                              "bfloat16",
                                              "--max-model-len",
                                              "32768",
                                              "--gpu-memory-utilization",
                                              "0.85",
                                              "--kv-cache-dtype",
                                              "fp8",
                                              "--enforce-eager",
                                              "--max-num-seqs",
                                              "256",
                                              "--host",
                                              "0.0.0.0",
                                              "--port",
                                              "9000",
                                              "--max-num-batched-tokens",
                                              "2048",  // vLLM 0.28's default on a card under 70 GiB
                                              "--block-size",
                                              "16"};
  EXPECT_EQ(r.vllm, vllm_args);
  EXPECT_EQ(std::vector<std::string>(r.numactl.begin() + 3, r.numactl.end()),
            vllm_args);  // numactl ran vllm, nothing else
  EXPECT_EQ(dir.read("toolkit"), "loaded");
  EXPECT_EQ(dir.read("devices"), "0,1");
}

TEST(PlanScript, AHostThatTriesToRunACommandIsOnlyText) {
  testutil::TempDir dir("plan_script");
  const auto p = plan_of(named(fixture("llama-3.1-8b-instruct"), "H100", 1, 8192));
  EmitOptions e;
  e.host = "0.0.0.0 $(touch " + dir.file("pwned_host") + ")";
  e.served_model_name = "a'b\";touch " + dir.file("pwned_name") + ";`touch " + dir.file("pwned_tick") + "`";
  // The toolkit's env.sh in a folder whose name is itself a command.
  const auto env_dir = dir.file("x$(touch " + dir.file("pwned_env") + ")");
  std::filesystem::create_directories(env_dir);
  const auto env = env_dir + "/env.sh";
  dir.write(env.substr(dir.path().size() + 1), "export FAKE_TOOLKIT=loaded\n");
  e.toolkit_env = env;
  const auto r = run_script(dir, emit(p, e));
  EXPECT_TRUE(r.status.success()) << r.status.describe() << " " << r.err;
  for (const char* f : {"pwned_host", "pwned_name", "pwned_tick", "pwned_env"})
    EXPECT_FALSE(std::filesystem::exists(dir.file(f))) << f << " was created: a value ran as a command";
  auto at = [&](const std::string& flag) {
    for (std::size_t i = 0; i + 1 < r.vllm.size(); ++i)
      if (r.vllm[i] == flag) return r.vllm[i + 1];
    return std::string("?");
  };
  EXPECT_EQ(at("--host"), e.host);
  EXPECT_EQ(at("--served-model-name"), e.served_model_name);
  EXPECT_EQ(dir.read("toolkit"), "loaded");
}

TEST(PlanScript, AModelFolderWithANewlineStaysInsideItsQuotesAndComments) {
  testutil::TempDir dir("plan_script");
  const std::string evil = dir.file("models/evil\ntouch " + dir.file("pwned_newline") + "\n#");
  std::filesystem::create_directories(evil);
  std::filesystem::copy_file(fixture("qwen3-8b") + "/config.json", evil + "/config.json");
  const auto p = plan_of(named(evil, "BW1000", 1, 8192));
  ASSERT_NE(p.model.name.find('\n'), std::string::npos);  // the name itself holds the newline
  dir.write("dtk/env.sh", "");
  EmitOptions e;
  e.toolkit_env = dir.file("dtk/env.sh");
  const auto script = emit(p, e);
  const auto r = run_script(dir, script);
  EXPECT_TRUE(r.status.success()) << r.status.describe() << " " << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("pwned_newline"))) << script;
  ASSERT_GE(r.vllm.size(), 4u);
  EXPECT_EQ(r.vllm[1], p.model.path);
  EXPECT_EQ(r.vllm[3], p.model.name);
  // Every line that is not a command is a comment: no line starts with "touch".
  EXPECT_EQ(script.find("\ntouch"), std::string::npos) << script;
}

TEST(PlanScript, BadEmitOptionsAreRefused) {
  const auto p = plan_of(named(fixture("qwen3-8b"), "H100", 1, 8192));
  EmitOptions port;
  port.port = 99999;
  EXPECT_FALSE(emit_vllm(p, port).ok());
  EmitOptions host;
  host.host = "";
  EXPECT_FALSE(emit_vllm(p, host).ok());
}

TEST(PlanScript, ShellWordsExpandToExactlyTheirText) {
  EXPECT_EQ(shell_word("0.0.0.0"), "0.0.0.0");
  EXPECT_EQ(shell_word("/opt/dtk-26.04/env.sh"), "/opt/dtk-26.04/env.sh");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word("a\nb"), "$'a\\nb'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("~root"), "'~root'");
  EXPECT_EQ(shell_word("$(x)"), "$'$(x)'");
  EXPECT_EQ(comment_text("a\nb\rc"), "a b c");
}

TEST(PlanScript, ShellcheckPassesOnEveryEmittedScript) {
  const auto shellcheck = dcukit::util::find_program("shellcheck");
  if (!shellcheck) GTEST_SKIP() << "shellcheck is not installed; skipping (apt install shellcheck)";
  testutil::TempDir dir("plan_script");
  std::vector<std::pair<std::string, std::string>> scripts;
  EmitOptions dtk;
  dtk.toolkit_env = "/opt/dtk-26.04/env.sh";
  scripts.emplace_back("bw1000_fp8", emit(plan_of(named(fixture("qwen3-32b"), "BW1000", 4, 32768)), dtk));
  scripts.emplace_back("bw1000_default_env", emit(plan_of(named(fixture("qwen3-32b"), "BW1000", 4, 32768)), {}));
  scripts.emplace_back("k100_fp16", emit(plan_of(named(fixture("llama-3.1-8b-instruct"), "K100", 1, 8192)), dtk));
  scripts.emplace_back("z100", emit(plan_of(named(fixture("llama-3.1-8b-instruct"), "Z100", 1, 8192)), dtk));
  scripts.emplace_back("h100", emit(plan_of(named(fixture("llama-3.1-8b-instruct"), "H100", 1, 8192)), {}));
  scripts.emplace_back("mi300x", emit(plan_of(named(fixture("llama-3.1-8b-instruct"), "MI300X", 2, 8192)), {}));
  scripts.emplace_back("pp", emit(plan_of(named(fixture("deepseek-v3"), "BW1000", 16, 32768)), dtk));
  EmitOptions odd;
  odd.host = "0.0.0.0 $(touch x)";
  odd.served_model_name = "it's \"quoted\"\nand two lines";
  odd.toolkit_env = "/opt/my dtk/env.sh";
  scripts.emplace_back("odd_values", emit(plan_of(named(fixture("qwen3-8b"), "BW1000", 1, 8192)), odd));
  for (const auto& [name, text] : scripts) {
    SCOPED_TRACE(name);
    ASSERT_FALSE(text.empty());
    const auto path = dir.write(name + ".sh", text);
    auto r = dcukit::util::run_capture({*shellcheck, "-s", "bash", path}, std::chrono::seconds(60));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->status.success()) << r->out << r->err << "\n" << text;
  }
}
