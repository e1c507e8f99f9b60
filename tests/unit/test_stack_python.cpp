// The Python stack probe: fake interpreters on a PATH of the test's own (a DTK stack, a hang, a
// crash, garbage, wrong types), and the real probe script run by the real python3 against fake
// torch and vllm modules.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "stack/python.h"
#include "tempdir.h"
#include "util/process.h"
#include "no_hang.h"

using namespace dcukit::stack;

namespace {

/// Writes an executable `bin/python3` into `dir` with this bash body; returns bin's path.
std::string fake_python(const testutil::TempDir& dir, const std::string& body) {
  const auto path = dir.write("bin/python3", "#!/bin/bash\n" + body);
  ::chmod(path.c_str(), 0755);
  return dir.file("bin");
}

ProbeOptions on(const std::string& bin, int timeout_ms = 10000) {
  ProbeOptions o;
  o.search_path = bin;
  o.timeout = std::chrono::milliseconds(timeout_ms);
  return o;
}

constexpr const char* kDtkAnswer =
    R"({"python": "3.10.12", "torch": {"version": "2.4.1+das.opt2.dtk2504"}, "torch_cuda": null, "torch_hip": "6.2.41134",)"
    R"( "cuda_available": true, "devices": [{"index": 0, "name": "BW", "arch": "gfx936:sramecc+:xnack-"}],)"
    R"( "bf16": true, "packages": [{"name": "vllm", "version": "0.18.1das.dtk2604"},)"
    R"( {"name": "flash_attn", "error": "ModuleNotFoundError: No module named 'flash_attn'"},)"
    R"( {"name": "triton", "version": "3.0.0+das.dtk2504"}, {"name": "lmdeploy", "error": "ImportError: libfoo.so"}]})";

}  // namespace

TEST(StackPython, ReadsADtkStackFromAFakeInterpreter) {
  testutil::TempDir dir("stack");
  // The fake checks it is asked as the probe asks (-c SCRIPT then the packages), prints what
  // imports print, then the answer.
  const auto bin = fake_python(dir, std::string(R"(
[ "$1" = -c ] || exit 3
[ "${*: -4}" = "vllm flash_attn triton lmdeploy" ] || exit 4
echo "INFO 11-30 vllm import chatter"
cat <<'ANSWER'
DCUKIT_STACK_PROBE )") + kDtkAnswer + "\nANSWER\n");
  auto s = probe_python(on(bin));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->interpreter, bin + "/python3");
  EXPECT_EQ(s->python_version, "3.10.12");
  EXPECT_TRUE(s->torch.imported);
  EXPECT_EQ(s->torch.version, "2.4.1+das.opt2.dtk2504");
  EXPECT_EQ(s->torch.tag, "das.opt2.dtk2504");
  EXPECT_EQ(s->torch.kind, BuildKind::dtk);
  EXPECT_EQ(s->torch_hip, "6.2.41134");
  EXPECT_EQ(s->torch_cuda, "");
  EXPECT_EQ(s->cuda_available, true);
  ASSERT_EQ(s->devices.size(), 1u);
  EXPECT_EQ(s->devices[0].arch, "gfx936:sramecc+:xnack-");
  EXPECT_EQ(s->bf16_supported, true);
  ASSERT_EQ(s->packages.size(), 4u);
  const auto* vllm = s->find("vllm");
  ASSERT_NE(vllm, nullptr);
  EXPECT_TRUE(vllm->imported);
  EXPECT_EQ(vllm->tag, "das.dtk2604");
  EXPECT_EQ(vllm->kind, BuildKind::dtk);
  EXPECT_FALSE(s->find("flash_attn")->imported);
  EXPECT_NE(s->find("flash_attn")->error.find("No module named"), std::string::npos);
  EXPECT_EQ(s->find("lmdeploy")->error, "ImportError: libfoo.so");
  EXPECT_EQ(s->find("torch"), &s->torch);
}

TEST(StackPython, AHangingInterpreterIsAnErrorWithinTheDeadline) {
  testutil::TempDir dir("stack");
  const auto bin = fake_python(dir, "sleep " + std::to_string(testutil::kStall.count()) + "\n");
  const auto start = std::chrono::steady_clock::now();
  auto s = probe_python(on(bin, 300));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("did not answer the probe within 0.3 s"), std::string::npos) << s.error().message;
  EXPECT_LT(took, testutil::kNoHang);
}

TEST(StackPython, ACrashingInterpreterSaysWhatItSaidLast) {
  testutil::TempDir dir("stack");
  const auto bin =
      fake_python(dir, "echo 'Traceback (most recent call last):' >&2\necho 'Fatal Python error: bad' >&2\nexit 1\n");
  auto s = probe_python(on(bin));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("exit 1"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("Fatal Python error: bad"), std::string::npos) << s.error().message;
}

TEST(StackPython, GarbageAndWrongTypesAreNoAnswerNotACrash) {
  testutil::TempDir dir("stack");
  auto garbage = probe_python(on(fake_python(dir, "echo hello\n")));
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.error().message.find("gave no probe answer"), std::string::npos);
  auto broken = probe_python(on(fake_python(dir, "echo 'DCUKIT_STACK_PROBE {\"python\": '\n")));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("not its JSON"), std::string::npos);
  auto odd = parse_probe_output(
      "\nDCUKIT_STACK_PROBE {\"python\": 3, \"torch\": 5, \"bf16\": \"yes\", \"devices\": "
      "[5, {\"index\": 1e99}], \"packages\": [5, {\"name\": 3}]}\n",
      "p");
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->python_version, "");
  EXPECT_FALSE(odd->torch.imported);
  EXPECT_FALSE(odd->bf16_supported.has_value());
  ASSERT_EQ(odd->devices.size(), 1u);
  EXPECT_EQ(odd->packages.size(), 1u);
}

TEST(StackPython, AMissingInterpreterIsNamed) {
  testutil::TempDir dir("stack");
  auto s = probe_python(on(dir.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("python3: not found in " + dir.path()), std::string::npos) << s.error().message;
}

TEST(StackPython, TheRealScriptUnderTheRealPython) {
  const auto python = dcukit::util::find_program("python3");
  if (!python) GTEST_SKIP() << "no python3 on this host";
  testutil::TempDir dir("stack");
  // Fake torch and vllm modules: the script's own logic, end to end, without a GPU stack.
  dir.write("mods/torch/__init__.py", R"(__version__ = "2.4.1+das.dtk2504"
class version:
    cuda = None
    hip = "6.2.41134"
class _Props:
    gcnArchName = "gfx928"
    major, minor = 9, 2
class cuda:
    @staticmethod
    def is_available(): return True
    @staticmethod
    def device_count(): return 2
    @staticmethod
    def get_device_properties(i): return _Props()
    @staticmethod
    def get_device_name(i): return "K100_AI"
    @staticmethod
    def is_bf16_supported(): return False
)");
  dir.write("mods/vllm/__init__.py", "print('vllm says hello on stdout')\n__version__ = '0.9.2+das.opt1.dtk2504'\n");
  dir.write("mods/lmdeploy/__init__.py", "raise ImportError('libcudart.so.12: cannot open shared object file')\n");
  ProbeOptions o;
  o.interpreter = *python;
  o.env_add = {"PYTHONPATH=" + dir.file("mods"), "PYTHONNOUSERSITE=1"};
  o.packages = {"vllm", "lmdeploy", "dcukit_no_such_module"};
  auto s = probe_python(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(s->python_version.empty());
  EXPECT_EQ(s->torch.kind, BuildKind::dtk);
  EXPECT_EQ(s->torch_hip, "6.2.41134");
  ASSERT_EQ(s->devices.size(), 2u);
  EXPECT_EQ(s->devices[1].index, 1);
  EXPECT_EQ(s->devices[1].name, "K100_AI");
  EXPECT_EQ(s->devices[1].arch, "gfx928");
  EXPECT_EQ(s->bf16_supported, false);
  ASSERT_EQ(s->packages.size(), 3u);
  EXPECT_EQ(s->packages[0].version, "0.9.2+das.opt1.dtk2504");
  EXPECT_NE(s->packages[1].error.find("ImportError: libcudart.so.12"), std::string::npos) << s->packages[1].error;
  EXPECT_NE(s->packages[2].error.find("dcukit_no_such_module"), std::string::npos);
}

TEST(StackPython, BuildTagsAndKinds) {
  EXPECT_EQ(build_tag("2.4.1+cu124"), "cu124");
  EXPECT_EQ(build_kind(build_tag("2.4.1+cu124")), BuildKind::cuda);
  EXPECT_EQ(build_kind(build_tag("2.4.0+rocm6.0")), BuildKind::rocm);
  EXPECT_EQ(build_tag("0.18.1das.dtk2604"), "das.dtk2604");
  EXPECT_EQ(build_kind("das.dtk2604"), BuildKind::dtk);
  EXPECT_EQ(build_kind(build_tag("2.10.0+dtk2604")), BuildKind::dtk);
  EXPECT_EQ(build_tag("2.4.0"), "");
  EXPECT_EQ(build_tag("2.5.0rc1"), "");
  EXPECT_EQ(build_tag("0.6.3.post1"), "");
  EXPECT_EQ(build_kind(build_tag("2.4.0+cpu")), BuildKind::cpu);
  EXPECT_EQ(build_kind(""), BuildKind::none);
  EXPECT_EQ(to_string(BuildKind::dtk), "dtk");
}

TEST(StackPython, TheTagComesFromTheDistributionWhenVersionIsPlain) {
  auto s = parse_probe_output(
      "\nDCUKIT_STACK_PROBE {\"python\": \"3.10.12\", \"torch\": {\"version\": \"2.4.1\", \"dist_version\": "
      "\"2.4.1+das.opt1.dtk25041\"}, \"packages\": [{\"name\": \"lmdeploy\", \"error\": \"ImportError: x\", "
      "\"dist_version\": \"0.6.0+cu121\"}]}\n",
      "p");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->torch.version, "2.4.1");
  EXPECT_EQ(s->torch.dist_version, "2.4.1+das.opt1.dtk25041");
  EXPECT_EQ(s->torch.tag, "das.opt1.dtk25041");
  EXPECT_EQ(s->torch.kind, BuildKind::dtk);
  ASSERT_EQ(s->packages.size(), 1u);
  EXPECT_FALSE(s->packages[0].imported);  // installed, but it does not import
  EXPECT_EQ(s->packages[0].dist_version, "0.6.0+cu121");
  EXPECT_EQ(s->packages[0].kind, BuildKind::cuda);
  EXPECT_EQ(s->answer.substr(0, 12), "{\"python\": \"");  // kept to be read again from a bundle
  auto again = parse_probe_output(std::string(kProbeMarker) + s->answer + "\n", "p");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->torch.tag, "das.opt1.dtk25041");
}

TEST(StackPython, TheRealScriptReadsDistributionVersions) {
  const auto python = dcukit::util::find_program("python3");
  if (!python) GTEST_SKIP() << "no python3 on this host";
  testutil::TempDir dir("stack");
  // A plain __version__ with the Hygon tag only in the installed metadata, and an installed
  // package whose import fails.
  dir.write("mods/dcukit_fake_pkg/__init__.py", "__version__ = '1.0'\n");
  dir.write("mods/dcukit_fake_pkg-1.0+das.opt1.dtk2604.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: dcukit_fake_pkg\nVersion: 1.0+das.opt1.dtk2604\n");
  dir.write("mods/dcukit_broken_pkg/__init__.py", "raise ImportError('undefined symbol: _ZN3c10')\n");
  dir.write("mods/dcukit_broken_pkg-2.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: dcukit_broken_pkg\nVersion: 2.0\n");
  ProbeOptions o;
  o.interpreter = *python;
  o.env_add = {"PYTHONPATH=" + dir.file("mods"), "PYTHONNOUSERSITE=1"};
  o.packages = {"dcukit_fake_pkg", "dcukit_broken_pkg"};
  auto s = probe_python(o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->packages.size(), 2u);
  EXPECT_EQ(s->packages[0].version, "1.0");
  EXPECT_EQ(s->packages[0].dist_version, "1.0+das.opt1.dtk2604");
  EXPECT_EQ(s->packages[0].tag, "das.opt1.dtk2604");
  EXPECT_FALSE(s->packages[1].imported);
  EXPECT_EQ(s->packages[1].dist_version, "2.0");
  EXPECT_NE(s->packages[1].error.find("undefined symbol"), std::string::npos);
}
