// doctor's Python checks with fake interpreters answering the probe: a CUDA torch on a DCU host,
// Hygon's torch for another DTK, a wrong ISA, no bf16, packages built for another torch, and an
// interpreter that hangs.
#include <algorithm>

#include "doctor/python_stack.h"
#include "test_doctor_fake_host.h"
#include "no_hang.h"

using namespace doctor_test;

namespace {

/// A fake python3 printing the probe's answer `json` (on one line, as the probe prints it).
std::string answering(const FakeHost& h, std::string json) {
  std::replace(json.begin(), json.end(), '\n', ' ');
  return h.script("python3", "#!/bin/sh\necho 'import chatter'\ncat <<'EOF'\nDCUKIT_STACK_PROBE " + json + "\nEOF\n");
}

/// A DTK-consistent answer for the fixture (DTK 25.04.4, HIP 6.2, two gfx928 cards), with `extra` fields replaced.
std::string dtk_answer(const std::string& torch = R"({"version": "2.4.1", "dist_version": "2.4.1+das.opt1.dtk25044"})",
                       const std::string& hip = "6.2.41134", const std::string& arch = "gfx928:sramecc+:xnack-",
                       const std::string& bf16 = "true", const std::string& packages = "[]") {
  return R"({"python": "3.10.12", "torch": )" + torch + R"(, "torch_cuda": null, "torch_hip": ")" + hip +
         R"(", "cuda_available": true, "devices": [{"index": 0, "name": "K100_AI", "arch": ")" + arch +
         R"("}, {"index": 1, "name": "K100_AI", "arch": ")" + arch + R"("}], "bf16": )" + bf16 + R"(, "packages": )" +
         packages + "}";
}

FakeHost consistent_host() {
  FakeHost h;
  h.env["LD_LIBRARY_PATH"] = "/opt/dtk/lib";  // DTK 25.04.4 for compiling and running
  return h;
}

}  // namespace

TEST(DoctorPython, AHygonStackThatLinesUp) {
  FakeHost h = consistent_host();
  h.python = answering(h, dtk_answer());
  const auto r = h.run();
  EXPECT_EQ(status(r, "python.interpreter"), "ok") << dump(r);
  EXPECT_EQ(find(r, "python.torch")->summary, "torch 2.4.1 (DTK build)");  // the tag from the distribution
  EXPECT_EQ(status(r, "python.torch_runtime"), "ok");
  EXPECT_EQ(find(r, "python.cuda_available")->summary, "torch sees 2 devices");
  EXPECT_EQ(find(r, "python.arch")->summary, "torch's arch matches the cards (gfx928)");
  EXPECT_EQ(status(r, "python.bf16"), "ok");
}

TEST(DoctorPython, ACudaTorchOnADcuHostFailsWithThePipCommand) {
  FakeHost h = consistent_host();
  h.python = std::string(DCUKIT_FIXTURES) + "/doctor/bin/python3-cuda-torch";
  const auto r = h.run();
  const Finding* f = find(r, "python.torch");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "a CUDA build of torch on a Hygon DCU host");
  EXPECT_NE(f->fix.find("-m pip uninstall -y torch"), std::string::npos) << f->fix;
  EXPECT_NE(f->fix.find("torch-*dtk25044*-cp310-*.whl"), std::string::npos) << f->fix;
  EXPECT_NE(f->fix.find("DTK 25.04.4"), std::string::npos);
  EXPECT_NE(f->why.find("seeds 000 and 004"), std::string::npos);
  EXPECT_EQ(status(r, "python.cuda_available"), "fail");
  EXPECT_EQ(status(r, "python.packages", "vllm"), "skip");
}

TEST(DoctorPython, TorchForAnotherDtkOrHipFails) {
  FakeHost h = consistent_host();
  h.python = answering(h, dtk_answer(R"({"version": "2.4.1+das.opt1.dtk2404"})", "5.7.24311"));
  const auto r = h.run();
  const Finding* f = find(r, "python.torch_runtime");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_NE(f->summary.find("torch is built for HIP 5.7.24311 but the toolkit has HIP 6.2.0"), std::string::npos);
  EXPECT_NE(f->summary.find("torch is built for DTK 24.04 (das.opt1.dtk2404) but DTK 25.04.4 is in use"),
            std::string::npos);
  // The same DTK line with another patch level is a warning.
  FakeHost near = consistent_host();
  near.python = answering(near, dtk_answer(R"({"version": "2.4.1+das.opt1.dtk25041"})"));
  EXPECT_EQ(status(near.run(), "python.torch_runtime"), "warn");
}

TEST(DoctorPython, AWrongIsaAndNoBf16) {
  FakeHost h = consistent_host();
  h.env["HSA_OVERRIDE_GFX_VERSION"] = "9.0.6";
  h.python = answering(h, dtk_answer(R"({"version": "2.4.1+das.opt1.dtk25044"})", "6.2.41134", "gfx906", "false"));
  const auto r = h.run();
  const Finding* arch = find(r, "python.arch");
  EXPECT_EQ(to_string(arch->status), "fail") << dump(r);
  EXPECT_EQ(arch->summary, "torch reports gfx906 but the cards are gfx928");
  EXPECT_EQ(arch->fix, "unset HSA_OVERRIDE_GFX_VERSION");
  const Finding* bf16 = find(r, "python.bf16");
  EXPECT_EQ(to_string(bf16->status), "warn");
  EXPECT_NE(bf16->fix.find("--dtype float16"), std::string::npos);
}

TEST(DoctorPython, ServingPackagesBuiltForAnotherStack) {
  FakeHost h = consistent_host();
  const std::string packages = R"([
    {"name": "vllm", "version": "0.8.5+das.opt1.dtk25044", "dist_version": "0.8.5+das.opt1.dtk25044"},
    {"name": "flash_attn", "version": "2.6.3+das.opt1.dtk25044.torch230"},
    {"name": "triton", "version": "3.0.0", "dist_version": "3.0.0"},
    {"name": "lmdeploy", "error": "ImportError: libcudart.so.12: cannot open shared object file", "dist_version": "0.6.0"},
    {"name": "xformers", "version": "0.0.28+cu124"}])";
  h.python = answering(h, dtk_answer(R"({"version": "2.4.1", "dist_version": "2.4.1+das.opt1.dtk25044"})", "6.2.41134",
                                     "gfx928", "true", packages));
  const auto r = h.run();
  EXPECT_EQ(status(r, "python.packages", "vllm"), "ok") << dump(r);
  const Finding* fa = find(r, "python.packages", "flash_attn");
  EXPECT_EQ(to_string(fa->status), "fail");
  EXPECT_NE(fa->summary.find("built against torch 2.3.0 while torch 2.4.1 is installed"), std::string::npos);
  EXPECT_EQ(status(r, "python.packages", "triton"), "warn");  // not Hygon's build
  EXPECT_EQ(status(r, "python.packages", "lmdeploy"), "fail");
  EXPECT_NE(find(r, "python.packages", "lmdeploy")->summary.find("installed but does not import"), std::string::npos);
  EXPECT_NE(find(r, "python.packages", "xformers")->summary.find("a CUDA build on a DCU/AMD host"), std::string::npos);
}

TEST(DoctorPython, AHangingInterpreterIsAFailureNotAHang) {
  FakeHost h = consistent_host();
  h.python = h.script("python3", "#!/bin/sh\nsleep " + std::to_string(testutil::kStall.count()) + "\n");
  Request req = h.request();
  req.python_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const auto r = *dcukit::doctor::run(req);
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  const Finding* f = find(r, "python.interpreter");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_NE(f->evidence.front().find("did not answer the probe within 0.3 s"), std::string::npos);
  EXPECT_EQ(status(r, "python.torch"), "skip");
}

TEST(DoctorPython, NoProbeOnAFakeHostUnlessAnInterpreterIsNamed) {
  FakeHost h;
  Request req = h.request();
  req.python_probe = true;
  req.python.clear();
  const auto r = *dcukit::doctor::run(req);
  const Finding* f = find(r, "python.interpreter");
  EXPECT_EQ(to_string(f->status), "skip") << dump(r);
  EXPECT_NE(f->summary.find("pass --python"), std::string::npos);
}

TEST(DoctorPython, PipCommandsForEachPlatform) {
  EXPECT_EQ(dtk_tag_of("26.04"), "dtk2604");
  EXPECT_EQ(dtk_tag_of("25.04.1"), "dtk25041");
  dcukit::stack::PythonStack s;
  s.interpreter = "/venv/bin/python3";
  s.python_version = "3.11.9";
  s.torch_cuda = "12.1";
  EXPECT_EQ(torch_build_of(s), TorchBuild::cuda);
  s.torch.kind = dcukit::stack::BuildKind::dtk;
  EXPECT_EQ(torch_build_of(s), TorchBuild::dtk);
}
