#pragma once
// A fresh folder for one test, under $TMPDIR (gtest's TempDir()), made with mkdtemp so that
// concurrent test processes and earlier runs never share a name. Removed when the test passed;
// kept, and its path printed, when it failed, so that its files can be read.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace testutil {

class TempDir {
public:
  /// Makes <TMPDIR>/dcukit_<tag>_XXXXXX.
  explicit TempDir(const std::string& tag = "test") {
    std::string pattern = ::testing::TempDir();
    if (!pattern.empty() && pattern.back() != '/') pattern += '/';
    pattern += "dcukit_" + tag + "_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    m_path = pattern;
  }
  ~TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const bool failed = info && info->result() && info->result()->Failed();
    if (failed || ::getenv("DCUKIT_KEEP_TEST_FILES")) {
      std::fprintf(stderr, "test files kept in %s\n", m_path.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The folder, without a trailing slash.
  const std::string& path() const { return m_path; }
  /// path() + "/" + name.
  std::string file(const std::string& name) const { return m_path + "/" + name; }
  /// Writes `content` to file(name) and returns that path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::string p = file(name);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  /// The content of file(name), or "" when it does not exist.
  std::string read(const std::string& name) const {
    std::ifstream in(file(name), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

private:
  std::string m_path;
};

/// The repository's ../shared folder (real servers, tool captures, CUDA corpus, vLLM logs), or ""
/// when it is absent, as in a user's clone. Tests that need it call GTEST_SKIP() with a message.
inline std::string shared_dir() {
  namespace fs = std::filesystem;
  if (const char* env = ::getenv("DCUKIT_SHARED"); env && *env) return fs::is_directory(env) ? env : "";
  const fs::path p = fs::path(DCUKIT_SOURCE_DIR).parent_path() / "shared";
  return fs::is_directory(p) ? p.string() : "";
}

}  // namespace testutil

/// Skips the test unless ../shared/<sub> exists; sets `var` to its path.
#define DCUKIT_REQUIRE_SHARED(var, sub)                                                                  \
  const std::string var = testutil::shared_dir().empty() ? "" : testutil::shared_dir() + "/" + (sub);    \
  if (var.empty() || !std::filesystem::exists(var))                                                      \
  GTEST_SKIP() << "../shared/" << (sub) << " is absent (a user's clone has no ../shared); skipping"
