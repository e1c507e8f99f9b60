// Issue 14: plan on DCU with a bf16 checkpoint. Offline, seed 004 for BW1000 and K100-AI (bf16
// kept), seed 002's caution for Z100 and K100 (fp16, bf16 shown with the check); on a host, the
// card's own answer decides; the fp8 KV cache is an option wherever the card's vLLM has it; and
// the launch script follows seed 004's production template line for line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "device/registry.h"
#include "plan/emit_vllm.h"
#include "plan/flags.h"
#include "plan/run.h"
#include "stack/python.h"
#include "tempdir.h"

using namespace dcukit::plan;
using dcukit::core::Support;

namespace {

std::string fixture(const char* name) {
  return std::string(DCUKIT_FIXTURES) + "/models/" + name;
}

Request offline(const char* model, const char* gpu, int count, std::int64_t len) {
  Request r;
  r.model = fixture(model);
  r.gpu = gpu;
  r.count = count;
  r.asked.max_model_len = len;
  return r;
}

/// A host with `count` cards of this ISA whose Python stack answers bf16 `bf16`.
Request on_host(const char* model, const char* arch, int count, std::int64_t len, std::optional<bool> bf16) {
  Request r;
  r.model = fixture(model);
  r.asked.max_model_len = len;
  r.detect = [arch, count] {
    std::vector<dcukit::device::DetectedDevice> devices(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      auto& d = devices[static_cast<std::size_t>(i)];
      d.backend = dcukit::device::BackendKind::hip;
      d.info.index = i;
      d.info.name = "DCU";
      d.info.arch = std::string(arch) + ":sramecc+:xnack-";
      d.memory.total = d.memory.free = 68702699520;
      d.numa_node = 0;
    }
    return devices;
  };
  r.probe_stack = [bf16, arch]() -> dcukit::Result<dcukit::stack::PythonStack> {
    dcukit::stack::PythonStack s;
    s.interpreter = "/fake/python3";
    s.torch = {"torch", true, "2.4.1+das.opt2.dtk2504", "das.opt2.dtk2504", dcukit::stack::BuildKind::dtk, ""};
    s.cuda_available = true;
    s.devices = {{0, "DCU", arch}};
    s.bf16_supported = bf16;
    return s;
  };
  return r;
}

Plan plan_of(const Request& r) {
  auto report = run(r);
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
  return report.ok() ? report->plan : Plan{};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool fp8_rows(const Plan& p) {
  return std::any_of(p.options.begin(), p.options.end(), [](const Option& o) { return is_fp8(o.kv_cache_dtype); });
}

}  // namespace

// --- offline: the published data, else the seeds' advice ---------------------------------------

TEST(PlanDcu, Bw1000AndK100AiKeepTheCheckpointsBf16AsSeed004Serves) {
  for (const char* gpu : {"BW1000", "K100-AI"})
    for (const char* model : {"qwen3-32b", "llama-3.1-8b-instruct"}) {
      SCOPED_TRACE(std::string(gpu) + " " + model);
      const auto p = plan_of(offline(model, gpu, 4, 32768));
      EXPECT_EQ(p.settings.dtype, Dtype::bfloat16);
      EXPECT_EQ(p.cards.bf16.decider(), Decider::offline_advice);
      const auto& why = p.settings.why.dtype;
      EXPECT_TRUE(has(why, "nobody has published whether")) << why;
      EXPECT_TRUE(has(why, "seed 004")) << why;
      EXPECT_TRUE(has(why, "is_bf16_supported()")) << why;  // and the command that checks it
      EXPECT_FALSE(has(why, "lacks")) << why;               // never "lacks" for an unknown
      ASSERT_TRUE(p.dtype_option.has_value());              // fp16 shown, with the overflow caveat
      EXPECT_EQ(p.dtype_option->dtype, Dtype::float16);
      EXPECT_TRUE(has(p.dtype_option->caveat, "65504"));
      EXPECT_TRUE(fp8_rows(p));
      for (const auto& o : p.options) EXPECT_FALSE(o.unverified);
    }
}

TEST(PlanDcu, Z100AndK100CarrySeed002sCaution) {
  for (const char* gpu : {"Z100", "K100"})
    for (const char* model : {"qwen3-32b", "llama-3.1-8b-instruct"}) {
      SCOPED_TRACE(std::string(gpu) + " " + model);
      const auto p = plan_of(offline(model, gpu, 8, 8192));
      EXPECT_EQ(p.settings.dtype, Dtype::float16);
      const auto& why = p.settings.why.dtype;
      EXPECT_TRUE(has(why, "nobody has published whether")) << why;
      EXPECT_TRUE(has(why, "seed 002")) << why;
      EXPECT_TRUE(has(why, "float16 recommended")) << why;
      EXPECT_FALSE(has(why, "lacks")) << why;
      // bf16 stays an option, with the warning and the command that decides it.
      ASSERT_TRUE(p.dtype_option.has_value());
      EXPECT_EQ(p.dtype_option->dtype, Dtype::bfloat16);
      EXPECT_TRUE(has(p.dtype_option->caveat, "python3 -c 'import torch; print(torch.cuda.is_bf16_supported())'"));
      // The conversion of a bf16 checkpoint is called out.
      ASSERT_FALSE(p.warnings.empty());
      EXPECT_TRUE(has(p.warnings[0], "served as float16")) << p.warnings[0];
      EXPECT_TRUE(has(p.warnings[0], "overflow")) << p.warnings[0];
    }
}

TEST(PlanDcu, KvCacheDtypeOfflineAndWhy) {
  // Qwen3-32B on 4 BW1000 at 32K: auto holds 5.0 requests at TP 2, under the target of 8; fp8
  // holds 9.9, so the fp8 KV cache is recommended (seed 004), with its caveat and the way back.
  auto p = plan_of(offline("qwen3-32b", "BW1000", 4, 32768));
  ASSERT_NE(p.chosen(), nullptr);
  EXPECT_EQ(p.chosen()->tp, 2);
  EXPECT_EQ(p.settings.kv_cache_dtype, KvCacheDtype::fp8);
  EXPECT_TRUE(has(p.settings.why.kv_cache_dtype, "reaches the target of 8 full-length requests, which auto does not"))
      << p.settings.why.kv_cache_dtype;
  EXPECT_TRUE(has(p.settings.why.kv_cache_dtype, "--kv-cache-dtype auto"));
  ASSERT_FALSE(p.caveats.empty());
  EXPECT_TRUE(has(p.caveats[0], "DCU's FP8 encoding is not NVIDIA's")) << p.caveats[0];
  EXPECT_TRUE(has(p.caveats[0], "written by the card itself"));

  // Llama-3.1-8B on one K100-AI at 8K: auto holds the target; fp8 is shown, not chosen, and the
  // why says what it would hold and how to ask for it.
  auto q = plan_of(offline("llama-3.1-8b-instruct", "K100-AI", 1, 8192));
  ASSERT_NE(q.chosen(), nullptr);
  EXPECT_EQ(q.settings.kv_cache_dtype, KvCacheDtype::automatic);
  EXPECT_TRUE(fp8_rows(q));
  EXPECT_TRUE(has(q.settings.why.kv_cache_dtype, "reached without fp8")) << q.settings.why.kv_cache_dtype;
  EXPECT_TRUE(has(q.settings.why.kv_cache_dtype, "--goal most-concurrency"));

  // Asking for the most concurrency takes the fp8 KV cache at the same card count.
  auto most = offline("llama-3.1-8b-instruct", "K100-AI", 1, 8192);
  most.asked.goal = Goal::most_concurrency;
  auto m = plan_of(most);
  ASSERT_NE(m.chosen(), nullptr);
  EXPECT_EQ(m.settings.kv_cache_dtype, KvCacheDtype::fp8);
  EXPECT_EQ(m.chosen()->tp, 1);
  EXPECT_TRUE(has(m.settings.why.kv_cache_dtype, "--goal most-concurrency")) << m.settings.why.kv_cache_dtype;

  // Z100: nobody has verified vLLM's fp8 KV cache there; its rows are shown, marked, never chosen.
  auto z = plan_of(offline("llama-3.1-8b-instruct", "Z100", 1, 8192));
  ASSERT_NE(z.chosen(), nullptr);
  EXPECT_EQ(z.settings.kv_cache_dtype, KvCacheDtype::automatic);
  bool unverified = false;
  for (const auto& o : z.options) unverified = unverified || (is_fp8(o.kv_cache_dtype) && o.unverified);
  EXPECT_TRUE(unverified);
  EXPECT_TRUE(has(z.settings.why.kv_cache_dtype, "unverified")) << z.settings.why.kv_cache_dtype;
}

TEST(PlanDcu, Fp8KvRowsOnEveryCardWhoseVllmHasIt) {
  for (const char* gpu : {"BW1000", "K100-AI", "K100", "Z100", "H100", "MI300X"}) {
    SCOPED_TRACE(gpu);
    const auto p = plan_of(offline("qwen3-32b", gpu, 8, 8192));
    EXPECT_TRUE(fp8_rows(p));
  }
}

// --- on a host: the card's own answer decides ----------------------------------------------------

TEST(PlanDcu, TheHostsProbeDecidesBf16) {
  for (const char* arch : {"gfx936", "gfx928", "gfx926", "gfx906"})
    for (const char* model : {"qwen3-32b", "llama-3.1-8b-instruct"}) {
      SCOPED_TRACE(std::string(arch) + " " + model);
      const auto yes = plan_of(on_host(model, arch, 8, 8192, true));
      EXPECT_TRUE(yes.cards.detected);
      EXPECT_EQ(yes.cards.bf16.decider(), Decider::this_host);
      EXPECT_EQ(yes.settings.dtype, Dtype::bfloat16);
      EXPECT_TRUE(has(yes.settings.why.dtype, "this host: torch.cuda.is_bf16_supported() is True"))
          << yes.settings.why.dtype;
      EXPECT_TRUE(has(yes.settings.why.dtype, "torch 2.4.1+das.opt2.dtk2504, a dtk build"));
      EXPECT_FALSE(yes.dtype_option.has_value());  // the card answered: nothing to check

      const auto no = plan_of(on_host(model, arch, 8, 8192, false));
      EXPECT_EQ(no.settings.dtype, Dtype::float16);
      EXPECT_TRUE(has(no.settings.why.dtype, "lacks bf16 (this host: torch.cuda.is_bf16_supported() is False"))
          << no.settings.why.dtype;
      ASSERT_FALSE(no.warnings.empty());
      EXPECT_TRUE(has(no.warnings[0], "overflow"));
      // --dtype bfloat16 where the card itself says no is refused.
      auto asked = on_host(model, arch, 8, 8192, false);
      asked.asked.dtype = Dtype::bfloat16;
      auto refused = run(asked);
      ASSERT_FALSE(refused.ok());
      EXPECT_TRUE(has(refused.error().message, "pass --dtype float16")) << refused.error().message;
    }
}

TEST(PlanDcu, AProbeThatCannotAnswerFallsBackAndSaysSo) {
  auto r = on_host("qwen3-32b", "gfx926", 8, 8192, std::nullopt);
  r.probe_stack = []() -> dcukit::Result<dcukit::stack::PythonStack> {
    return dcukit::Error{"/fake/python3 did not answer the probe within 60 s"};
  };
  const auto p = plan_of(r);
  EXPECT_EQ(p.cards.key, "k100");
  EXPECT_EQ(p.cards.bf16.decider(), Decider::offline_advice);
  EXPECT_EQ(p.settings.dtype, Dtype::float16);
  bool said = false;
  for (const auto& w : p.warnings) said = said || has(w, "this host could not say whether the card does bf16");
  EXPECT_TRUE(said);

  // A torch from the public index sees no DCU: said, not taken as "no bf16".
  auto pub = on_host("qwen3-32b", "gfx936", 8, 8192, std::nullopt);
  pub.probe_stack = []() -> dcukit::Result<dcukit::stack::PythonStack> {
    dcukit::stack::PythonStack s;
    s.interpreter = "/usr/bin/python3";
    s.torch = {"torch", true, "2.4.1+cu124", "cu124", dcukit::stack::BuildKind::cuda, ""};
    s.cuda_available = false;
    return s;
  };
  const auto q = plan_of(pub);
  EXPECT_TRUE(has(q.cards.bf16.host_error, "sees no GPU")) << q.cards.bf16.host_error;
  EXPECT_EQ(q.settings.dtype, Dtype::bfloat16);  // BW1000: seed 004's advice, as offline
}

// --- the launch script against seed 004's template -----------------------------------------------

namespace {

// Seed 004 ("vLLM生产级参数详解"), its production template, one line a line.
const std::vector<std::string> kSeed004Template = {
    "#!/bin/bash",
    "source /opt/dtk-26.04/env.sh",
    "export TRITON_HIP_LLD_PATH=/opt/dtk-26.04/llvm/bin/ld.lld",
    "numactl --cpunodebind=0 --membind=0 \\",
    "vllm serve /data/models/Qwen2-7B-Instruct \\",
    "--served-model-name Qwen2-7B-Instruct \\",
    "--tensor-parallel-size 1 \\",
    "--dtype bfloat16 \\",
    "--max-model-len 8192 \\",
    "--gpu-memory-utilization 0.9 \\",
    "--kv-cache-dtype fp8 \\",
    "--enforce-eager \\",
    "--max-num-seqs 256 \\",
    "--host 0.0.0.0 \\",
    "--port 8000",
};

std::string collapse(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

/// The script's command lines (no comments, no blanks), trimmed, without "exec " and a
/// trailing " \" (the last template line has none), the model path replaced by the template's.
std::vector<std::string> command_lines(const std::string& script, const std::string& model_path) {
  std::vector<std::string> out;
  std::istringstream in(script);
  std::string line;
  while (std::getline(in, line)) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.empty() || (line[0] == '#' && line.rfind("#!", 0) != 0)) continue;
    if (line.rfind("exec ", 0) == 0) line.erase(0, 5);
    if (auto at = line.find(model_path); at != std::string::npos)
      line.replace(at, model_path.size(), "/data/models/Qwen2-7B-Instruct");
    out.push_back(line);
  }
  return out;
}

std::string strip_continuation(std::string s) {
  if (s.size() >= 2 && s.compare(s.size() - 2, 2, " \\") == 0) s.resize(s.size() - 2);
  return s;
}

struct SeedScript {
  std::string script, model_path;
};

SeedScript seed_script(const testutil::TempDir& dir, const char* gpu, Goal goal) {
  // Seed 004's model, in a folder of its name, so that the served name is the template's.
  const auto model = dir.file("data/models/Qwen2-7B-Instruct");
  std::filesystem::create_directories(model);
  std::filesystem::copy_file(fixture("qwen2-7b-instruct") + "/config.json", model + "/config.json");
  Request r;
  r.model = model;
  r.gpu = gpu;
  r.count = 1;
  r.asked.max_model_len = 8192;
  r.asked.goal = goal;
  auto report = run(r);
  EXPECT_TRUE(report.ok());
  EmitOptions e;
  e.toolkit_env = "/opt/dtk-26.04/env.sh";
  auto script = emit_vllm(report->plan, e);
  EXPECT_TRUE(script.ok());
  return {script.ok() ? *script : std::string{}, report->plan.model.path};
}

}  // namespace

TEST(PlanDcu, TheTemplateIsSeed004s) {
  DCUKIT_REQUIRE_SHARED(seeds, "seeds");
  for (const auto& e : std::filesystem::directory_iterator(seeds)) {
    if (e.path().filename().string().rfind("004_", 0) != 0) continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    std::string joined;
    for (const auto& l : kSeed004Template) joined += l + "\n";
    EXPECT_TRUE(has(collapse(text.str()), collapse(joined))) << "the template above is not seed 004's";
    return;
  }
  FAIL() << "no seed 004 in " << seeds;
}

TEST(PlanDcu, TheScriptMatchesSeed004LineForLineWhereThePlanAgrees) {
  testutil::TempDir dir("plan_dcu");
  // BW1000, Qwen2-7B-Instruct at 8K, the most concurrency asked for: the plan agrees with every
  // line of the template.
  const auto s = seed_script(dir, "BW1000", Goal::most_concurrency);
  const auto lines = command_lines(s.script, s.model_path);
  std::size_t at = 0;
  std::vector<std::string> added;
  for (const auto& line : lines) {
    if (at < kSeed004Template.size() && strip_continuation(line) == strip_continuation(kSeed004Template[at])) {
      ++at;
      continue;
    }
    added.push_back(line);
  }
  EXPECT_EQ(at, kSeed004Template.size()) << "missing from the script: "
                                         << (at < kSeed004Template.size() ? kSeed004Template[at] : "") << "\n"
                                         << s.script;
  // What the script adds, each with its reason in a comment.
  const std::vector<std::string> expected_added = {"set -e", "export HIP_VISIBLE_DEVICES=0",
                                                   "--max-num-batched-tokens 8192 \\", "--block-size 16"};
  EXPECT_EQ(added, expected_added) << s.script;
  EXPECT_TRUE(has(s.script, "# Stop at the first failing line"));
  EXPECT_TRUE(has(s.script, "# Only the planned cards (not in seed 004's template"));
  EXPECT_TRUE(has(s.script, "#   --max-num-batched-tokens 8192: (not in seed 004's template)"));
  EXPECT_TRUE(has(s.script, "#   --block-size 16: (not in seed 004's template)"));
  EXPECT_TRUE(has(s.script, "exec (not in the template)"));
  for (const char* same :
       {"--dtype bfloat16", "--kv-cache-dtype fp8", "--gpu-memory-utilization 0.9", "--max-num-seqs 256"})
    EXPECT_TRUE(has(s.script, std::string("#   ") + same + ": (as seed 004's template)")) << same;
  // The fp8 KV cache's comment says how to turn it off.
  EXPECT_TRUE(has(s.script, "serve with --kv-cache-dtype auto")) << s.script;
}

TEST(PlanDcu, TheScriptSaysWhyWhereItDiffersFromSeed004) {
  testutil::TempDir dir("plan_dcu");
  // K100 offline: seed 002's caution gives float16 and auto KV at the default goal.
  const auto s = seed_script(dir, "K100", Goal::fewest_cards);
  const auto lines = command_lines(s.script, s.model_path);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "--dtype float16 \\"), lines.end()) << s.script;
  EXPECT_NE(std::find(lines.begin(), lines.end(), "--kv-cache-dtype auto \\"), lines.end());
  EXPECT_TRUE(
      has(s.script, "#   --dtype float16: (seed 004's template: bfloat16) nobody has published whether Hygon K100"))
      << s.script;
  EXPECT_TRUE(has(s.script, "#   --kv-cache-dtype auto: (seed 004's template: fp8) the model dtype")) << s.script;
  EXPECT_TRUE(has(s.script, "# Warning: "));  // the fp16 conversion of the bf16 checkpoint
}
