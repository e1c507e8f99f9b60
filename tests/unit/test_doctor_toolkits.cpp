// doctor's toolkit checks on the fake DCU host with two DTKs: the installs, the compiler first on
// PATH, the runtime the loader resolves (LD_LIBRARY_PATH, ld.so.conf and its includes), seed 004's
// compiler/runtime mismatch, and the driver against the toolkit from the data tables.
#include "doctor/compat.h"
#include "doctor/toolkits.h"
#include "stack/python.h"
#include "test_doctor_fake_host.h"
#include "util/root.h"

using namespace doctor_test;

TEST(DoctorToolkits, FindsBothDtksWithTheirVersions) {
  FakeHost h;
  const auto t = discover_toolkits(dcukit::util::Root(h.root()), h.env);
  ASSERT_EQ(t.installs.size(), 2u);
  EXPECT_EQ(t.installs[0].path, "/opt/dtk-24.04.3");
  EXPECT_EQ(t.installs[0].version, "24.04.3");
  EXPECT_EQ(t.installs[0].hip_version, "5.7.0");
  EXPECT_EQ(t.installs[1].path, "/opt/dtk-25.04.4");  // /opt/dtk, /opt/dtk-25.04.4 and $ROCM_PATH are one install
  EXPECT_EQ(t.installs[1].names, (std::vector<std::string>{"/opt/dtk", "/opt/dtk-25.04.4", "$ROCM_PATH"}));
  EXPECT_EQ(t.installs[1].kind, ToolkitKind::dtk);
  EXPECT_EQ(t.installs[1].version_source, "/opt/dtk-25.04.4/.info/version");
  ASSERT_TRUE(t.hipcc.has_value());
  EXPECT_EQ(t.hipcc->path, "/opt/dtk/bin/hipcc");
  EXPECT_EQ(t.hipcc->canonical, "/opt/dtk-25.04.4/bin/hipcc");
  EXPECT_EQ(t.install_of(t.hipcc)->version, "25.04.4");
  ASSERT_TRUE(t.hip_runtime.has_value());
  EXPECT_EQ(t.hip_runtime->path, "/opt/dtk-24.04.3/lib/libamdhip64.so.5");  // the soname link
  EXPECT_EQ(t.hip_runtime->canonical, "/opt/dtk-24.04.3/lib/libamdhip64.so.5.7.0");
  EXPECT_EQ(t.hip_runtime->via, "/etc/ld.so.conf.d/dtk.conf");
  EXPECT_FALSE(t.nvcc.has_value());
  EXPECT_FALSE(t.cuda_runtime.has_value());
}

TEST(DoctorToolkits, TheLoaderSearchesInItsOrder) {
  FakeHost h;
  const auto dirs = loader_search_path(dcukit::util::Root(h.root()), "/opt/a:/opt/b;/opt/c:relative");
  ASSERT_GE(dirs.size(), 6u);
  EXPECT_EQ(dirs[0].dir, "/opt/a");
  EXPECT_EQ(dirs[2].dir, "/opt/c");
  EXPECT_EQ(dirs[2].via, "LD_LIBRARY_PATH");
  EXPECT_EQ(dirs[3].dir, "/opt/dtk-24.04.3/lib");  // dtk.conf sorts before x86_64-linux-gnu.conf
  EXPECT_EQ(dirs[4].dir, "/usr/local/lib/x86_64-linux-gnu");
  EXPECT_EQ(dirs.back().via, "default folder");
}

TEST(DoctorToolkits, CompilerFromOneDtkRuntimeFromAnotherFails) {
  FakeHost h;
  auto r = h.run();
  const Finding* f = find(r, "toolkit.mismatch");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "hipcc from DTK 25.04.4 (/opt/dtk-25.04.4), libamdhip64 from DTK 24.04.3 (/opt/dtk-24.04.3)");
  EXPECT_EQ(f->fix, "source /opt/dtk-25.04.4/env.sh   # one DTK for compiling and running");
  EXPECT_NE(f->why.find("seed 004"), std::string::npos);
  // ROCM_PATH names 25.04.4 while the loader takes 24.04.3.
  EXPECT_EQ(status(r, "toolkit.env"), "warn");
  EXPECT_EQ(status(r, "toolkit.installs"), "ok");
  EXPECT_EQ(find(r, "toolkit.installs")->summary,
            "DTK 24.04.3 (/opt/dtk-24.04.3), DTK 25.04.4 (/opt/dtk-25.04.4) (2 DTK/ROCm: see toolkit.mismatch)");

  // Loading the DTK's environment puts its lib first: compiler and runtime agree.
  h.env["LD_LIBRARY_PATH"] = "/opt/dtk/lib";
  r = h.run();
  EXPECT_EQ(status(r, "toolkit.mismatch"), "ok") << dump(r);
  EXPECT_EQ(status(r, "toolkit.env"), "ok");
  EXPECT_EQ(find(r, "toolkit.runtime")->summary, "libamdhip64 from /opt/dtk-25.04.4/lib");
}

TEST(DoctorToolkits, EnvironmentThatNamesNothingOrDisagrees) {
  FakeHost h;
  h.env["LD_LIBRARY_PATH"] = "/opt/dtk/lib";
  h.env["DTK_HOME"] = "/opt/dtk-26.04";
  auto r = h.run();
  EXPECT_EQ(status(r, "toolkit.env"), "fail") << dump(r);
  EXPECT_NE(find(r, "toolkit.env")->summary.find("DTK_HOME names a missing folder"), std::string::npos);
  h.env["DTK_HOME"] = "/opt/dtk-24.04.3";
  r = h.run();
  EXPECT_EQ(status(r, "toolkit.env"), "warn");
  EXPECT_NE(find(r, "toolkit.env")->summary.find("DTK_HOME and ROCM_PATH name different installs"), std::string::npos);
  h.env.erase("DTK_HOME");
  h.env.erase("ROCM_PATH");
  r = h.run();
  EXPECT_NE(find(r, "toolkit.env")->summary.find("neither ROCM_PATH nor DTK_HOME is set"), std::string::npos);
}

TEST(DoctorToolkits, NoCompilerOnPathWarnsOnADcuHost) {
  FakeHost h;
  h.env["PATH"] = "/usr/bin:/bin";
  const auto r = h.run();
  const Finding* f = find(r, "toolkit.compiler");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_EQ(f->fix, "source /opt/dtk-25.04.4/env.sh   # one DTK for compiling and running");
  EXPECT_EQ(status(r, "toolkit.mismatch"), "skip");
}

TEST(DoctorToolkits, TheDistributionsHipccBeforeAnInstallIsNotTheSameInstall) {
  // Debian's /usr/bin/hipcc first on PATH, the runtime from a DTK: not "the same install".
  FakeHost h;
  h.write("/usr/bin/hipcc", "#!/bin/sh\n");
  h.chmod("/usr/bin/hipcc", 0755);
  h.env["PATH"] = "/usr/bin:/opt/dtk/bin:/bin";
  const auto r = h.run();
  const Finding* f = find(r, "toolkit.mismatch");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_NE(f->summary.find("/usr/bin/hipcc"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("in no DTK, ROCm or CUDA install"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("not the same install"), std::string::npos) << f->summary;
}

TEST(DoctorToolkits, TheDcuDriverAgainstTheDtk) {
  FakeHost h;
  h.env["LD_LIBRARY_PATH"] = "/opt/dtk/lib";
  auto r = h.run();  // K100-AI (gfx928), hycu 6.3.28, DTK 25.04.4: the 24.04 row asks 6.2.26
  const Finding* f = find(r, "toolkit.dcu_driver");
  EXPECT_EQ(to_string(f->status), "ok") << dump(r);
  EXPECT_EQ(f->summary, "driver 6.3.28-V1.3.0b with DTK 25.04.4");
  h.write("/sys/module/hycu/version", "6.2.20-V1.0.0\n");
  r = h.run();
  f = find(r, "toolkit.dcu_driver");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "driver 6.2.20-V1.0.0 is older than DTK 25.04.4 needs on K100-AI (>= 6.2.26)");
  EXPECT_NE(f->fix.find("6.2.26"), std::string::npos);
}

TEST(DoctorToolkits, TheCudaDriverAgainstTheRuntime) {
  FakeHost h("");
  const std::string dev = "/sys/devices/pci0000:00/0000:00:01.0/0000:18:00.0";
  h.write(dev + "/class", "0x030200\n");
  h.write(dev + "/vendor", "0x10de\n");
  h.link("/sys/bus/pci/devices/0000:18:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:18:00.0");
  h.write("/usr/local/cuda-12.4/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}})");
  h.write("/usr/local/cuda-12.4/bin/nvcc", "");
  h.chmod("/usr/local/cuda-12.4/bin/nvcc", 0755);
  h.write("/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", "");
  h.link("/usr/local/cuda-12.4/lib64/libcudart.so.12", "libcudart.so.12.4.127");
  h.env = {{"PATH", "/usr/local/cuda-12.4/bin:/usr/bin"}, {"LD_LIBRARY_PATH", "/usr/local/cuda-12.4/lib64"}};
  auto banner = [&](const std::string& v) {
    h.write("/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + v + "  Release Build\n");
    return h.run();
  };
  auto r = banner("550.54.15");
  EXPECT_EQ(status(r, "toolkit.cuda_driver"), "ok") << dump(r);
  EXPECT_EQ(status(r, "toolkit.mismatch"), "ok");
  r = banner("535.104.05");  // 12.x runs on 535 through minor-version compatibility
  EXPECT_EQ(status(r, "toolkit.cuda_driver"), "warn") << dump(r);
  r = banner("470.82.01");
  const Finding* f = find(r, "toolkit.cuda_driver");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "CUDA 12.4.127 runtime on driver 470.82.01 (needs 550.54.14)");
  EXPECT_NE(f->fix.find("at most 11.4"), std::string::npos);
}

TEST(DoctorCompat, VersionsAndTags) {
  EXPECT_EQ(version_numbers("6.3.28-V1.3.0b"), (std::vector<int>{6, 3, 28}));
  EXPECT_EQ(version_numbers("25.04.4"), (std::vector<int>{25, 4, 4}));
  EXPECT_TRUE(version_numbers("V1").empty());
  EXPECT_LT(compare_versions("6.2.26", "6.3.8"), 0);
  EXPECT_EQ(compare_versions("12.4", "12.4.0"), 0);
  EXPECT_GT(compare_versions("550.54.15", "550.54.14"), 0);
  EXPECT_TRUE(version_has_prefix("25.04.4", "25.04"));
  EXPECT_FALSE(version_has_prefix("25.04", "25.04.4"));
  EXPECT_EQ(dtk_of_tag("das.opt1.dtk2604"), "26.04");
  EXPECT_EQ(dtk_of_tag("das.opt1.dtk25041"), "25.04.1");
  EXPECT_EQ(dtk_of_tag("das1.0+git00661e0.abi0.dtk2404"), "24.04");
  EXPECT_EQ(dtk_of_tag("cu124"), "");
  EXPECT_EQ(torch_of_tag("das.opt1.dtk2604.torch290.2604300943.gc37c96"), "2.9.0");
  EXPECT_EQ(torch_of_tag("das.opt1.dtk2604.torch2100"), "2.10.0");
  EXPECT_EQ(torch_of_tag("das.opt1.dtk2604"), "");
}

TEST(DoctorCompat, TheBuiltInTablesAndTheirRules) {
  const auto& d = compat_data();
  ASSERT_EQ(d.dcu.size(), 5u);
  EXPECT_NE(d.dcu_source.find("specs.md"), std::string::npos);
  EXPECT_FALSE(d.cuda.empty());
  EXPECT_NE(d.cuda_source.find("Release Notes"), std::string::npos);
  const DcuPair* k100ai = dcu_rule(d, "25.04.4", "gfx928", "K100_AI");
  ASSERT_NE(k100ai, nullptr);
  EXPECT_EQ(k100ai->min_driver, "6.2.26");
  const DcuPair* bw = dcu_rule(d, "25.04.2", "gfx936", "BW");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->min_driver, "6.3.8");
  EXPECT_EQ(dcu_rule(d, "24.04", "gfx936", "BW"), nullptr);  // older than BW1000's first pair
  const DcuPair* bw1100 = dcu_rule(d, "26.04", "", "BW1100");
  ASSERT_NE(bw1100, nullptr);
  EXPECT_EQ(bw1100->min_driver, "6.3.30");
  EXPECT_EQ(cuda_of_driver(d, "550.54.15"), "12.4");
  EXPECT_EQ(cuda_of_driver(d, "400.0"), "9.2");  // 9.2 needs 396.26, 10.0 needs 410.48
  EXPECT_EQ(cuda_of_driver(d, "380.0"), "");
  ASSERT_NE(cuda_rule(d, "10.2"), nullptr);
  EXPECT_EQ(cuda_rule(d, "10.2")->min_driver, "440.33");
  ASSERT_NE(cuda_rule(d, "12.4.1"), nullptr);
  EXPECT_EQ(cuda_rule(d, "12.4.1")->min_driver, "550.54.14");
  auto bad = parse_compat(R"({"pairs": [{"card": "X", "dtk": "x", "min_driver": "1", "source": "s"}]})", "{}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not a version"), std::string::npos);
}

TEST(DoctorCompat, EveryHygonWheelTagInTheSamples) {
  DCUKIT_REQUIRE_SHARED(dir, "samples/dcu-misc");
  std::ifstream in(dir + "/pip-list-das-dtk2604-version-strings-excerpt.txt");
  std::string line;
  int das = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.find("das") == std::string::npos) continue;
    const std::string version = line.substr(line.find_last_of(' ') + 1);
    const std::string tag = dcukit::stack::build_tag(version);
    EXPECT_EQ(dtk_of_tag(tag), "26.04") << line;
    const std::string torch = torch_of_tag(tag);
    if (line.rfind("torch ", 0) != 0) {
      EXPECT_EQ(torch, "2.9.0") << line;
    }
    ++das;
  }
  EXPECT_EQ(das, 17);  // the das builds in the excerpt, counted by hand
}
