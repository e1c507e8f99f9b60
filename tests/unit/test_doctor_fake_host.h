#pragma once
// A fake host for doctor's tests: a copy of tests/fixtures/doctor/<fixture> (or an empty tree) in
// the test's own TempDir, changed one file at a time, and the Request that examines it offline.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "doctor/render.h"
#include "doctor/run.h"
#include "tempdir.h"

namespace doctor_test {

namespace fs = std::filesystem;
using namespace dcukit::doctor;

class FakeHost {
public:
  /// A copy of the fixture ("dcu-k100ai"), or an empty tree for "".
  explicit FakeHost(const std::string& fixture = "dcu-k100ai") : m_dir(std::make_unique<testutil::TempDir>("doctor")) {
    fs::create_directories(root());
    if (!fixture.empty())
      fs::copy(std::string(DCUKIT_FIXTURES) + "/doctor/" + fixture, root(),
               fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    for (const char* n : {"/dev/kfd", "/dev/dri/renderD128", "/dev/dri/renderD129"})
      if (fs::exists(path(n))) chmod(n, 0666);
    env = {{"PATH", "/opt/dtk/bin:/usr/local/bin:/usr/bin:/bin"}, {"ROCM_PATH", "/opt/dtk"}};
    identity.uid = 1000;
    identity.gids = {1000, 44};
    identity.user = "alice";
    mem_policy = MemPolicy{"default", {}};
  }

  /// The folder that stands for "/".
  std::string root() const { return m_dir->file("root"); }
  /// Where a host path is in the tree.
  std::string path(const std::string& host_path) const { return root() + host_path; }
  /// Writes a file (making its folders).
  void write(const std::string& host_path, const std::string& content) const {
    fs::create_directories(fs::path(path(host_path)).parent_path());
    std::ofstream(path(host_path), std::ios::binary) << content;
  }
  /// Makes a symlink (replacing what is there).
  void link(const std::string& host_path, const std::string& target) const {
    fs::create_directories(fs::path(path(host_path)).parent_path());
    std::error_code ec;
    fs::remove(path(host_path), ec);
    fs::create_symlink(target, path(host_path));
  }
  void remove(const std::string& host_path) const { fs::remove_all(path(host_path)); }
  void chmod(const std::string& host_path, unsigned mode) const { ::chmod(path(host_path).c_str(), mode); }
  /// A file the test owns outside the tree (a fake python3), made executable.
  std::string script(const std::string& name, const std::string& body) const {
    const std::string p = m_dir->write("bin/" + name, body);
    ::chmod(p.c_str(), 0755);
    return p;
  }

  /// The Request that examines this tree, as the tests set it up.
  Request request() const {
    Request r;
    r.root = root();
    r.env = env;
    r.identity = identity;
    r.mem_policy = mem_policy;
    r.python_probe = !python.empty();
    r.python = python;
    r.smoke = false;
    r.python_timeout = std::chrono::milliseconds(10000);
    return r;
  }
  /// doctor::run on the tree; a test fails at once when it is refused.
  Report run() const {
    auto r = dcukit::doctor::run(request());
    if (!r) ADD_FAILURE() << r.error().message;
    return r ? *r : Report{};
  }

  std::map<std::string, std::string> env;
  Identity identity;
  std::optional<MemPolicy> mem_policy;
  std::string python;  ///< a fake interpreter; empty: no probe

private:
  std::unique_ptr<testutil::TempDir> m_dir;  ///< behind a pointer, so that a FakeHost can be returned
};

/// The finding with this id (and subject, when given), or nullptr.
inline const Finding* find(const Report& r, const std::string& id, const std::string& subject = "") {
  for (const auto& f : r.findings)
    if (f.id == id && (subject.empty() || f.subject == subject)) return &f;
  return nullptr;
}

/// The finding's status, or "absent".
inline std::string status(const Report& r, const std::string& id, const std::string& subject = "") {
  const Finding* f = find(r, id, subject);
  return f ? std::string(to_string(f->status)) : "absent";
}

/// Every finding, for failure messages.
inline std::string dump(const Report& r) {
  return render_text(r, true);
}

}  // namespace doctor_test
