// Translations compiled with hipcc for gfx906 and gfx90a (skipped where no hipcc is installed):
// a translation that does not compile is a failing test. Two sources: a small CUDA program of
// ours, and the backend's own memory kernels (src/device/cuda/kernels.cu with its headers).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "port/lexer.h"
#include "port/port.h"
#include "tempdir.h"

namespace fs = std::filesystem;

namespace {

/// hipcc from $DCUKIT_HIPCC, Debian's /usr/bin/hipcc, or ROCm's and DTK's usual places.
std::string find_hipcc() {
  if (const char* env = std::getenv("DCUKIT_HIPCC"); env && *env && fs::exists(env)) return env;
  for (const char* p : {"/usr/bin/hipcc", "/opt/rocm/bin/hipcc", "/opt/dtk/bin/hipcc"})
    if (fs::exists(p)) return p;
  return "";
}

/// Compiles `source` (-c) for both targets with a deadline; returns the exit code, output in `log`.
/// hipcc's temporary files (one folder per offload target) go beside the log, inside the test's
/// own folder, so that nothing is left in $TMPDIR.
int compile(const std::string& hipcc, const std::string& source, const std::string& flags, const std::string& log) {
  const std::string tmp = log.substr(0, log.find_last_of('/'));
  const std::string cmd = "TMPDIR='" + tmp + "' timeout 600 " + hipcc +
                          " --offload-arch=gfx906 --offload-arch=gfx90a -std=c++20 " + flags + " -c '" + source +
                          "' -o '" + source + ".o' > '" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// vendor.h without its name mapping (the `#define cudaX hipY` lines and the mask-dropping
/// `*_sync` macro): what is left is the hand-written HIP code a translation cannot produce.
std::string vendor_without_mapping(const std::string& text) {
  const auto f = dcukit::port::lex(text);
  std::set<int> drop;
  for (const auto& d : f.directives) {
    if (d.name != "define") continue;
    const std::string& name = f.tokens[d.first].text;
    if (name.rfind("cu", 0) == 0 || (name.size() > 5 && name.compare(name.size() - 5, 5, "_sync") == 0))
      for (int l = d.line; l <= d.last_line; ++l) drop.insert(l);
  }
  std::string out;
  for (int l = 1; l <= f.line_count; ++l)
    if (!drop.count(l)) out += std::string(dcukit::port::line_text(text, f, l)) + "\n";
  return out;
}

}  // namespace

TEST(PortHipcc, TranslatedProgramCompiles) {
  const std::string hipcc = find_hipcc();
  if (hipcc.empty()) GTEST_SKIP() << "no hipcc (install Debian's hipcc or set DCUKIT_HIPCC); skipping";
  testutil::TempDir dir("port_hipcc");
  dcukit::port::TranslateRequest o;
  o.inputs = {std::string(DCUKIT_FIXTURES) + "/port/reduce.cu"};
  o.output = dir.file("reduce.hip.cu");
  auto r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->files[0].untranslated.empty());
  EXPECT_EQ(r->files[0].masks_dropped, 2);
  EXPECT_EQ(compile(hipcc, o.output, "", dir.file("hipcc.log")), 0) << slurp(dir.file("hipcc.log"));
}

TEST(PortHipcc, TranslatedBackendKernelsCompileWithoutTheVendorMapping) {
  const std::string hipcc = find_hipcc();
  if (hipcc.empty()) GTEST_SKIP() << "no hipcc (install Debian's hipcc or set DCUKIT_HIPCC); skipping";
  testutil::TempDir dir("port_hipcc");
  const std::string src = std::string(DCUKIT_SOURCE_DIR) + "/src";
  dcukit::port::TranslateRequest o;
  o.inputs = {src + "/device/cuda/kernels.cu", src + "/device/cuda/kernels.cuh", src + "/device/cuda/common.cuh"};
  o.out_dir = dir.file("src/device/cuda");
  auto r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  // The names come from the table; the vendor header keeps only its hand-written HIP code
  // (the streaming loads and stores, load_l2_256, DCUKIT_WARP_SIZE).
  dir.write("src/device/hip/vendor.h", vendor_without_mapping(slurp(src + "/device/hip/vendor.h")));
  const std::string flags = "-DDCUKIT_HIP -I'" + dir.file("src") + "' -I'" + src + "'";
  EXPECT_EQ(compile(hipcc, dir.file("src/device/cuda/kernels.cu"), flags, dir.file("hipcc.log")), 0)
      << slurp(dir.file("hipcc.log"));
  EXPECT_EQ(slurp(dir.file("src/device/hip/vendor.h")).find("#define cudaStream_t"), std::string::npos);
}

TEST(PortHipcc, ASourceThatReliedOnNvccsImplicitRuntimeHeaderCompiles) {
  // As BabelStream's CUDA model does: no #include of cuda_runtime.h (nvcc includes it), runtime
  // types, a kernel and a launch. hipcc includes nothing, so the translation must add it.
  const std::string hipcc = find_hipcc();
  if (hipcc.empty()) GTEST_SKIP() << "no hipcc (install Debian's hipcc or set DCUKIT_HIPCC); skipping";
  testutil::TempDir dir("port_hipcc");
  const std::string in = dir.write("stream.cu", R"(#include <cstdio>
#include <cstdlib>
#define TBSIZE 1024
void check_error(void) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "Error: %s\n", cudaGetErrorString(err));
    std::exit(err);
  }
}
template <class T>
__global__ void copy_kernel(const T* a, T* c) {
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  c[i] = a[i];
}
void copy(const double* a, double* c, int n) {
  copy_kernel<<<n / TBSIZE, TBSIZE>>>(a, c);
  check_error();
  cudaDeviceSynchronize();
  check_error();
}
)");
  dcukit::port::TranslateRequest o;
  o.inputs = {in};
  o.output = dir.file("stream.hip.cu");
  auto r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->files[0].runtime_include_added);
  EXPECT_EQ(compile(hipcc, o.output, "", dir.file("hipcc.log")), 0) << slurp(dir.file("hipcc.log"));
}
