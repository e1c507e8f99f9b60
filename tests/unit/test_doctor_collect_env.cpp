// doctor --from on real collect_env pastes from public issues (tests/fixtures/doctor/collect_env,
// each file's source and the problems its thread found in INDEX.md there), and every reader of
// pasted text held against its neighbours' formats: a refusal that says what to pass, never a
// reading of the wrong thing.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "doctor/collect_env.h"
#include "doctor/run.h"
#include "plan/vllm_log.h"
#include "telemetry/capture.h"

using namespace dcukit;

namespace {

std::string fixture(const std::string& rel) {
  return std::string(DCUKIT_FIXTURES) + "/" + rel;
}

/// The verdict of finding `id`, "" when absent.
std::string verdict(const doctor::Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return std::string(doctor::to_string(f.status));
  return "";
}

struct Case {
  std::map<std::string, std::string> verdicts;  ///< finding -> its verdict
  bool clean = false;                           ///< no warn or fail at all
};

// From INDEX.md. Where the problem the thread found lies beyond the stored text (4066's vLLM
// version, 44660's build flags), the paste alone does not show it and nothing may be made up.
const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> k = {
      {"vllm-8004-rocm62-mi210-no-vllm-C.txt", {{{"python.vllm_ops", "fail"}, {"python.torch", "ok"}}, false}},
      {"vllm-8788-rocm61-gfx1103-gentoo.txt", {{{"python.vllm_ops", "fail"}, {"python.arch", "ok"}}, false}},
      {"vllm-44660-rocm72-mi210-cuda-wheel.txt", {{{"python.torch", "ok"}, {"python.arch", "ok"}}, true}},
      {"vllm-4066-torch112-cu113-a100.txt", {{{"toolkit.cudnn", "ok"}, {"toolkit.nvcc_torch", "ok"}}, true}},
      {"vllm-4313-torch221-cu121-nvcc118-rtx3090.txt", {{{"toolkit.nvcc_torch", "fail"}}, false}},
      {"vllm-15435-h100x8-cu124.txt", {{{"python.torch_runtime", "ok"}, {"toolkit.nvcc_torch", "ok"}}, true}},
      {"pytorch-37320-torch15-cuda-no-p100x4.txt",
       {{{"python.torch_runtime", "fail"}, {"python.cuda_available", "fail"}}, false}},
      {"pytorch-44106-rocm37-sample.txt", {{{"python.torch", "ok"}, {"python.cuda_available", "ok"}}, true}},
      {"pytorch-150168-cpu-build-amd-apu.txt", {{{"python.torch", "ok"}, {"driver.gpus", "warn"}}, false}},
  };
  return k;
}

}  // namespace

TEST(DoctorCollectEnv, EveryPasteGivesTheFindingsItsThreadFound) {
  int seen = 0;
  for (const auto& [name, c] : cases()) {
    SCOPED_TRACE(name);
    doctor::Request r;
    r.from = fixture("doctor/collect_env/" + name);
    auto report = doctor::run(r);
    ASSERT_TRUE(report) << report.error().message;
    ++seen;
    for (const auto& [id, want] : c.verdicts) EXPECT_EQ(verdict(*report, id), want) << id;
    if (c.clean) {
      for (const auto& f : report->findings)
        EXPECT_TRUE(f.status == doctor::Verdict::ok || f.status == doctor::Verdict::skip) << f.id << ": " << f.summary;
    }
  }
  EXPECT_EQ(seen, 9);
}

TEST(DoctorCollectEnv, FieldsOfBothEras) {
  auto e = doctor::parse_collect_env("PyTorch version 1.5.0\nIs CUDA available: No\nGPU models and configuration:\n"
                                     "GPU 0\xef\xbc\x9a Tesla P100-PCIE-16GB\nNvidia driver version: 410.104\n",
                                     "old.txt");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->get("PyTorch version"), "1.5.0");
  ASSERT_EQ(e->gpus.size(), 1u);
  EXPECT_EQ(e->gpus[0], "Tesla P100-PCIE-16GB");
  const auto s = doctor::stack_of(*e);
  EXPECT_EQ(s.cuda_available, false);
  // vLLM's build flags name the build a plain version does not.
  auto v = doctor::parse_collect_env("PyTorch version: 2.6.0+rocm6.1\nIs CUDA available: True\nvLLM Version: 0.6.2\n"
                                     "vLLM Build Flags:\nCUDA Archs: Not Set; ROCm: Disabled; Neuron: Disabled\n",
                                     "new.txt");
  ASSERT_TRUE(v);
  const auto stack = doctor::stack_of(*v);  // named: find() points into it
  const auto* vllm = stack.find("vllm");
  ASSERT_NE(vllm, nullptr);
  EXPECT_EQ(vllm->kind, stack::BuildKind::cuda);
}

TEST(DoctorCollectEnv, AFragmentWithoutTorchsLinesIsRefused) {
  for (const char* tail : {"vllm-8788-rocm61-gfx1103-gentoo.tail.txt", "vllm-15435-h100x8-cu124.tail.txt"}) {
    doctor::Request r;
    r.from = fixture(std::string("doctor/collect_env/") + tail);
    auto report = doctor::run(r);
    ASSERT_FALSE(report) << tail;
    EXPECT_NE(report.error().message.find("not a collect_env output"), std::string::npos);
  }
}

TEST(PastedReaders, EachRefusesItsNeighboursFormats) {
  const std::vector<std::string> collect_env = {fixture("doctor/collect_env/vllm-15435-h100x8-cu124.txt")};
  const std::vector<std::string> captures = {
      fixture("telemetry/public/nvidia-smi-a-8xa100-sxm4-40gb-535.129.03.txt"),
      fixture("telemetry/public/rocm-smi-json-allinfo-mi50-32gb-drv5.9.17.json"),
      fixture("telemetry/public/nvidia-smi-topo-m-2x1080ti-phb-numa-na.txt")};
  const std::vector<std::string> logs = {fixture("vllm-logs/collected/kubesimplify-rtxpro6000-qwen3-32b-tp2.txt"),
                                         fixture("vllm-logs/collected/selfllm-a100-80g-phi4-bnb4-v082-v0-cuda-blocks.txt")};
  for (const auto& f : captures) {
    SCOPED_TRACE(f);
    doctor::Request r;
    r.from = f;
    EXPECT_FALSE(doctor::run(r)) << "doctor --from read a tool capture as collect_env";
    EXPECT_FALSE(plan::read_vllm_log(f)) << "plan --check-log read a tool capture as a vLLM log";
  }
  for (const auto& f : logs) {
    SCOPED_TRACE(f);
    doctor::Request r;
    r.from = f;
    EXPECT_FALSE(doctor::run(r));
    EXPECT_FALSE(telemetry::read_capture_file(f)) << "telemetry --from read a vLLM log";
  }
  for (const auto& f : collect_env) {
    SCOPED_TRACE(f);
    EXPECT_FALSE(telemetry::read_capture_file(f)) << "telemetry --from read a collect_env";
    EXPECT_FALSE(plan::read_vllm_log(f)) << "plan --check-log read a collect_env";
  }
}
