// `dcukit plan` through its CLI: flags reach the engine, numbers are checked where they are
// parsed, outputs are checked before planning, and the exit codes say what happened.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "plan/render.h"
#include "plan_cli.h"
#include "tempdir.h"

using dcukit::cli::ExitCode;

namespace {
/// `dcukit plan --model MODEL ARGS`; MODEL is a fixture's name or a path.
testutil::PlanCliRun run(std::vector<std::string> args, const std::string& model = "qwen3-32b") {
  args.insert(
      args.begin(),
      {"--model", model.find('/') == std::string::npos ? std::string(DCUKIT_FIXTURES) + "/models/" + model : model});
  return testutil::plan_cli(std::move(args));
}
}  // namespace

TEST(PlanCli, RecommendsAndPrintsTheTables) {
  auto r = run({"--gpu", "BW1000", "--count", "4", "--max-model-len", "32768"});
  EXPECT_EQ(r.code, ExitCode::ok);
  EXPECT_NE(r.out.find("* recommended: the fewest cards (TP 2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--enforce-eager"), std::string::npos);
}

TEST(PlanCli, FlagsReachTheEngine) {
  auto r = run({"--gpu",
                "BW1000",
                "--count",
                "2",
                "--max-model-len",
                "16384",
                "--gpu-memory-utilization",
                "0.88",
                "--max-num-seqs",
                "64",
                "--max-num-batched-tokens",
                "4096",
                "--block-size",
                "32",
                "--no-enforce-eager",
                "--min-concurrency",
                "2",
                "--dtype",
                "half",
                "--kv-cache-dtype",
                "fp8_e5m2",
                "--json"});
  EXPECT_EQ(r.code, ExitCode::ok) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["settings"]["gpu_memory_utilization"].get<double>(), 0.88);
  EXPECT_EQ(j["settings"]["max_model_len"].get<int>(), 16384);
  EXPECT_EQ(j["settings"]["max_num_seqs"].get<int>(), 64);
  EXPECT_EQ(j["settings"]["max_num_batched_tokens"].get<int>(), 4096);
  EXPECT_EQ(j["settings"]["block_size"].get<int>(), 32);
  EXPECT_FALSE(j["settings"]["enforce_eager"].get<bool>());
  EXPECT_EQ(j["settings"]["dtype"], "float16");
  EXPECT_EQ(j["settings"]["kv_cache_dtype"], "fp8_e5m2");
  EXPECT_EQ(j["cards"]["count"].get<int>(), 2);
  EXPECT_EQ(r.out.rfind("{\n  \"run_info\": {", 0), 0u) << r.out.substr(0, 40);
  EXPECT_NE(j["run_info"]["tool"].get<std::string>().find("plan"), std::string::npos);
}

TEST(PlanCli, GpuMemoryOverridesThePeakData) {
  // Seed 004 calls its K100 a 96 GB card; the peak data says 64 GB. The user decides.
  auto r = run({"--gpu", "K100", "--count", "1", "--gpu-memory", "96GiB", "--max-model-len", "8192", "--json"});
  EXPECT_EQ(r.code, ExitCode::ok);  // 61 GiB of Qwen3-32B fit one such card; on the peak data's 64 GB they would not
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cards"]["total_bytes"].get<std::uint64_t>(), 96ull << 30);
  EXPECT_EQ(j["cards"]["total_source"].get<std::string>(), "--gpu-memory 96GiB");
  EXPECT_EQ(run({"--gpu", "K100", "--gpu-memory", "lots"}).code, ExitCode::bad_input);
}

TEST(PlanCli, ExitCodes) {
  EXPECT_EQ(run({"--gpu", "BW2000"}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--gpu", "BW1000", "--kv-cache-dtype", "fp9"}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--gpu", "BW1000", "--emit", "sglang"}).code, ExitCode::bad_input);
  auto none = run({"--gpu", "BW1000", "--count", "1", "--max-model-len", "32768"});
  EXPECT_EQ(none.code, ExitCode::failed);
  EXPECT_NE(none.out.find("Nearest that works: --count 2 (TP 2)"), std::string::npos) << none.out;
}

// Issue 9: every number has a range, checked where it is parsed; nonsense is exit 2 with a
// message naming the flag, never a plan for an 8 EiB card, 8 cards for --count 0, or bad_alloc.
TEST(PlanCli, NumbersOutOfRangeAreBadInputNamingTheFlag) {
  const std::vector<std::vector<std::string>> bad = {
      {"--gpu", "BW1000", "--gpu-memory", "1e99"},
      {"--gpu", "BW1000", "--gpu-memory", "0"},
      {"--gpu", "BW1000", "--count", "0"},
      {"--gpu", "BW1000", "--count", "-3"},
      {"--gpu", "BW1000", "--count", "2000000000"},
      {"--gpu", "BW1000", "--port", "99999"},
      {"--gpu", "BW1000", "--port", "0"},
      {"--gpu", "BW1000", "--max-model-len", "0"},
      {"--gpu", "BW1000", "--max-model-len", "1e300"},
      {"--gpu", "BW1000", "--gpu-memory-utilization", "nan"},
      {"--gpu", "BW1000", "--gpu-memory-utilization", "0"},
      {"--gpu", "BW1000", "--min-concurrency", "-5"},
      {"--gpu", "BW1000", "--max-num-seqs", "0"},
      {"--gpu", "BW1000", "--block-size", "1000"},
      {"--gpu", "BW1000", "--dtype", "bf17"},
      {"--gpu", "BW1000", "--goal", "speed"},
      {"--gpu", "BW1000", "--limit-mm-per-prompt", "image=two"},
      {"--gpu", "BW1000", "--limit-mm-per-prompt", "{\"image\": -1}"},
      {"--gpu", "BW1000", "--limit-mm-per-prompt", "{\"picture\": 1}"},
      {"--gpu", "BW1000", "--limit-mm-per-prompt", "{\"image\": 1"},
      {"--gpu", "BW1000", "--limit-mm-per-prompt", "{\"image\": {\"count\": 1, \"depth\": 2}}"},
      {"--gpu", "BW1000", "--limit-mm-per-prompt", "{\"image\": {\"width\": 0}}"},
  };
  for (const auto& args : bad) {
    auto r = run(args);
    EXPECT_EQ(r.code, ExitCode::bad_input) << args[2] << " " << args[3];
    EXPECT_NE(r.err.find(args[2]), std::string::npos) << args[2] << ": " << r.err;
  }
}

TEST(PlanCli, TheImagesAPromptMayHoldSizeTheEncodersRunAndReachTheLaunchScript) {
  // Qwen2.5-VL-7B on one H200 under V1: vLLM's default 999 images a prompt lets the profile run the
  // tower over as many largest images as a step of 32,768 tokens holds (2); one a prompt and
  // max-num-seqs 1 leave one, and no images or videos leave the tower out.
  auto peak = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        "--gpu", "H200", "--count", "1", "--max-model-len", "8192", "--max-num-batched-tokens", "32768", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run(args, "qwen2.5-vl-7b-instruct");
    EXPECT_EQ(r.code, ExitCode::ok) << r.err;
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
  };
  const auto all = peak({});
  const auto one = peak({"--limit-mm-per-prompt", "{\"image\": 1, \"video\": 0}", "--max-num-seqs", "1"});
  const auto none = peak({"--limit-mm-per-prompt", "image=0,video=0"});
  EXPECT_EQ(one["settings"]["limit_mm_per_prompt"]["image"], 1);
  EXPECT_EQ(one["settings"]["limit_mm_per_prompt"]["video"], 0);
  EXPECT_FALSE(all["settings"].contains("limit_mm_per_prompt"));
  const auto act = [](const nlohmann::json& j) { return j["options"][0]["budget"]["activation_bytes"].get<double>(); };
  ASSERT_TRUE(all["options"][0]["budget"].contains("activation_bytes")) << all.dump().substr(0, 400);
  EXPECT_GT(act(all), act(one));
  EXPECT_GT(act(one), act(none));
  // The launch script passes the limit on, quoted for the shell.
  testutil::TempDir dir("plan_cli_limits");
  auto r = run({"--gpu", "H200", "--count", "1", "--max-model-len", "8192", "--limit-mm-per-prompt", "image=1,video=0",
                "--emit", "vllm", "-o", dir.file("serve.sh")},
               "qwen2.5-vl-7b-instruct");
  EXPECT_EQ(r.code, ExitCode::ok) << r.err;
  EXPECT_NE(dir.read("serve.sh").find("--limit-mm-per-prompt '{\"image\": 1, \"video\": 0}'"), std::string::npos)
      << dir.read("serve.sh");
  // vLLM 0.11.1+'s options (PR #25631): the count is read, the dummy sizes passed on as given, and
  // the encoder's term says it does not follow them.
  const auto sized = peak({"--limit-mm-per-prompt", R"({"image": {"count": 1, "width": 512, "height": 512}})"});
  // plan's JSON writes the limits as the flag has them, the sizes with the count.
  EXPECT_EQ(sized["settings"]["limit_mm_per_prompt"]["image"],
            (nlohmann::json{{"count", 1}, {"width", 512}, {"height", 512}}));
  const auto back = dcukit::plan::from_json(sized.dump());  // and reads them back whole
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->plan.settings.limit_mm_per_prompt.images, 1);
  EXPECT_EQ(back->plan.settings.limit_mm_per_prompt.dummy_sizes, R"({"image":{"count":1,"height":512,"width":512}})");
  EXPECT_NE(sized["caveats"].dump().find("gives the dummy items' sizes, which plan does not follow"), std::string::npos)
      << sized["caveats"].dump();
  r = run({"--gpu", "H200", "--count", "1", "--max-model-len", "8192", "--limit-mm-per-prompt",
           R"({"image": {"count": 1, "width": 512, "height": 512}})", "--emit", "vllm", "-o", dir.file("sized.sh")},
          "qwen2.5-vl-7b-instruct");
  EXPECT_EQ(r.code, ExitCode::ok) << r.err;
  EXPECT_NE(dir.read("sized.sh").find(R"(--limit-mm-per-prompt '{"image":{"count":1,"height":512,"width":512}}')"),
            std::string::npos)
      << dir.read("sized.sh");
}

TEST(PlanCli, EmitWritesAnExecutableScriptAtomically) {
  testutil::TempDir dir("plan_cli");
  const auto path = dir.file("serve.sh");
  auto r = run({"--gpu", "BW1000", "--count", "4", "--max-model-len", "32768", "--emit", "vllm", "-o", path,
                "--toolkit-env", "/opt/dtk-26.04/env.sh", "--port", "9000"});
  EXPECT_EQ(r.code, ExitCode::ok) << r.err;
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_NE(std::filesystem::status(path).permissions() & std::filesystem::perms::owner_exec,
            std::filesystem::perms::none);
  const auto text = dir.read("serve.sh");
  EXPECT_NE(text.find("--port 9000"), std::string::npos);
  EXPECT_NE(text.find("source /opt/dtk-26.04/env.sh"), std::string::npos);
  // Nothing but the script is left in the folder (no temporary file).
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

TEST(PlanCli, OutputIsCheckedBeforePlanning) {
  testutil::TempDir dir("plan_cli");
  // A folder that does not exist: refused up front, as bad input naming -o, even for a model
  // that would fail to plan later.
  auto r = run({"--gpu", "BW1000", "--emit", "vllm", "-o", dir.file("no/such/folder/s.sh")}, dir.path() + "/nomodel");
  EXPECT_EQ(r.code, ExitCode::bad_input);
  EXPECT_NE(r.err.find("-o "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("config.json"), std::string::npos) << r.err;
  // -o without --emit says what -o is for.
  auto lone = run({"--gpu", "BW1000", "-o", dir.file("s.sh")});
  EXPECT_EQ(lone.code, ExitCode::bad_input);
  EXPECT_NE(lone.err.find("--emit vllm"), std::string::npos);
}
